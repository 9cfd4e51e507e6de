package browser

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
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

	// The saved edit can be run: Rerun with changes is offered.
	if eval[bool](p, `document.getElementById('sheet-rerun').disabled`) {
		t.Error("Rerun with changes is disabled though a cell was saved")
	}
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

// gridWords are what the importer's spreadsheet says, in one language.
type gridWords struct {
	confirm, title, count, heads, problem, canceled, saved, rejectedCount, more string
}

// peopleSchemaTitled is apptest.PeopleSchema with the titles a customer
// gives its fields in the end user's language, and help for one.
func peopleSchemaTitled(locale string) string {
	id, email, joined, help := "Customer no.", "E-mail address", "Joined on", "Where we send the invoice."
	if locale == "de" {
		id, email, joined, help = "Kundennummer", "E-Mail-Adresse", "Beigetreten am", "Wohin wir die Rechnung schicken."
	}
	return fmt.Sprintf(`{"fields":[{"name":"id","type":"integer","title":%q,"constraints":{"required":true,"unique":true}},
		{"name":"email","type":"string","format":"email","title":%q,"description":%q},{"name":"joined","type":"date","title":%q}]}`, id, email, help, joined)
}

// mintSheet creates an import session for hosts on origin with a schema
// of its own, and the members of extra.
func mintSheet(t *testing.T, app *apptest.App, key, locale, schema, origin string, extra map[string]any) hostSession {
	t.Helper()
	body := map[string]any{"schema": json.RawMessage(schema), "allowed_origins": []string{origin}, "locale": locale}
	for k, v := range extra {
		body[k] = v
	}
	res := app.Do("POST", "/v1/import-sessions", apptest.Caller{Key: key}, body)
	if res.StatusCode != 201 {
		t.Fatalf("mint: %d %s", res.StatusCode, res.Body)
	}
	var s hostSession
	res.JSON(t, &s)
	return s
}

// inEachPairing is inEveryPairing with the titled schema: English and
// German, desktop and phone, a host and a session of their own each.
func inEachPairing(t *testing.T, app *apptest.App, key string, en, de gridWords,
	step func(t *testing.T, p, f *page, name string, w, h int64, words gridWords)) {
	t.Helper()
	for _, run := range []struct {
		locale, device string
		w, h           int64
		words          gridWords
	}{{"en", "desktop", width, height, en}, {"de", "phone", 375, 812, de}, {"en", "phone", 375, 812, en}, {"de", "desktop", width, height, de}} {
		t.Run(run.locale+"-"+run.device, func(t *testing.T) {
			var ses hostSession
			host := serveHost(t, app, &ses)
			ses = mintSheet(t, app, key, run.locale, peopleSchemaTitled(run.locale), host.URL, nil)
			p := open(t, app)
			if run.w != width {
				p.do(chromedp.EmulateViewport(run.w, run.h, chromedp.EmulateMobile))
			}
			p.do(chromedp.Navigate(host.URL))
			f := p.frame()
			f.until("the file step", `document.getElementById('tn-file')`)
			step(t, p, f, run.locale+"-"+run.device, run.w, run.h, run.words)
		})
	}
}

// toFixStep uploads content and confirms the columns: the fix step with
// its spreadsheet, read.
func toFixStep(t *testing.T, f *page, content, confirm string) {
	t.Helper()
	uploadFile(t, f, content)
	f.until("the match step", fmt.Sprintf(`[...document.querySelectorAll('button')].some((b) => b.textContent === %q)`, confirm))
	f.press(".tn-actions .tn-button")
	f.sheetReady("tn-sh")
}

