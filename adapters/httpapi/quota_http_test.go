package httpapi_test

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/sqlstore"
	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/test/apptest"
	"github.com/tabnorm/tabnorm/test/testtime"
)

// TestJobs_queuedQuota: beyond TABNORM_MAX_QUEUED_JOBS_PER_ORG queued or
// running jobs, creation answers 429 quota_exceeded with Retry-After, and
// only for that organization.
func TestJobs_queuedQuota(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			// No workers: the jobs stay queued.
			app := apptest.StartRole(t, target, bootstrap.RoleAPI, func(c *bootstrap.Config) { c.MaxQueuedJobsPerOrg = 3 })
			busy, other := app.Org("Busy", identity.Normalize), app.Org("Other", identity.Normalize)
			busyKey, otherKey := apptest.Caller{Key: app.Key(busy)}, apptest.Caller{Key: app.Key(other)}
			for i := range 3 {
				expect(t, app.Request(upload(t, app, fmt.Sprintf("p%d.csv", i), peopleCSV, map[string]string{"schema": peopleSchema}), busyKey), 202, "")
			}
			res := app.Request(upload(t, app, "p3.csv", peopleCSV, map[string]string{"schema": peopleSchema}), busyKey)
			expect(t, res, 429, "quota_exceeded")
			if res.Header.Get("Retry-After") == "" {
				t.Error("429 quota_exceeded without Retry-After")
			}
			var list struct{ Data []jobView }
			app.Do("GET", "/v1/jobs", busyKey, nil).JSON(t, &list)
			if len(list.Data) != 3 {
				t.Errorf("the refused job exists: %d jobs", len(list.Data))
			}
			expect(t, app.Request(upload(t, app, "o.csv", peopleCSV, map[string]string{"schema": peopleSchema}), otherKey), 202, "")
		})
	}
}

type timedJob struct {
	ID         string  `json:"id"`
	Status     string  `json:"status"`
	CreatedAt  string  `json:"created_at"`
	StartedAt  *string `json:"started_at"`
	FinishedAt *string `json:"finished_at"`
}

func parseTime(t *testing.T, s *string) time.Time {
	t.Helper()
	if s == nil {
		t.Fatal("missing time")
	}
	v, err := time.Parse(time.RFC3339Nano, *s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestJobs_fairSharing: an organization with a backlog runs at most its
// limit of jobs at once, and another organization's job, created after
// that backlog, starts long before the backlog is through.
func TestJobs_fairSharing(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		for _, limit := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s/limit_%d", target.Name, limit), func(t *testing.T) { fairSharing(t, target, limit) })
		}
	}
}

// fairBacklog is how many jobs the busy organization queues.
const fairBacklog = 30

func fairSharing(t *testing.T, target sqltest.Target, limit int) {
	app := apptest.Start(t, target, func(c *bootstrap.Config) { c.MaxRunningJobsPerOrg = limit })
	busy, other := app.Org("Busy", identity.Normalize), app.Org("Other", identity.Normalize)
	busyKey, otherKey := apptest.Caller{Key: app.Key(busy)}, apptest.Caller{Key: app.Key(other)}
	for i := range fairBacklog {
		expect(t, app.Request(upload(t, app, fmt.Sprintf("p%d.csv", i), peopleCSV, map[string]string{"schema": peopleSchema}), busyKey), 202, "")
	}
	res := app.Request(upload(t, app, "o.csv", peopleCSV, map[string]string{"schema": peopleSchema}), otherKey)
	expect(t, res, 202, "")
	var created jobView
	res.JSON(t, &created)
	waitJob(t, app, otherKey, created.ID)
	var mine timedJob
	app.Do("GET", "/v1/jobs/"+created.ID, otherKey, nil).JSON(t, &mine)
	backlog := waitBacklog(t, app, busyKey)

	// While the other organization's job waited, the busy one's jobs that
	// started were at most those already holding its slots: first come,
	// first served would start the whole remaining backlog first.
	createdAt, startedAt := parseTime(t, &mine.CreatedAt), parseTime(t, mine.StartedAt)
	ahead, later := 0, 0
	var ran time.Duration
	for _, j := range backlog {
		switch s := parseTime(t, j.StartedAt); {
		case s.After(createdAt) && s.Before(startedAt):
			ahead++
		case !s.Before(startedAt):
			later++
		}
		ran += parseTime(t, j.FinishedAt).Sub(parseTime(t, j.StartedAt))
	}
	if later < 5 {
		t.Fatalf("only %d of the backlog's jobs started after the other's: the backlog was gone, the test proves nothing", later)
	}
	t.Logf("the other organization's job waited %s while %d of the backlog started; a backlog job ran %s on average",
		startedAt.Sub(createdAt).Round(time.Millisecond), ahead, (ran / fairBacklog).Round(time.Millisecond))
	if ahead > limit+1 {
		t.Errorf("%d jobs of the busy organization started while the other's job waited %s (limit %d)", ahead, startedAt.Sub(createdAt), limit)
	}
	if most := mostAtOnce(t, backlog); most > limit {
		t.Errorf("%d jobs of one organization ran at once, limit %d", most, limit)
	}
}

