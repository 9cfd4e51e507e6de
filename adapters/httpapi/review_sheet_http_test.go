package httpapi_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// twoSheetBook is a workbook whose first sheet is a summary the engine
// reads by default, an empty sheet, and the people's sheet after them.
func twoSheetBook(t *testing.T) string {
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
	var b bytes.Buffer
	if err := f.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

type sheetsReview struct {
	reviewView
	Sheets []struct {
		SourceFile *string  `json:"source_file"`
		Name       string   `json:"name"`
		Rows       int      `json:"rows"`
		Complete   bool     `json:"complete"`
		FirstRow   []string `json:"first_row"`
		Selected   bool     `json:"selected"`
	} `json:"sheets"`
}

func (r sheetsReview) selected() string {
	for _, s := range r.Sheets {
		if s.Selected {
			return s.Name
		}
	}
	return ""
}

func (r sheetsReview) sourceColumns() []string {
	var out []string
	for _, c := range r.Columns {
		out = append(out, c.SourceColumn)
	}
	return out
}

// TestReview_chooseSheet: the review of a workbook lists its sheets with
// the one read marked; an import session's secret chooses another sheet
// of its own job with PATCH …/review, which reads the sample again from
// it (its columns, preview and counts), keeps the choice as
// options.sheet, and the confirmed job reads that sheet's rows. Another
// job of the organization and another organization's job are 404 to the
// secret; a sheet the workbook lacks, a job of text files, or a body
// without a sheet are 400; a job past its review is 409. Connect jobs
// take it under /v1/connect/jobs. On each database.
func TestReview_chooseSheet(t *testing.T) {
	t.Parallel()
	book := twoSheetBook(t)
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			app := apptest.Start(t, target)
			acme := app.Org("Acme", identity.Normalize, identity.Connect)
			w := &sheetWorld{k: newChecked(t, app), book: book, key: apptest.Caller{Key: app.Key(acme)},
				other: apptest.Caller{Key: app.Key(app.Org("Other", identity.Normalize))}}
			w.secret = apptest.Caller{Key: createImportSession(t, app, w.key, importSessionBody()).ClientSecret}
			for _, step := range []struct {
				name string
				run  func(*testing.T, *sheetWorld)
			}{
				{"the_review_lists_the_sheets", sheetsListed},
				{"other_jobs_are_404_and_bad_bodies_400", sheetRefusals},
				{"another_sheet_is_read_and_kept", sheetChosen},
				{"the_confirmed_job_reads_that_sheet", sheetConfirmed},
				{"text_files_have_no_sheets", sheetOfText},
				{"connect_jobs_choose_too", func(t *testing.T, w *sheetWorld) { chooseConnectSheet(t, w.k, w.key, w.book) }},
			} {
				if !t.Run(step.name, func(t *testing.T) { step.run(t, w) }) {
					return // the later steps build on this one
				}
			}
		})
	}
}

// sheetWorld is what the steps of TestReview_chooseSheet share: the
// session's job awaiting review of the workbook.
type sheetWorld struct {
	k                  *checked
	book               string
	key, other, secret apptest.Caller
	job                string
}

func sheetsListed(t *testing.T, w *sheetWorld) {
	app := w.k.app
	res := app.Request(upload(t, app, "book.xlsx", w.book, nil), w.secret)
	expect(t, res, 202, "")
	var j struct{ ID string }
	res.JSON(t, &j)
	w.job = j.ID
	waitStatus(t, app, w.key, "/v1/jobs/"+w.job, "awaiting_review")
	var first sheetsReview
	w.k.do("GET", "/v1/jobs/"+w.job+"/review", w.secret, nil, 200, "").JSON(t, &first)
	if len(first.Sheets) != 3 || first.selected() != "Summary" || first.Sheets[2].Name != "People" || first.Sheets[2].Rows != 4 ||
		!first.Sheets[2].Complete || !slices.Equal(first.Sheets[2].FirstRow, []string{"ID", "E-Mail", "Joined"}) ||
		!first.Sheets[1].Complete || first.Sheets[1].Rows != 0 || first.Sheets[0].SourceFile != nil {
		t.Fatalf("the sheets of the first review: %+v", first.Sheets)
	}
	if !slices.Equal(first.sourceColumns(), []string{"Region", "Total"}) || len(first.Blocking) == 0 {
		t.Fatalf("the first review read %v, blocking %v", first.sourceColumns(), first.Blocking)
	}
}

