package hostile

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/httpapi"
	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// TestCancelRacesProgress: 100 jobs, each canceled at a random moment
// while its worker writes progress, on each database. Every cancel answers
// 200 and its job ends canceled, with events numbered 1..n without a gap
// that end with its one job.canceled — unless the job had already
// succeeded (a fast machine finishes some within the random wait): then
// the cancel is 409 job_not_cancelable and the job's gapless events end
// with job.succeeded and hold no job.canceled.
func TestCancelRacesProgress(t *testing.T) {
	t.Parallel()
	var rows strings.Builder
	rows.WriteString("ID,E-mail,Joined\n")
	for i := range 1_000_000 { // a job runs for about two seconds
		fmt.Fprintf(&rows, "%d,person%d@example.test,31/01/2024\n", i+1, i)
	}
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			app := apptest.Start(t, target, func(c *bootstrap.Config) {
				c.HTTP.RateLimit = httpapi.RateLimit{PerSecond: 1e6, Burst: 1e6}
			})
			r := &cancels{t: t, app: app, who: apptest.Caller{Key: app.Key(app.Org("Acme", identity.Normalize, identity.Connect))},
				finished: map[string]bool{}}
			res := app.Request(multipartTo(t, app, "/v1/connect/files", "people.csv", rows.String(), nil), r.who)
			wantStatus(t, res, 201, "")
			var f struct{ ID string }
			res.JSON(t, &f)
			r.fileID = f.ID

			var wg sync.WaitGroup
			for range 4 {
				wg.Go(r.createAndCancel)
			}
			wg.Wait()
			for _, p := range r.problems[:min(len(r.problems), 10)] {
				t.Error(p)
			}
			if len(r.problems) > 0 {
				t.Fatalf("%d of %d cancels went wrong", len(r.problems), cancelJobs)
			}
			raced := r.raced.Load() - int64(len(r.finished))
			t.Logf("%d of %d jobs were running when canceled; %d had succeeded first", r.raced.Load(), cancelJobs, len(r.finished))
			if raced < cancelJobs/2 {
				t.Fatalf("only %d of %d cancels raced a running job", raced, cancelJobs)
			}
			for _, id := range r.ids {
				r.checkEnded(id)
			}
		})
	}
}

// cancelJobs is how many jobs the race cancels.
const cancelJobs = 100

// cancels is the state of the race: the jobs made and what went wrong.
type cancels struct {
	t        *testing.T
	app      *apptest.App
	who      apptest.Caller
	fileID   string
	next     atomic.Int64
	raced    atomic.Int64 // cancels of a job already running
	mu       sync.Mutex
	ids      []string
	finished map[string]bool // jobs that succeeded before their cancel
	// problems are kept, not reported, by the racing goroutines.
	problems []string
}

func (r *cancels) problem(format string, args ...any) {
	r.mu.Lock()
	r.problems = append(r.problems, fmt.Sprintf(format, args...))
	r.mu.Unlock()
}

// createAndCancel makes jobs, waits for each to start (or not) and cancels
// it at a random moment, until cancelJobs are made.
func (r *cancels) createAndCancel() {
	for r.next.Add(1) <= cancelJobs {
		res := r.app.Do("POST", "/v1/connect/jobs", r.who, map[string]any{"file_ids": []string{r.fileID}, "schema": json.RawMessage(apptest.PeopleSchema)})
		if res.StatusCode != 202 {
			r.problem("create: %d %s", res.StatusCode, res.Body)
			return
		}
		var j jobView
		res.JSON(r.t, &j)
		r.mu.Lock()
		r.ids = append(r.ids, j.ID)
		r.mu.Unlock()
		for wait := time.Now().Add(30 * time.Second); j.Status == "queued" && time.Now().Before(wait); {
			time.Sleep(10 * time.Millisecond)
			r.app.Do("GET", "/v1/jobs/"+j.ID, r.who, nil).JSON(r.t, &j)
		}
		if j.Status == "running" {
			r.raced.Add(1)
		}
		time.Sleep(time.Duration(rand.IntN(300)) * time.Millisecond)
		r.cancel(j)
	}
}

// cancel cancels the job: 200, or 409 when it had already succeeded.
func (r *cancels) cancel(j jobView) {
	res := r.app.Do("POST", "/v1/connect/jobs/"+j.ID+"/cancel", r.who, nil)
	switch {
	case res.StatusCode == 200:
	case res.StatusCode == 409 && strings.Contains(res.Body, `"job_not_cancelable"`) && strings.Contains(res.Body, "already succeeded"):
		r.mu.Lock()
		r.finished[j.ID] = true
		r.mu.Unlock()
	default:
		r.problem("cancel %s (%s): %d %s", j.ID, j.Status, res.StatusCode, res.Body)
	}
}

// checkEnded: the job ended canceled, its gapless events ending with its
// one job.canceled — or, had it succeeded first, with job.succeeded and
// no job.canceled.
func (r *cancels) checkEnded(id string) {
	t := r.t
	t.Helper()
	want := "canceled"
	if r.finished[id] {
		want = "succeeded"
	}
	if j := untilDone(t, r.app, r.who, "/v1/jobs/"+id); j.Status != want {
		t.Fatalf("job %s ended %s, want %s", id, j.Status, want)
	}
	res := r.app.Do("GET", "/v1/jobs/"+id+"/events", r.who, nil)
	wantStatus(t, res, 200, "")
	kinds := streamKinds(t, res.Body)
	if len(kinds) < 2 || kinds[len(kinds)-1] != "job."+want || strings.Count(strings.Join(kinds, " "), "job.canceled") != map[string]int{"canceled": 1, "succeeded": 0}[want] {
		t.Fatalf("job %s events %v", id, kinds)
	}
}

// streamKinds reads an event stream's events and fails unless their ids
// run 1, 2, 3, … without a gap.
func streamKinds(t *testing.T, stream string) []string {
	t.Helper()
	var kinds []string
	for _, block := range strings.Split(stream, "\n\n") {
		var id, kind string
		for _, line := range strings.Split(block, "\n") {
			if v, ok := strings.CutPrefix(line, "id: "); ok {
				id = v
			}
			if v, ok := strings.CutPrefix(line, "event: "); ok {
				kind = v
			}
		}
		if kind == "" {
			continue
		}
		if got, _ := strconv.Atoi(id); got != len(kinds)+1 {
			t.Fatalf("event %d has id %q: %q", len(kinds)+1, id, stream)
		}
		kinds = append(kinds, kind)
	}
	return kinds
}
