package browser

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/tabnorm/tabnorm/adapters/httpapi"
	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/application/accounts"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
	"github.com/tabnorm/tabnorm/test/testtime"
)

// chromium finds the browser: TABNORM_TEST_CHROMIUM, else Debian's. Without
// one the tests skip loudly, and fail instead when CI=true, so CI can never
// pass without having run them.
func chromium(t *testing.T) string {
	t.Helper()
	path := os.Getenv("TABNORM_TEST_CHROMIUM")
	if path == "" {
		path = "/usr/bin/chromium"
	}
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no Chromium at %s, but CI=true: the browser tests are mandatory in CI (%v)", path, err)
		}
		t.Skipf("*** SKIPPING browser tests: install chromium (apt-get install -y chromium) or set TABNORM_TEST_CHROMIUM *** (%v)", err)
	}
	return path
}

// person creates a user with a readable address, for readable screenshots.
func person(t *testing.T, app *apptest.App, org identity.Organization, email string, role identity.Role, staff bool) identity.User {
	t.Helper()
	u, err := app.Accounts.CreateUser(context.Background(), accounts.NewUser{OrgID: org.ID, Email: email,
		Password: apptest.Password, Role: role, IsStaff: staff})
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// signedIn boots the app with one organization and one person in it, and
// signs that person in.
func signedIn(t *testing.T, orgName, email string, role identity.Role, products ...identity.Product) *page {
	t.Helper()
	app := apptest.Start(t, sqltest.SQLite(t))
	person(t, app, app.Org(orgName, products...), email, role, false)
	p := open(t, app)
	p.login(email)
	return p
}

// browserTest starts a browser test: in parallel with the others, and
// only when there is a browser to run it (checked before the app starts).
func browserTest(t *testing.T) {
	t.Helper()
	t.Parallel()
	chromium(t)
}

// page is one browser tab on the app, which fails its test on any console
// error, uncaught exception or browser log error (a CSP violation, a failed
// load) that the test did not announce with expect.
type page struct {
	t         *testing.T
	ctx       context.Context
	app       *apptest.App
	downloads string

	target string // the target's id, for a frame

	mu       sync.Mutex
	problems []string
	expected [][]string
	sse      []string // "event name: data" of every EventSource message
}

const (
	width  = 1280
	height = 900
	wait   = 20 * time.Second // the longest any one step may take
)

func open(t *testing.T, app *apptest.App) *page {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-quic", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(width, height),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	return tab(t, allocCtx, app)
}

// tab opens a tab: in a new browser when parent is an allocator's
// context, in the same browser (sharing its cookies) when it is a page's.
func tab(t *testing.T, parent context.Context, app *apptest.App) *page {
	t.Helper()
	ctx, cancel := chromedp.NewContext(parent)
	p := &page{t: t, ctx: ctx, app: app, downloads: t.TempDir()}
	// The spreadsheet asks GET …/history whether the server keeps one, and
	// a server without the route answers 404, which the browser logs:
	// expected until the history routes (branch sheetapi) are merged.
	p.expect("/history)", "404")
	t.Cleanup(func() {
		cancel()
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, msg := range p.problems {
			t.Errorf("browser: %s", msg)
		}
	})
	if err := chromedp.Do(ctx); err != nil { // starts the browser or the tab, with no timeout
		t.Fatalf("start Chromium: %v", err)
	}
	if err := chromedp.Listen(ctx, p.listen); err != nil {
		t.Fatal(err)
	}
	return p
}

// another opens a second tab in the same browser, signed in as this one.
func (p *page) another() *page {
	p.t.Helper()
	return tab(p.t, p.ctx, p.app)
}

// listen runs in the tab's event loop: it only records.
func (p *page) listen(ev any) {
	var msg string
	switch ev := ev.(type) {
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		msg = fmt.Sprintf("uncaught exception at %s:%d: %s", d.URL, d.LineNumber+1, d.Text)
		if d.Exception != nil {
			msg += " " + d.Exception.Description
		}
	case *runtime.EventConsoleAPICalled:
		if ev.Type != runtime.ConsoleAPICalledTypeError {
			return
		}
		var parts []string
		for _, a := range ev.Args {
			parts = append(parts, strings.Trim(string(a.Value), `"`)+a.Description)
		}
		msg = "console.error: " + strings.Join(parts, " ")
	case *log.EventEntryAdded:
		if ev.Entry.Level != log.EntryLevelError {
			return
		}
		msg = fmt.Sprintf("%s error: %s (%s)", ev.Entry.Source, ev.Entry.Text, ev.Entry.URL)
	case *network.EventEventSourceMessageReceived:
		p.mu.Lock()
		p.sse = append(p.sse, ev.EventName+": "+ev.Data)
		p.mu.Unlock()
		return
	default:
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, parts := range p.expected {
		if containsAll(msg, parts) {
			return
		}
	}
	p.problems = append(p.problems, msg)
}

// expect announces a browser error the test causes on purpose (an expired
// session's 401, say): a message containing every one of parts is not a
// failure.
func (p *page) expect(parts ...string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.expected = append(p.expected, parts)
}

func containsAll(s string, parts []string) bool {
	for _, part := range parts {
		if !strings.Contains(s, part) {
			return false
		}
	}
	return true
}

// events returns the EventSource messages received so far.
func (p *page) events() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.sse...)
}

