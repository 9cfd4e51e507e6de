// Package importer is the embeddable importer: the page a customer's app
// frames at /embed/{id}, its script, style sheet and message files, and
// the small script a host page includes to open it (importer.js). They are
// embedded in the binary and run by the browser as they are, with no
// build step; the HTTP adapter serves them under a strict policy. The
// page is an ordinary client of the API with an import session's client
// secret, which the host hands it by postMessage, never in a URL.
package importer

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"html/template"
	"io/fs"
	"path"
)

//go:embed page.html assets
var files embed.FS

// File is one asset, ready to serve.
type File struct {
	Body        []byte
	ContentType string
	ETag        string
}

var contentTypes = map[string]string{
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".json": "application/json; charset=utf-8",
}

var assets = func() map[string]File {
	out := map[string]File{}
	err := fs.WalkDir(files, "assets", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := files.ReadFile(name)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(body)
		out[name[len("assets/"):]] = File{Body: body, ContentType: contentTypes[path.Ext(name)], ETag: `"` + hex.EncodeToString(sum[:8]) + `"`}
		return nil
	})
	if err != nil {
		panic("importer assets: " + err.Error()) // embedded files: cannot happen at run time
	}
	return out
}()

// Asset returns the file at name under assets/ ("app.js", "locales/de.json").
func Asset(name string) (File, bool) {
	f, ok := assets[name]
	return f, ok
}

var page = template.Must(template.ParseFS(files, "page.html"))

// Page renders the importer's page for a session: its id, the origins
// that may frame it (the page accepts the secret only from them) and its
// language.
func Page(sessionID string, origins []string, locale string) ([]byte, error) {
	list, err := json.Marshal(origins)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	err = page.Execute(&b, struct {
		Session, Origins, Locale string
	}{sessionID, string(list), locale})
	return b.Bytes(), err
}
