package httpapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/httpapi"
	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
	"github.com/tabnorm/tabnorm/test/testtime"
)

// holdStream opens a job's event stream and returns once its headers
// arrived (200), with the function that closes it; the caller closes it.
func holdStream(t *testing.T, app *apptest.App, who apptest.Caller, jobID string) func() {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", app.URL+"/v1/jobs/"+jobID+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+who.Key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if res.StatusCode != 200 {
		cancel()
		_ = res.Body.Close()
		t.Fatalf("events: %d, want an open stream", res.StatusCode)
	}
	return func() { cancel(); _ = res.Body.Close() }
}

// refusedStream asks for one stream more and expects 429 too_many_streams
// with Retry-After, its detail naming the cap that refused it. A first
// request with a deadline fails the test cleanly when the stream opens.
func refusedStream(t *testing.T, app *apptest.App, who apptest.Caller, jobID, limit string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testtime.Scale(10*time.Second))
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", app.URL+"/v1/jobs/"+jobID+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+who.Key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = res.Body.Close()
	if res.StatusCode != 429 {
		t.Fatalf("stream past the %s cap: %d, want 429", limit, res.StatusCode)
	}
	got := app.Do("GET", "/v1/jobs/"+jobID+"/events", who, nil)
	expect(t, got, 429, "too_many_streams")
	if got.Header.Get("Retry-After") == "" {
		t.Fatalf("429 without Retry-After: %v", got.Header)
	}
	if !strings.Contains(got.Body, limit) {
		t.Fatalf("refused, but not by the %s cap: %s", limit, got.Body)
	}
}

// streamWorld is the state of the streams script: jobs that stay queued
// (no workers), so their streams stay open until closed.
type streamWorld struct {
	app                    *apptest.App
	acme, acme2, other, c3 apptest.Caller
	secret                 apptest.Caller
	acmeJob, sesJob        string
	otherJob, c3Job        string
	sesClose               []func()
	open                   []func() // every stream opened, closed when the test ends
}

// stream opens a stream that stays open until the test ends.
func (w *streamWorld) stream(t *testing.T, who apptest.Caller, jobID string) func() {
	t.Helper()
	closeIt := holdStream(t, w.app, who, jobID)
	w.open = append(w.open, closeIt)
	return closeIt
}

// TestEvents_streamsAreCapped: open event streams are capped per
// credential (key, session or import session), per organization and per
// node; past a cap the stream is 429 too_many_streams with Retry-After,
// another organization's stream still opens under its own caps, closing
// a stream frees its slot, and the open streams are a gauge.
func TestEvents_streamsAreCapped(t *testing.T) {
	t.Parallel()
	app := apptest.StartRole(t, sqltest.SQLite(t), bootstrap.RoleAPI, func(c *bootstrap.Config) {
		c.MetricsAddr = "127.0.0.1:0"
		c.HTTP.Streams = streamCaps
	})
	w := &streamWorld{app: app}
	t.Cleanup(func() {
		for _, closeIt := range w.open {
			closeIt()
		}
	})
	acme, other, c3 := app.Org("Acme", identity.Normalize), app.Org("Other", identity.Normalize), app.Org("Third", identity.Normalize)
	w.acme, w.acme2 = apptest.Caller{Key: app.Key(acme)}, apptest.Caller{Key: app.Key(acme)}
	w.other, w.c3 = apptest.Caller{Key: app.Key(other)}, apptest.Caller{Key: app.Key(c3)}
	w.secret = apptest.Caller{Key: createImportSession(t, app, w.acme, importSessionBody()).ClientSecret}
	w.acmeJob = uploadJob(t, app, w.acme, map[string]string{"schema": apptest.PeopleSchema})
	w.sesJob = uploadJob(t, app, w.secret, nil)
	w.otherJob = uploadJob(t, app, w.other, map[string]string{"schema": apptest.PeopleSchema})
	w.c3Job = uploadJob(t, app, w.c3, map[string]string{"schema": apptest.PeopleSchema})
	script(t, w,
		scriptStep[*streamWorld]{"capped_per_import_session", streamsPerImportSession},
		scriptStep[*streamWorld]{"capped_per_organization", streamsPerOrganization},
		scriptStep[*streamWorld]{"capped_per_key_and_another_org_opens", streamsPerKey},
		scriptStep[*streamWorld]{"capped_per_node", streamsPerNode},
		scriptStep[*streamWorld]{"closing_one_frees_its_slot", streamsFreed},
	)
}

// streamCaps are small caps for the test: 3 per credential, 5 per
// organization, 9 per node.
var streamCaps = httpapi.StreamLimits{PerCredential: 3, PerOrg: 5, PerNode: 9}

func streamsPerImportSession(t *testing.T, w *streamWorld) {
	for range 3 {
		w.sesClose = append(w.sesClose, w.stream(t, w.secret, w.sesJob))
	}
	refusedStream(t, w.app, w.secret, w.sesJob, "credential")
}

func streamsPerOrganization(t *testing.T, w *streamWorld) {
	w.stream(t, w.acme, w.acmeJob)
	w.stream(t, w.acme2, w.acmeJob)
	refusedStream(t, w.app, w.acme, w.acmeJob, "organization") // Acme: 5 open, its key 1
}

func streamsPerKey(t *testing.T, w *streamWorld) {
	for range 3 {
		w.stream(t, w.c3, w.c3Job)
	}
	refusedStream(t, w.app, w.c3, w.c3Job, "credential")
}

func streamsPerNode(t *testing.T, w *streamWorld) {
	w.stream(t, w.other, w.otherJob) // 9 open on the node
	if got := sample(scrape(t, w.app), "tabnorm_sse_subscribers"); got != 9 {
		t.Fatalf("tabnorm_sse_subscribers = %v, want 9", got)
	}
	refusedStream(t, w.app, w.other, w.otherJob, "node")
	if got := sample(scrape(t, w.app), "tabnorm_refusals_total", `code="too_many_streams"`); got != 8 {
		t.Fatalf("tabnorm_refusals_total{too_many_streams} = %v, want 8 (two a refusal)", got)
	}
}

// streamsFreed closes one of the import session's streams: the slot is
// given back once the server sees the stream end, so Acme's key opens
// another stream within the deadline.
func streamsFreed(t *testing.T, w *streamWorld) {
	w.sesClose[0]()
	deadline := testtime.Deadline(10 * time.Second)
	for {
		res := w.app.Do("HEAD", "/v1/jobs/"+w.acmeJob+"/events", w.acme, nil)
		if res.StatusCode == 200 {
			break
		}
		if res.StatusCode != 429 || time.Now().After(deadline) {
			t.Fatalf("a closed stream's slot was not given back: %d %s", res.StatusCode, res.Body)
		}
		time.Sleep(20 * time.Millisecond)
	}
	w.stream(t, w.acme, w.acmeJob)
	if got := sample(scrape(t, w.app), "tabnorm_sse_subscribers"); got != 9 {
		t.Fatalf("tabnorm_sse_subscribers = %v after one closed and one opened, want 9", got)
	}
}
