package httpapi_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/adapters/tracing/tracingtest"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
	"github.com/tabnorm/tabnorm/test/testtime"
)

// TestTraces_jobSpanTree sends a job with a W3C traceparent through the
// same set-up OTEL_EXPORTER_OTLP_ENDPOINT turns on (with an in-memory
// exporter in place of OTLP), and checks the trace: the request joins the
// caller's trace, the job's run is its child across the queue, and the
// run's phases are the run's children.
func TestTraces_jobSpanTree(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	var logs syncBuffer
	app := apptest.Start(t, sqltest.SQLite(t), func(c *bootstrap.Config) {
		c.Tracing.Exporter = exp
		c.LogLevel, c.LogOutput = slog.LevelInfo, &logs
		c.WebhookAllowPrivate = true
	})
	org := app.Org("Acme", identity.Normalize)
	key := apptest.Caller{Key: app.Key(org)}
	const traceID, parentID = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
	req := upload(t, app, "people.csv", peopleCSV, map[string]string{"schema": peopleSchema})
	req.Header.Set("traceparent", "00-"+traceID+"-"+parentID+"-01")
	res := app.Request(req, key)
	expect(t, res, 202, "")
	var created jobView
	res.JSON(t, &created)
	waitJob(t, app, key, created.ID)

	byName := map[string]tracetest.SpanStub{}
	deadline := testtime.Deadline(20 * time.Second)
	for {
		if err := tracingtest.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		var dbUnderRequest bool
		for _, s := range exp.GetSpans() {
			if s.SpanContext.TraceID().String() != traceID {
				continue
			}
			if _, seen := byName[s.Name]; !seen || !strings.HasPrefix(s.Name, "db ") {
				byName[s.Name] = s
			}
			if strings.HasPrefix(s.Name, "db ") && s.Parent.SpanID() == byName["POST /v1/jobs"].SpanContext.SpanID() {
				dbUnderRequest = true
			}
		}
		if _, ok := byName["job.write"]; ok && dbUnderRequest {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("spans of trace %s: %v (database spans under the request: %v)", traceID, names(byName), dbUnderRequest)
		}
		time.Sleep(50 * time.Millisecond)
	}
	request, run := byName["POST /v1/jobs"], byName["job.run"]
	if request.Parent.SpanID().String() != parentID {
		t.Errorf("request span's parent %s, want the caller's %s", request.Parent.SpanID(), parentID)
	}
	if run.Parent.SpanID() != request.SpanContext.SpanID() {
		t.Errorf("job.run's parent %s, want the creating request %s", run.Parent.SpanID(), request.SpanContext.SpanID())
	}
	for _, phase := range []string{"job.read", "job.normalize", "job.write"} {
		s, ok := byName[phase]
		if !ok || s.Parent.SpanID() != run.SpanContext.SpanID() {
			t.Errorf("%s missing or not a child of job.run (%v)", phase, ok)
		}
	}
	// A log line of the request leads to its trace.
	if logged := logs.String(); !strings.Contains(logged, "trace_id="+traceID) {
		t.Errorf("no log line with trace_id=%s:\n%s", traceID, logged)
	}
	// The process has one tracer provider: the webhook and job-route spans
	// are checked on this app's (webhooks_observe_http_test.go).
	webhookAndJobRouteSpans(t, app, exp, key, created.ID)
	hookBatchSpans(t, app, exp, key)
}

// hookBatchSpans: each batch a job sends to a validation hook has a span
// under the job's run.
func hookBatchSpans(t *testing.T, app *apptest.App, exp *tracetest.InMemoryExporter, key apptest.Caller) {
	t.Helper()
	srv := newHookServer(t)
	var h hookView
	res := app.Do("POST", "/v1/hooks", key, map[string]any{"name": "traced", "url": srv.URL})
	expect(t, res, 201, "")
	res.JSON(t, &h)
	srv.set(h.Secret, func(w http.ResponseWriter, _ batchIn) { answerJSON(w, map[string]any{"rows": []any{}}) })
	res = app.Request(upload(t, app, "traced.csv", hookedCSV, map[string]string{"schema": fmt.Sprintf(hookedSchema, "traced", "fail_job")}), key)
	expect(t, res, 202, "")
	var created jobView
	res.JSON(t, &created)
	if j := waitJob(t, app, key, created.ID); j.Status != "succeeded" {
		t.Fatalf("the hooked job: %+v", j)
	}
	var batches int // 4 rows pass coercion, 2 a request
	for deadline := testtime.Deadline(20 * time.Second); batches < 2; time.Sleep(50 * time.Millisecond) {
		if err := tracingtest.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		batches = 0
		for _, s := range exp.GetSpans() {
			if s.Name == "hook.batch" && attr(s, "tabnorm.job_id") == created.ID && attr(s, "tabnorm.hook_id") == h.ID && attr(s, "tabnorm.rows") == "2" &&
				s.Parent.IsValid() {
				batches++
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d hook.batch spans of 2", batches)
		}
	}
}

func names(m map[string]tracetest.SpanStub) []string {
	var out []string
	for n := range m {
		out = append(out, n)
	}
	return out
}
