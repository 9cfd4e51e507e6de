package browser

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// TestAuditPage: an admin finds the audit log in the navigation, reads
// the entries of a key's creation and a webhook's, narrows them to one
// action with the keyboard, and downloads them; the page fits 375 px
// with no serious or critical axe-core violation; a member is told the
// page is for admins, as the API says.
func TestAuditPage(t *testing.T) {
	browserTest(t)
	p := signedIn(t, "Acme", "ann@acme.test", identity.Admin, identity.Normalize)
	app := p.app
	if nav := p.text("nav"); !strings.Contains(nav, "Audit log") {
		t.Fatalf("an admin's navigation has no audit log: %q", nav)
	}
	acme, err := app.Accounts.Org(t.Context(), eval[string](p, `fetch('/auth/me').then((r) => r.json()).then((m) => m.organization.id)`))
	if err != nil {
		t.Fatal(err)
	}
	key := apptest.Caller{Key: app.ScopedKey(acme, "webhooks:write")}
	res := app.Do("POST", "/v1/webhooks", key, map[string]any{"url": "https://hooks.example.com/x", "events": []string{"job.succeeded"}})
	if res.StatusCode != 201 {
		t.Fatalf("webhook: %d %s", res.StatusCode, res.Body)
	}
	p.visit("/admin/audit")
	p.until("the entries", `document.querySelector('#audit-list')?.innerText.includes('webhook.create')`)
	list := p.text("#audit-list")
	for _, want := range []string{"webhook.create", "api_key.create", "login", "key key_", "127.0.0.1"} {
		if !strings.Contains(list, want) {
			t.Errorf("the log lacks %q: %s", want, list)
		}
	}
	p.checkStep(width)
	p.shot("audit")

	// Narrowed to one action, with the keyboard only.
	p.do(chromedp.SetValue(chromedp.ID("audit-action"), "webhook.create"),
		chromedp.Focus(chromedp.ID("audit-apply")), chromedp.KeyEvent("\r"))
	p.until("the filtered list", `!document.querySelector('#audit-list').innerText.includes('api_key.create')`)
	if rows := eval[int](p, `document.querySelectorAll('#audit-list tbody tr').length`); rows != 1 {
		t.Errorf("filtered to webhook.create: %d rows", rows)
	}
	if href := eval[string](p, `document.querySelector('#audit-export').href`); !strings.Contains(href, "/v1/audit-events.jsonl?action=webhook.create") {
		t.Errorf("the download link %q does not carry the filter", href)
	}
	body := eval[string](p, `fetch(document.querySelector('#audit-export').href, {credentials: 'include'}).then((r) => r.text())`)
	if strings.Count(body, "\n") != 1 || !strings.Contains(body, `"action":"webhook.create"`) {
		t.Errorf("the download: %q", body)
	}

	p.do(chromedp.EmulateViewport(375, 812, chromedp.EmulateMobile))
	p.visit("/admin/audit")
	p.until("the entries", `document.querySelector('#audit-list table')`)
	p.checkStep(375)
	p.shot("audit-phone")

	member := open(t, app)
	email := "bob@acme.test"
	person(t, app, acme, email, identity.Member, false)
	member.login(email)
	if nav := member.text("nav"); strings.Contains(nav, "Audit log") {
		t.Errorf("a member's navigation offers the audit log: %q", nav)
	}
	member.refusal("/admin/audit", "Only organization admins read the audit log", "#audit-filters, #audit-list",
		"/v1/audit-events", "insufficient_permissions")
}