// TestEmbed_spreadsheet: in the importer framed by a host on another
// origin, the fix step's spreadsheet shows every row under the schema's
// titles, and the end user works it by keyboard alone: Tab reaches one
// cell, the arrows move, the focused bad cell says its problem, Enter
// edits, Escape cancels, Enter saves and the cell is checked at once; the
// filter keeps the rows still with a problem; "Back to columns" returns
// to the column matching on a rerun. English and German, 1280 and 375 px,
// axe-core on the step, screenshots for docs/embed.md.
func TestEmbed_spreadsheet(t *testing.T) {
	browserTest(t)
	app := apptest.Start(t, sqltest.SQLite(t))
	key := app.Key(app.Org("Acme", identity.Normalize))
	en := gridWords{"Confirm columns", "All rows", "4 rows", "Row|Customer no.* required|E-mail address. Where we send the invoice.|Joined on",
		"Row 2 · E-mail address: “b@example” is not an email address.", "Row 2: E-mail address left as it was.",
		"Row 2: E-mail address saved. The row is now valid.", "1 row", ""}
	de := gridWords{"Spalten bestätigen", "Alle Zeilen", "4 Zeilen", "Zeile|Kundennummer* Pflichtfeld|E-Mail-Adresse. Wohin wir die Rechnung schicken.|Beigetreten am",
		"Zeile 2 · E-Mail-Adresse: „b@example“ ist keine E-Mail-Adresse.", "Zeile 2: E-Mail-Adresse bleibt, wie es war.",
		"Zeile 2: E-Mail-Adresse gespeichert. Die Zeile ist jetzt gültig.", "1 Zeile", ""}
	inEachPairing(t, app, key, en, de, func(t *testing.T, p, f *page, name string, w, h int64, words gridWords) {
		toFixStep(t, f, twoBadRowsCSV, words.confirm)
		if got := f.text("#tn-sh-h"); got != words.title {
			t.Errorf("the spreadsheet's heading %q", got)
		}
		if got := f.text("#tn-sh-count"); got != words.count {
			t.Errorf("the count %q, want %q", got, words.count)
		}
		if got := eval[string](f, `[...document.querySelectorAll('#tn-sh-grid [role=columnheader]')].map((c) => c.textContent).join('|')`); got != words.heads {
			t.Errorf("the headings %q, want %q", got, words.heads)
		}
		if got := eval[string](f, `document.getElementById('tn-sh-grid').getAttribute('aria-rowcount')`); got != "5" {
			t.Errorf("aria-rowcount %s", got)
		}
		// The keyboard alone.
		f.do(chromedp.Focus(chromedp.ID("tn-main")))
		f.tabFar("tn-sh-c-0-1")
		f.key(kb.ArrowDown, kb.ArrowRight)
		if got := f.focused(); got != "tn-sh-c-1-2" {
			t.Fatalf("ArrowDown, ArrowRight went to %q", got)
		}
		if got := f.text("#tn-sh-detail"); got != words.problem {
			t.Errorf("the bad cell's problem reads %q, want %q", got, words.problem)
		}
		f.key(kb.Enter)
		f.until("the cell's text box", `document.activeElement?.id === 'tn-sh-editor'`)
		f.key("oops", kb.Escape)
		f.until("the focus back on the cell", `document.activeElement?.id === 'tn-sh-c-1-2'`)
		if got := f.text("#tn-sh-said"); got != words.canceled {
			t.Errorf("after Escape: %q", got)
		}
		if !eval[bool](p, `!!document.getElementById('importer').querySelector('iframe')`) {
			t.Fatal("Escape in the cell editor closed the importer")
		}
		f.key(kb.Enter)
		f.until("the cell's text box", `document.activeElement?.id === 'tn-sh-editor'`)
		f.do(chromedp.Evaluate[chromedp.Void](`document.activeElement.value = ''`))
		f.key("b@example.com", kb.Enter)
		f.until("the saved edit", fmt.Sprintf(`document.getElementById('tn-sh-said').textContent === %q`, words.saved))
		f.until("the focus back on the cell", `document.activeElement?.id === 'tn-sh-c-1-2'`)
		if eval[bool](f, `document.getElementById('tn-sh-c-1-2').hasAttribute('aria-invalid')`) {
			t.Error("the fixed cell is still marked invalid")
		}
		f.key(kb.ArrowDown, kb.End)
		if got := f.focused(); got != "tn-sh-c-2-3" || !eval[bool](f, `document.activeElement.classList.contains('sh-error')`) {
			t.Errorf("ArrowDown, End went to %q, want the bad date of row 3", got)
		}
		f.checkStep(w)
		f.shotWhole(p, "embed-"+name+"-3-sheet", w, h)
		// The rows still with a problem: row 3 alone.
		f.do(chromedp.SetValue(chromedp.ID("tn-sh-status"), "rejected"),
			chromedp.Evaluate[chromedp.Void](`document.getElementById('tn-sh-status').dispatchEvent(new Event('change'))`))
		f.until("the rows with a problem", fmt.Sprintf(`document.getElementById('tn-sh-count').textContent === %q &&
			document.getElementById('tn-sh-c-0-0')?.textContent.includes('3')`, words.rejectedCount))
		// Back to columns: the column matching again, on a rerun.
		f.tabFar("tn-sh-back")
		f.key(kb.Enter)
		f.until("the match step again", fmt.Sprintf(`[...document.querySelectorAll('button')].some((b) => b.textContent === %q) && document.querySelector('#tn-col-0')`, words.confirm))
		f.checkStep(w)
		if got := eval[string](p, `window.events.filter((e) => e === 'tabnorm:job_created').length.toString()`); got != "2" {
			t.Errorf("the host heard job_created %s times, want the upload and the rerun", got)
		}
		// Confirmed again, the rerun keeps the edit: row 2 is valid.
		f.press(".tn-actions .tn-button")
		f.sheetReady("tn-sh")
		f.until("row 2 edited", `document.getElementById('tn-sh-c-1-2')?.classList.contains('sh-edited') && !document.getElementById('tn-sh-c-1-2').hasAttribute('aria-invalid')`)
	})
}

// TestEmbed_allInvalidValues: a field with more refused values than the
// first 20 lists them all, "and N more" reading the next ones; the focus
// goes to the first value read.
func TestEmbed_allInvalidValues(t *testing.T) {
	browserTest(t)
	app := apptest.Start(t, sqltest.SQLite(t))
	key := app.Key(app.Org("Acme", identity.Normalize))
	var ses hostSession
	host := serveHost(t, app, &ses)
	ses = mint(t, app, key, "en", host.URL)
	var b strings.Builder
	b.WriteString("ID,E-Mail,Joined\n")
	for i := 1; i <= 25; i++ {
		fmt.Fprintf(&b, "%d,user%d@example,2024-01-05\n", i, i)
	}
	p := open(t, app)
	p.do(chromedp.Navigate(host.URL))
	f := p.frame()
	f.until("the file step", `document.getElementById('tn-file')`)
	toFixStep(t, f, b.String(), "Confirm columns")
	f.until("the value fixes", `document.getElementById('tn-fix-0-19')`)
	if got := f.text("#tn-fix-more-0"); got != "and 5 more values" || eval[bool](f, `!!document.getElementById('tn-fix-0-20')`) {
		t.Errorf("the more button says %q (or more than 20 values show)", got)
	}
	f.press("#tn-fix-more-0")
	f.until("the other five values", `document.getElementById('tn-fix-0-24') && document.activeElement?.id === 'tn-fix-0-20'`)
	if !eval[bool](f, `document.getElementById('tn-fix-more-0').hidden`) {
		t.Error("the more button stays once every value is listed")
	}
	f.checkStep(width)
}

