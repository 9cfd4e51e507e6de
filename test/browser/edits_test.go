package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
	"github.com/tabnorm/tabnorm/test/testtime"
)

// editsCSV has 24 rejected rows, more than a page of the grid: rows 1–23
// have an e-mail without a dot in its domain, row 24 a word for a boolean,
// row 25 is valid.
func editsCSV() string {
	var b strings.Builder
	b.WriteString("id,email,active\n")
	for i := 1; i <= 23; i++ {
		fmt.Fprintf(&b, "%d,user%d@example,yes\n", i, i)
	}
	b.WriteString("24,dee@example.com,vielleicht\n25,eve@example.com,no\n")
	return b.String()
}

const editsSchema = `{"fields":[{"name":"id","type":"integer","constraints":{"required":true,"unique":true}},
	{"name":"email","type":"string","format":"email","constraints":{"required":true}},{"name":"active","type":"boolean"}]}`

// finishedJob creates a job over content with the organization's key and
// waits for it to succeed.
func finishedJob(t *testing.T, app *apptest.App, key apptest.Caller, content, schema string) string {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", "people.csv")
	_, _ = fw.Write([]byte(content))
	_ = mw.WriteField("schema", schema)
	_ = mw.Close()
	req, _ := http.NewRequest("POST", app.URL+"/v1/jobs", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	res := app.Request(req, key)
	var j struct{ ID, Status string }
	if res.StatusCode != 202 {
		t.Fatalf("create job: %d %s", res.StatusCode, res.Body)
	}
	res.JSON(t, &j)
	for deadline := testtime.Deadline(wait); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		app.Do("GET", "/v1/jobs/"+j.ID, key, nil).JSON(t, &j)
		if j.Status == "succeeded" {
			return j.ID
		}
		if j.Status == "failed" || j.Status == "canceled" {
			t.Fatalf("job %s %s", j.ID, j.Status)
		}
	}
	t.Fatalf("job %s did not finish in %s", j.ID, wait)
	return ""
}

// focused is the id of the element with the focus.
func (p *page) focused() string {
	p.t.Helper()
	return eval[string](p, `document.activeElement?.id ?? ''`)
}

// key presses keys on whatever has the focus.
func (p *page) key(keys ...string) {
	p.t.Helper()
	for _, k := range keys {
		p.do(chromedp.KeyEvent(k))
	}
}

// tabFar presses Tab until the element with id has the focus, through up
// to 150 stops (the value fixes above the grid have many).
func (p *page) tabFar(id string) {
	p.t.Helper()
	for range 150 {
		if p.focused() == id {
			return
		}
		p.do(chromedp.KeyEvent(kb.Tab))
	}
	p.t.Fatalf("Tab never reached #%s (focus on %s)", id, p.focused())
}