// sheetRefusals: another job of the organization and another
// organization's job are 404 to the secret, the session's job is 404 to
// another organization; an unknown sheet and a body without one are 400.
func sheetRefusals(t *testing.T, w *sheetWorld) {
	app := w.k.app
	outside := uploadJob(t, app, w.key, map[string]string{"schema": apptest.PeopleSchema})
	foreign := uploadJob(t, app, w.other, map[string]string{"schema": apptest.PeopleSchema})
	for _, id := range []string{outside, foreign} {
		w.k.do("PATCH", "/v1/jobs/"+id+"/review", w.secret, map[string]any{"sheet": "People"}, 404, "not_found")
	}
	w.k.do("PATCH", "/v1/jobs/"+w.job+"/review", w.other, map[string]any{"sheet": "People"}, 404, "not_found")
	w.k.do("PATCH", "/v1/jobs/"+w.job+"/review", w.secret, map[string]any{"sheet": "Nope"}, 400, "invalid_request")
	w.k.do("PATCH", "/v1/jobs/"+w.job+"/review", w.secret, map[string]any{}, 400, "invalid_request")
}

// sheetChosen: the secret chooses People; the review is of its sample,
// stored, kept by a mapping change after it, and options.sheet says it.
func sheetChosen(t *testing.T, w *sheetWorld) {
	var chosen sheetsReview
	w.k.do("PATCH", "/v1/jobs/"+w.job+"/review", w.secret, map[string]any{"sheet": "People"}, 200, "").JSON(t, &chosen)
	if chosen.selected() != "People" || !slices.Equal(chosen.sourceColumns(), []string{"ID", "E-Mail", "Joined"}) || len(chosen.Blocking) != 0 ||
		chosen.Sample.Records != 3 || chosen.Sample.RowsValid != 2 || chosen.Sample.RowsRejected != 1 || len(chosen.Preview) != 3 {
		t.Fatalf("the review of People: sheet %q, columns %v, blocking %v, sample %+v", chosen.selected(), chosen.sourceColumns(), chosen.Blocking, chosen.Sample)
	}
	var again sheetsReview
	w.k.do("GET", "/v1/jobs/"+w.job+"/review", w.secret, nil, 200, "").JSON(t, &again)
	if again.selected() != "People" || again.Sample.RowsValid != 2 {
		t.Fatalf("the stored review: %q %+v", again.selected(), again.Sample)
	}
	// A mapping change after it is computed from the new sheet's sample.
	var mapped sheetsReview
	w.k.do("PATCH", "/v1/jobs/"+w.job+"/mapping", w.secret, map[string]any{"mapping": map[string]any{"Joined": nil}}, 200, "").JSON(t, &mapped)
	if mapped.selected() != "People" || mapped.Sample.RowsValid != 2 || !slices.Equal(mapped.sourceColumns(), []string{"ID", "E-Mail", "Joined"}) {
		t.Fatalf("after a mapping change: %q %v %+v", mapped.selected(), mapped.sourceColumns(), mapped.Sample)
	}
	if got := jobOptions(t, w.k.app, w.key, w.job)["sheet"]; got != "People" {
		t.Fatalf("options.sheet is %v", got)
	}
}