// TestSheet_dashboard_withSheetAPI: find-and-replace over a column counts
// its matches first, then changes them all; Ctrl+Z undoes it and Ctrl+Y
// does it again, the grid showing each state; Back to columns opens the
// rerun's review, whose header row can be chosen.
func TestSheet_dashboard_withSheetAPI(t *testing.T) {
	browserTest(t)
	app := apptest.Start(t, sqltest.SQLite(t))
	org := app.Org("Acme", identity.Normalize)
	admin := person(t, app, org, "ann@acme.test", identity.Admin, false)
	who := apptest.Caller{Key: app.Key(org)}
	job := finishedJob(t, app, who, editsCSV(), sheetSchema)
	p := open(t, app)
	p.login(admin.Email)
	p.visit("/jobs/" + job)
	p.sheetReady("sh")
	p.until("undo and redo offered, nothing to undo yet", `!document.getElementById('sh-undo').hidden && document.getElementById('sh-undo').disabled && document.getElementById('sh-redo').disabled`)

	p.press("#sh-find")
	p.until("the find-and-replace form", `!document.getElementById('sh-replace').hidden && document.activeElement?.id === 'sh-rfind'`)
	p.do(chromedp.SetValue(chromedp.ID("sh-rfield"), "email"), chromedp.SetValue(chromedp.ID("sh-rmatch"), "regex"))
	p.key("@example$")
	p.do(chromedp.Focus(chromedp.ID("sh-rwith")))
	p.key("@example.com")
	p.press("#sh-rcount")
	p.until("the preview's count", `document.getElementById('sh-rsaid').textContent === '23 cells will change.'`)
	if got := p.text("#sh-c-0-2"); got != "user1@example" {
		t.Errorf("the preview changed the cell: %q", got)
	}
	p.checkStep(width)
	p.shotOf("sheet-dashboard-replace", "#spreadsheet")
	p.press("#sh-rapply")
	p.until("the replacement", `document.getElementById('sh-rsaid').textContent === '23 cells changed.' &&
		document.getElementById('sh-c-0-2')?.textContent.startsWith('user1@example.com') && !document.getElementById('sh-undo').disabled`)

	p.do(chromedp.Focus(chromedp.ID("sh-c-0-2")))
	p.ctrl("z")
	p.until("undone", `document.getElementById('sh-said').textContent.startsWith('Undone: ') &&
		document.getElementById('sh-c-0-2')?.getAttribute('aria-invalid') === 'true' && !document.getElementById('sh-redo').disabled`)
	p.ctrl("y")
	p.until("redone", `document.getElementById('sh-said').textContent.startsWith('Redone: ') &&
		!document.getElementById('sh-c-0-2')?.hasAttribute('aria-invalid')`)

	p.tabFar("sh-back")
	p.key(kb.Enter)
	p.until("the rerun's review with its header row", fmt.Sprintf(`location.pathname !== '/jobs/%s' && document.getElementById('review-header')`, job))
	p.do(chromedp.SetValue(chromedp.ID("review-header"), "1"))
	p.press("#read-header")
	p.until("the review read again", `document.getElementById('review-said').textContent.startsWith('Row 1 as the header')`)
	p.checkStep(width)
}

