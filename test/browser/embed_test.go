package browser

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/chromedp"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// axeSource is axe-core 4.14.1 (MPL-2.0, testdata/axe-core/LICENSE), the
// accessibility checker the importer's steps are held to.
//
//go:embed testdata/axe-core/axe.min.js
var axeSource string

// hostPage is a customer's page: it includes importer.js from the
// service and opens the importer with the secret its backend minted.
var hostPage = template.Must(template.New("host").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Acme app</title>
<script src="{{.Service}}/embed/v1/importer.js"></script></head>
<body><main><h1>Acme app</h1><div id="importer"></div></main>
<script>
window.events = [];
window.complete = null;
TabnormImporter.open({url: {{.URL}}, clientSecret: {{.Secret}}, container: document.getElementById('importer'), height: '900px',
  onEvent: (m) => window.events.push(m.type), onComplete: (m) => { window.complete = m; }});
</script></body></html>`))

// messyCSV has a column the engine cannot place (Kontakt holds the
// emails) and a date nobody can read ("gestern").
const messyCSV = "ID,Kontakt,Joined\n1,a@example.com,2024-01-05\n2,b@example.com,gestern\n3,c@example.com,2024-02-01\n"

// exportedCSV is messyCSV as an export tool writes it, a comment line
// first: the run skips it, and the importer says so in the person's words.
const exportedCSV = "# exported from the CRM\n" + messyCSV

type hostSession struct {
	ID           string `json:"id"`
	ClientSecret string `json:"client_secret"`
}

// serveHost serves the host page on a loopback origin of its own, with
// the session ses holds when the page is asked for.
func serveHost(t *testing.T, app *apptest.App, ses *hostSession) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			w.WriteHeader(http.StatusNoContent) // no favicon
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_ = hostPage.Execute(w, map[string]string{"Service": app.URL, "URL": app.URL + "/embed/" + ses.ID, "Secret": ses.ClientSecret})
	}))
	t.Cleanup(srv.Close)
	// On "localhost", a site apart from the service's 127.0.0.1: the
	// browser then runs the importer's frame in a process of its own, as
	// it would on a customer's domain.
	srv.URL = strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	return srv
}

// inEveryPairing runs step in English and German, on a desktop and on a
// phone (375 px), each with a host page and an import session of its own;
// name is the pairing's, for screenshots (en-desktop, de-phone, …).
func inEveryPairing[W any](t *testing.T, app *apptest.App, key string, en, de W,
	step func(t *testing.T, hostURL, name, locale string, w, h int64, words W)) {
	t.Helper()
	for _, run := range []struct {
		locale, device string
		width, height  int64
		words          W
	}{
		{"en", "desktop", width, height, en},
		{"de", "phone", 375, 812, de},
		{"en", "phone", 375, 812, en},
		{"de", "desktop", width, height, de},
	} {
		t.Run(run.locale+"-"+run.device, func(t *testing.T) {
			var ses hostSession
			host := serveHost(t, app, &ses)
			ses = mint(t, app, key, run.locale, host.URL)
			step(t, host.URL, run.locale+"-"+run.device, run.locale, run.width, run.height, run.words)
		})
	}
}

// mint creates an import session for hosts on origins, with the API key.
func mint(t *testing.T, app *apptest.App, key, locale string, origins ...string) hostSession {
	t.Helper()
	res := app.Do("POST", "/v1/import-sessions", apptest.Caller{Key: key}, map[string]any{
		"schema": json.RawMessage(apptest.PeopleSchema), "allowed_origins": origins, "locale": locale,
		"metadata": map[string]any{"customer_ref": "acct_42"}, "theme": map[string]any{"primary": "#7a2ee6", "radius": "10px"}})
	if res.StatusCode != 201 {
		t.Fatalf("mint: %d %s", res.StatusCode, res.Body)
	}
	var s hostSession
	res.JSON(t, &s)
	return s
}

// frame is the importer's frame in the host page: its own target, since
// a frame of another origin runs apart from the page.
func (p *page) frame() *page {
	p.t.Helper()
	return p.frameAfter(nil)
}

// frameAfter is the importer's frame, not old's (a frame closed before).
func (p *page) frameAfter(old *page) *page {
	p.t.Helper()
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		targets, err := chromedp.Targets(p.ctx)
		if err != nil {
			p.t.Fatal(err)
		}
		for _, tg := range targets {
			if tg.Type == "iframe" && strings.Contains(tg.URL, "/embed/imp_") && (old == nil || string(tg.TargetID) != old.target) {
				ctx, cancel := chromedp.NewContext(p.ctx, chromedp.WithTargetID(tg.TargetID))
				p.t.Cleanup(cancel)
				f := &page{t: p.t, ctx: ctx, app: p.app, target: string(tg.TargetID)}
				if err := chromedp.Do(ctx); err != nil {
					p.t.Fatalf("attach to the importer's frame: %v", err)
				}
				if err := chromedp.Listen(ctx, f.listen); err != nil {
					p.t.Fatal(err)
				}
				return f
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	p.t.Fatal("the importer's frame never appeared")
	return nil
}

// TestEmbed_importerInAHostPage: a host page on one loopback origin
// frames the importer from the service on another; the end user uploads
// a messy file, maps a column, fixes a value and submits; the host hears
// tabnorm:complete and the backend reads the clean rows with its key. In
// English and German, on a desktop and a phone, with screenshots.
func TestEmbed_importerInAHostPage(t *testing.T) {
	browserTest(t)
	app := apptest.Start(t, sqltest.SQLite(t))
	key := app.Key(app.Org("Acme", identity.Normalize))
	inEveryPairing(t, app, key, []string{"Choose a file", "Confirm columns", "Submit", "Comment lines (starting with #) were left out."},
		[]string{"Datei auswählen", "Spalten bestätigen", "Absenden", "Kommentarzeilen (beginnend mit #) wurden ausgelassen."}, func(t *testing.T, hostURL, name, _ string, w, h int64, words []string) {
			importOnce(t, app, key, hostURL, name, w, h, words)
		})
}

func importOnce(t *testing.T, app *apptest.App, key, hostURL, name string, w, h int64, words []string) {
	t.Helper()
	p := open(t, app)
	if w != width {
		p.do(chromedp.EmulateViewport(w, h, chromedp.EmulateMobile))
	}
	p.do(chromedp.Navigate(hostURL))
	importIn(t, app, key, p, p.frame(), name, w, words)
}

// importIn walks the importer framed in the host page p through a whole
// import from the keyboard: words are the file step's label, the confirm
// and submit buttons, the note on the file and, when given, the fix
// step's hint on writing a date.
func importIn(t *testing.T, app *apptest.App, key string, p, f *page, name string, w int64, words []string) {
	t.Helper()
	f.until("the file step", fmt.Sprintf(`document.querySelector('label[for=tn-file]')?.textContent === %q`, words[0]))
	f.checkStep(w)
	p.shot("embed-" + name + "-1-file")
	path := filepath.Join(t.TempDir(), "people.csv")
	if err := os.WriteFile(path, []byte(exportedCSV), 0o600); err != nil {
		t.Fatal(err)
	}
	f.do(chromedp.SetUploadFiles(chromedp.ID("tn-file"), []string{path}))
	f.press(".tn-actions .tn-button")
	f.until("the match step", fmt.Sprintf(`[...document.querySelectorAll('button')].some((b) => b.textContent === %q)`, words[1]))
	f.checkStep(w)
	// Map Kontakt to email, from the keyboard: focus its list, pick the field.
	kontakt := eval[string](f, `[...document.querySelectorAll('tbody th')].findIndex((th) => th.textContent === 'Kontakt').toString()`)
	f.do(chromedp.Focus(chromedp.ID("tn-col-"+kontakt)), chromedp.KeyEvent("e"))
	f.until("Kontakt mapped to email", `document.getElementById('tn-col-`+kontakt+`')?.value === 'email' && document.activeElement?.id === 'tn-col-`+kontakt+`'`)
	if !eval[bool](p, `document.querySelector('iframe').style.height === '900px'`) { // a frame that follows its content (tabnorm:resize)
		h := eval[float64](f, `Math.ceil(document.querySelector('.tn-app').getBoundingClientRect().height)`)
		p.until("the frame as tall as the match step", fmt.Sprintf(`Math.abs(document.querySelector('iframe').getBoundingClientRect().height - %v) <= 1`, h))
	}
	p.shot("embed-" + name + "-2-match")
	f.press(".tn-actions .tn-button")
	f.until("the fix step", `document.querySelector('#tn-fix-0-0')`)
	f.checkStep(w)
	if v := eval[string](f, `document.querySelector('tbody th').textContent`); v != "gestern" {
		t.Fatalf("the unreadable value shown is %q", v)
	}
	if len(words) > 4 {
		if hint := f.text(".tn-hint"); hint != words[4] {
			t.Errorf("the fix step's hint says %q, want %q", hint, words[4])
		}
		p.shot("embed-" + name + "-3-fix")
	}
	f.do(chromedp.SendKeys(chromedp.ID("tn-fix-0-0"), "2024-01-06"))
	// The fix step's screenshots are TestEmbed_fixCells's, with a cell fixed.
	f.press(".tn-actions .tn-button")
	f.until("the submit step", fmt.Sprintf(`[...document.querySelectorAll('button')].some((b) => b.textContent === %q)`, words[2]))
	f.checkStep(w)
	if notes := eval[string](f, `[...document.querySelectorAll('.tn-notes li')].map((li) => li.textContent).join(' | ')`); notes != words[3] {
		t.Errorf("the notes on the file say %q, want %q", notes, words[3])
	}
	f.painted()
	// A new step starts with its heading in view, in the host page too,
	// however far an earlier, taller step had scrolled it.
	if top := eval[float64](p, `document.querySelector('iframe').getBoundingClientRect().top`) +
		eval[float64](f, `document.getElementById('tn-title').getBoundingClientRect().top`); top < 0 {
		t.Errorf("the submit step's heading is %.0f px above the host's viewport", -top)
	}
	p.shot("embed-" + name + "-4-submit")
	f.press(".tn-actions .tn-button")
	p.until("tabnorm:complete in the host page", `window.complete && window.complete.type === 'tabnorm:complete'`)
	got := eval[string](p, `window.events.join(' ')`)
	for _, ev := range []string{"tabnorm:ready", "tabnorm:job_created", "tabnorm:review_confirmed", "tabnorm:complete"} {
		if !strings.Contains(got, ev) {
			t.Errorf("the host heard %q, not %s", got, ev)
		}
	}
	if eval[bool](p, `JSON.stringify(window.complete).includes('imp_secret_') || location.href.includes('imp_secret_')`) {
		t.Error("the secret travelled in a message or a URL")
	}
	last := eval[string](p, `window.complete.jobIds[window.complete.jobIds.length - 1]`)
	if n := eval[int](p, `window.complete.rowsValid`); n < 3 {
		t.Errorf("complete says %d valid rows", n)
	}
	res := app.Do("GET", "/v1/jobs/"+last+"/rows", apptest.Caller{Key: key}, nil)
	if res.StatusCode != 200 || !strings.Contains(res.Body, `"email":"b@example.com"`) || !strings.Contains(res.Body, `"joined":"2024-01-06"`) {
		t.Fatalf("the backend reads %d %s", res.StatusCode, res.Body)
	}
}

// press presses a button from the keyboard: focus, then Enter.
func (p *page) press(selector string) {
	p.t.Helper()
	p.do(chromedp.Focus(chromedp.CSS(selector)), chromedp.KeyEvent("\r"))
}

// checkStep fails when the importer scrolls sideways at the page's
// width, has a form control without a label, or has a serious or
// critical accessibility violation by axe-core.
func (p *page) checkStep(w int64) {
	p.t.Helper()
	if !eval[bool](p, `typeof axe === 'object'`) {
		p.do(chromedp.Evaluate[chromedp.Void](axeSource))
	}
	res := eval[struct {
		Passes     int    `json:"passes"`
		Violations string `json:"violations"`
	}](p, `axe.run(document).then((r) => ({passes: r.passes.length, violations: r.violations
		.filter((v) => v.impact === 'serious' || v.impact === 'critical')
		.map((v) => v.id + ' (' + v.nodes.map((n) => n.target.join(' ')).join(', ') + ')').join('; ')}))`)
	if res.Passes < 10 || res.Violations != "" {
		p.t.Errorf("axe-core at %s: %d rules passed; serious or critical: %s", p.location(), res.Passes, res.Violations)
	}
	if missing := p.unlabelled(); missing != "" {
		p.t.Errorf("form controls without a label: %s", missing)
	}
	if sw := eval[int64](p, `document.documentElement.scrollWidth`); sw > w {
		p.t.Errorf("the importer is %d px wide in a %d px window", sw, w)
	}
}

// TestEmbed_otherOriginCannotFrameOrCall: a host on an origin the session
// does not allow cannot frame the importer (frame-ancestors), and its
// page cannot use the secret against the API (CORS).
func TestEmbed_otherOriginCannotFrameOrCall(t *testing.T) {
	browserTest(t)
	app := apptest.Start(t, sqltest.SQLite(t))
	key := app.Key(app.Org("Acme", identity.Normalize))
	ses := mint(t, app, key, "en", "https://app.example.com")
	host := serveHost(t, app, &ses)
	p := open(t, app)
	var blocked atomic.Bool
	_ = chromedp.Listen(p.ctx, func(ev any) {
		if e, ok := ev.(*log.EventEntryAdded); ok && strings.Contains(e.Entry.Text, "frame-ancestors") {
			blocked.Store(true)
		}
	})
	p.expect("frame-ancestors")
	p.expect("CORS")
	p.expect("Failed to load resource")
	p.do(chromedp.Navigate(host.URL))
	deadline := time.Now().Add(wait)
	for !blocked.Load() {
		if time.Now().After(deadline) {
			t.Fatal("the browser never refused to frame the importer")
		}
		time.Sleep(50 * time.Millisecond)
	}
	call := fmt.Sprintf(`fetch(%q, {headers: {Authorization: 'Bearer ' + %q}}).then(() => 'read', () => 'refused')`,
		app.URL+"/v1/import-sessions/current", ses.ClientSecret)
	if got := eval[string](p, call); got != "refused" {
		t.Fatalf("a page on another origin %s the API's answer", got)
	}
	if eval[string](p, `window.events.join(' ')`) != "" {
		t.Fatal("the host heard from a frame it may not show")
	}
}
