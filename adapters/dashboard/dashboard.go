// Package dashboard is the browser dashboard: one HTML shell, small ES
// modules and one style sheet, embedded in the binary and run by the
// browser as they are, with no build step. The dashboard is an ordinary
// client of the API (cookie session, CSRF token from /auth/me); this
// package only holds its files and knows which paths are its pages. The
// HTTP adapter serves them.
package dashboard

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"html/template"
	"io/fs"
	"path"
	"regexp"
)

//go:embed index.html assets
var files embed.FS

// Files are the dashboard's files: index.html and everything under assets/.
var Files fs.FS = files

// File is one asset, ready to serve.
type File struct {
	Body        []byte
	ContentType string
	ETag        string // a quoted hash of Body, so browsers revalidate cheaply
}

// contentTypes are set explicitly rather than from the system's MIME
// table: browsers refuse to run a module served with any other type.
var contentTypes = map[string]string{
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".svg":  "image/svg+xml",
	".json": "application/json; charset=utf-8", // the spreadsheet's words, the importer's English
}

// assets are read once: the files never change while the binary runs.
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
		out[name[len("assets/"):]] = File{Body: body, ContentType: contentTypes[path.Ext(name)],
			ETag: `"` + hex.EncodeToString(sum[:8]) + `"`}
		return nil
	})
	if err != nil {
		panic("dashboard assets: " + err.Error()) // embedded files: cannot happen at run time
	}
	return out
}()

// FromImporter are the files under the dashboard's /assets/ that are the
// embedded importer's own (the name there): the spreadsheet's module, its
// style sheet and its English words. The server serves them from the
// importer's files, so the two show one spreadsheet.
var FromImporter = map[string]string{"sheet.js": "sheet.js", "sheet.css": "sheet.css", "sheet-en.json": "locales/en.json"}

// Asset returns a file under assets/ by its name there ("app.js",
// "views/job.js"). Only the types in contentTypes are served.
func Asset(name string) (File, bool) {
	f, ok := assets[name]
	return f, ok && f.ContentType != ""
}

var shell = template.Must(template.ParseFS(files, "index.html"))

// Shell renders the page every dashboard path serves; the modules then draw
// the page for the path. apiBase is the API's origin when the dashboard is
// served from another one, else "" and the API is called on the same origin.
func Shell(apiBase string) ([]byte, error) {
	var b bytes.Buffer
	err := shell.Execute(&b, struct{ API string }{apiBase})
	return b.Bytes(), err
}

// page matches the dashboard's pages: the same list as the routes in
// assets/app.js. Other paths stay the API's (a problem+json 404).
var page = regexp.MustCompile(`^/(|login|jobs|jobs/new|jobs/[A-Za-z0-9_]+|schemas|connect|admin/keys|admin/audit|admin/sso|webhooks|hooks|destinations|import-sessions|import-sessions/imp_[A-Za-z0-9]+|staff/organizations)$`)

// IsPage tells whether a request path is a dashboard page.
func IsPage(p string) bool { return page.MatchString(p) }