// TestEmbed_spreadsheet_withSheetAPI: in the importer, find-and-replace
// with its preview count, undo and redo by Ctrl+Z and Ctrl+Y, the header
// row chosen from the file's first rows, and a session's submit_policy
// "block" explained before submit and on its refusal (409
// rows_still_invalid), the end user kept on the rows. English and German.
func TestEmbed_spreadsheet_withSheetAPI(t *testing.T) {
	browserTest(t)
	app := apptest.Start(t, sqltest.SQLite(t))
	key := app.Key(app.Org("Acme", identity.Normalize))
	for _, run := range []struct {
		locale, device, confirm, previewed, replaced, undone, redone, header, block, submit string
		w, h                                                                                int64
	}{
		{"en", "desktop", "Confirm columns", "1 cell will change.", "1 cell changed.", "Undone: ", "Redone: ", "Choose the header row",
			"This import takes a file only when every row is valid: fix the 2 rows with a problem first.", "Submit", width, height},
		{"de", "phone", "Spalten bestätigen", "1 Zelle wird geändert.", "1 Zelle geändert.", "Rückgängig gemacht: ", "Wiederholt: ", "Kopfzeile wählen",
			"Dieser Import nimmt eine Datei nur an, wenn jede Zeile gültig ist: Korrigieren Sie zuerst die 2 Zeilen mit Problem.", "Absenden", 375, 812},
	} {
		t.Run(run.locale+"-"+run.device, func(t *testing.T) {
			var ses hostSession
			host := serveHost(t, app, &ses)
			ses = mintSheet(t, app, key, run.locale, peopleSchemaTitled(run.locale), host.URL,
				map[string]any{"submit_policy": map[string]any{"invalid_rows": "block"}})
			p := open(t, app)
			if run.w != width {
				p.do(chromedp.EmulateViewport(run.w, run.h, chromedp.EmulateMobile))
			}
			p.do(chromedp.Navigate(host.URL))
			f := p.frame()
			f.until("the file step", `document.getElementById('tn-file')`)
			uploadFile(t, f, twoBadRowsCSV)
			// The header row, on request: the first rows to choose from.
			f.until("the match step", fmt.Sprintf(`[...document.querySelectorAll('button')].some((b) => b.textContent === %q)`, run.header))
			f.press("#tn-header-open")
			f.until("the header step", `document.getElementById('tn-header-1')?.checked && document.getElementById('tn-header-0')`)
			f.checkStep(run.w)
			f.shotWhole(p, "embed-"+run.locale+"-"+run.device+"-2-header", run.w, run.h)
			f.press("#tn-header-go")
			f.until("the match step again", fmt.Sprintf(`[...document.querySelectorAll('button')].some((b) => b.textContent === %q)`, run.confirm))
			f.press(".tn-actions .tn-button")
			f.sheetReady("tn-sh")

			// Find and replace the unreadable date, counted first.
			f.press("#tn-sh-find")
			f.until("the form", `document.activeElement?.id === 'tn-sh-rfind'`)
			f.do(chromedp.SetValue(chromedp.ID("tn-sh-rfield"), "joined"))
			f.key("gestern")
			f.do(chromedp.Focus(chromedp.ID("tn-sh-rwith")))
			f.key("2024-01-07")
			f.press("#tn-sh-rcount")
			f.until("the preview's count", fmt.Sprintf(`document.getElementById('tn-sh-rsaid').textContent === %q`, run.previewed))
			f.checkStep(run.w)
			f.shotWhole(p, "embed-"+run.locale+"-"+run.device+"-3-replace", run.w, run.h)
			f.press("#tn-sh-rapply")
			f.until("the replacement", fmt.Sprintf(`document.getElementById('tn-sh-rsaid').textContent === %q &&
				!document.getElementById('tn-sh-c-2-3')?.hasAttribute('aria-invalid')`, run.replaced))
			f.do(chromedp.Focus(chromedp.ID("tn-sh-c-2-3")))
			f.ctrl("z")
			f.until("undone", fmt.Sprintf(`document.getElementById('tn-sh-said').textContent.startsWith(%q) &&
				document.getElementById('tn-sh-c-2-3')?.getAttribute('aria-invalid') === 'true'`, run.undone))
			f.ctrl("y")
			f.until("redone", fmt.Sprintf(`document.getElementById('tn-sh-said').textContent.startsWith(%q) &&
				!document.getElementById('tn-sh-c-2-3')?.hasAttribute('aria-invalid')`, run.redone))

			// Continue without the rerun (both rows still rejected in the
			// job): "block" refuses, and says so.
			f.press(".tn-actions .tn-secondary")
			f.until("the submit step", fmt.Sprintf(`[...document.querySelectorAll('button')].some((b) => b.textContent === %q)`, run.submit))
			if got := f.text("#tn-refused"); got != run.block {
				t.Errorf("before submit: %q, want %q", got, run.block)
			}
			f.expect("/submit", "409")
			f.press(".tn-actions .tn-button")
			f.until("the refusal, explained", fmt.Sprintf(`document.getElementById('tn-refused').textContent === %q && !document.getElementById('tn-refused').hidden`, run.block))
			f.checkStep(run.w)
			f.shotWhole(p, "embed-"+run.locale+"-"+run.device+"-4-refused", run.w, run.h)
			f.press("#tn-fix-again")
			f.sheetReady("tn-sh")
			if eval[bool](p, `!!window.complete`) {
				t.Error("the host heard complete though the policy refused the submit")
			}
		})
	}
}