// TestEdits_grid: a job's rows are the spreadsheet a person fixes with
// the keyboard alone: Enter edits and saves a cell (checked at once: the
// row says it is now valid, or which problems remain), Escape cancels; the
// last page's rows are one key away; at 375 px and on a wide screen with
// no serious or critical axe-core violation; "Rerun with changes" reruns
// the job with the edits, and the rerun's spreadsheet marks them.
func TestEdits_grid(t *testing.T) {
	browserTest(t)
	app := apptest.Start(t, sqltest.SQLite(t))
	org := app.Org("Acme", identity.Normalize)
	admin := person(t, app, org, "ann@acme.test", identity.Admin, false)
	first := finishedJob(t, app, apptest.Caller{Key: app.Key(org)}, editsCSV(), editsSchema)
	p := open(t, app)
	p.login(admin.Email)
	p.visit("/jobs/" + first)
	p.sheetReady("sh")
	if got := eval[string](p, `[...document.querySelectorAll('#sh-grid [role=columnheader]')].map((c) => c.querySelector('.sh-title')?.textContent ?? c.textContent).join(',')`); got != "Row,id,email,active" {
		t.Errorf("grid columns %q", got)
	}
	if got := p.text("#sh-count"); got != "25 rows" {
		t.Errorf("the count %q", got)
	}
	if eval[string](p, `document.querySelector('#sh-c-0-2').getAttribute('aria-invalid')`) != "true" ||
		eval[int](p, `document.querySelectorAll('#sh-grid [tabindex="0"]').length`) != 1 {
		t.Error("bad cells are not marked invalid, or more than one cell is in the Tab order")
	}

	// Tab reaches the grid on its first cell; Enter edits, Escape leaves it.
	p.tabFar("sh-c-0-1")
	p.key(kb.ArrowRight, kb.ArrowDown, kb.Enter)
	p.until("the cell editor", `document.activeElement?.id === 'sh-editor'`)
	p.key("oops", kb.Escape)
	p.until("the cell again", `document.activeElement?.id === 'sh-c-1-2'`)
	if got := p.text("#sh-said"); got != "Row 2: email left as it was." {
		t.Errorf("after Escape: %q", got)
	}
	// A fix that makes the row valid.
	p.key(kb.Enter)
	p.until("the cell editor", `document.activeElement?.id === 'sh-editor'`)
	p.do(chromedp.Evaluate[chromedp.Void](`document.activeElement.value = ''`))
	p.key("user2@example.com", kb.Enter)
	p.until("the saved edit", `document.getElementById('sh-said').textContent === 'Row 2: email saved. The row is now valid.'`)
	p.until("the focus back on the cell", `document.activeElement?.id === 'sh-c-1-2'`)
	if got := p.text("#sh-c-1-0"); !strings.Contains(eval[string](p, `document.getElementById('sh-c-1-0').textContent`), "valid") ||
		!eval[bool](p, `document.getElementById('sh-c-1-2').classList.contains('sh-edited')`) {
		t.Errorf("the fixed row says %q, its cell not marked edited", got)
	}
	// A change that is still wrong says what remains.
	p.key(kb.ArrowUp, kb.Enter)
	p.until("the cell editor", `document.activeElement?.id === 'sh-editor'`)
	p.do(chromedp.Evaluate[chromedp.Void](`document.activeElement.value = ''`))
	p.key("still@wrong", kb.Enter)
	p.until("the saved edit", `document.getElementById('sh-said').textContent.startsWith('Row 1: email saved. The row still has a problem: ')`)
	if eval[string](p, `document.getElementById('sh-c-0-2').getAttribute('aria-invalid')`) != "true" {
		t.Error("the cell still wrong is not marked invalid")
	}
	p.checkStep(width)
	p.shotOf("edit-grid", "#spreadsheet")

	// On a phone: the grid scrolls inside its box, the page does not.
	p.do(chromedp.EmulateViewport(375, 812, chromedp.EmulateMobile))
	p.checkStep(375)
	p.shotOf("edit-grid-phone", "#spreadsheet")
	p.do(chromedp.EmulateViewport(width, height))

	// The last row, from the keyboard: the boolean of row 24, fixed.
	p.do(chromedp.Focus(chromedp.ID("sh-c-0-2")))
	p.ctrl(kb.End)
	p.until("the last row", `document.activeElement?.id === 'sh-c-24-3'`)
	p.key(kb.ArrowUp)
	if got := p.focused(); got != "sh-c-23-3" {
		t.Fatalf("Ctrl+End, ArrowUp went to %q", got)
	}
	p.key(kb.Enter)
	p.until("the cell editor", `document.activeElement?.id === 'sh-editor'`)
	p.do(chromedp.Evaluate[chromedp.Void](`document.activeElement.value = ''`))
	p.key("no", kb.Enter)
	p.until("the saved edit", `document.getElementById('sh-said').textContent === 'Row 24: active saved. The row is now valid.'`)

	// The edits are the job's; the rerun applies them.
	var edits struct {
		Data []struct {
			Row   int64
			Field string
			Value *string
		}
	}
	status, body := p.fetchBody("/v1/jobs/" + first + "/edits")
	if err := json.Unmarshal([]byte(body), &edits); status != 200 || err != nil || len(edits.Data) != 3 {
		t.Fatalf("the job's edits: %d %s", status, body)
	}
	p.tabFar("sheet-rerun")
	p.key(kb.Enter)
	p.until("the rerun done", fmt.Sprintf(`location.pathname !== '/jobs/%s' && document.querySelector('#rerun-of') &&
		document.querySelector('#job-status').innerText.includes('succeeded') && document.querySelector('#result-summary')`, first))
	if got := p.text("#result-summary"); !strings.HasPrefix(got, "3 valid rows, 22 rejected") {
		t.Errorf("rerun summary %q", got)
	}
	p.sheetReady("sh")
	if got := p.text("#sh-c-0-2 .sh-text"); got != "still@wrong" || !eval[bool](p, `document.getElementById('sh-c-0-2').classList.contains('sh-edited')`) {
		t.Errorf("the rerun's first cell %q, want the edit it ran with, marked", got)
	}
	p.shotOf("edit-rerun", "#spreadsheet")
}

// shotOf saves a screenshot of one element, where shot saves the page's.
func (p *page) shotOf(name, selector string) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, wait)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(selector)))
	if err != nil {
		p.t.Fatalf("screenshot %s: %v", name, err)
	}
	p.saveShot(name, png)
}

// fetchBody calls the API from the page with its cookie and returns the
// status and the body.
func (p *page) fetchBody(path string) (int, string) {
	p.t.Helper()
	res := eval[struct {
		Status int    `json:"status"`
		Body   string `json:"body"`
	}](p, fmt.Sprintf(`fetch(%q, {credentials: 'include'}).then(async (r) => ({status: r.status, body: await r.text()}))`, path))
	return res.Status, res.Body
}
