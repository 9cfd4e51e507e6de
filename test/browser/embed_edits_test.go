package browser

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// twoBadRowsCSV has headers the engine places by itself, an email
// nobody can send to in row 2 and a date nobody can read in row 3.
const twoBadRowsCSV = "ID,E-Mail,Joined\n1,a@example.com,2024-01-05\n2,b@example,2024-01-06\n3,c@example.com,gestern\n4,d@example.com,2024-02-01\n"

// editWords are what a run expects the importer to say, in its language.
type editWords struct {
	confirm, title, count, problem, canceled, saved, valid, applied, submit string
}

// TestEmbed_fixCells: in the fix step, an end user fixes a rejected row's
// cell in the spreadsheet of all rows with the keyboard alone (Tab
// reaches the grid, the arrows move, Enter edits, Escape cancels, Enter
// saves), is told at once that the row is now valid, and applies the
// fixes: the job is rerun with the stored edit, the step says how many
// rows are now valid, the host page hears tabnorm:complete, and the
// customer's backend reads the fixed row with its API key. The German
// runs also replace the unreadable date by value_map in the same rerun,
// so every row is valid; the English ones leave it, and the rerun's
// spreadsheet has that cell alone marked. In English and German, on a
// desktop and a phone, with axe-core on the step and its screenshots.
func TestEmbed_fixCells(t *testing.T) {
	browserTest(t)
	app := apptest.Start(t, sqltest.SQLite(t))
	key := app.Key(app.Org("Acme", identity.Normalize))
	en := editWords{"Confirm columns", "All rows", "4 rows", "“b@example” is not an email address.",
		"Row 2: email left as it was.", "Row 2: email saved. The row is now valid.", "valid",
		"Fixes applied: 3 rows valid, 1 still with a problem.", "Submit"}
	de := editWords{"Spalten bestätigen", "Alle Zeilen", "4 Zeilen", "„b@example“ ist keine E-Mail-Adresse.",
		"Zeile 2: email bleibt, wie es war.", "Zeile 2: email gespeichert. Die Zeile ist jetzt gültig.", "gültig",
		"Korrekturen angewendet: alle 4 Zeilen sind gültig.", "Absenden"}
	inEveryPairing(t, app, key, en, de, func(t *testing.T, hostURL, name, locale string, w, h int64, words editWords) {
		fixCells(t, app, key, hostURL, name, w, h, locale == "de", words)
	})
}

// invalidCells lists the spreadsheet's cells marked invalid, id=text.
func invalidCells(f *page) string {
	f.t.Helper()
	return eval[string](f, `[...document.querySelectorAll('#tn-sh-grid [aria-invalid=true]')].map((c) => c.id + '=' + c.textContent).join('|')`)
}

