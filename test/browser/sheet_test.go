package browser

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// sheetSchema is editsSchema with the titles, help and required marks
// the spreadsheet's headings show.
const sheetSchema = `{"fields":[{"name":"id","type":"integer","title":"Customer no.","constraints":{"required":true,"unique":true}},
	{"name":"email","type":"string","format":"email","title":"E-mail address","description":"Where we send the invoice.","constraints":{"required":true}},
	{"name":"active","type":"boolean"}]}`

// ctrl presses key with Control held.
func (p *page) ctrl(key string) {
	p.t.Helper()
	p.do(chromedp.KeyEvent(key, chromedp.KeyModifiers(kb.ModifierCtrl)))
}

// sheetReady waits for the spreadsheet with prefix to show its rows, read
// (no cell still waiting for its page).
func (p *page) sheetReady(prefix string) {
	p.t.Helper()
	p.until("the spreadsheet's rows", fmt.Sprintf(`document.querySelector('#%s-grid [role=gridcell]:not([aria-busy])') &&
		!document.querySelector('#%[1]s-grid [aria-busy]')`, prefix))
}

// historyAbsent tells whether the server lacks the spreadsheet's history
// routes (GET …/history answers 404): then the spreadsheet offers neither
// undo nor find-and-replace, and the browser logs that 404.
func historyAbsent(t *testing.T, app *apptest.App, who apptest.Caller, job string) bool {
	t.Helper()
	return app.Do("GET", "/v1/jobs/"+job+"/history", who, nil).StatusCode == 404
}

