package browser

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// dropFile drops a file on the page's upload zone, as a person drags one.
func (p *page) dropFile(name, content string) {
	p.t.Helper()
	text, _ := json.Marshal(content)
	p.do(chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => {
		const dropped = new DataTransfer();
		dropped.items.add(new File([%s], %q, { type: 'text/csv' }));
		document.querySelector('.dropzone').dispatchEvent(new DragEvent('drop', { dataTransfer: dropped, bubbles: true, cancelable: true }));
	})()`, text, name)))
	p.until("the dropped file", fmt.Sprintf(`document.querySelector('#file').files[0]?.name === %q`, name))
}

// choose picks an option of a select with the keyboard: focus, then type
// the start of the option's text, as a person does on a closed select.
//
// A select's type-ahead forgets what was typed after a second without a
// key, and a loaded machine can take that long between two key events:
// "email" typed slowly is "e", then "i" on its own, which picks another
// option. So only the shortest prefix of typed that no other option's
// text starts with is typed: one key when it can be, else the arrow keys
// move to the option, and the option chosen is checked.
func (p *page) choose(id, typed string) {
	p.t.Helper()
	type option struct {
		Prefix   string
		From, To int
	}
	at := eval[option](p, fmt.Sprintf(`(() => {
	  const s = document.getElementById(%q), want = %q.toLowerCase();
	  const texts = [...s.options].map((o) => o.textContent.toLowerCase());
	  const to = texts.findIndex((t) => t.startsWith(want));
	  let n = 1;
	  while (n < want.length && texts.filter((t) => t.startsWith(want.slice(0, n))).length > 1) n++;
	  return { prefix: want.slice(0, n), from: s.selectedIndex, to };
	})()`, id, typed))
	if at.To < 0 {
		p.t.Fatalf("#%s has no option %q", id, typed)
	}
	p.do(chromedp.Focus(chromedp.ID(id)))
	switch {
	case len(at.Prefix) == 1:
		p.do(chromedp.KeyEvent(at.Prefix))
	case at.To > at.From:
		p.do(chromedp.KeyEvent(strings.Repeat(kb.ArrowDown, at.To-at.From)))
	default:
		p.do(chromedp.KeyEvent(strings.Repeat(kb.ArrowUp, at.From-at.To)))
	}
	if got := eval[string](p, fmt.Sprintf(`document.getElementById(%q).selectedOptions[0]?.textContent ?? ''`, id)); !strings.HasPrefix(strings.ToLower(got), strings.ToLower(typed)) {
		p.t.Fatalf("#%s chose %q, not %q", id, got, typed)
	}
}

// tabTo presses Tab until the element with id has the focus.
func (p *page) tabTo(id string) {
	p.t.Helper()
	for range 40 {
		if eval[string](p, `document.activeElement?.id ?? ''`) == id {
			return
		}
		p.do(chromedp.KeyEvent(kb.Tab))
	}
	p.t.Fatalf("Tab never reached #%s (focus on %s)", id, eval[string](p, `document.activeElement?.outerHTML.slice(0, 80) ?? ''`))
}

// TestReview_mappingScreen: a job started with "Review columns before
// running" (on by default) stops at a mapping screen: each column with its
// sample values, proposal, confidence and alternatives; a required field
// left unmapped blocks the confirmation; choices made with the keyboard
// update the preview; Confirm runs the job as reviewed. At 375 px too.
func TestReview_mappingScreen(t *testing.T) {
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
	if !eval[bool](p, `document.querySelector('#review-first').checked`) {
		t.Fatal("Review columns before running is not on by default")
	}
	p.dropFile("people.csv", "Pos,Contact,Joined,Notes\n1,ann@x.io,31/01/2024,first\n2,bob@,01/02/2024,second\n3,cy@x.io,2024-03-04,third\n")
	p.do(chromedp.Click(chromedp.ID("start-job")))
	p.until("the mapping screen", `/^\/jobs\/job_/.test(location.pathname) && document.querySelector('#review table') && document.querySelector('#confirm-review')`)
	jobID := strings.TrimPrefix(eval[string](p, `location.pathname`), "/jobs/")
	if st := p.text("#job-status"); !strings.Contains(st, "awaiting_review") {
		t.Errorf("status %q", st)
	}
	if missing := p.unlabelled(); missing != "" {
		t.Errorf("form controls without a label on the mapping screen: %s", missing)
	}
	review := p.text("#review")
	for _, want := range []string{"Pos", "1 · 2 · 3", "Joined", "100% (normalized)", "ann@x.io · bob@ · cy@x.io", "Read 3 records (all of the file)",
		`Required field "id" matches no column`} {
		if !strings.Contains(review, want) {
			t.Errorf("the mapping screen lacks %q:\n%s", want, review)
		}
	}
	if !eval[bool](p, `document.querySelector('#confirm-review').disabled`) {
		t.Error("Confirm is enabled while a required field is unmapped")
	}
	// The alternatives: Pos could be id; Contact names a person, but its
	// values say e-mail, and the suggestion says so.
	if got := eval[string](p, `[...document.querySelectorAll('#map-0 optgroup[label="Suggested"] option')].map((o) => o.textContent).join('|')`); !strings.HasPrefix(got, "id (required) — content") {
		t.Errorf("Pos's suggestions %q", got)
	}
	if got := eval[string](p, `[...document.querySelectorAll('#map-1 optgroup[label="Suggested"] option')].map((o) => o.textContent).join('|')`); !strings.HasPrefix(got, "email — content") ||
		!strings.Contains(got, "100% of values email") {
		t.Errorf("Contact's suggestions %q", got)
	}
	p.shot("review-blocked")

	// By keyboard: Tab to Pos's select, type "id"; then Contact → email;
	// Joined ignored (End: the last choice) and taken back. Each change is
	// saved and the preview drawn again.
	p.do(chromedp.Focus(chromedp.ID("cancel-job")))
	p.tabTo("map-0")
	p.do(chromedp.KeyEvent("id"))
	p.until("id mapped", `document.querySelector('#review-said').innerText.includes('Pos: mapped to id') && !document.querySelector('#review-blocking')`)
	if eval[string](p, `document.activeElement.id`) != "map-0" {
		t.Errorf("the focus left the select that changed: %s", eval[string](p, `document.activeElement.outerHTML.slice(0, 60)`))
	}
	p.choose("map-1", "email")
	p.until("email mapped", `document.querySelector('#review-said').innerText.includes('Contact: mapped to email')`)
	p.do(chromedp.Focus(chromedp.ID("map-2")), chromedp.KeyEvent(kb.End))
	p.until("Joined ignored", `document.querySelector('#review-said').innerText.includes('Joined: ignored')`)
	if got := p.text("#unmapped-fields"); got != "Fields no column maps to: joined." {
		t.Errorf("unmapped fields: %q", got)
	}
	p.choose("map-2", "joined")
	p.until("Joined mapped again", `document.querySelector('#review-said').innerText.includes('Joined: mapped to joined')`)
	preview := p.text("#review")
	for _, want := range []string{"2 would be kept, 1 rejected", "rejected", "invalid_email “bob@”", "2024-01-31"} {
		if !strings.Contains(preview, want) {
			t.Errorf("the preview lacks %q:\n%s", want, preview)
		}
	}
	if eval[bool](p, `document.querySelector('#confirm-review').disabled`) {
		t.Fatal("Confirm is still disabled")
	}
	p.shot("review")

	// On a phone the screen fits; only its tables scroll sideways.
	p.do(chromedp.EmulateViewport(375, 812, chromedp.EmulateMobile))
	if w := eval[int](p, `document.documentElement.scrollWidth`); w > 375 {
		t.Errorf("the mapping screen is %d px wide on a 375 px screen", w)
	}
	p.shot("review-phone")
	p.do(chromedp.EmulateViewport(width, height))

	// Confirm with the keyboard: the job runs as reviewed.
	p.do(chromedp.Focus(chromedp.ID("confirm-review")), chromedp.KeyEvent(kb.Enter))
	p.until("the job done", `document.querySelector('#job-status').innerText.includes('succeeded') && document.querySelector('#rows-table table')`)
	if got := p.text("#result-summary"); got != "2 valid rows, 1 rejected, 1 issues." {
		t.Errorf("summary %q", got)
	}
	var j struct {
		Options struct {
			Mapping map[string]*string `json:"mapping"`
		} `json:"options"`
	}
	app.Do("GET", "/v1/jobs/"+jobID, key, nil).JSON(t, &j)
	if m := j.Options.Mapping; m["Pos"] == nil || *m["Pos"] != "id" || m["Contact"] == nil || *m["Contact"] != "email" || m["Notes"] != nil ||
		m["Joined"] == nil || *m["Joined"] != "joined" {
		t.Errorf("the job ran with mapping %v", m)
	}
	if sse := strings.Join(p.events(), "\n"); !strings.Contains(sse, "job.awaiting_review") || !strings.Contains(sse, "job.succeeded") {
		t.Errorf("the page did not follow the job's events:\n%s", sse)
	}
}

// TestFix_values: a job that rejected rows offers "Fix values": the refused
// values of a field with their counts, a replacement picked or typed for
// some (others left invalid), the cells they fix, and a rerun on the same
// file whose page links back to the first job.
func TestFix_values(t *testing.T) {
	browserTest(t)
	app := apptest.Start(t, sqltest.SQLite(t))
	org := app.Org("Acme", identity.Normalize)
	admin := person(t, app, org, "ann@acme.test", identity.Admin, false)
	p := open(t, app)
	p.login(admin.Email)
	p.visit("/jobs/new")
	p.dropFile("mitglieder.csv", "Name,Aktiv,Eintritt\nAnna,ja,13.02.2024\nBernd,nein,14.04.2024\nClara,JA,15.06.2024\nDora,vielleicht,17.08.2024\nEmil,ja,1. März 2024\n")
	p.do(
		chromedp.Click(chromedp.ID("schema-source-pasted")),
		chromedp.SetValue(chromedp.ID("schema-text"), `{"fields":[{"name":"name","type":"string","constraints":{"required":true}},
			{"name":"active","type":"boolean","aliases":["Aktiv"]},{"name":"joined","type":"date","aliases":["Eintritt"]}]}`),
		chromedp.Click(chromedp.ID("review-first")), // straight through
		chromedp.Click(chromedp.ID("start-job")),
	)
	p.until("the job done", `/^\/jobs\/job_/.test(location.pathname) && document.querySelector('#job-status').innerText.includes('succeeded') && document.querySelector('#fix-values table')`)
	first := strings.TrimPrefix(eval[string](p, `location.pathname`), "/jobs/")
	if href := eval[string](p, `document.querySelector('#fix-download-errors-xlsx').getAttribute('href')`); href != "/v1/jobs/"+first+"/errors?format=xlsx&rows=rejected" {
		t.Errorf("the fix panel's errors workbook link is %q", href)
	}
	if got := eval[string](p, `document.querySelector('#fix-field').value`); got != "active" {
		t.Errorf("Fix values starts on %q, want the first refused field", got)
	}
	values := p.text("#fix-values")
	for _, want := range []string{"ja\t2\tinvalid_boolean", "JA\t1", "nein\t1", "vielleicht\t1"} {
		if !strings.Contains(values, want) {
			t.Errorf("refused values lack %q:\n%s", want, values)
		}
	}
	if missing := p.unlabelled(); missing != "" {
		t.Errorf("form controls without a label on the fix screen: %s", missing)
	}
	// ja → true, JA → true, nein → false; vielleicht stays invalid.
	rows := eval[[]string](p, `[...document.querySelectorAll('#fix-values tbody tr')].map((r) => r.cells[0].innerText)`)
	for i, v := range rows {
		switch v {
		case "ja", "JA":
			p.choose(fmt.Sprintf("fix-%d", i), "true")
		case "nein":
			p.choose(fmt.Sprintf("fix-%d", i), "false")
		}
	}
	p.until("the tally", `document.querySelector('#fix-total').innerText === '3 replacements, fixing up to 4 cells.'`)
	// The date of another field, typed.
	p.choose("fix-field", "joined")
	p.until("the dates", `document.querySelector('#fix-values').innerText.includes('1. März 2024')`)
	p.do(chromedp.SendKeys(chromedp.ID("fix-0"), "2024-03-01"))
	p.until("the tally", `document.querySelector('#fix-total').innerText === '4 replacements, fixing up to 5 cells.'`)
	p.shot("fix-values")
	p.do(chromedp.EmulateViewport(375, 812, chromedp.EmulateMobile))
	if w := eval[int](p, `document.documentElement.scrollWidth`); w > 375 {
		t.Errorf("the fix screen is %d px wide on a 375 px screen", w)
	}
	p.do(chromedp.EmulateViewport(width, height))

	p.do(chromedp.Focus(chromedp.ID("rerun-fixes")), chromedp.KeyEvent(kb.Enter))
	p.until("the rerun done", fmt.Sprintf(`location.pathname !== '/jobs/%s' && document.querySelector('#rerun-of') &&
		document.querySelector('#job-status').innerText.includes('succeeded') && document.querySelector('#rows-table table')`, first))
	if href := eval[string](p, `document.querySelector('#rerun-of').getAttribute('href')`); href != "/jobs/"+first {
		t.Errorf("the rerun links to %q", href)
	}
	if got := p.text("#result-summary"); got != "4 valid rows, 1 rejected, 1 issues." {
		t.Errorf("rerun summary %q", got)
	}
	if rows := p.text("#rows-table"); !strings.Contains(rows, "Emil\ttrue\t2024-03-01") || !strings.Contains(rows, "Anna\ttrue\t2024-02-13") {
		t.Errorf("rerun rows:\n%s", rows)
	}
	p.shot("rerun")
}
