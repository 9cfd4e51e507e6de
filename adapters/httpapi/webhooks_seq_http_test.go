package httpapi_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
	"github.com/tabnorm/tabnorm/test/testtime"
)

// TestWebhooks_payloadSeqIsTheEventsID runs a job on a real server with an
// endpoint subscribed to job.started and job.succeeded: each delivery's
// seq is the id of the same event in the job's event stream, so the
// started one is below the succeeded one.
func TestWebhooks_payloadSeqIsTheEventsID(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			payloadSeq(t, target)
		})
	}
}

type seqBody struct {
	Type string
	Seq  int
	Data struct{ ID string }
}

func payloadSeq(t *testing.T, target sqltest.Target) {
	app := apptest.Start(t, target, func(c *bootstrap.Config) { c.WebhookAllowPrivate = true })
	key := apptest.Caller{Key: app.Key(app.Org("Acme", identity.Normalize))}
	var mu sync.Mutex
	got := map[string]seqBody{}
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b seqBody
		if err := json.NewDecoder(r.Body).Decode(&b); err == nil {
			mu.Lock()
			got[b.Type] = b
			mu.Unlock()
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(rcv.Close)
	expect(t, app.Do("POST", "/v1/webhooks", key, map[string]any{"url": rcv.URL, "events": []string{"job.started", "job.succeeded"}}), 201, "")
	res := app.Request(upload(t, app, "people.csv", peopleCSV, map[string]string{"schema": peopleSchema}), key)
	expect(t, res, 202, "")
	var created jobView
	res.JSON(t, &created)
	waitJob(t, app, key, created.ID)
	for deadline := testtime.Deadline(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("deliveries received: %v", got)
		}
	}
	ids := streamIDs(t, app, key, created.ID)
	started, succeeded := got["job.started"], got["job.succeeded"]
	if started.Data.ID != created.ID || started.Seq == 0 || started.Seq != ids["job.started"] || succeeded.Seq != ids["job.succeeded"] ||
		started.Seq >= succeeded.Seq {
		t.Fatalf("payload seqs started %d, succeeded %d; the stream's ids %v", started.Seq, succeeded.Seq, ids)
	}
}

// streamIDs reads an ended job's event stream: each kind's (last) id.
func streamIDs(t *testing.T, app *apptest.App, key apptest.Caller, jobID string) map[string]int {
	t.Helper()
	res := app.Do("GET", "/v1/jobs/"+jobID+"/events", key, nil)
	expect(t, res, 200, "")
	ids := map[string]int{}
	id := 0
	for line := range strings.Lines(res.Body) {
		line = strings.TrimSpace(line)
		if v, ok := strings.CutPrefix(line, "id: "); ok {
			id, _ = strconv.Atoi(v)
		}
		if v, ok := strings.CutPrefix(line, "event: "); ok {
			ids[v] = id
		}
	}
	return ids
}
