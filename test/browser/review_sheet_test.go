package browser

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// TestReview_dashboardChoosesSheet: the dashboard's review of a workbook
// with two sheets of data offers them (not the empty one), the one read
// chosen; a person picks the other from the keyboard and reads it, the
// review shows its columns and counts, and the confirmed job reads its
// rows.
func TestReview_dashboardChoosesSheet(t *testing.T) {
	browserTest(t)
	app := apptest.Start(t, sqltest.SQLite(t))
	org := app.Org("Acme", identity.Normalize)
	admin := person(t, app, org, "ann@acme.test", identity.Admin, false)
	key := apptest.Caller{Key: app.Key(org)}
	if res := app.Do("POST", "/v1/schemas", key, map[string]any{"name": "people", "schema": json.RawMessage(peopleSchema)}); res.StatusCode != 201 {
		t.Fatalf("save schema: %d %s", res.StatusCode, res.Body)
	}
	p := open(t, app)
	p.login(admin.Email)
	p.visit("/jobs/new")
	p.do(chromedp.SetUploadFiles(chromedp.ID("file"), []string{peopleBook(t)}))
	p.do(chromedp.Click(chromedp.ID("start-job")))
	p.until("the mapping screen", `document.querySelector('#review table') && document.querySelector('#review-sheet')`)
	jobID := strings.TrimPrefix(eval[string](p, `location.pathname`), "/jobs/")
	offered := eval[string](p, `[...document.querySelectorAll('#review-sheet option')].map((o) => o.value).join('|') + ' ' + document.querySelector('#review-sheet').value`)
	if offered != "Summary|People Summary" {
		t.Fatalf("the sheets offered, then the one chosen: %s", offered)
	}
	if got := eval[string](p, `document.querySelector('#review-sheet option[value=People]').textContent`); got != "People — 4 rows: ID, E-Mail, Joined" {
		t.Errorf("People is offered as %q", got)
	}
	p.checkStep(width)
	p.choose("review-sheet", "P")
	p.do(chromedp.Focus(chromedp.ID("read-sheet")), chromedp.KeyEvent(kb.Enter))
	p.until("People read", `document.querySelector('#review-said').innerText.includes('Sheet People: 2 of 3 sample rows would be kept.')`)
	if eval[string](p, `document.activeElement.id`) != "review-sheet" {
		t.Errorf("the focus left the sheet's select: %s", eval[string](p, `document.activeElement.outerHTML.slice(0, 60)`))
	}
	review := p.text("#review")
	for _, want := range []string{"Read 3 records (all of the file) of the sheet People: 2 would be kept, 1 rejected", "E-Mail", "ann@example.com"} {
		if !strings.Contains(review, want) {
			t.Errorf("the review of People lacks %q:\n%s", want, review)
		}
	}
	p.checkStep(width)
	p.shot("review-sheet")
	p.do(chromedp.Focus(chromedp.ID("confirm-review")), chromedp.KeyEvent(kb.Enter))
	p.until("the job done", `document.querySelector('#job-status').innerText.includes('succeeded')`)
	rows := app.Do("GET", "/v1/jobs/"+jobID+"/rows", key, nil)
	if rows.StatusCode != 200 || !strings.Contains(rows.Body, `"email":"cy@example.com"`) || strings.Contains(rows.Body, "North") {
		t.Fatalf("the job's rows: %d %s", rows.StatusCode, rows.Body)
	}
}
