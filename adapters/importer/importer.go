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

	"github.com/tabnorm/tabnorm/domain/importsession"
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
	".ts":   "application/typescript; charset=utf-8",
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

// english is the English message file's keys: the messages there are.
var english = func() map[string]bool {
	var words map[string]string
	if err := json.Unmarshal(assets["locales/en.json"].Body, &words); err != nil {
		panic("importer locales/en.json: " + err.Error()) // embedded file: cannot happen at run time
	}
	keys := make(map[string]bool, len(words))
	for k := range words {
		keys[k] = true
	}
	return keys
}()

// IsTextKey reports whether the importer has a message of that key,
// which an import session's texts may override: a key of en.json. A
// counted message's text holds its plural forms itself ("{rows, plural,
// one {# row} other {# rows}}").
func IsTextKey(key string) bool { return english[key] }

// palette is a palette as the page's script reads it.
type palette struct {
	Background  string `json:"background"`
	Surface     string `json:"surface"`
	Text        string `json:"text"`
	Muted       string `json:"muted"`
	Border      string `json:"border"`
	Primary     string `json:"primary"`
	PrimaryText string `json:"primary_text"`
	Success     string `json:"success"`
	Warning     string `json:"warning"`
	Error       string `json:"error"`
}

// appearance is a session's theme with every default filled in, both
// palettes resolved: what the page sets as CSS custom properties.
type appearance struct {
	Light       palette `json:"light"`
	Dark        palette `json:"dark"`
	Mode        string  `json:"mode"`
	Radius      string  `json:"radius,omitempty"`
	Font        string  `json:"font,omitempty"`
	FontSize    string  `json:"font_size,omitempty"`
	Density     string  `json:"density"`
	ButtonStyle string  `json:"button_style"`
	LogoURL     string  `json:"logo_url,omitempty"`
	Title       string  `json:"title,omitempty"`
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Page renders the importer's page for a session in the language locale
// (the session's, or its end user's when the session's is auto): its id,
// the origins that may frame it (the page accepts the secret only from
// them), its theme with the defaults filled in and its texts. The page
// shows them before the host hands it the secret.
func Page(ses importsession.Session, locale string) ([]byte, error) {
	t := ses.Theme
	look := appearance{Light: palette(t.Light()), Dark: palette(t.DarkPalette()), Mode: or(t.Mode, importsession.ModeLight), Radius: t.Radius,
		Font: t.Font, FontSize: t.FontSize, Density: or(t.Density, "comfortable"), ButtonStyle: or(t.ButtonStyle, "solid"), LogoURL: t.LogoURL,
		Title: t.Title}
	origins, err := json.Marshal(ses.AllowedOrigins)
	if err != nil {
		return nil, err
	}
	theme, err := json.Marshal(look)
	if err != nil {
		return nil, err
	}
	texts := []byte("{}")
	if len(ses.Texts) > 0 {
		if texts, err = json.Marshal(ses.Texts); err != nil {
			return nil, err
		}
	}
	var b bytes.Buffer
	err = page.Execute(&b, struct {
		Session, Origins, Locale, Theme, Texts, Mode string
	}{ses.ID, string(origins), locale, string(theme), string(texts), look.Mode})
	return b.Bytes(), err
}
