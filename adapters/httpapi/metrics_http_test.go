package httpapi_test

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
	"github.com/tabnorm/tabnorm/test/testtime"
)

// scrape reads GET /metrics from the app's own metrics listener.
func scrape(t *testing.T, app *apptest.App) string {
	t.Helper()
	res, err := http.Get(app.MetricsURL)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("GET /metrics: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	return string(b)
}

// sample is the value of the series name whose labels include all of
// labels (each `key="value"`); -1 when there is none.
func sample(text, name string, labels ...string) float64 {
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		rest, ok := strings.CutPrefix(line, name)
		if !ok || (rest[0] != '{' && rest[0] != ' ') {
			continue
		}
		lbl, value := "", rest
		if rest[0] == '{' {
			end := strings.LastIndexByte(rest, '}')
			lbl, value = rest[1:end], rest[end+1:]
		}
		match := true
		for _, l := range labels {
			if !strings.Contains(","+lbl+",", ","+l+",") {
				match = false
			}
		}
		if match {
			v, _ := strconv.ParseFloat(strings.TrimSpace(value), 64)
			return v
		}
	}
	return -1
}

func TestMetrics_seriesMove(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			app := apptest.Start(t, target, func(c *bootstrap.Config) {
				c.MetricsAddr = "127.0.0.1:0"
				c.HTTP.RateLimit.PerSecond, c.HTTP.RateLimit.Burst = 2, 30
			})
			m := &metered{app: app}
			script(t, m,
				scriptStep[*metered]{"served_on_their_own_listener", metricsOwnListener},
				scriptStep[*metered]{"a_job_followed_to_its_end", metricsJobAndStream},
				scriptStep[*metered]{"refusals_by_the_rate_limit", metricsRefusals},
				scriptStep[*metered]{"series_moved", metricsSeriesMoved},
			)
		})
	}
}

// metered is the state of the metrics script.
type metered struct {
	app        *apptest.App
	key, other apptest.Caller
	jobID      string
	refused    int // requests the rate limit refused
}

func metricsOwnListener(t *testing.T, m *metered) {
	if m.app.MetricsURL == "" {
		t.Fatal("TABNORM_METRICS_ADDR set, but no metrics listener")
	}
	if res := m.app.Do("GET", "/metrics", apptest.Caller{}, nil); res.StatusCode != 404 {
		t.Fatalf("the public API serves /metrics: %d", res.StatusCode)
	}
	org := m.app.Org("Acme", identity.Normalize)
	m.key, m.other = apptest.Caller{Key: m.app.Key(org)}, apptest.Caller{Key: m.app.Key(org)}
	if before := scrape(t, m.app); sample(before, "tabnorm_jobs", `status="succeeded"`) != 0 {
		t.Fatalf("tabnorm_jobs{succeeded} before any job:\n%s", before)
	}
}

// metricsJobAndStream runs a job and follows its stream to its end
// (TestMetrics_sseSubscribers counts open streams on a job that does not
// end).
func metricsJobAndStream(t *testing.T, m *metered) {
	res := m.app.Request(upload(t, m.app, "people.csv", peopleCSV, map[string]string{"schema": peopleSchema}), m.key)
	expect(t, res, 202, "")
	var created jobView
	res.JSON(t, &created)
	m.jobID = created.ID
	stream := openStream(t, m.app, created.ID, m.key)
	_, _ = io.Copy(io.Discard, stream.Body) // the stream ends with the job
	_ = stream.Body.Close()
	deadline := testtime.Deadline(30 * time.Second)
	for !strings.Contains(m.app.Do("GET", "/v1/jobs/"+created.ID, m.key, nil).Body, `"status":"succeeded"`) {
		if time.Now().After(deadline) {
			t.Fatal("job did not succeed")
		}
		time.Sleep(500 * time.Millisecond) // under the rate limit's refill
	}
}

