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
			key := app.Key(app.Org("Acme", identity.Normalize, identity.Connect))
			who := apptest.Caller{Key: key}
			res := app.Request(multipartTo(t, app, "/v1/connect/files", "people.csv", rows.String(), nil), who)
			wantStatus(t, res, 201, "")
			var f struct{ ID string }
			res.JSON(t, &f)

			const n = 100
			var next, raced atomic.Int64
			var mu sync.Mutex
			var ids, problems []string
			finished := map[string]bool{} // jobs that succeeded before their cancel
			problem := func(format string, args ...any) {
				mu.Lock()
				problems = append(problems, fmt.Sprintf(format, args...))
				mu.Unlock()
			}
			var wg sync.WaitGroup
			for range 4 {
				wg.Go(func() {
					for next.Add(1) <= n {
						res := app.Do("POST", "/v1/connect/jobs", who, map[string]any{"file_ids": []string{f.ID}, "schema": json.RawMessage(apptest.PeopleSchema)})
						if res.StatusCode != 202 {
							problem("create: %d %s", res.StatusCode, res.Body)
							return
						}
						var j jobView
						res.JSON(t, &j)
						mu.Lock()
						ids = append(ids, j.ID)
						mu.Unlock()
						for wait := time.Now().Add(30 * time.Second); j.Status == "queued" && time.Now().Before(wait); {
							time.Sleep(10 * time.Millisecond)
							app.Do("GET", "/v1/jobs/"+j.ID, who, nil).JSON(t, &j)
						}
						if j.Status == "running" {
							raced.Add(1)
						}
						time.Sleep(time.Duration(rand.IntN(300)) * time.Millisecond)
						res = app.Do("POST", "/v1/connect/jobs/"+j.ID+"/cancel", who, nil)
						switch {
						case res.StatusCode == 200:
						case res.StatusCode == 409 && strings.Contains(res.Body, `"job_not_cancelable"`) && strings.Contains(res.Body, "already succeeded"):
							mu.Lock()
							finished[j.ID] = true
							mu.Unlock()
						default:
							problem("cancel %s (%s): %d %s", j.ID, j.Status, res.StatusCode, res.Body)
						}
					}
				})
			}
			wg.Wait()
			for _, p := range problems[:min(len(problems), 10)] {
				t.Error(p)
			}
			if len(problems) > 0 {
				t.Fatalf("%d of %d cancels went wrong", len(problems), n)
			}
			t.Logf("%d of %d jobs were running when canceled; %d had succeeded first", raced.Load(), n, len(finished))
			if raced.Load()-int64(len(finished)) < n/2 {
				t.Fatalf("only %d of %d cancels raced a running job", raced.Load()-int64(len(finished)), n)
			}
			for _, id := range ids {
				want := "canceled"
				if finished[id] {
					want = "succeeded"
				}
				if j := untilDone(t, app, who, "/v1/jobs/"+id); j.Status != want {
					t.Fatalf("job %s ended %s, want %s", id, j.Status, want)
				}
				res := app.Do("GET", "/v1/jobs/"+id+"/events", who, nil)
				wantStatus(t, res, 200, "")
				kinds := streamKinds(t, res.Body)
				if len(kinds) < 2 || kinds[len(kinds)-1] != "job."+want || strings.Count(strings.Join(kinds, " "), "job.canceled") != map[string]int{"canceled": 1, "succeeded": 0}[want] {
					t.Fatalf("job %s events %v", id, kinds)
				}
			}
		})
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
