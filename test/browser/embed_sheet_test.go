package browser

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/xuri/excelize/v2"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// peopleBook writes a workbook whose first sheet is a summary (what the
// engine reads by default), then an empty sheet, then the people, one of
// them with an email nobody can send to.
func peopleBook(t *testing.T) string {
	t.Helper()
	f := excelize.NewFile()
	defer func() { _ = f.Close() }()
	_ = f.SetSheetName("Sheet1", "Summary")
	_ = f.SetCellValue("Summary", "A1", "Quarterly summary")
	_ = f.SetSheetRow("Summary", "A3", &[]any{"Region", "Total"})
	_ = f.SetSheetRow("Summary", "A4", &[]any{"North", 12})
	_ = f.SetSheetRow("Summary", "A5", &[]any{"South", 7})
	_, _ = f.NewSheet("Notes")
	_, _ = f.NewSheet("People")
	for i, row := range [][]any{{"ID", "E-Mail", "Joined"}, {1, "ann@example.com", "2024-01-05"}, {2, "not-an-email", "2024-01-06"}, {3, "cy@example.com", "2024-02-01"}} {
		cell, _ := excelize.CoordinatesToCellName(1, i+1)
		_ = f.SetSheetRow("People", cell, &row)
	}
	path := filepath.Join(t.TempDir(), "people.xlsx")
	if err := f.SaveAs(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// sheetWords are what a run expects the importer to say, in its language.
type sheetWords struct {
	legend, rows, first, summary, skip, submit string
}

// TestEmbed_chooseSheet: an end user drops a workbook of two sheets with
// data; the importer asks which sheet to import (the empty one is not
// offered), with the summary the engine read chosen; the user picks the
// people's sheet from the keyboard, the match step shows its columns and
// says how many of its rows are valid, and after submitting, the
// customer's backend reads that sheet's rows. A text file never shows
// the step. In English and German, on a desktop and a phone, with
// screenshots.
func TestEmbed_chooseSheet(t *testing.T) {
	browserTest(t)
	app := apptest.Start(t, sqltest.SQLite(t))
	key := app.Key(app.Org("Acme", identity.Normalize))
	book := peopleBook(t)
	en := sheetWords{"Sheet to import", "4 rows · ID, E-Mail, Joined", "Sheet Summary: none of its columns matches a field to import.", "Sheet People. In the first 3 rows: 2 valid, 1 with a problem.", "Continue without fixing", "Submit"}
	de := sheetWords{"Zu importierendes Tabellenblatt", "4 Zeilen · ID, E-Mail, Joined", "Blatt Summary: keine seiner Spalten passt zu einem Feld des Imports.", "Tabellenblatt People. Von den ersten 3 Zeilen: 2 gültig, 1 mit Problem.", "Ohne Korrektur weiter", "Absenden"}
	inEveryPairing(t, app, key, en, de, func(t *testing.T, hostURL, name, _ string, w, h int64, words sheetWords) {
		chooseSheet(t, app, key, hostURL, book, name, w, h, words)
	})
	t.Run("a text file has no sheet step", func(t *testing.T) {
		var ses hostSession
		host := serveHost(t, app, &ses)
		ses = mint(t, app, key, "en", host.URL)
		p := open(t, app)
		p.do(chromedp.Navigate(host.URL))
		f := p.frame()
		f.until("the file step", `document.querySelector('label[for=tn-file]')?.textContent === 'Choose a file'`)
		path := filepath.Join(t.TempDir(), "people.csv")
		if err := os.WriteFile(path, []byte(messyCSV), 0o600); err != nil {
			t.Fatal(err)
		}
		f.do(chromedp.SetUploadFiles(chromedp.ID("tn-file"), []string{path}))
		f.press(".tn-actions .tn-button")
		f.until("the match step", `[...document.querySelectorAll('button')].some((b) => b.textContent === 'Confirm columns')`)
		if eval[string](f, `[...document.querySelectorAll('#tn-steps li')].map((li) => li.textContent).join('|')`) != "File|Match columns|Fix values|Submit" ||
			eval[bool](f, `!!document.querySelector('input[name=tn-sheet]') || [...document.querySelectorAll('button')].some((b) => b.textContent === 'Choose another sheet')`) {
			t.Fatal("a text file shows a sheet step")
		}
	})
}

func chooseSheet(t *testing.T, app *apptest.App, key, hostURL, book, name string, w, h int64, words sheetWords) {
	t.Helper()
	p := open(t, app)
	if w != width {
		p.do(chromedp.EmulateViewport(w, h, chromedp.EmulateMobile))
	}
	p.do(chromedp.Navigate(hostURL))
	f := p.frame()
	f.until("the file step", `document.getElementById('tn-file')`)
	f.do(chromedp.SetUploadFiles(chromedp.ID("tn-file"), []string{book}))
	f.press(".tn-actions .tn-button")
	f.until("the sheet step", fmt.Sprintf(`document.querySelector('fieldset.tn-sheets legend')?.textContent === %q`, words.legend))
	f.checkStep(w)
	offered := eval[string](f, `[...document.querySelectorAll('input[name=tn-sheet]')].map((r) => r.value + (r.checked ? '*' : '')).join('|')`)
	if offered != "Summary*|People" {
		t.Fatalf("the sheets offered (* chosen): %s", offered)
	}
	if about := f.text("#tn-sheet-1-about"); about != words.rows {
		t.Errorf("People is described as %q", about)
	}
	if s := f.text("#tn-status"); s != words.first {
		t.Errorf("the sheet step says %q, want %q", s, words.first)
	}
	p.shot("embed-" + name + "-1b-sheet")
	// From the keyboard: the chosen sheet's button, then the arrow down.
	f.do(chromedp.Focus(chromedp.CSS("input[name=tn-sheet]:checked")), chromedp.KeyEvent(kb.ArrowDown))
	f.until("People chosen", `document.activeElement?.value === 'People' && document.activeElement.checked`)
	f.press(".tn-actions .tn-button")
	f.until("the match step of People", `[...document.querySelectorAll('tbody th')].map((th) => th.textContent).join('|') === 'ID|E-Mail|Joined'`)
	f.checkStep(w)
	if s := f.text("#tn-status"); s != words.summary {
		t.Errorf("the match step says %q, want %q", s, words.summary)
	}
	p.shot("embed-" + name + "-2b-match-sheet")
	f.press(".tn-actions .tn-button") // confirm columns
	f.until("the fix step", fmt.Sprintf(`[...document.querySelectorAll('button')].some((b) => b.textContent === %q)`, words.skip))
	f.press(".tn-actions .tn-secondary")
	f.until("the submit step", fmt.Sprintf(`[...document.querySelectorAll('button')].some((b) => b.textContent === %q)`, words.submit))
	f.press(".tn-actions .tn-button")
	p.until("tabnorm:complete in the host page", `window.complete && window.complete.type === 'tabnorm:complete'`)
	job := eval[string](p, `window.complete.jobIds[window.complete.jobIds.length - 1]`)
	res := app.Do("GET", "/v1/jobs/"+job+"/rows", apptest.Caller{Key: key}, nil)
	if res.StatusCode != 200 || !strings.Contains(res.Body, `"email":"ann@example.com"`) || !strings.Contains(res.Body, `"email":"cy@example.com"`) ||
		strings.Contains(res.Body, "North") || strings.Count(res.Body, `"id":`) != 2 {
		t.Fatalf("the backend reads %d %s", res.StatusCode, res.Body)
	}
	if j := app.Do("GET", "/v1/jobs/"+job, apptest.Caller{Key: key}, nil); !strings.Contains(j.Body, `"sheet":"People"`) {
		t.Fatalf("the job read another sheet: %s", j.Body)
	}
}