// waitBacklog waits for the busy organization's backlog to finish and
// returns its jobs.
func waitBacklog(t *testing.T, app *apptest.App, key apptest.Caller) []timedJob {
	t.Helper()
	var list struct{ Data []timedJob }
	for deadline := testtime.Deadline(2 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		app.Do("GET", "/v1/jobs?limit=100", key, nil).JSON(t, &list)
		finished := 0
		for _, j := range list.Data {
			if j.Status == "succeeded" {
				finished++
			}
		}
		if finished == fairBacklog {
			return list.Data
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d jobs finished in 2 minutes", finished, fairBacklog)
		}
	}
}

// mostAtOnce is the most jobs that ran at the same time.
func mostAtOnce(t *testing.T, jobs []timedJob) int {
	t.Helper()
	type edge struct {
		at    time.Time
		delta int
	}
	var edges []edge
	for _, j := range jobs {
		edges = append(edges, edge{parseTime(t, j.StartedAt), 1}, edge{parseTime(t, j.FinishedAt), -1})
	}
	sort.Slice(edges, func(a, b int) bool {
		if edges[a].at.Equal(edges[b].at) {
			return edges[a].delta < edges[b].delta
		}
		return edges[a].at.Before(edges[b].at)
	})
	running, most := 0, 0
	for _, e := range edges {
		running += e.delta
		most = max(most, running)
	}
	return most
}

// TestUsage_monthlyQuotas: GET /v1/usage shows the month's rows and the
// stored bytes against the operator's quotas, and a spent quota refuses
// new jobs with 403 quota_exceeded.
func TestUsage_monthlyQuotas(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			app := apptest.Start(t, target)
			org := app.Org("Acme", identity.Normalize)
			key := apptest.Caller{Key: app.Key(org)}
			type usage struct {
				PeriodStart string `json:"period_start"`
				Rows        struct {
					Used  int64
					Limit *int64
				}
				StorageBytes struct {
					Used  int64
					Limit *int64
				} `json:"storage_bytes"`
				Jobs struct {
					QueuedOrRunning int `json:"queued_or_running"`
					MaxQueued       int `json:"max_queued"`
					MaxRunning      int `json:"max_running"`
				}
			}
			expect(t, app.Do("GET", "/v1/usage", apptest.Caller{}, nil), 401, "unauthenticated")
			var u usage
			res := app.Do("GET", "/v1/usage", key, nil)
			expect(t, res, 200, "")
			res.JSON(t, &u)
			if u.Rows.Used != 0 || u.Rows.Limit != nil || u.StorageBytes.Limit != nil || u.Jobs.MaxRunning != 4 || u.Jobs.MaxQueued != 1000 {
				t.Fatalf("usage of a new organization: %+v", u)
			}
			quotas := sqlstore.NewQuotas(app.DB)
			if err := quotas.Set(context.Background(), org.ID, job.Quota{RowsPerMonth: 2}, time.Now()); err != nil {
				t.Fatal(err)
			}
			res = app.Request(upload(t, app, "people.csv", peopleCSV, map[string]string{"schema": peopleSchema}), key)
			expect(t, res, 202, "") // the quota is not spent yet
			var created jobView
			res.JSON(t, &created)
			waitJob(t, app, key, created.ID)
			app.Do("GET", "/v1/usage", key, nil).JSON(t, &u)
			if u.Rows.Used != 4 || u.Rows.Limit == nil || *u.Rows.Limit != 2 || u.StorageBytes.Used != int64(len(peopleCSV)) {
				t.Fatalf("usage after a 4-row job: %+v", u)
			}
			expect(t, app.Request(upload(t, app, "p.csv", peopleCSV, map[string]string{"schema": peopleSchema}), key), 403, "quota_exceeded")

			// Storage: the next file would go over.
			if err := quotas.Set(context.Background(), org.ID, job.Quota{StorageBytes: int64(len(peopleCSV)) + 10}, time.Now()); err != nil {
				t.Fatal(err)
			}
			expect(t, app.Request(upload(t, app, "p.csv", peopleCSV, map[string]string{"schema": peopleSchema}), key), 403, "quota_exceeded")
			if err := quotas.Set(context.Background(), org.ID, job.Quota{}, time.Now()); err != nil {
				t.Fatal(err)
			}
			expect(t, app.Request(upload(t, app, "p.csv", peopleCSV, map[string]string{"schema": peopleSchema}), key), 202, "")
		})
	}
}
