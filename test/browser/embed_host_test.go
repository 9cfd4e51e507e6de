package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// openerPage is a customer's page that opens the importer from a button,
// inline (no height: the frame follows tabnorm:resize) or as a modal,
// and keeps every message it hears.
var openerPage = template.Must(template.New("opener").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Acme app</title>
<script src="{{.Service}}/embed/v1/importer.js"></script></head>
<body><main><h1>Acme app</h1><p>Your contacts live here.</p>
<button type="button" id="open">Import contacts</button> <a href="#help">Help</a>
<div id="importer"></div></main>
<script>
window.events = [];
window.messages = [];
window.complete = null;
document.getElementById('open').addEventListener('click', () => {
  window.handle = TabnormImporter.open({url: {{.URL}}, clientSecret: {{.Secret}}, mode: {{.Mode}}, container: document.getElementById('importer'),
    readyTimeout: {{.Timeout}}, title: 'Import contacts',
    onEvent: (m) => { window.events.push(m.type); window.messages.push(m); }, onComplete: (m) => { window.complete = m; }});
});
</script></body></html>`))

// serveOpener serves openerPage on a loopback origin of its own.
func serveOpener(t *testing.T, app *apptest.App, ses *hostSession, mode string, timeout int) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_ = openerPage.Execute(w, map[string]any{"Service": app.URL, "URL": app.URL + "/embed/" + ses.ID, "Secret": ses.ClientSecret,
			"Mode": mode, "Timeout": timeout})
	}))
	t.Cleanup(srv.Close)
	srv.URL = strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	return srv
}

// mintWith creates an import session with a body of its own.
func mintWith(t *testing.T, app *apptest.App, key string, body map[string]any) hostSession {
	t.Helper()
	body["schema"] = json.RawMessage(apptest.PeopleSchema)
	body["metadata"] = map[string]any{"customer_ref": "acct_42"}
	res := app.Do("POST", "/v1/import-sessions", apptest.Caller{Key: key}, body)
	if res.StatusCode != 201 {
		t.Fatalf("mint: %d %s", res.StatusCode, res.Body)
	}
	var s hostSession
	res.JSON(t, &s)
	return s
}

// TestEmbed_frenchAndPortugueseOnAPhone: the whole import in French and
// in Portuguese (the browser's language, for a session in auto) at
// 375 px, from a host on another origin, by keyboard, with axe-core on
// every step; the fix step says how to write a date the user's way.
func TestEmbed_frenchAndPortugueseOnAPhone(t *testing.T) {
	browserTest(t)
	app := apptest.Start(t, sqltest.SQLite(t))
	key := app.Key(app.Org("Acme", identity.Normalize))
	for _, run := range []struct {
		name, locale, lang string
		words              []string
	}{
		{"fr-phone", "fr", "", []string{"Choisir un fichier", "Confirmer les colonnes", "Envoyer",
			"Les lignes de commentaire (commençant par #) ont été écartées.", "Une date, par exemple 31/12/2026 ou 2026-12-31."}},
		{"pt-phone", "auto", "pt-BR", []string{"Escolher um arquivo", "Confirmar colunas", "Enviar",
			"As linhas de comentário (que começam por #) foram omitidas.", "Uma data, por exemplo 31/12/2026 ou 2026-12-31."}},
	} {
		t.Run(run.name, func(t *testing.T) {
			var ses hostSession
			host := serveHost(t, app, &ses)
			ses = mintWith(t, app, key, map[string]any{"allowed_origins": []string{host.URL}, "locale": run.locale,
				"theme": map[string]any{"primary": "#7a2ee6", "radius": "10px"}})
			p := openIn(t, app, run.lang)
			p.do(chromedp.EmulateViewport(375, 812, chromedp.EmulateMobile))
			p.do(chromedp.Navigate(host.URL))
			f := p.frame()
			want := run.locale
			if want == "auto" {
				want = "pt"
			}
			f.until("the page in "+want, `document.documentElement.lang === '`+want+`'`)
			importIn(t, app, key, p, f, run.name, 375, run.words)
		})
	}
}

// TestEmbed_modalInDarkMode: a host page opens the importer as a modal
// from a button, by keyboard: the dialog holds the focus (Tab never
// leaves it), the dark palette is shown and passes axe-core, Escape
// closes it and the focus returns to the button; opened again, the end
// user imports a file in the modal to the end.
func TestEmbed_modalInDarkMode(t *testing.T) {
	browserTest(t)
	app := apptest.Start(t, sqltest.SQLite(t))
	key := app.Key(app.Org("Acme", identity.Normalize))
	var ses hostSession
	host := serveOpener(t, app, &ses, "modal", 15000)
	ses = mintWith(t, app, key, map[string]any{"allowed_origins": []string{host.URL}, "locale": "en",
		"theme": map[string]any{"mode": "dark", "primary": "#7a2ee6", "title": "Import contacts into Acme", "density": "compact"},
		"texts": map[string]string{"submit.button": "Send to Acme"}})
	p := open(t, app)
	p.do(chromedp.Navigate(host.URL))
	p.press("#open")
	p.until("the modal", `document.querySelector('dialog[open] iframe') !== null`)
	f := p.frame()
	f.until("the file step", `document.querySelector('label[for=tn-file]')?.textContent === 'Choose a file'`)
	if bg := eval[string](f, `getComputedStyle(document.body).backgroundColor`); bg != "rgb(21, 24, 30)" {
		t.Errorf("the dark page's background is %s", bg)
	}
	if title := f.text("#tn-title"); title != "Import contacts into Acme" {
		t.Errorf("the title is %q", title)
	}
	f.checkStep(width)
	f.painted()
	content := eval[float64](f, `Math.ceil(document.querySelector('.tn-app').getBoundingClientRect().height)`)
	p.until("the modal's frame as tall as its content", fmt.Sprintf(`document.querySelector('dialog iframe').getBoundingClientRect().height === %v`, content))
	p.shot("embed-modal-dark-1-file")
	// Tab through the importer and past its end: the focus never reaches
	// the host page behind the dialog.
	var visited []string
	for i := range 8 {
		p.do(chromedp.KeyEvent("\t"))
		if where := eval[string](p, `document.activeElement.closest('dialog') ? 'dialog' : document.activeElement.tagName + '#' + document.activeElement.id`); where != "dialog" {
			t.Fatalf("after %d Tabs the focus is on %s, outside the dialog", i+1, where)
		}
		if eval[bool](p, `document.activeElement.tagName === 'IFRAME'`) {
			visited = append(visited, eval[string](f, `document.activeElement.id`))
		}
	}
	if strings.Count(strings.Join(visited, " "), "tn-close") < 2 {
		t.Errorf("Tab did not come round to the importer's first control: %v", visited)
	}
	// Escape, pressed inside the importer, closes it.
	// Focused from the page's own script, polled: chromedp.Focus waits on
	// the frame's DOM node events, which a loaded machine once lost here.
	f.until("the file input focused", `(document.getElementById('tn-file').focus(), document.activeElement?.id === 'tn-file')`)
	p.do(chromedp.KeyEvent("\u001b"))
	p.until("the modal closed", `!document.querySelector('dialog') && window.events.includes('tabnorm:closed')`)
	if got := eval[string](p, `document.activeElement.id`); got != "open" {
		t.Fatalf("the focus went to %q, not back to the button", got)
	}
	// Opened again: the whole import, in the modal, in dark mode.
	p.press("#open")
	p.until("the modal again", `document.querySelector('dialog[open] iframe') !== null`)
	f = p.frameAfter(f)
	f.until("the file step again", `document.querySelector('label[for=tn-file]') !== null && !!document.querySelector('.tn-drop')`)
	importIn(t, app, key, p, f, "modal-dark", width, []string{"Choose a file", "Confirm columns", "Send to Acme", "Comment lines (starting with #) were left out."})
}

// TestEmbed_inlineFollowsItsContent: without a height, the frame is as
// tall as the importer's content, step after step (tabnorm:resize).
func TestEmbed_inlineFollowsItsContent(t *testing.T) {
	browserTest(t)
	app := apptest.Start(t, sqltest.SQLite(t))
	key := app.Key(app.Org("Acme", identity.Normalize))
	var ses hostSession
	host := serveOpener(t, app, &ses, "inline", 15000)
	ses = mintWith(t, app, key, map[string]any{"allowed_origins": []string{host.URL}})
	p := open(t, app)
	p.do(chromedp.Navigate(host.URL))
	p.press("#open")
	f := p.frame()
	f.until("the file step", `document.querySelector('label[for=tn-file]') !== null`)
	fits := func(step string) float64 {
		t.Helper()
		h := eval[float64](f, `Math.ceil(document.querySelector('.tn-app').getBoundingClientRect().height)`)
		p.until("the frame as tall as the "+step, fmt.Sprintf(`document.querySelector('iframe').getBoundingClientRect().height === %v`, h))
		if inner := eval[float64](f, `document.documentElement.scrollHeight - window.innerHeight`); inner > 1 {
			t.Errorf("the %s step scrolls %v px inside its frame", step, inner)
		}
		return h
	}
	first := fits("file")
	uploadFile(t, f, exportedCSV)
	f.until("the match step", `document.querySelector('#tn-col-0') !== null`)
	if second := fits("match"); second <= first {
		t.Errorf("the match step (%v px) is not taller than the file step (%v px)", second, first)
	}
	if n := eval[int](p, `window.messages.filter((m) => m.type === 'tabnorm:resize').length`); n < 2 {
		t.Errorf("the host heard %d resize messages", n)
	}
	p.shot("embed-inline-autoheight-2-match")
}

// TestEmbed_failuresReachTheHost: a host on an origin the session does
// not allow hears tabnorm:error frame_blocked naming its origin, and the
// frame is gone; in an allowed host, a revoked session is
// session_revoked and an expired one session_expired, each said to the
// end user too.
func TestEmbed_failuresReachTheHost(t *testing.T) {
	browserTest(t)
	app := apptest.Start(t, sqltest.SQLite(t))
	key := app.Key(app.Org("Acme", identity.Normalize))
	t.Run("frame_blocked", func(t *testing.T) {
		var ses hostSession
		host := serveOpener(t, app, &ses, "inline", 3000)
		ses = mintWith(t, app, key, map[string]any{"allowed_origins": []string{"https://app.example.com"}})
		p := open(t, app)
		p.expect("frame-ancestors")
		p.do(chromedp.Navigate(host.URL))
		p.press("#open")
		p.until("tabnorm:error frame_blocked", `window.messages.some((m) => m.type === 'tabnorm:error' && m.code === 'frame_blocked')`)
		msg := eval[string](p, `window.messages.find((m) => m.code === 'frame_blocked').message`)
		if !strings.Contains(msg, host.URL) || !strings.Contains(msg, "allowed_origins") {
			t.Errorf("the message %q does not name the host's origin %s", msg, host.URL)
		}
		if eval[bool](p, `document.querySelector('iframe') !== null || window.events.includes('tabnorm:ready')`) {
			t.Error("the blocked frame is still there, or said ready")
		}
	})
	for _, end := range []struct{ code, says string }{
		{"session_revoked", "This import was closed by the app. Close this window and start again."},
		{"session_expired", "This import link expired. Close this window and start again."},
	} {
		t.Run(end.code, func(t *testing.T) {
			var ses hostSession
			host := serveOpener(t, app, &ses, "inline", 15000)
			ses = mintWith(t, app, key, map[string]any{"allowed_origins": []string{host.URL}, "expires_in": 600})
			p := open(t, app)
			p.expect("Failed to load resource") // the API's 401, which the importer reports
			p.do(chromedp.Navigate(host.URL))
			p.press("#open")
			f := p.frame()
			f.until("the file step", `document.querySelector('label[for=tn-file]') !== null`)
			f.expect("Failed to load resource")
			if end.code == "session_revoked" {
				if res := app.Do("DELETE", "/v1/import-sessions/"+ses.ID, apptest.Caller{Key: key}, nil); res.StatusCode != 200 {
					t.Fatalf("revoke: %d", res.StatusCode)
				}
			} else {
				app.Clock.Advance(11 * time.Minute)
				t.Cleanup(func() { app.Clock.Advance(-11 * time.Minute) })
			}
			uploadFile(t, f, messyCSV)
			p.until("tabnorm:error "+end.code, `window.messages.some((m) => m.type === 'tabnorm:error' && m.code === '`+end.code+`')`)
			f.until("the end user told", fmt.Sprintf(`document.getElementById('tn-status').textContent === %q`, end.says))
		})
	}
}

// openIn opens a browser whose language is lang (its navigator.language
// and Accept-Language), or the default one for "".
func openIn(t *testing.T, app *apptest.App, lang string) *page {
	t.Helper()
	if lang == "" {
		return open(t, app)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("no-first-run", true), chromedp.Flag("disable-quic", true),
		chromedp.Flag("lang", lang), chromedp.Flag("accept-lang", lang),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(width, height))
	allocCtx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	return tab(t, allocCtx, app)
}

// uploadFile picks a file of content in the importer's file step and
// presses Upload from the keyboard.
func uploadFile(t *testing.T, f *page, content string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "people.csv")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	f.do(chromedp.SetUploadFiles(chromedp.ID("tn-file"), []string{path}))
	f.press(".tn-actions .tn-button")
}

// TestEmbed_sevenLanguages: the importer's first step in each of its
// languages, with axe-core on it and a screenshot for docs/embed.md.
func TestEmbed_sevenLanguages(t *testing.T) {
	browserTest(t)
	app := apptest.Start(t, sqltest.SQLite(t))
	key := app.Key(app.Org("Acme", identity.Normalize))
	p := open(t, app)
	var f *page
	for _, l := range []struct{ locale, label, limits string }{
		{"en", "Choose a file", "up to 1,024 MB"}, {"de", "Datei auswählen", "bis 1.024 MB"}, {"fr", "Choisir un fichier", "jusqu’à 1\u202f024\u202fMo"},
		{"es", "Elegir un archivo", "hasta 1024 MB"}, {"it", "Scegli un file", "fino a 1024 MB"}, {"pt", "Escolher um arquivo", "até 1.024 MB"},
		{"nl", "Kies een bestand", "tot 1.024 MB"},
	} {
		var ses hostSession
		host := serveHost(t, app, &ses)
		ses = mint(t, app, key, l.locale, host.URL)
		p.do(chromedp.Navigate(host.URL))
		f = p.frameAfter(f)
		f.until(l.locale+": the file step", fmt.Sprintf(`document.querySelector('label[for=tn-file]')?.textContent === %q`, l.label))
		if limits := f.text("#tn-limits"); !strings.Contains(limits, l.limits) {
			t.Errorf("%s: the limits say %q, want %q", l.locale, limits, l.limits)
		}
		f.checkStep(width)
		f.painted()
		p.shot("embed-locale-" + l.locale)
	}
}
