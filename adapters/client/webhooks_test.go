package client_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/client"
	"github.com/tabnorm/tabnorm/test/testtime"
)

// hookReceiver is a webhook endpoint on loopback that answers 204 and
// keeps the webhook-id of every request.
type hookReceiver struct {
	*httptest.Server
	mu  sync.Mutex
	ids []string
}

func newHookReceiver(t *testing.T) *hookReceiver {
	t.Helper()
	rcv := &hookReceiver{}
	rcv.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rcv.mu.Lock()
		rcv.ids = append(rcv.ids, r.Header.Get("webhook-id"))
		rcv.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(rcv.Close)
	return rcv
}

func (rcv *hookReceiver) received() []string {
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	return append([]string(nil), rcv.ids...)
}

// awaitDelivery polls an endpoint's deliveries until one has ended with
// the given number of attempts.
func awaitDelivery(t *testing.T, c *client.Client, webhookID, deliveryID string, attempts int) *client.Delivery {
	t.Helper()
	var last *client.Delivery
	for deadline := testtime.Deadline(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		for d, err := range c.Deliveries(context.Background(), webhookID, client.ListParams{}) {
			if err != nil {
				t.Fatal(err)
			}
			if d.ID == deliveryID {
				last = d
			}
		}
		if last != nil && last.Status != "pending" && last.Attempt == attempts {
			return last
		}
	}
	t.Fatalf("delivery %s did not end after %d attempts: %+v", deliveryID, attempts, last)
	return nil
}

// TestWebhooks_lifecycle drives every webhook route through the SDK: an
// endpoint is created (with its secret), listed, read (without it),
// changed, paused and resumed, disabled and enabled, its secret rotated,
// a test event delivered and retried, and the endpoint deleted.
func TestWebhooks_lifecycle(t *testing.T) {
	ctx := context.Background()
	c := client.New(serverURL, newOrgKey(t))
	rcv := newHookReceiver(t)
	w, err := c.CreateWebhook(ctx, client.WebhookParams{URL: rcv.URL + "/hook", Events: []string{"job.succeeded"}, Description: "orders"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(w.ID, "whk_") || !strings.HasPrefix(w.Secret, "whsec_") || w.State != "active" || !w.Enabled || w.Description != "orders" {
		t.Fatalf("created %+v", w)
	}
	var listed []string
	for x, err := range c.Webhooks(ctx, client.ListParams{PageSize: 1}) {
		if err != nil {
			t.Fatal(err)
		}
		listed = append(listed, x.ID)
	}
	if len(listed) != 1 || listed[0] != w.ID {
		t.Fatalf("listed %v", listed)
	}
	got, err := c.GetWebhook(ctx, w.ID)
	if err != nil || got.Secret != "" || got.URL != rcv.URL+"/hook" || strings.Join(got.Events, ",") != "job.succeeded" {
		t.Fatalf("read %+v: %v", got, err)
	}
	updateWebhook(t, c, w.ID)

	rotated, err := c.RotateWebhookSecret(ctx, w.ID)
	if err != nil || !strings.HasPrefix(rotated.Secret, "whsec_") || rotated.Secret == w.Secret || rotated.PreviousSecretUntil == nil {
		t.Fatalf("rotated %+v: %v", rotated, err)
	}

	d, err := c.TestWebhook(ctx, w.ID)
	if err != nil || d.Type != "webhook.test" || d.WebhookID != w.ID || !strings.HasPrefix(d.ID, "dlv_") {
		t.Fatalf("test delivery %+v: %v", d, err)
	}
	ended := awaitDelivery(t, c, w.ID, d.ID, 1)
	if ended.Status != "succeeded" || ended.StatusCode == nil || *ended.StatusCode != http.StatusNoContent {
		t.Fatalf("test delivery ended %+v", ended)
	}
	again, err := c.RetryDelivery(ctx, w.ID, d.ID)
	if err != nil || again.ID != d.ID {
		t.Fatalf("retry %+v: %v", again, err)
	}
	awaitDelivery(t, c, w.ID, d.ID, 2)
	if ids := rcv.received(); len(ids) != 2 || ids[0] != d.ID || ids[1] != d.ID {
		t.Fatalf("the receiver saw webhook-ids %v, want %s twice", ids, d.ID)
	}

	if err := c.DeleteWebhook(ctx, w.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetWebhook(ctx, w.ID); !client.IsCode(err, "not_found") {
		t.Fatalf("after delete: %v", err)
	}
	if _, err := c.RetryDelivery(ctx, w.ID, d.ID); !client.IsCode(err, "not_found") {
		t.Fatalf("retry after delete: %v", err)
	}
}

// updateWebhook changes every field UpdateWebhook can: URL, events and
// description, paused and enabled, each answer showing the change.
func updateWebhook(t *testing.T, c *client.Client, id string) {
	t.Helper()
	ctx := context.Background()
	yes, no := true, false
	desc := "orders and refunds"
	w, err := c.UpdateWebhook(ctx, id, client.WebhookPatch{Events: []string{"job.succeeded", "job.failed"}, Description: &desc})
	if err != nil || strings.Join(w.Events, ",") != "job.succeeded,job.failed" || w.Description != desc {
		t.Fatalf("events and description: %+v: %v", w, err)
	}
	if w, err = c.UpdateWebhook(ctx, id, client.WebhookPatch{Paused: &yes}); err != nil || !w.Paused || w.State != "paused" {
		t.Fatalf("paused: %+v: %v", w, err)
	}
	if w, err = c.UpdateWebhook(ctx, id, client.WebhookPatch{Paused: &no}); err != nil || w.Paused || w.State != "active" {
		t.Fatalf("resumed: %+v: %v", w, err)
	}
	if w, err = c.UpdateWebhook(ctx, id, client.WebhookPatch{Enabled: &no}); err != nil || w.Enabled || w.State != "disabled" {
		t.Fatalf("disabled: %+v: %v", w, err)
	}
	if _, err := c.TestWebhook(ctx, id); !client.IsCode(err, "webhook_disabled") {
		t.Fatalf("test of a disabled endpoint: %v", err)
	}
	if w, err = c.UpdateWebhook(ctx, id, client.WebhookPatch{Enabled: &yes}); err != nil || !w.Enabled || w.State != "active" {
		t.Fatalf("enabled: %+v: %v", w, err)
	}
	url := w.URL + "?v=2"
	if w, err = c.UpdateWebhook(ctx, id, client.WebhookPatch{URL: &url}); err != nil || w.URL != url || strings.Join(w.Events, ",") != "job.succeeded,job.failed" {
		t.Fatalf("url: %+v: %v", w, err)
	}
}

// TestDocs_everyMethodNamed: docs/clients.md names every exported method
// of the client, so none is there to be found only by reading the code.
func TestDocs_everyMethodNamed(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "clients.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	typ := reflect.TypeFor[*client.Client]()
	for i := range typ.NumMethod() {
		if name := typ.Method(i).Name; !strings.Contains(doc, "`"+name+"`") {
			t.Errorf("docs/clients.md does not name the method %s", name)
		}
	}
}