func fixCells(t *testing.T, app *apptest.App, key, hostURL, name string, w, h int64, mapDate bool, words editWords) {
	t.Helper()
	p := open(t, app)
	if w != width {
		p.do(chromedp.EmulateViewport(w, h, chromedp.EmulateMobile))
	}
	p.do(chromedp.Navigate(hostURL))
	f := p.frame()
	f.until("the file step", `document.getElementById('tn-file')`)
	path := filepath.Join(t.TempDir(), "people.csv")
	if err := os.WriteFile(path, []byte(twoBadRowsCSV), 0o600); err != nil {
		t.Fatal(err)
	}
	f.do(chromedp.SetUploadFiles(chromedp.ID("tn-file"), []string{path}))
	f.press(".tn-actions .tn-button")
	f.until("the match step", fmt.Sprintf(`[...document.querySelectorAll('button')].some((b) => b.textContent === %q)`, words.confirm))
	f.press(".tn-actions .tn-button")
	f.sheetReady("tn-sh")
	if got := f.text("#tn-sh-h"); got != words.title {
		t.Errorf("the spreadsheet's heading %q", got)
	}
	if got := f.text("#tn-sh-count"); got != words.count {
		t.Errorf("the spreadsheet's count %q", got)
	}
	if cells := invalidCells(f); cells != "tn-sh-c-1-2=b@example|tn-sh-c-2-3=gestern" {
		t.Fatalf("the spreadsheet's bad cells: %s", cells)
	}
	if got := eval[string](f, `document.getElementById('tn-sh-c-1-2').title`); got != words.problem {
		t.Errorf("the bad email's problem reads %q, want %q", got, words.problem)
	}
	if eval[int](f, `document.querySelectorAll('#tn-sh-grid [tabindex="0"]').length`) != 1 {
		t.Error("more than one cell is in the Tab order")
	}
	if mapDate { // the unreadable date, by value_map
		f.do(chromedp.SendKeys(chromedp.ID("tn-fix-1-0"), "2024-03-01"))
	}

	// The keyboard alone: Tab into the grid, the arrows, Enter to edit,
	// Escape to leave it, Enter to save.
	f.do(chromedp.Focus(chromedp.ID("tn-main")))
	f.tabFar("tn-sh-c-0-1")
	f.key(kb.ArrowDown, kb.ArrowRight)
	if got := f.focused(); got != "tn-sh-c-1-2" {
		t.Fatalf("ArrowDown, ArrowRight went to %q", got)
	}
	f.key(kb.ArrowLeft, kb.ArrowUp, kb.ArrowRight, kb.ArrowDown)
	if got := f.focused(); got != "tn-sh-c-1-2" {
		t.Fatalf("ArrowLeft, ArrowUp, ArrowRight, ArrowDown went to %q", got)
	}
	if got := f.text("#tn-sh-detail"); !strings.HasSuffix(got, words.problem) {
		t.Errorf("the focused cell's problem reads %q", got)
	}
	f.key(kb.Enter)
	f.until("the cell's text box", `document.activeElement?.id === 'tn-sh-editor'`)
	f.key("oops", kb.Escape)
	f.until("the focus back on the cell", `document.activeElement?.id === 'tn-sh-c-1-2'`)
	if got := f.text("#tn-sh-said"); got != words.canceled {
		t.Errorf("after Escape: %q", got)
	}
	f.key(kb.Enter)
	f.until("the cell's text box", `document.activeElement?.id === 'tn-sh-editor'`)
	if missing := f.unlabelled(); missing != "" {
		t.Errorf("form controls without a label: %s", missing)
	}
	f.do(chromedp.Evaluate[chromedp.Void](`document.activeElement.value = ''`))
	f.key("b@example.com", kb.Enter)
	f.until("the saved edit", fmt.Sprintf(`document.getElementById('tn-sh-said').textContent === %q`, words.saved))
	f.until("the focus back on the cell", `document.activeElement?.id === 'tn-sh-c-1-2'`)
	if got := eval[string](f, `document.getElementById('tn-sh-c-1-0').textContent`); !strings.HasSuffix(got, words.valid) || !strings.Contains(f.text("#tn-sh-c-1-2"), "b@example.com") {
		t.Errorf("the fixed row says %q, its value %q", got, f.text("#tn-sh-c-1-2"))
	}
	f.checkStep(w)
	f.shotWhole(p, "embed-"+name+"-3-fix", w, h)

	// Apply, from the keyboard: the job runs again with the edit.
	f.tabFar("tn-apply")
	f.key(kb.Enter)
	if mapDate { // every row valid: on to submit, saying so
		f.until("the submit step", fmt.Sprintf(`[...document.querySelectorAll('button')].some((b) => b.textContent === %q)`, words.submit))
		if got := f.text("#tn-status"); got != words.applied {
			t.Errorf("after the fixes: %q, want %q", got, words.applied)
		}
	} else { // one row left: the rerun's grid has it alone
		f.until("the rerun's fix step", fmt.Sprintf(`document.getElementById('tn-status').textContent === %q && document.getElementById('tn-sh-grid')`, words.applied))
		f.sheetReady("tn-sh")
		if cells := invalidCells(f); cells != "tn-sh-c-2-3=gestern" {
			t.Errorf("the rerun's bad cells: %s", cells)
		}
		if !eval[bool](f, `document.getElementById('tn-sh-c-1-2').classList.contains('sh-edited')`) {
			t.Error("the rerun's spreadsheet does not mark the edited cell")
		}
		f.checkStep(w)
		f.press(".tn-actions .tn-secondary") // continue without fixing
		f.until("the submit step", fmt.Sprintf(`[...document.querySelectorAll('button')].some((b) => b.textContent === %q)`, words.submit))
	}
	f.press(".tn-actions .tn-button")
	p.until("tabnorm:complete in the host page", `window.complete && window.complete.type === 'tabnorm:complete'`)
	// The rerun replaced the upload: complete names the rerun, whose rows
	// the backend reads, and counts its rows alone; the upload is apart.
	want := 3
	if mapDate {
		want = 4
	}
	if n, super, valid := eval[int](p, `window.complete.jobIds.length`), eval[int](p, `window.complete.supersededJobIds.length`),
		eval[int](p, `window.complete.rowsValid`); n != 1 || super != 1 || valid != want {
		t.Errorf("complete names %d jobs and %d superseded, with %d valid rows; want the rerun, the upload apart and %d", n, super, valid, want)
	}
	checkRerun(t, app, key, eval[string](p, `window.complete.jobIds[window.complete.jobIds.length - 1]`), mapDate)
}

