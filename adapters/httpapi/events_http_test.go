package httpapi_test

import (
	"bufio"
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

type sse struct {
	id   int
	kind string
	data string
}

// stream reads a job's event stream until the server closes it or the
// timeout passes; it also returns whether the server closed it.
func stream(t *testing.T, app *apptest.App, who apptest.Caller, jobID string, lastID string, timeout time.Duration) ([]sse, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", app.URL+"/v1/jobs/"+jobID+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+who.Key)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/event-stream" || res.Header.Get("Cache-Control") != "no-cache" {
		t.Fatalf("events: %d %v", res.StatusCode, res.Header)
	}
	var out []sse
	var cur sse
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "id: "):
			cur.id, _ = strconv.Atoi(line[4:])
		case strings.HasPrefix(line, "event: "):
			cur.kind = line[7:]
		case strings.HasPrefix(line, "data: "):
			cur.data = line[6:]
		case line == "" && cur.kind != "":
			out = append(out, cur)
			cur = sse{}
		}
	}
	return out, ctx.Err() == nil
}

func kinds(evs []sse) string {
	var k []string
	for _, e := range evs {
		k = append(k, e.kind)
	}
	return strings.Join(k, ",")
}

func TestEvents_historyAndResume(t *testing.T) {
	t.Parallel()
	app := apptest.Start(t, sqltest.SQLite(t))
	key := apptest.Caller{Key: app.Key(app.Org("Acme", identity.Normalize))}
	res := app.Request(upload(t, app, "p.csv", peopleCSV, map[string]string{"schema": peopleSchema}), key)
	var j jobView
	res.JSON(t, &j)
	waitJob(t, app, key, j.ID)

	evs, closed := stream(t, app, key, j.ID, "", 10*time.Second)
	if !closed {
		t.Fatal("the stream of a finished job was not closed after its history")
	}
	got := kinds(evs)
	if !strings.HasPrefix(got, "job.queued,job.started") || !strings.HasSuffix(got, "job.succeeded") {
		t.Fatalf("history %s", got)
	}
	for i, e := range evs {
		if e.id != i+1 || !strings.Contains(e.data, `"job_id":"`+j.ID+`"`) {
			t.Fatalf("event %d: %+v", i, e)
		}
	}
	if !strings.Contains(evs[len(evs)-1].data, `"job":{"id":"`+j.ID) {
		t.Fatalf("terminal event lacks the job: %s", evs[len(evs)-1].data)
	}
	resumed, _ := stream(t, app, key, j.ID, "2", 10*time.Second)
	if len(resumed) != len(evs)-2 || resumed[0].id != 3 {
		t.Fatalf("resume after 2: %+v", resumed)
	}
	other := apptest.Caller{Key: app.Key(app.Org("Other", identity.Normalize))}
	expect(t, app.Do("GET", "/v1/jobs/"+j.ID+"/events", other, nil), 404, "not_found")
	expect(t, app.Do("GET", "/v1/jobs/"+j.ID+"/events", key, nil, "Last-Event-ID", "x"), 400, "invalid_request")
}

// TestEvents_live follows a queued job (no workers on this node) and sees
// its cancellation arrive and the stream close.
func TestEvents_live(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			app := apptest.StartRole(t, target, bootstrap.RoleAPI)
			key := apptest.Caller{Key: app.Key(app.Org("Acme", identity.Normalize))}
			res := app.Request(upload(t, app, "p.csv", peopleCSV, map[string]string{"schema": peopleSchema}), key)
			var j jobView
			res.JSON(t, &j)
			got := make(chan []sse, 1)
			go func() {
				evs, _ := stream(t, app, key, j.ID, "", 10*time.Second)
				got <- evs
			}()
			time.Sleep(300 * time.Millisecond) // the stream is open and has sent the history
			start := time.Now()
			expect(t, app.Do("POST", "/v1/jobs/"+j.ID+"/cancel", key, nil), 200, "")
			evs := <-got
			if kinds(evs) != "job.queued,job.canceled" {
				t.Fatalf("events %s", kinds(evs))
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Fatalf("the cancellation took %s to arrive: not pushed", d)
			}
		})
	}
}

// TestEvents_acrossNodes runs a job on one node and follows it from an
// API-only node on the same PostgreSQL database.
func TestEvents_acrossNodes(t *testing.T) {
	t.Parallel()
	target, ok := sqltest.Postgres(t)
	if !ok {
		t.Skip("*** SKIPPED: needs PostgreSQL (TABNORM_TEST_DATABASE_URL) ***")
	}
	apiNode := apptest.StartRole(t, target, bootstrap.RoleAPI)
	key := apptest.Caller{Key: apiNode.Key(apiNode.Org("Acme", identity.Normalize))}
	res := apiNode.Request(upload(t, apiNode, "p.csv", peopleCSV, map[string]string{"schema": peopleSchema}), key)
	var j jobView
	res.JSON(t, &j)
	got := make(chan []sse, 1)
	go func() {
		evs, _ := stream(t, apiNode, key, j.ID, "", 20*time.Second)
		got <- evs
	}()
	time.Sleep(300 * time.Millisecond)
	// The worker node shares the database and the file store, and picks the job up.
	apptest.StartRole(t, target, bootstrap.RoleWorker, func(c *bootstrap.Config) { c.BlobURL = apiNode.Config.BlobURL })
	evs := <-got
	if k := kinds(evs); !strings.HasPrefix(k, "job.queued,job.started") || !strings.HasSuffix(k, "job.succeeded") {
		t.Fatalf("events seen on the API node: %s", k)
	}
}
