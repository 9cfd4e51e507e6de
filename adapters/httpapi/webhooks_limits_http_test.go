package httpapi_test

import (
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
	"github.com/tabnorm/tabnorm/test/testtime"
)

// hooksPauseAndResume: a paused endpoint says so, its test delivery
// waits unsent, and resuming it sends that delivery at once.
func hooksPauseAndResume(t *testing.T, h *hooks) {
	var paused webhookView
	h.valid(t, "PATCH", "/v1/webhooks/"+h.hook.ID, h.admin, map[string]any{"paused": true}, 200).JSON(t, &paused)
	if !paused.Paused || paused.State != "paused" {
		t.Fatalf("pause: %+v", paused)
	}
	var d deliveryView
	h.valid(t, "POST", "/v1/webhooks/"+h.hook.ID+"/test", h.key, nil, 202).JSON(t, &d)
	// The delivery is held: its attempt is made (and deferred) by a
	// worker, so wait until it has been looked at, then check nothing
	// was sent.
	var page struct {
		Data []struct {
			ID            string
			Status        string
			Attempt       int
			NextAttemptAt *string `json:"next_attempt_at"`
		}
	}
	for deadline := testtime.Deadline(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		h.valid(t, "GET", "/v1/webhooks/"+h.hook.ID+"/deliveries", h.member, nil, 200).JSON(t, &page)
		if next := page.Data[0].NextAttemptAt; next != nil && parseTime(t, next).After(time.Now().Add(30*time.Minute)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the paused endpoint's delivery was not held: %+v", page.Data[0])
		}
	}
	if got := page.Data[0]; got.ID != d.ID || got.Status != "pending" || got.Attempt != 0 {
		t.Fatalf("held delivery: %+v", got)
	}
	h.rcv.mu.Lock()
	sent := len(h.rcv.got)
	h.rcv.mu.Unlock()
	var resumed webhookView
	h.valid(t, "PATCH", "/v1/webhooks/"+h.hook.ID, h.admin, map[string]any{"paused": false}, 200).JSON(t, &resumed)
	if resumed.Paused || resumed.State != "active" {
		t.Fatalf("resume: %+v", resumed)
	}
	if got := h.rcv.wait(t, sent+1); got.header.Get("webhook-id") != d.ID {
		t.Fatalf("after resuming, %s arrived, want %s", got.header.Get("webhook-id"), d.ID)
	}
}

// TestWebhooks_limitPerOrganization: an organization has at most
// TABNORM_MAX_WEBHOOKS_PER_ORG endpoints; another organization is not
// affected.
func TestWebhooks_limitPerOrganization(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			app := apptest.Start(t, target, func(c *bootstrap.Config) { c.WebhookAllowPrivate = true; c.MaxWebhooksPerOrg = 2 })
			a, b := apptest.Caller{Key: app.Key(app.Org("A", identity.Normalize))}, apptest.Caller{Key: app.Key(app.Org("B", identity.Normalize))}
			body := map[string]any{"url": "http://127.0.0.1:9/", "events": []string{"job.failed"}}
			var first webhookView
			res := app.Do("POST", "/v1/webhooks", a, body)
			expect(t, res, 201, "")
			res.JSON(t, &first)
			expect(t, app.Do("POST", "/v1/webhooks", a, body), 201, "")
			expect(t, app.Do("POST", "/v1/webhooks", a, body), 409, "webhook_limit_reached")
			expect(t, app.Do("POST", "/v1/webhooks", b, body), 201, "")
			expect(t, app.Do("DELETE", "/v1/webhooks/"+first.ID, a, nil), 204, "")
			expect(t, app.Do("POST", "/v1/webhooks", a, body), 201, "")
		})
	}
}