// TestSheet_dashboard: a finished job's page has the spreadsheet of all
// its rows, worked by keyboard alone: the headings are the schema's
// titles (help and required marks read out), the arrows, Home/End and
// Ctrl+Home/End move a single Tab stop, Enter edits a cell and Enter saves
// it (the cell's problem goes at once), Escape cancels, Enter on a heading
// sorts, the filter bar keeps the rows with a problem or a search's; at
// 1280 and 375 px with no serious or critical axe-core violation; "Back to
// columns" opens a rerun at its column review.
func TestSheet_dashboard(t *testing.T) {
	browserTest(t)
	app := apptest.Start(t, sqltest.SQLite(t))
	org := app.Org("Acme", identity.Normalize)
	admin := person(t, app, org, "ann@acme.test", identity.Admin, false)
	who := apptest.Caller{Key: app.Key(org)}
	job := finishedJob(t, app, who, editsCSV(), sheetSchema)
	p := open(t, app)
	if historyAbsent(t, app, who, job) {
		p.expect("/history", "404")
	}
	p.login(admin.Email)
	p.visit("/jobs/" + job)
	p.sheetReady("sh")

	heads := eval[string](p, `[...document.querySelectorAll('#sh-grid [role=columnheader]')].map((c) => c.textContent).join('|')`)
	if heads != "Row|Customer no.* required|E-mail address* required. Where we send the invoice.|active" {
		t.Errorf("the headings read %q", heads)
	}
	if got := eval[string](p, `document.getElementById('sh-grid').getAttribute('aria-rowcount')`); got != "26" {
		t.Errorf("aria-rowcount %s, want 26 (25 rows and the headings)", got)
	}
	if got := p.text("#sh-count"); got != "25 rows" {
		t.Errorf("the count says %q", got)
	}
	if eval[string](p, `document.getElementById('sh-c-0-2').getAttribute('aria-invalid')`) != "true" ||
		!eval[bool](p, `document.getElementById('sh-c-0-2').classList.contains('sh-error')`) ||
		eval[int](p, `document.querySelectorAll('#sh-grid [tabindex="0"]').length`) != 1 {
		t.Error("a bad cell is not marked invalid and coloured, or the grid has more than one Tab stop")
	}

	// Tab reaches the grid at one cell; the keys move.
	p.tabFar("sh-c-0-1")
	p.key(kb.ArrowRight, kb.ArrowDown)
	if got := p.focused(); got != "sh-c-1-2" {
		t.Fatalf("ArrowRight, ArrowDown went to %q", got)
	}
	if got := p.text("#sh-detail"); !strings.HasPrefix(got, "Row 2 · E-mail address: ") || !strings.Contains(got, "user2@example") {
		t.Errorf("the focused cell's problem reads %q", got)
	}
	p.key(kb.End)
	if got := p.focused(); got != "sh-c-1-3" {
		t.Errorf("End went to %q", got)
	}
	p.key(kb.Home)
	if got := p.focused(); got != "sh-c-1-0" {
		t.Errorf("Home went to %q", got)
	}
	p.ctrl(kb.End)
	p.until("the last row's last cell", `document.activeElement?.id === 'sh-c-24-3'`)
	if got := eval[string](p, `document.activeElement.parentElement.getAttribute('aria-rowindex')`); got != "26" {
		t.Errorf("the last row's aria-rowindex %s", got)
	}
	p.ctrl(kb.Home)
	p.until("the first row's first cell", `document.activeElement?.id === 'sh-c-0-0'`)

	// Enter edits, Escape leaves the value, Enter saves and checks it.
	p.key(kb.ArrowRight, kb.ArrowRight, kb.Enter)
	p.until("the cell editor", `document.activeElement?.id === 'sh-editor'`)
	p.key("oops", kb.Escape)
	p.until("the cell again", `document.activeElement?.id === 'sh-c-0-2'`)
	if got := p.text("#sh-said"); got != "Row 1: E-mail address left as it was." {
		t.Errorf("after Escape: %q", got)
	}
	p.key(kb.F2)
	p.until("the cell editor", `document.activeElement?.id === 'sh-editor'`)
	if missing := p.unlabelled(); missing != "" {
		t.Errorf("form controls without a label: %s", missing)
	}
	p.do(chromedp.Evaluate[chromedp.Void](`document.activeElement.value = ''`))
	p.key("user1@example.com", kb.Enter)
	p.until("the saved edit", `document.getElementById('sh-said').textContent === 'Row 1: E-mail address saved. The row is now valid.'`)
	p.until("the focus back on the cell", `document.activeElement?.id === 'sh-c-0-2'`)
	if eval[bool](p, `document.getElementById('sh-c-0-2').hasAttribute('aria-invalid') || !document.getElementById('sh-c-0-2').classList.contains('sh-edited')`) ||
		!strings.Contains(p.text("#sh-c-0-2"), "user1@example.com") {
		t.Errorf("the saved cell is %q, still invalid or not marked edited", p.text("#sh-c-0-2"))
	}
	p.checkStep(width)
	p.shotOf("sheet-dashboard", "#spreadsheet")

	// Enter on a heading sorts by the field; again, the other way.
	p.key(kb.ArrowUp, kb.ArrowLeft)
	if got := p.focused(); got != "sh-h-1" {
		t.Fatalf("ArrowUp, ArrowLeft from the first row went to %q", got)
	}
	p.key(kb.Enter)
	p.until("sorted by id, ascending", `document.getElementById('sh-h-1').getAttribute('aria-sort') === 'ascending'`)
	p.key(kb.Enter)
	p.until("sorted by id, descending", `document.getElementById('sh-h-1').getAttribute('aria-sort') === 'descending' &&
		document.getElementById('sh-c-0-0')?.textContent.includes('25')`)
	p.key(kb.ArrowDown)
	if got := p.focused(); got != "sh-c-0-1" || !strings.Contains(p.text("#sh-c-0-1"), "25") {
		t.Errorf("after the sort, ArrowDown went to %q (%q), want the row of id 25", got, p.text("#sh-c-0-1"))
	}

	// The filter bar: the rows with a problem, then a search among all.
	p.do(chromedp.Focus(chromedp.ID("sh-status")))
	p.do(chromedp.SetValue(chromedp.ID("sh-status"), "rejected"), chromedp.Evaluate[chromedp.Void](`document.getElementById('sh-status').dispatchEvent(new Event('change'))`))
	p.until("23 rows with a problem", `document.getElementById('sh-count').textContent === '23 rows'`)
	p.do(chromedp.SetValue(chromedp.ID("sh-status"), "all"), chromedp.Evaluate[chromedp.Void](`document.getElementById('sh-status').dispatchEvent(new Event('change'))`))
	p.do(chromedp.Focus(chromedp.ID("sh-q")))
	p.key("vielleicht", kb.Enter)
	p.until("the search's one row", `document.getElementById('sh-count').textContent === '1 row' && document.getElementById('sh-c-0-0')?.textContent.includes('24')`)

	// On a phone: the grid scrolls in its own box, the page does not.
	p.do(chromedp.EmulateViewport(375, 812, chromedp.EmulateMobile))
	p.checkStep(375)
	p.shotOf("sheet-dashboard-phone", "#spreadsheet")
	p.do(chromedp.EmulateViewport(width, height))

	// Back to columns: a rerun waiting at its review, the columns proposed.
	p.tabFar("sh-back")
	p.key(kb.Enter)
	p.until("the rerun's review", fmt.Sprintf(`location.pathname !== '/jobs/%s' && document.getElementById('confirm-review')`, job))
}