// TestSheet_millionRows: the spreadsheet module over a list of 1,000,000
// records (a stand-in for the API that makes each page's records from
// its offset, in the dashboard's page): taller than a browser lets a box
// be, it scrolls in proportion; Ctrl+End reaches row 1,000,000 and asks
// only for its page, Page Up moves a screen, the middle of the scroll bar
// is the middle of the list, and never more than the rows in view are
// drawn.
func TestSheet_millionRows(t *testing.T) {
	browserTest(t)
	app := apptest.Start(t, sqltest.SQLite(t))
	p := open(t, app)
	p.do(chromedp.Navigate(app.URL + "/login"))
	p.until("the page", `document.querySelector('main h1')`)
	eval[bool](p, `(async () => {
		const { sheet, formatter } = await import('/assets/sheet.js');
		const words = await (await fetch('/assets/sheet-en.json')).json();
		window.asked = [];
		const call = async (method, path) => {
			const u = new URL(path, location.origin);
			if (!u.pathname.endsWith('/records')) {
				if (u.pathname.endsWith('/history')) throw Object.assign(new Error('no'), { status: 404 });
				return { data: [] };
			}
			const offset = Number(u.searchParams.get('offset')), limit = Number(u.searchParams.get('limit'));
			window.asked.push(offset);
			const data = [];
			for (let i = offset; i < Math.min(offset + limit, 1000000); i++) {
				const bad = i % 1000 === 999;
				data.push({ object: 'record', row: i + 1, source_file: null, valid: !bad, values: {}, edited: [],
					cells: { id: String(i + 1), email: bad ? 'user' + (i + 1) + '@example' : 'user' + (i + 1) + '@example.com' },
					issues: bad ? [{ field: 'email', severity: 'error', code: 'invalid_email', message: 'not an email address' }] : [] });
			}
			return { object: 'list', data, total: 1000000, next_cursor: null };
		};
		const fields = [{ name: 'id', type: 'integer', title: 'Customer no.' }, { name: 'email', type: 'string', title: 'E-mail address' }];
		const grid = sheet({ call, path: '/v1/jobs/job_x', fields, t: formatter('en', words), issueText: (is) => is.message, id: 'mx' });
		document.querySelector('main').replaceChildren(grid.node);
		await grid.start();
		return true;
	})()`)
	p.sheetReady("mx")
	if got := p.text("#mx-count"); got != "1,000,000 rows" {
		t.Errorf("the count %q", got)
	}
	if h := eval[float64](p, `document.querySelector('#mx-grid .sh-body').getBoundingClientRect().height`); h > 10000000 {
		t.Errorf("the body is %.0f px tall, more than a browser lets a box be", h)
	}
	p.do(chromedp.Focus(chromedp.ID("mx-c-0-1")))
	p.ctrl(kb.End)
	p.until("row 1,000,000", `document.activeElement?.id === 'mx-c-999999-2' && document.getElementById('mx-c-999999-0')?.textContent.includes('1000000')`)
	if got := eval[string](p, `document.activeElement.parentElement.getAttribute('aria-rowindex')`); got != "1000001" {
		t.Errorf("the last row's aria-rowindex %s", got)
	}
	if got := eval[string](p, `window.asked.join(',')`); !strings.HasSuffix(got, ",999900") || strings.Count(got, ",") > 4 {
		t.Errorf("the pages read: %s, want the first ones and the last, nothing between", got)
	}
	if eval[bool](p, `document.getElementById('mx-c-999999-2').getBoundingClientRect().bottom > document.querySelector('#mx-sheet .sh-scroll').getBoundingClientRect().bottom + 1`) {
		t.Error("the last row is below the grid's box")
	}
	p.key(kb.PageUp)
	p.until("a screen up", `/^mx-c-9999\d\d-2$/.test(document.activeElement?.id) && document.activeElement.id !== 'mx-c-999999-2'`)
	p.do(chromedp.Evaluate[chromedp.Void](`(() => { const s = document.querySelector('#mx-sheet .sh-scroll'); s.scrollTop = (s.scrollHeight - s.clientHeight) / 2; })()`))
	p.until("the middle, read", `[...document.querySelectorAll('#mx-grid [role=rowheader]')].some((c) => /^\D*(49\d{4}|50\d{4})$/.test(c.textContent.trim().split(' ')[0].replace('✓', '').replace('!', ''))) && !document.querySelector('#mx-grid [aria-busy]')`)
	if n := eval[int](p, `document.querySelectorAll('#mx-grid [role=row]').length`); n > 40 {
		t.Errorf("%d rows drawn", n)
	}
	p.checkStep(width)
}