// do runs actions, failing the test when one fails or takes too long.
func (p *page) do(steps ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, wait)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		p.t.Fatalf("browser at %s: %v", p.location(), err)
	}
}

// eval evaluates JavaScript in the page; promises are awaited.
func eval[T any](p *page, js string) T {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, wait)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	if err != nil {
		p.t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

func (p *page) location() string {
	ctx, cancel := context.WithTimeout(p.ctx, 2*time.Second)
	defer cancel()
	loc, _ := chromedp.Run(ctx, chromedp.Location())
	return loc
}

// until waits for a JavaScript condition, across page loads (an
// evaluation that a navigation interrupts is simply tried again).
func (p *page) until(what, js string) {
	p.t.Helper()
	deadline := testtime.Deadline(wait)
	for {
		ctx, cancel := context.WithTimeout(p.ctx, time.Second)
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool]("!!("+js+")"))
		cancel()
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("waited %s for %s (%s) at %s; last error: %v", wait, what, js, p.location(), err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// visit loads a dashboard page and waits until its view has drawn its
// heading (views replace the shell's "Loading…").
func (p *page) visit(path string) {
	p.t.Helper()
	p.do(chromedp.Navigate(p.app.URL + path))
	p.ready(path)
}

// ready waits for the page at path (without query) to have drawn.
func (p *page) ready(path string) {
	p.t.Helper()
	path, _, _ = strings.Cut(path, "?")
	p.until("the page "+path, fmt.Sprintf(`location.pathname === %q && document.querySelector('main h1')`, path))
}

// text is an element's visible text, "" when there is none.
func (p *page) text(selector string) string {
	p.t.Helper()
	return eval[string](p, fmt.Sprintf(`document.querySelector(%q)?.innerText ?? ''`, selector))
}

// login signs in through the login page and lands on the jobs page.
func (p *page) login(email string) {
	p.t.Helper()
	p.visit("/login")
	p.do(
		chromedp.SendKeys(chromedp.ID("email"), email),
		chromedp.SendKeys(chromedp.ID("password"), apptest.Password),
		chromedp.Click(chromedp.ID("sign-in")),
	)
	p.ready("/jobs")
}

// cookie is the browser's session cookie for the app, "" when it has none.
func (p *page) cookie() string {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, wait)
	defer cancel()
	res, err := chromedp.Call(ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{p.app.URL}})
	if err != nil {
		p.t.Fatal(err)
	}
	for _, c := range res.Cookies {
		if c.Name == httpapi.SessionCookie {
			return c.Value
		}
	}
	return ""
}

// fetch calls the API from the page, with its cookie, and returns the
// status and the problem code (if any).
func (p *page) fetch(path string) (int, string) {
	p.t.Helper()
	res := eval[struct {
		Status int    `json:"status"`
		Code   string `json:"code"`
	}](p, fmt.Sprintf(`fetch(%q, {credentials: 'include'}).then(async (r) => ({status: r.status, code: (await r.json()).code ?? ''}))`, path))
	return res.Status, res.Code
}