// TestSheet_largeJob: a job of 100,000 rows is one grid of 100,000 rows
// (aria-rowcount 100,001) that draws only the rows in view; Ctrl+End
// jumps to the last row, read by its offset, and Page Up moves a screen.
func TestSheet_largeJob(t *testing.T) {
	browserTest(t)
	app := apptest.Start(t, sqltest.SQLite(t))
	org := app.Org("Acme", identity.Normalize)
	admin := person(t, app, org, "ann@acme.test", identity.Admin, false)
	who := apptest.Caller{Key: app.Key(org)}
	var b strings.Builder
	b.WriteString("id,email,active\n")
	for i := 1; i <= 100000; i++ {
		if i%1000 == 0 {
			fmt.Fprintf(&b, "%d,user%d@example,yes\n", i, i) // a bad email every 1,000 rows
		} else {
			fmt.Fprintf(&b, "%d,user%d@example.com,yes\n", i, i)
		}
	}
	job := finishedJob(t, app, who, b.String(), sheetSchema)
	p := open(t, app)
	if historyAbsent(t, app, who, job) {
		p.expect("/history", "404")
	}
	p.login(admin.Email)
	p.visit("/jobs/" + job)
	p.sheetReady("sh")
	if got := eval[string](p, `document.getElementById('sh-grid').getAttribute('aria-rowcount')`); got != "100001" {
		t.Fatalf("aria-rowcount %s", got)
	}
	if n := eval[int](p, `document.querySelectorAll('#sh-grid [role=row]').length`); n > 40 {
		t.Errorf("the grid drew %d rows, not only those in view", n)
	}
	p.do(chromedp.Focus(chromedp.ID("sh-c-0-1")))
	p.ctrl(kb.End)
	p.until("the last row, read", `document.activeElement?.id === 'sh-c-99999-3' && document.getElementById('sh-c-99999-0')?.textContent.includes('100000')`)
	if got := eval[string](p, `document.activeElement.parentElement.getAttribute('aria-rowindex')`); got != "100001" {
		t.Errorf("the last row's aria-rowindex %s", got)
	}
	if got := p.text("#sh-c-99999-2"); got != "user100000@example" {
		t.Errorf("the last row's email %q", got)
	}
	p.key(kb.PageUp)
	p.until("a screen up, read", `/^sh-c-999\d\d-3$/.test(document.activeElement?.id) && document.activeElement.id !== 'sh-c-99999-3' && !document.querySelector('#sh-grid [aria-busy]')`)
	// The middle, by the scroll bar: its rows are read by their offset.
	p.do(chromedp.Evaluate[chromedp.Void](`document.querySelector('.sh-scroll').scrollTop = document.querySelector('.sh-scroll').scrollHeight / 2`))
	p.until("the middle rows, read", `[...document.querySelectorAll('#sh-grid [role=rowheader]')].some((c) => /^\D*5\d{4}/.test(c.textContent)) && !document.querySelector('#sh-grid [aria-busy]')`)
	if got := p.focused(); !strings.HasPrefix(got, "sh-c-49") && !strings.HasPrefix(got, "sh-c-50") {
		t.Errorf("scrolled away from, the focus went to %q, not to a row in view", got)
	}
	p.checkStep(width)
	p.shotOf("sheet-dashboard-large", "#spreadsheet")
}