// contractProxy serves the app through a reverse proxy that answers as
// docs/sheet routes promise where this server does not yet: the review
// lists its first rows and is unsure of its header (first_rows,
// header_unsure, header_row; a PATCH of header_row reads the review
// again), the session has submit_policy "block", and its submit is 409
// rows_still_invalid. It records the header rows asked for.
func contractProxy(t *testing.T, app *apptest.App, asked *[]string) *httptest.Server {
	t.Helper()
	target, _ := url.Parse(app.URL)
	proxy := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
		pr.SetURL(target)
		pr.Out.Host = pr.In.Host             // the page's origin is the proxy's: the app checks it against Host
		pr.Out.Header.Del("Accept-Encoding") // bodies it reads as they are
	}}
	var mu sync.Mutex
	headerRow := 1
	review := regexp.MustCompile(`^/v1/jobs/[^/]+/(review|mapping)$`)
	proxy.ModifyResponse = func(res *http.Response) error {
		path := res.Request.URL.Path
		var add map[string]any
		switch {
		case review.MatchString(path) && res.StatusCode == 200:
			mu.Lock()
			add = map[string]any{"header_row": headerRow, "header_unsure": true,
				"first_rows": [][]string{{"ID", "E-Mail", "Joined"}, {"1", "a@example.com", "2024-01-05"}, {"2", "b@example", "2024-01-06"}}}
			mu.Unlock()
		case path == "/v1/import-sessions/current" && res.StatusCode == 200:
			add = map[string]any{"submit_policy": map[string]any{"invalid_rows": "block", "min_valid_rows": 0}}
		default:
			return nil
		}
		var body map[string]any
		if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
			return err
		}
		_ = res.Body.Close()
		for k, v := range add {
			body[k] = v
		}
		b, _ := json.Marshal(body)
		res.Body = io.NopCloser(bytes.NewReader(b))
		res.ContentLength = int64(len(b))
		res.Header.Set("Content-Length", strconv.Itoa(len(b)))
		return nil
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == "PATCH" && strings.HasSuffix(r.URL.Path, "/review") {
			var ask struct {
				HeaderRow *int `json:"header_row"`
			}
			b, _ := io.ReadAll(r.Body)
			if json.Unmarshal(b, &ask) == nil && ask.HeaderRow != nil {
				mu.Lock()
				headerRow = *ask.HeaderRow
				*asked = append(*asked, strconv.Itoa(*ask.HeaderRow))
				mu.Unlock()
				r.Method, r.Body, r.ContentLength = "GET", http.NoBody, 0 // the review, read again
			} else {
				r.Body = io.NopCloser(bytes.NewReader(b))
			}
		}
		if r.Method == "POST" && r.URL.Path == "/v1/import-sessions/current/submit" {
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(409)
			_, _ = w.Write([]byte(`{"status":409,"code":"rows_still_invalid","detail":"The final job has rejected rows."}`))
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestEmbed_headerRowAndSubmitPolicy: against a stand-in of the
// contract's review and session (contractProxy), the importer asks for
// the header row before the columns when the review is unsure, from the
// file's first rows or none, and reads the review again with the row
// chosen; before submit it says how many rows stay out and that the
// session's submit_policy "block" refuses them, says so again on the 409
// and takes the end user back to the rows. English and German, 1280 and
// 375 px, axe-core on each step.
func TestEmbed_headerRowAndSubmitPolicy(t *testing.T) {
	browserTest(t)
	app := apptest.Start(t, sqltest.SQLite(t))
	key := app.Key(app.Org("Acme", identity.Normalize))
	for _, run := range []headerRun{
		{"en", "desktop", "Header row", "We are not sure which row holds the column names. Choose it, please.", "Confirm columns",
			"2 rows with a problem will be left out.", "This import takes a file only when every row is valid: fix the 2 rows with a problem first.", width, height},
		{"de", "phone", "Kopfzeile", "Wir sind nicht sicher, welche Zeile die Spaltennamen enthält. Bitte wählen Sie sie aus.", "Spalten bestätigen",
			"2 Zeilen mit Problem werden ausgelassen.", "Dieser Import nimmt eine Datei nur an, wenn jede Zeile gültig ist: Korrigieren Sie zuerst die 2 Zeilen mit Problem.", 375, 812},
	} {
		t.Run(run.locale+"-"+run.device, func(t *testing.T) { headerAndPolicy(t, app, key, run) })
	}
}

// headerRun is one run of TestEmbed_headerRowAndSubmitPolicy: its
// language, its window and the words it expects.
type headerRun struct {
	locale, device, step, unsure, confirm, left, block string
	w, h                                               int64
}

func headerAndPolicy(t *testing.T, app *apptest.App, key string, run headerRun) {
	t.Helper()
	var asked []string
	proxy := contractProxy(t, app, &asked)
	var ses hostSession
	host := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_ = hostPage.Execute(w, map[string]string{"Service": proxy.URL, "URL": proxy.URL + "/embed/" + ses.ID, "Secret": ses.ClientSecret})
	}))
	t.Cleanup(host.Close)
	host.URL = strings.Replace(host.URL, "127.0.0.1", "localhost", 1)
	ses = mintSheet(t, app, key, run.locale, peopleSchemaTitled(run.locale), host.URL, nil)
	p := open(t, app)
	if run.w != width {
		p.do(chromedp.EmulateViewport(run.w, run.h, chromedp.EmulateMobile))
	}
	p.do(chromedp.Navigate(host.URL))
	f := p.frame()
	f.until("the file step", `document.getElementById('tn-file')`)
	uploadFile(t, f, twoBadRowsCSV)
	f.until("the header step", `document.getElementById('tn-header-1')?.checked && document.getElementById('tn-header-0')`)
	if got := eval[string](f, `document.querySelector('[aria-current=step]').textContent`); got != run.step {
		t.Errorf("the current step %q", got)
	}
	if got := f.text("#tn-main p"); got != run.unsure {
		t.Errorf("the header step says %q", got)
	}
	if got := f.text("label[for=tn-header-2]") + " / " + f.text("#tn-header-2-about"); !strings.Contains(got, "1 · a@example.com · 2024-01-05") {
		t.Errorf("the second row offered reads %q", got)
	}
	f.checkStep(run.w)
	f.shotWhole(p, "embed-"+run.locale+"-"+run.device+"-1c-header", run.w, run.h)
	f.do(chromedp.Focus(chromedp.ID("tn-header-1")))
	f.key(kb.ArrowUp) // radios wrap: from the first row to "none", the last
	f.until("none chosen", `document.getElementById('tn-header-0').checked`)
	f.press("#tn-header-go")
	f.until("the match step", fmt.Sprintf(`[...document.querySelectorAll('button')].some((b) => b.textContent === %q) && document.getElementById('tn-header-open')`, run.confirm))
	if strings.Join(asked, ",") != "0" {
		t.Errorf("the header rows asked for: %v, want [0]", asked)
	}
	f.press(".tn-actions .tn-button")
	f.sheetReady("tn-sh")
	f.press(".tn-actions .tn-secondary") // continue without fixing
	f.until("the submit step", `document.getElementById('tn-left-out')`)
	if got := f.text("#tn-left-out"); got != run.left {
		t.Errorf("before submit: %q, want %q", got, run.left)
	}
	if got := f.text("#tn-refused"); got != run.block {
		t.Errorf("the policy before submit: %q, want %q", got, run.block)
	}
	f.expect("/submit", "409")
	f.do(chromedp.Evaluate[chromedp.Void](`document.getElementById('tn-refused').hidden = true`)) // to see the 409 show it again
	f.press(".tn-actions .tn-button")
	f.until("the refusal, said again", `!document.getElementById('tn-refused').hidden && !document.querySelector('.tn-actions .tn-button').disabled`)
	if got := f.text("#tn-refused"); got != run.block {
		t.Errorf("after the 409: %q", got)
	}
	f.checkStep(run.w)
	f.shotWhole(p, "embed-"+run.locale+"-"+run.device+"-4b-refused", run.w, run.h)
	if eval[bool](p, `!!window.complete`) {
		t.Error("the host heard complete though submit was refused")
	}
	f.press("#tn-fix-again")
	f.sheetReady("tn-sh")
}