// metricsRefusals spends the other key's burst (30, then 2 a second)
// until the rate limit refuses: on a machine so slow that 40 requests
// take over 5 s the refill keeps up with them, so it goes on (up to 400)
// instead of counting on 40 being enough.
func metricsRefusals(t *testing.T, m *metered) {
	for i := 0; i < 400 && m.refused < 3; i++ {
		if m.app.Do("GET", "/v1/usage", m.other, nil).StatusCode == 429 {
			m.refused++
		}
	}
	if m.refused == 0 {
		t.Fatal("the rate limit refused nothing")
	}
}

func metricsSeriesMoved(t *testing.T, m *metered) {
	var after string
	for range 50 { // the stream's handler returns a moment after its last byte
		if after = scrape(t, m.app); sample(after, "tabnorm_sse_subscribers") == 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, c := range []struct {
		name   string
		labels []string
		min    float64
	}{
		{"tabnorm_http_request_duration_seconds_count", []string{`route="/v1/jobs"`, `method="POST"`, `status="202"`}, 1},
		{"tabnorm_http_request_duration_seconds_count", []string{`route="/v1/jobs/:id"`, `method="GET"`, `status="200"`}, 1},
		{"tabnorm_jobs", []string{`status="succeeded"`}, 1},
		{"tabnorm_job_duration_seconds_count", []string{`status="succeeded"`}, 1},
		{"tabnorm_job_queue_wait_seconds_count", nil, 1},
		{"tabnorm_rows_processed_total", []string{`outcome="valid"`}, 1},
		{"tabnorm_rows_processed_total", []string{`outcome="rejected"`}, 1},
		{"tabnorm_refusals_total", []string{`code="rate_limited"`}, float64(m.refused)},
		{"tabnorm_queue_depth", nil, 0},
		{"go_sql_open_connections", []string{`db_name="tabnorm"`}, 0}, // present: sample is -1 when missing
	} {
		if v := sample(after, c.name, c.labels...); v < c.min {
			t.Errorf("%s%v = %v, want at least %v", c.name, c.labels, v, c.min)
		}
	}
	if v := sample(after, "tabnorm_sse_subscribers"); v != 0 {
		t.Errorf("tabnorm_sse_subscribers after the stream closed = %v", v)
	}
	if strings.Contains(after, m.jobID) {
		t.Error("a job id is in a series label: routes must be patterns")
	}
}

// openStream opens GET /v1/jobs/{id}/events.
func openStream(t *testing.T, app *apptest.App, id string, c apptest.Caller) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("GET", app.URL+"/v1/jobs/"+id+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+c.Key)
	stream, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if stream.StatusCode != 200 {
		t.Fatalf("GET events: %d", stream.StatusCode)
	}
	return stream
}

// TestMetrics_sseSubscribers: tabnorm_sse_subscribers counts the streams
// open on the node. An API node has no workers, so the job stays queued
// and its streams stay open as long as their clients keep them.
func TestMetrics_sseSubscribers(t *testing.T) {
	t.Parallel()
	target := sqltest.Targets(t)[0]
	app := apptest.StartRole(t, target, bootstrap.RoleAPI, func(c *bootstrap.Config) { c.MetricsAddr = "127.0.0.1:0" })
	key := apptest.Caller{Key: app.Key(app.Org("Acme", identity.Normalize))}
	res := app.Request(upload(t, app, "people.csv", peopleCSV, map[string]string{"schema": peopleSchema}), key)
	expect(t, res, 202, "")
	var created jobView
	res.JSON(t, &created)
	gauge := func(want float64) {
		t.Helper()
		v := -1.0
		for range 100 { // a handler counts itself a moment after its headers, and leaves a moment after its client
			if v = sample(scrape(t, app), "tabnorm_sse_subscribers"); v == want {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Fatalf("tabnorm_sse_subscribers = %v, want %v", v, want)
	}
	gauge(0)
	first, second := openStream(t, app, created.ID, key), openStream(t, app, created.ID, key)
	gauge(2)
	first.Body.Close()
	gauge(1)
	second.Body.Close()
	gauge(0)
}