// checkRerun reads the rerun as the customer's backend does, with its
// key: row 2 is valid with the edited email; the date mapped or not.
func checkRerun(t *testing.T, app *apptest.App, key, id string, mapDate bool) {
	t.Helper()
	who := apptest.Caller{Key: key}
	var j struct {
		Source struct {
			RerunOf string `json:"rerun_of"`
		} `json:"source"`
		Result struct {
			RowCount      int `json:"row_count"`
			RejectedCount int `json:"rejected_count"`
			EditsApplied  int `json:"edits_applied"`
		} `json:"result"`
	}
	app.Do("GET", "/v1/jobs/"+id, who, nil).JSON(t, &j)
	want := 3
	if mapDate {
		want = 4
	}
	if j.Source.RerunOf == "" || j.Result.RowCount != want || j.Result.RejectedCount != 4-want || j.Result.EditsApplied != 1 {
		t.Errorf("the rerun %s: %+v", id, j)
	}
	res := app.Do("GET", "/v1/jobs/"+id+"/rows", who, nil)
	var rows struct{ Data []map[string]any }
	res.JSON(t, &rows)
	byID := map[float64]map[string]any{}
	for _, r := range rows.Data {
		if n, ok := r["id"].(float64); ok {
			byID[n] = r
		}
	}
	if r := byID[2]; res.StatusCode != 200 || r == nil || r["email"] != "b@example.com" || r["joined"] != "2024-01-06" {
		t.Fatalf("the backend reads %d %s", res.StatusCode, res.Body)
	}
	if r := byID[3]; (r != nil) != mapDate || (mapDate && r["joined"] != "2024-03-01") {
		t.Errorf("row 3, its date mapped (%v) or not: %s", mapDate, res.Body)
	}
}

// shotWhole saves a screenshot of the host page with the importer's
// frame (f) as tall as its content, and the window as tall as the page
// (the browser paints a frame of another origin only where the window
// shows it, and apart from the page: both are waited for), so that the
// whole step shows; then the window is w × h again.
func (f *page) shotWhole(host *page, name string, w, h int64) {
	f.t.Helper()
	tall := eval[int64](f, `document.documentElement.scrollHeight`)
	host.do(chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector('#importer iframe').style.height = '%dpx'`, tall)))
	f.until("the frame as tall as the step", fmt.Sprintf(`window.innerHeight >= %d`, tall))
	page := eval[int64](host, `document.documentElement.scrollHeight`)
	host.do(chromedp.EmulateViewport(w, max(h, page), emulation(w)...))
	f.painted() // the frame, painted apart, at the tall size too
	host.painted()
	host.shot(name)
	host.do(chromedp.EmulateViewport(w, h, emulation(w)...))
}

// emulation is how a window of width w is emulated: a phone's below the
// desktop's width.
func emulation(w int64) []chromedp.EmulateViewportOption {
	if w != width {
		return []chromedp.EmulateViewportOption{chromedp.EmulateMobile}
	}
	return nil
}