// TestSheet_dashboardHeaderRow: the dashboard's review, against a
// stand-in of the contract's review (contractProxy), says when the header
// row is not certain and reads the review again with the row chosen from
// the file's first rows, reached from the spreadsheet's Back to columns.
func TestSheet_dashboardHeaderRow(t *testing.T) {
	browserTest(t)
	app := apptest.Start(t, sqltest.SQLite(t))
	org := app.Org("Acme", identity.Normalize)
	admin := person(t, app, org, "ann@acme.test", identity.Admin, false)
	job := finishedJob(t, app, apptest.Caller{Key: app.Key(org)}, editsCSV(), sheetSchema)
	var asked []string
	proxy := contractProxy(t, app, &asked)
	p := open(t, app)
	p.do(chromedp.Navigate(proxy.URL + "/login"))
	p.until("the login page", `document.getElementById('sign-in')`)
	p.do(chromedp.SendKeys(chromedp.ID("email"), admin.Email), chromedp.SendKeys(chromedp.ID("password"), apptest.Password),
		chromedp.Click(chromedp.ID("sign-in")))
	p.until("signed in", `location.pathname === '/jobs' && document.querySelector('main h1')`)
	p.do(chromedp.Navigate(proxy.URL + "/jobs/" + job))
	p.sheetReady("sh")
	p.press("#sh-back")
	p.until("the rerun's review, unsure of its header", `document.getElementById('review-header') && document.getElementById('review-header-row').textContent.includes('not certain')`)
	if got := eval[string](p, `[...document.getElementById('review-header').options].map((o) => o.textContent).join('|')`); got != "Row 1: ID · E-Mail · Joined|Row 2: 1 · a@example.com · 2024-01-05|Row 3: 2 · b@example · 2024-01-06|None: the file has no header row" {
		t.Errorf("the header rows offered: %s", got)
	}
	p.checkStep(width)
	p.do(chromedp.Focus(chromedp.ID("review-header")))
	p.do(chromedp.SetValue(chromedp.ID("review-header"), "0"))
	p.press("#read-header")
	p.until("the review read again", `document.getElementById('review-said').textContent.startsWith('No row as the header: ') && document.activeElement?.id === 'review-header'`)
	if strings.Join(asked, ",") != "0" {
		t.Errorf("the header rows asked for: %v", asked)
	}
	p.shotOf("review-header-row", "section.review")
}

