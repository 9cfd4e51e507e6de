package httpapi_test

import (
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// TestStatuses_webhookRoutes: the answers of the webhook routes besides
// their happy paths (TestWebhooks_HTTP): another organization's endpoint
// (404), a reused Idempotency-Key (409), retries of a pending delivery or
// on a disabled endpoint (409), bad input (400). No workers run, so a
// delivery stays pending.
func TestStatuses_webhookRoutes(t *testing.T) {
	t.Parallel()
	app := apptest.StartRole(t, sqltest.SQLite(t), bootstrap.RoleAPI)
	key := apptest.Caller{Key: app.Key(app.Org("Acme", identity.Normalize))}
	other := apptest.Caller{Key: app.Key(app.Org("Other"))}
	create := func(events ...string) webhookView {
		t.Helper()
		res := app.Do("POST", "/v1/webhooks", key, map[string]any{"url": "https://hooks.example.com/tabnorm", "events": events})
		expect(t, res, 201, "")
		var w webhookView
		res.JSON(t, &w)
		return w
	}
	hook, second := create("job.succeeded"), create("job.failed")

	// A key spent on one endpoint cannot create another.
	body := map[string]any{"url": "https://hooks.example.com/a", "events": []string{"job.succeeded"}}
	expect(t, app.Do("POST", "/v1/webhooks", key, body, "Idempotency-Key", "w-1"), 201, "")
	body["url"] = "https://hooks.example.com/b"
	expect(t, app.Do("POST", "/v1/webhooks", key, body, "Idempotency-Key", "w-1"), 409, "idempotency_key_reused")

	got := app.Do("GET", "/v1/webhooks/"+hook.ID, key, nil)
	expect(t, got, 200, "")
	if !strings.Contains(got.Body, `"id":"`+hook.ID+`"`) || strings.Contains(got.Body, "whsec_") {
		t.Fatalf("GET shows %s", got.Body)
	}

	// A test delivery stays pending: retrying it is a conflict.
	var d deliveryView
	res := app.Do("POST", "/v1/webhooks/"+hook.ID+"/test", key, nil)
	expect(t, res, 202, "")
	res.JSON(t, &d)
	retry := "/v1/webhooks/" + hook.ID + "/deliveries/" + d.ID + "/retry"
	expect(t, app.Do("POST", retry, key, nil), 409, "delivery_pending")
	expect(t, app.Do("POST", "/v1/webhooks/"+second.ID+"/deliveries/"+d.ID+"/retry", key, nil), 404, "not_found")
	expect(t, app.Do("POST", "/v1/webhooks/"+hook.ID+"/deliveries/dlv_unknown/retry", key, nil), 404, "not_found")

	// Another organization sees none of it.
	for _, r := range []struct {
		method, path string
		body         any
	}{
		{"GET", "", nil}, {"PATCH", "", map[string]any{"enabled": false}}, {"DELETE", "", nil},
		{"POST", "/rotate-secret", nil}, {"POST", "/test", nil}, {"GET", "/deliveries", nil}, {"POST", "/deliveries/" + d.ID + "/retry", nil},
	} {
		expect(t, app.Do(r.method, "/v1/webhooks/"+hook.ID+r.path, other, r.body), 404, "not_found")
	}

	// Bad input.
	for _, c := range []struct {
		name, method, path string
		body               any
	}{
		{"no events", "PATCH", "/v1/webhooks/" + hook.ID, map[string]any{"events": []string{}}},
		{"null events", "PATCH", "/v1/webhooks/" + hook.ID, `{"events":null}`},
		{"not a URL", "PATCH", "/v1/webhooks/" + hook.ID, map[string]any{"url": "hooks.example.com"}},
		{"unknown field", "PATCH", "/v1/webhooks/" + hook.ID, map[string]any{"secret": "x"}},
		{"unknown event", "POST", "/v1/webhooks", map[string]any{"url": "https://hooks.example.com/c", "events": []string{"job.exploded"}}},
		{"list limit", "GET", "/v1/webhooks?limit=0", nil},
		{"deliveries cursor", "GET", "/v1/webhooks/" + hook.ID + "/deliveries?cursor=not-a-cursor", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			expect(t, app.Do(c.method, c.path, key, c.body), 400, "")
		})
	}

	// A disabled endpoint takes neither tests nor retries.
	expect(t, app.Do("PATCH", "/v1/webhooks/"+hook.ID, key, map[string]any{"enabled": false}), 200, "")
	expect(t, app.Do("POST", "/v1/webhooks/"+hook.ID+"/test", key, nil), 409, "webhook_disabled")
	expect(t, app.Do("POST", retry, key, nil), 409, "webhook_disabled")

	expect(t, app.Do("DELETE", "/v1/webhooks/"+hook.ID, key, nil), 204, "")
	for _, r := range []struct{ method, path string }{
		{"GET", ""}, {"DELETE", ""}, {"POST", "/rotate-secret"}, {"POST", "/test"}, {"GET", "/deliveries"}, {"POST", "/deliveries/" + d.ID + "/retry"},
	} {
		expect(t, app.Do(r.method, "/v1/webhooks/"+hook.ID+r.path, key, nil), 404, "not_found")
	}
}