// sheetConfirmed: the confirmed job reads People's rows (Joined ignored),
// and its review takes no sheet after.
func sheetConfirmed(t *testing.T, w *sheetWorld) {
	app := w.k.app
	w.k.do("POST", "/v1/jobs/"+w.job+"/confirm", w.secret, nil, 202, "")
	if done := waitJob(t, app, w.key, w.job); done.Status != "succeeded" {
		t.Fatalf("the job ended %s: %+v", done.Status, done.Error)
	}
	rows := app.Do("GET", "/v1/jobs/"+w.job+"/rows", w.key, nil)
	if rows.StatusCode != 200 || !strings.Contains(rows.Body, `"email":"ann@example.com"`) || !strings.Contains(rows.Body, `"email":"cy@example.com"`) ||
		strings.Contains(rows.Body, "North") || strings.Contains(rows.Body, `"joined"`) && !strings.Contains(rows.Body, `"joined":null`) {
		t.Fatalf("the rows: %d %s", rows.StatusCode, rows.Body)
	}
	w.k.do("PATCH", "/v1/jobs/"+w.job+"/review", w.secret, map[string]any{"sheet": "Summary"}, 409, "job_not_awaiting_review")
}

// sheetOfText: a text file's review lists no sheets and takes none.
func sheetOfText(t *testing.T, w *sheetWorld) {
	app := w.k.app
	res := app.Request(upload(t, app, "people.csv", messyPeople, nil), w.secret)
	expect(t, res, 202, "")
	var j struct{ ID string }
	res.JSON(t, &j)
	waitStatus(t, app, w.key, "/v1/jobs/"+j.ID, "awaiting_review")
	var text sheetsReview
	w.k.do("GET", "/v1/jobs/"+j.ID+"/review", w.secret, nil, 200, "").JSON(t, &text)
	if text.Sheets == nil || len(text.Sheets) != 0 {
		t.Fatalf("a text file's sheets: %+v", text.Sheets)
	}
	w.k.do("PATCH", "/v1/jobs/"+j.ID+"/review", w.secret, map[string]any{"sheet": "People"}, 400, "invalid_request")
}

// chooseConnectSheet: a connect job's review takes a sheet under
// /v1/connect/jobs, and an upload job is 404 there.
func chooseConnectSheet(t *testing.T, k *checked, key apptest.Caller, book string) {
	t.Helper()
	file := addFile(t, k.app, key, "book.xlsx", book)
	res := k.app.Do("POST", "/v1/connect/jobs", key, map[string]any{"file_ids": []string{file.ID}, "schema": json.RawMessage(apptest.PeopleSchema),
		"options": map[string]any{"review": true}})
	expect(t, res, 202, "")
	var j struct{ ID string }
	res.JSON(t, &j)
	waitStatus(t, k.app, key, "/v1/connect/jobs/"+j.ID, "awaiting_review")
	var chosen sheetsReview
	k.do("PATCH", "/v1/connect/jobs/"+j.ID+"/review", key, map[string]any{"sheet": "People"}, 200, "").JSON(t, &chosen)
	if chosen.selected() != "People" || chosen.Sample.RowsValid != 2 || len(chosen.Sheets) != 3 || chosen.Sheets[0].SourceFile == nil || *chosen.Sheets[0].SourceFile != file.ID {
		t.Fatalf("a connect job's review of People: %+v", chosen.Sheets)
	}
	k.do("PATCH", "/v1/connect/jobs/"+j.ID+"/review", key, map[string]any{"sheet": "Atlantis"}, 400, "invalid_request")
	k.do("PATCH", "/v1/connect/jobs/"+j.ID+"/review", key, map[string]any{}, 400, "invalid_request")
	k.do("POST", "/v1/connect/jobs/"+j.ID+"/cancel", key, nil, 200, "")
	k.do("PATCH", "/v1/connect/jobs/"+j.ID+"/review", key, map[string]any{"sheet": "People"}, 409, "job_not_awaiting_review")
	upload := k.app.Request(upload(t, k.app, "people.csv", messyPeople, map[string]string{"schema": apptest.PeopleSchema}), key)
	var u struct{ ID string }
	upload.JSON(t, &u)
	k.do("PATCH", "/v1/connect/jobs/"+u.ID+"/review", key, map[string]any{"sheet": "People"}, 404, "not_found")
}

func jobOptions(t *testing.T, app *apptest.App, who apptest.Caller, id string) map[string]any {
	t.Helper()
	var j struct {
		Options map[string]any `json:"options"`
	}
	app.Do("GET", "/v1/jobs/"+id, who, nil).JSON(t, &j)
	return j.Options
}