// refusal checks a page the caller may not use: it explains why (the
// notice's text), offers none of controls (a CSS selector), and the API
// refuses the page's own call to api with 403 and code.
func (p *page) refusal(path, explanation, controls, api, code string) {
	p.t.Helper()
	p.visit(path)
	if msg := p.text("main .notice"); !strings.Contains(msg, explanation) {
		p.t.Errorf("%s explains %q, want %q", path, msg, explanation)
	}
	if eval[bool](p, fmt.Sprintf(`!!document.querySelector(%q)`, controls)) {
		p.t.Errorf("%s offers %s", path, controls)
	}
	p.expect(api, "403")
	if status, got := p.fetch(api); status != 403 || got != code {
		p.t.Errorf("%s from %s: %d %s, want 403 %s", api, path, status, got, code)
	}
}

// painted waits until the page has drawn two frames since the call, so a
// screenshot taken next shows what the last change laid out (a framed
// page is drawn by its own process: wait on it too before shooting the
// page that frames it).
func (p *page) painted() {
	p.t.Helper()
	eval[bool](p, `new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`)
}

// shot saves a full-page screenshot as a test artifact: into
// TABNORM_SCREENSHOT_DIR (else the test's temp dir), and, with
// TABNORM_UPDATE_SCREENSHOTS=1, into docs/screenshots for the README.
func (p *page) shot(name string) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, wait)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		p.t.Fatalf("screenshot %s: %v", name, err)
	}
	p.saveShot(name, png)
}

// saveShot writes a screenshot into TABNORM_SCREENSHOT_DIR (a temporary
// folder when unset) and, with TABNORM_UPDATE_SCREENSHOTS=1, into
// docs/screenshots.
func (p *page) saveShot(name string, png []byte) {
	p.t.Helper()
	dirs := []string{os.Getenv("TABNORM_SCREENSHOT_DIR")}
	if dirs[0] == "" {
		dirs[0] = p.t.TempDir()
	}
	if os.Getenv("TABNORM_UPDATE_SCREENSHOTS") == "1" {
		dirs = append(dirs, filepath.Join("..", "..", "docs", "screenshots"))
	}
	for _, dir := range dirs {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			p.t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
			p.t.Fatal(err)
		}
	}
}

// unlabelled lists the ids of form controls no label names ("" when all
// have one): screen readers would announce them as bare "edit text".
func (p *page) unlabelled() string {
	p.t.Helper()
	return eval[string](p, `[...document.querySelectorAll('input, select, textarea')]
		.filter((e) => e.type !== 'hidden' && !e.labels?.length && !e.getAttribute('aria-label'))
		.map((e) => e.id || e.name || e.tagName).join(', ')`)
}

// noTrace fails the test when secret is anywhere in the page: its markup,
// the values of its fields, its storage or its address.
func (p *page) noTrace(secret string) {
	p.t.Helper()
	everything := eval[string](p, `[document.documentElement.outerHTML,
		...[...document.querySelectorAll('input, textarea')].map((e) => e.value),
		JSON.stringify({ ...localStorage }), JSON.stringify({ ...sessionStorage }), location.href].join('\n')`)
	if strings.Contains(everything, secret) || strings.Contains(everything, secret[len("svc_live_"):]) {
		p.t.Errorf("the plaintext key is still in the page at %s", p.location())
	}
}

// downloaded waits for a finished download and returns its content.
func (p *page) downloaded(name string) string {
	p.t.Helper()
	path := filepath.Join(p.downloads, name)
	deadline := testtime.Deadline(wait)
	for {
		if b, err := os.ReadFile(path); err == nil && len(b) > 0 { // the file can exist before its bytes do
			return string(b)
		}
		if time.Now().After(deadline) {
			entries, _ := os.ReadDir(p.downloads)
			p.t.Fatalf("no download %s after %s; the folder has %v", name, wait, entries)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
