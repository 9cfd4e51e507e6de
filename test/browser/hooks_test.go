package browser

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/tabnorm/tabnorm/adapters/client"
	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// TestHooks: an admin registers a validation hook on /hooks with the
// keyboard alone (its secret shown once) and tries it with a sample that
// a real hook on loopback verifies and answers (an issue, a correction);
// after a job through the hook, the hook and the schema that names it show
// its recent batch, and the schema's "Test with a sample" sends a typed
// sample of the schema's fields, then shows a failing hook's failure. The
// pages have no serious or critical axe-core violation at 375 px and on a
// wide screen; a member only reads.
func TestHooks(t *testing.T) {
	browserTest(t)
	var secret atomic.Value
	secret.Store("")
	var down atomic.Bool
	var batches atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			http.Error(w, "maintenance", http.StatusServiceUnavailable)
			return
		}
		client.HookHandler(func(_ context.Context, b client.HookBatch) (client.HookAnswer, error) {
			batches.Add(1)
			var ans client.HookAnswer
			for _, r := range b.Rows {
				row := client.HookRowAnswer{Row: r.Row}
				if string(r.Values["customer_id"]) == `"C-404"` {
					row.Issues = []client.HookIssue{{Field: "customer_id", Severity: "error", Code: "unknown_customer", Message: "No such customer"}}
				}
				if e := string(r.Values["email"]); e != strings.ToLower(e) {
					row.Values = map[string]any{"email": strings.Trim(strings.ToLower(e), `"`)}
				}
				ans.Rows = append(ans.Rows, row)
			}
			return ans, nil
		}, secret.Load().(string)).ServeHTTP(w, r)
	}))
	defer srv.Close()

	app := apptest.Start(t, sqltest.SQLite(t), func(c *bootstrap.Config) { c.WebhookAllowPrivate = true })
	org := app.Org("Acme", identity.Normalize)
	person(t, app, org, "ann@acme.test", identity.Admin, false)
	person(t, app, org, "max@acme.test", identity.Member, false)
	p := open(t, app)
	p.login("ann@acme.test")
	if nav := p.text("nav"); !strings.Contains(nav, "Hooks") {
		t.Fatalf("navigation has no Hooks: %q", nav)
	}
	p.visit("/hooks")
	p.until("the empty list", `document.querySelector('#hooks-list')?.innerText.includes('No hooks yet')`)
	p.checkStep(width)

	// From the keyboard: the name, the URL, Enter.
	p.tabFar("hook-name")
	p.do(chromedp.KeyEvent("crm"))
	p.tabFar("hook-url")
	p.do(chromedp.KeyEvent(srv.URL+"/validate"), chromedp.KeyEvent(kb.Enter))
	p.until("the secret", `document.querySelector('#new-secret')?.value.startsWith('whsec_')`)
	secret.Store(eval[string](p, `document.querySelector('#new-secret').value`))
	p.until("the hook in the list", `document.querySelector('#hooks-list')?.innerText.includes('No batches yet')`)

	// Test with a sample, from the keyboard: the button opens the form and
	// moves focus to it; the sample is edited, then sent with Enter.
	p.tabFar(eval[string](p, `document.querySelector('#hooks-list button[id^="test-"]').id`))
	p.do(chromedp.KeyEvent(kb.Enter))
	p.until("the sample form", `document.activeElement?.id === 'hook-test-h' && document.querySelector('#sample-rows')?.value.includes('C-1001')`)
	p.do(chromedp.SetValue(chromedp.ID("sample-rows"), `[{"row":1,"values":{"customer_id":"C-404","email":"ann@example.com"}},{"row":2,"values":{"customer_id":"C-1","email":"Bob@Example.com"}}]`))
	p.tabFar("sample-send")
	p.do(chromedp.KeyEvent(kb.Enter))
	p.until("the hook's answer", `(document.querySelector('#sample-result')?.innerText ?? '').includes('unknown_customer')`)
	got := p.text("#sample-result")
	for _, want := range []string{"crm: succeeded (200) in ", "No such customer", "bob@example.com"} {
		if !strings.Contains(got, want) {
			t.Errorf("the sample's answer lacks %q: %q", want, got)
		}
	}
	if n := batches.Load(); n != 1 {
		t.Fatalf("the hook verified and answered %d batches, want 1", n)
	}
	p.shot("hooks-sample")

	// A job through the hook, and a saved schema that names it.
	key := apptest.Caller{Key: app.Key(org)}
	schema := `{"fields":[{"name":"customer_id"},{"name":"email","type":"string","format":"email"},{"name":"amount","type":"number"}],` +
		`"hooks":[{"hook":"crm","fields":["customer_id","email"],"on_error":"flag_rows"}]}`
	if res := app.Do("POST", "/v1/schemas", key, map[string]any{"name": "customers", "schema": json.RawMessage(schema)}); res.StatusCode != 201 {
		t.Fatalf("schema: %d %s", res.StatusCode, res.Body)
	}
	finishedJob(t, app, key, "customer_id,email,amount\nC-1,ann@example.com,3\nC-404,bob@example.com,4\n", schema)
	p.visit("/hooks")
	p.until("its recent batch", `(document.querySelector('#hooks-list')?.innerText ?? '').includes('Last 1: 1 ok, 0 failed')`)
	p.shot("hooks")

	p.visit("/schemas")
	p.until("the schema's hook and its recent batch", `(document.querySelector('#schemas-list')?.innerText ?? '').includes('Last 1: 1 ok, 0 failed')`)
	p.checkStep(width)
	p.do(chromedp.Click(chromedp.CSS(`#schemas-list button[id^="schema-hook-test-"]`)))
	p.until("the typed sample", `document.activeElement?.id === 'schema-hook-test-h' && document.querySelector('#schema-sample-rows')?.value.includes('ann@example.com')`)
	if sample := eval[string](p, `document.querySelector('#schema-sample-rows').value`); !strings.Contains(sample, `"customer_id": "sample"`) || strings.Contains(sample, "amount") {
		t.Errorf("the sample is not the fields the schema sends the hook: %s", sample)
	}
	p.do(chromedp.Click(chromedp.ID("schema-sample-send")))
	p.until("the answer", `(document.querySelector('#schema-sample-result')?.innerText ?? '').includes('crm: succeeded (200)')`)
	if got := p.text("#schema-sample-result"); !strings.Contains(got, "nothing to say") {
		t.Errorf("the answer to a clean sample: %q", got)
	}
	down.Store(true)
	p.do(chromedp.Click(chromedp.ID("schema-sample-send")))
	p.until("the failure", `(document.querySelector('#schema-sample-result')?.innerText ?? '').includes('failed (503)')`)
	if got := p.text("#schema-sample-result"); !strings.Contains(got, "A job's batch would fail: it answered 503") {
		t.Errorf("a failing hook's answer: %q", got)
	}
	p.shot("schemas-hooks")
	p.do(chromedp.EmulateViewport(375, 812, chromedp.EmulateMobile))
	p.checkStep(375)
	p.shot("schemas-hooks-phone")
	p.visit("/hooks")
	p.until("the list", `(document.querySelector('#hooks-list')?.innerText ?? '').includes('crm')`)
	p.checkStep(375)
	p.shot("hooks-phone")
	p.do(chromedp.EmulateViewport(width, height))
	p.noTrace(secret.Load().(string)) // shown once: gone from the page loaded again

	m := open(t, app)
	m.login("max@acme.test")
	m.visit("/hooks")
	if msg := m.text("#hooks-read-only"); !strings.Contains(msg, "Only organization admins change or test hooks") {
		t.Errorf("a member is told %q", msg)
	}
	m.until("the list", `(document.querySelector('#hooks-list')?.innerText ?? '').includes('Last 1: 1 ok')`)
	if eval[bool](m, `!!document.querySelector('#create-hook, #hooks-list button')`) {
		t.Error("a member is offered changes or tests")
	}
	m.visit("/schemas")
	m.until("the schema's hook", `(document.querySelector('#schemas-list')?.innerText ?? '').includes('crm')`)
	if eval[bool](m, `!!document.querySelector('#schemas-list button[id^="schema-hook-test-"]')`) {
		t.Error("a member is offered a test of the schema's hook")
	}
}
