package httpapi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/adapters/tracing/tracingtest"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
	"github.com/tabnorm/tabnorm/test/testtime"
)

// answering is a webhook receiver on loopback that answers status.
func answering(t *testing.T, status int) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(status) }))
	t.Cleanup(srv.Close)
	return srv.URL + "/hook"
}

// createHook adds an endpoint for URL and sends it a test event.
func createHook(t *testing.T, app *apptest.App, key apptest.Caller, url string) string {
	t.Helper()
	res := app.Do("POST", "/v1/webhooks", key, map[string]any{"url": url, "events": []string{"job.succeeded"}})
	expect(t, res, 201, "")
	var hook struct{ ID string }
	res.JSON(t, &hook)
	expect(t, app.Do("POST", "/v1/webhooks/"+hook.ID+"/test", key, nil), 202, "")
	return hook.ID
}

// TestMetrics_webhookDeliveries: attempts are counted by outcome with
// their latency, and the pending deliveries and paused endpoints are read
// from the database.
func TestMetrics_webhookDeliveries(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			webhookMetrics(t, target)
		})
	}
}

func webhookMetrics(t *testing.T, target sqltest.Target) {
	app := apptest.Start(t, target, func(c *bootstrap.Config) { c.MetricsAddr, c.WebhookAllowPrivate = "127.0.0.1:0", true })
	key := apptest.Caller{Key: app.Key(app.Org("Acme", identity.Normalize))}
	before := scrape(t, app)
	for _, outcome := range []string{"succeeded", "failed", "error"} {
		if v := sample(before, "tabnorm_webhook_attempts_total", `outcome="`+outcome+`"`); v != 0 {
			t.Fatalf("attempts %s before any: %v", outcome, v)
		}
	}
	if sample(before, "tabnorm_webhook_deliveries_pending") != 0 || sample(before, "tabnorm_webhook_endpoints_paused") != 0 {
		t.Fatalf("webhook gauges before any:\n%s", before)
	}
	createHook(t, app, key, answering(t, http.StatusNoContent))
	failing := createHook(t, app, key, answering(t, http.StatusInternalServerError))
	// An attempt is counted as it ends, and its delivery's state is stored
	// just after: the pending gauge, read from the database, is waited for
	// too (the failed delivery waits for its retry, the other is done).
	var text string
	for deadline := testtime.Deadline(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		text = scrape(t, app)
		if sample(text, "tabnorm_webhook_attempts_total", `outcome="succeeded"`) == 1 &&
			sample(text, "tabnorm_webhook_attempts_total", `outcome="failed"`) == 1 &&
			sample(text, "tabnorm_webhook_deliveries_pending") == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("attempts not counted, or deliveries not pending as they should (1):\n%s", text)
		}
	}
	if n := sample(text, "tabnorm_webhook_attempt_duration_seconds_count"); n != 2 {
		t.Errorf("attempt latency observed %v times, want 2", n)
	}
	expect(t, app.Do("PATCH", "/v1/webhooks/"+failing, key, map[string]any{"paused": true}), 200, "")
	if n := sample(scrape(t, app), "tabnorm_webhook_endpoints_paused"); n != 1 {
		t.Errorf("paused endpoints %v, want 1", n)
	}
}

// webhookAndJobRouteSpans: a delivery attempt has a span of its own; a
// job route's request span carries the job's id; the resource names the
// service's version and this instance. The app traces to exp and allows
// webhooks to loopback; jobID is one of its jobs.
func webhookAndJobRouteSpans(t *testing.T, app *apptest.App, exp *tracetest.InMemoryExporter, key apptest.Caller, jobID string) {
	t.Helper()
	hook := createHook(t, app, key, answering(t, http.StatusNoContent))
	expect(t, app.Do("GET", "/v1/jobs/"+jobID, key, nil), 200, "")
	var deliver, get *tracetest.SpanStub
	for deadline := testtime.Deadline(20 * time.Second); deliver == nil || get == nil; time.Sleep(50 * time.Millisecond) {
		if err := tracingtest.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		for _, s := range exp.GetSpans() {
			switch {
			case s.Name == "webhook.deliver" && attr(s, "tabnorm.webhook_id") == hook:
				deliver = &s
			case s.Name == "GET /v1/jobs/:id":
				get = &s
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("spans: webhook.deliver %v, GET /v1/jobs/:id %v", deliver != nil, get != nil)
		}
	}
	if attr(*deliver, "tabnorm.outcome") != "succeeded" || attr(*deliver, "tabnorm.attempt") != "1" ||
		attr(*deliver, "tabnorm.event") != "webhook.test" || attr(*deliver, "http.response.status_code") != "204" {
		t.Errorf("webhook.deliver attributes %v", deliver.Attributes)
	}
	if got := attr(*get, "tabnorm.job_id"); got != jobID {
		t.Errorf("GET /v1/jobs/:id span's tabnorm.job_id %q, want %q", got, jobID)
	}
	for _, k := range []string{"service.name", "service.version", "service.instance.id"} {
		if v, ok := get.Resource.Set().Value(attribute.Key(k)); !ok || v.String() == "" {
			t.Errorf("resource without %s: %v", k, get.Resource.Attributes())
		}
	}
}

// attr is a span's attribute as text, "" when it has none.
func attr(s tracetest.SpanStub, key string) string {
	for _, kv := range s.Attributes {
		if string(kv.Key) == key {
			return kv.Value.String()
		}
	}
	return ""
}
