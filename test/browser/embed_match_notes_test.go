package browser

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// TestEmbed_matchNotes: the importer's match step says, under a column's
// field, why the engine matched it (how well its name and its examples
// fit) and what to check, in the person's language: a match by a similar
// name, and two columns that could both go to one field (neither
// matched, the field suggested for each). The select is described by its
// notes. In English and German, with axe-core and screenshots, at 1280
// and 375 px.
func TestEmbed_matchNotes(t *testing.T) {
	browserTest(t)
	app := apptest.Start(t, sqltest.SQLite(t))
	key := app.Key(app.Org("Acme", identity.Normalize))
	path := filepath.Join(t.TempDir(), "people.csv")
	if err := os.WriteFile(path, []byte(warningsCSV), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		locale                                    string
		w, h                                      int64
		confirm, header, values, similar, several string
	}{
		{"en", width, height, "Confirm columns", "The column's name matches this field (95%).", "100% of its examples fit.",
			"Matched by a similar name: please check.", "Several columns could go to joined: choose one."},
		{"de", 375, 812, "Spalten bestätigen", "Der Spaltenname passt zu diesem Feld (95\u00a0%).", "100\u00a0% der Beispiele passen.",
			"Über einen ähnlichen Namen zugeordnet: bitte prüfen.", "Mehrere Spalten könnten zu joined gehören: bitte eine wählen."},
	} {
		t.Run(tc.locale, func(t *testing.T) {
			var ses hostSession
			host := serveHost(t, app, &ses)
			ses = mint(t, app, key, tc.locale, host.URL)
			p := open(t, app)
			if tc.w != width {
				p.do(chromedp.EmulateViewport(tc.w, tc.h, chromedp.EmulateMobile))
			}
			p.do(chromedp.Navigate(host.URL))
			f := p.frame()
			f.until("the file step", `document.getElementById('tn-file')`)
			f.do(chromedp.SetUploadFiles(chromedp.ID("tn-file"), []string{path}))
			f.press(".tn-actions .tn-button")
			f.until("the match step", `[...document.querySelectorAll('button')].some((b) => b.textContent === `+jsString(tc.confirm)+`)`)
			f.checkStep(tc.w)
			type row struct {
				Column, Field, Notes, Checks, DescribedBy, Suggested string
			}
			rows := eval[[]row](f, `[...document.querySelectorAll('tbody tr')].map((tr) => {
			  const s = tr.querySelector('select');
			  return {
			    column: tr.querySelector('th').textContent, field: s.value,
			    notes: [...tr.querySelectorAll('.tn-col-notes li')].map((li) => li.textContent).join(' | '),
			    checks: [...tr.querySelectorAll('.tn-col-notes li.tn-check')].map((li) => li.dataset.code).join(','),
			    describedBy: s.getAttribute('aria-describedby') ?? '',
			    suggested: [...s.options].filter((o) => o.textContent.includes('(')).map((o) => o.value).join(','),
			  };
			})`)
			got := map[string]row{}
			for i, r := range rows {
				got[r.Column] = r
				if r.Notes != "" && r.DescribedBy != "tn-col-"+string(rune('0'+i))+"-notes" {
					t.Errorf("%s's select is described by %q", r.Column, r.DescribedBy)
				}
			}
			if r := got["Emial"]; r.Field != "email" || r.Checks != "fuzzy_mapping" || r.Notes != tc.header+" | "+tc.values+" | "+tc.similar {
				t.Errorf("Emial: %+v", r)
			}
			for _, c := range []string{"Beitritt", "Eintritt"} {
				if r := got[c]; r.Field != "" || r.Checks != "ambiguous_mapping" || r.Notes != tc.several || !strings.Contains(r.Suggested, "joined") {
					t.Errorf("%s: %+v", c, r)
				}
			}
			if r := got["ID"]; r.Notes != "" || r.DescribedBy != "" {
				t.Errorf("ID, matched by its name: %+v", r)
			}
			p.shot("embed-match-notes-" + tc.locale)
		})
	}
}
