package browser

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// warningsCSV has a header spelled like a field's name (Emial) and two
// headers that name the date field equally well (Beitritt, Eintritt).
const warningsCSV = "ID,Emial,Beitritt,Eintritt\n1,ann@x.io,2024-01-05,2024-01-07\n2,bob@x.io,2024-01-06,2024-01-09\n3,cy@x.io,2024-02-01,2024-02-03\n"

// TestReview_mappingWarnings: the dashboard's review shows, beside each
// column's confidence and evidence, what to check of its mapping: a
// mapping by a likeness of names (fuzzy_mapping), and a field two columns
// name equally well (ambiguous_mapping on both, the field proposed first
// for each), with the engine's message. No serious or critical axe-core
// violation; 375 px too.
func TestReview_mappingWarnings(t *testing.T) {
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
	p.dropFile("people.csv", warningsCSV)
	p.do(chromedp.Click(chromedp.ID("start-job")))
	p.until("the mapping screen", `document.querySelector('#review table') && document.querySelector('#confirm-review')`)
	type warned struct {
		Column, Codes, Text, Suggested string
	}
	rows := eval[[]warned](p, `[...document.querySelectorAll('#review table')[0].querySelectorAll('tbody tr')].map((tr) => ({
	  column: tr.querySelector('th, td strong')?.textContent ?? '',
	  codes: [...tr.querySelectorAll('.mapping-warnings li')].map((li) => li.dataset.code).join(','),
	  text: tr.querySelector('.mapping-warnings')?.innerText ?? '',
	  suggested: tr.querySelector('select optgroup[label="Suggested"] option')?.value ?? '',
	}))`)
	got := map[string]warned{}
	for _, r := range rows {
		got[r.Column] = r
	}
	if r := got["Emial"]; r.Codes != "fuzzy_mapping" || !strings.Contains(r.Text, "Check: mapped by a likeness of names") ||
		!strings.Contains(r.Text, `Column "Emial" was mapped to field "email" by similarity`) {
		t.Errorf("Emial: %+v", r)
	}
	for _, c := range []string{"Beitritt", "Eintritt"} {
		if r := got[c]; r.Codes != "ambiguous_mapping" || r.Suggested != "joined" ||
			!strings.Contains(r.Text, "Choose: several columns name this field equally well") || !strings.Contains(r.Text, `["Beitritt" "Eintritt"]`) {
			t.Errorf("%s: %+v", c, r)
		}
	}
	if r := got["ID"]; r.Codes != "" {
		t.Errorf("ID, mapped by its name, warns %q", r.Codes)
	}
	p.checkStep(width)
	p.shot("review-warnings")
	p.do(chromedp.EmulateViewport(375, 812, chromedp.EmulateMobile))
	p.checkStep(375)
	p.shot("review-warnings-phone")
}