// TestSheet_replaceUndoRedo: the spreadsheet module's find-and-replace,
// undo and redo against a stand-in for the routes of the API contract
// (docs/API.md; the server's own are TestSheet_dashboard_withSheetAPI's):
// the form counts the matches first (a preview changes nothing), then
// replaces them all and the grid shows the rows as they now are; Ctrl+Z
// undoes it, Ctrl+Y does it again, and the buttons follow the history's
// can_undo and can_redo.
func TestSheet_replaceUndoRedo(t *testing.T) {
	browserTest(t)
	app := apptest.Start(t, sqltest.SQLite(t))
	p := open(t, app)
	p.do(chromedp.Navigate(app.URL + "/login"))
	p.until("the page", `document.querySelector('main h1')`)
	eval[bool](p, `(async () => {
		const { sheet, formatter } = await import('/assets/sheet.js');
		const words = await (await fetch('/assets/sheet-en.json')).json();
		const file = Array.from({ length: 25 }, (_, i) => ({ id: String(i + 1), email: i < 23 ? 'user' + (i + 1) + '@example' : 'user' + (i + 1) + '@example.com' }));
		const steps = []; // { rep, undone }
		const apply = (cells, r) => {
			const v = cells[r.field] ?? '';
			if (r.match === 'exact') return v === r.find ? { ...cells, [r.field]: r.replace } : cells;
			if (r.match === 'contains') return v.toLowerCase().includes(r.find.toLowerCase()) ? { ...cells, [r.field]: v.replace(new RegExp(r.find.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi'), r.replace) } : cells;
			const re = new RegExp(r.find);
			return re.test(v) ? { ...cells, [r.field]: v.replace(new RegExp(r.find, 'g'), r.replace) } : cells;
		};
		const now = () => file.map((c) => steps.filter((s) => !s.undone).reduce((x, s) => apply(x, s.rep), c));
		const record = (cells, i) => {
			const bad = !/@[^@]+\.[^@]+$/.test(cells.email);
			return { object: 'record', row: i + 1, source_file: null, valid: !bad, values: {}, cells, edited: [],
				issues: bad ? [{ field: 'email', severity: 'error', code: 'invalid_email', message: 'not an email address', value: cells.email }] : [] };
		};
		const history = () => ({ object: 'list', data: steps.map((s, i) => ({ object: 'history_step', step: i + 1, kind: 'replacement', cells: s.matched,
			summary: s.rep.field + ': ' + s.rep.find + ' → ' + s.rep.replace + ' (' + s.matched + ' cells)', undone: s.undone })),
			can_undo: steps.some((s) => !s.undone), can_redo: steps.some((s) => s.undone) });
		const refuse = (status, code) => { throw Object.assign(new Error(code), { status, code }); };
		window.calls = [];
		const call = async (method, path, body) => {
			const u = new URL(path, location.origin);
			const route = u.pathname.split('/').pop();
			window.calls.push(method + ' ' + route);
			if (route === 'records') {
				const all = now().map(record);
				const kept = all.filter((r) => (u.searchParams.get('status') === 'rejected' ? !r.valid : true));
				const off = Number(u.searchParams.get('offset')), lim = Number(u.searchParams.get('limit'));
				return { object: 'list', data: kept.slice(off, off + lim), total: kept.length, next_cursor: null };
			}
			if (route === 'history') return history();
			if (route === 'invalid-values') return { data: [] };
			if (route === 'replacements') {
				const before = now();
				const matched = before.filter((c) => apply(c, body) !== c).length;
				if (body.preview) return { object: 'replacement', id: null, ...body, matched };
				steps.splice(0, steps.length, ...steps.filter((s) => !s.undone));
				steps.push({ rep: body, matched, undone: false });
				return { object: 'replacement', id: 'rpl_1', ...body, matched };
			}
			if (route === 'undo') {
				const s = steps.filter((x) => !x.undone).pop();
				if (!s) refuse(409, 'nothing_to_undo');
				s.undone = true;
				return history().data[steps.indexOf(s)];
			}
			if (route === 'redo') {
				const s = steps.find((x) => x.undone);
				if (!s) refuse(409, 'nothing_to_redo');
				s.undone = false;
				return history().data[steps.indexOf(s)];
			}
			refuse(404, 'not_found');
		};
		const fields = [{ name: 'id', type: 'integer' }, { name: 'email', type: 'string', title: 'E-mail address' }];
		const grid = sheet({ call, path: '/v1/jobs/job_x', fields, t: formatter('en', words), issueText: (is) => is.message, id: 'rx' });
		document.querySelector('main').replaceChildren(grid.node);
		await grid.start();
		return true;
	})()`)
	p.sheetReady("rx")
	p.until("undo and redo offered, disabled", `!document.getElementById('rx-undo').hidden && document.getElementById('rx-undo').disabled && document.getElementById('rx-redo').disabled`)
	p.do(chromedp.Focus(chromedp.ID("rx-c-0-1")))
	p.ctrl("z")
	p.until("nothing to undo", `document.getElementById('rx-said').textContent === 'There is nothing to undo.'`)

	p.press("#rx-find")
	p.until("the form, the focus in Find", `!document.getElementById('rx-replace').hidden && document.activeElement?.id === 'rx-rfind' &&
		document.getElementById('rx-find').getAttribute('aria-expanded') === 'true'`)
	p.do(chromedp.SetValue(chromedp.ID("rx-rfield"), "email"), chromedp.SetValue(chromedp.ID("rx-rmatch"), "regex"))
	p.key("@example$")
	p.do(chromedp.Focus(chromedp.ID("rx-rwith")))
	p.key("@example.com")
	p.press("#rx-rcount")
	p.until("the preview's count", `document.getElementById('rx-rsaid').textContent === '23 cells will change.'`)
	if got := p.text("#rx-c-0-2"); got != "user1@example" {
		t.Errorf("the preview changed a cell: %q", got)
	}
	p.checkStep(width)
	p.shotOf("sheet-replace", "#rx-sheet")
	p.press("#rx-rapply")
	p.until("replaced", `document.getElementById('rx-rsaid').textContent === '23 cells changed.' &&
		document.getElementById('rx-c-0-2')?.textContent === 'user1@example.com' && !document.getElementById('rx-c-0-2').hasAttribute('aria-invalid') &&
		!document.getElementById('rx-undo').disabled && document.getElementById('rx-redo').disabled`)

	p.do(chromedp.Focus(chromedp.ID("rx-c-0-2")))
	p.ctrl("z")
	p.until("undone", `document.getElementById('rx-said').textContent === 'Undone: email: @example$ → @example.com (23 cells)' &&
		document.getElementById('rx-c-0-2')?.getAttribute('aria-invalid') === 'true' && document.getElementById('rx-undo').disabled && !document.getElementById('rx-redo').disabled`)
	p.until("the focus kept on the cell", `document.activeElement?.id === 'rx-c-0-2'`)
	p.ctrl("y")
	p.until("redone", `document.getElementById('rx-said').textContent.startsWith('Redone: ') &&
		!document.getElementById('rx-c-0-2')?.hasAttribute('aria-invalid') && !document.getElementById('rx-undo').disabled`)
	p.press("#rx-undo")
	p.until("undone by the button", `document.getElementById('rx-said').textContent.startsWith('Undone: ')`)
	if got := eval[string](p, `window.calls.filter((c) => c.startsWith('POST')).join(',')`); got != "POST undo,POST replacements,POST replacements,POST undo,POST redo,POST undo" {
		t.Errorf("the calls: %s", got)
	}
}
