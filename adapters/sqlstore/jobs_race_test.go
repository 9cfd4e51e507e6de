package sqlstore_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/sqlstore"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/job"
)

// TestJobEvents_cancelRacesProgress: 100 cancels, each racing a worker
// that stores progress events and heartbeats as fast as it can. Every
// cancel succeeds, no append fails, each job ends canceled, and its events
// are numbered 1..n without a gap or a repeat.
func TestJobEvents_cancelRacesProgress(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, db *sqlstore.DB) {
		org, _ := seedOrgUser(t, db)
		r := &cancelRace{orgID: org.ID, jobs: sqlstore.NewJobs(db), events: sqlstore.NewJobEvents(db), tx: sqlstore.NewTransactor(db)}
		ids := r.runningJobs(t, 100)
		sem := make(chan struct{}, 8)
		var wg sync.WaitGroup
		for _, id := range ids {
			wg.Go(func() {
				sem <- struct{}{}
				defer func() { <-sem }()
				var worker sync.WaitGroup
				worker.Go(func() { r.progress(id) })
				time.Sleep(time.Duration(rand.IntN(3000)) * time.Microsecond)
				r.cancel(id)
				worker.Wait()
			})
		}
		wg.Wait()
		for _, e := range r.errs[:min(len(r.errs), 10)] {
			t.Error(e)
		}
		if len(r.errs) > 0 {
			t.Fatalf("%d errors", len(r.errs))
		}
		for _, id := range ids {
			r.checkCanceled(t, id)
		}
	})
}

// cancelRace is a race of cancels against workers' progress.
type cancelRace struct {
	orgID  string
	jobs   *sqlstore.Jobs
	events *sqlstore.JobEvents
	tx     *sqlstore.Transactor
	mu     sync.Mutex
	errs   []string
}

func (r *cancelRace) fail(format string, args ...any) {
	r.mu.Lock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
	r.mu.Unlock()
}

// runningJobs makes n started jobs, each with its queued event.
func (r *cancelRace) runningJobs(t *testing.T, n int) []string {
	t.Helper()
	ctx := context.Background()
	now := time.Now().UTC()
	ids := make([]string, n)
	for i := range ids {
		j := newJob(r.orgID, now)
		if err := r.jobs.Create(ctx, j); err != nil {
			t.Fatal(err)
		}
		if _, err := r.events.Append(ctx, j.ID, job.EventQueued, []byte(`{}`), now); err != nil {
			t.Fatal(err)
		}
		if _, err := r.jobs.Update(ctx, "", j.ID, func(j *job.Job) error { return j.Start(now) }); err != nil {
			t.Fatal(err)
		}
		ids[i] = j.ID
	}
	return ids
}

// progress stores progress events and heartbeats as fast as it can, as a
// worker does, until its heartbeat sees the cancel. It waits for that
// event, not for a number of rounds: SQLite's busy handler is not fair, so
// on a busy machine a tight loop of writes can hold the cancel off for
// more than a thousand of them.
func (r *cancelRace) progress(id string) {
	ctx := context.Background()
	deadline := time.Now().Add(30 * time.Second)
	for k := 0; time.Now().Before(deadline); k++ {
		if _, err := r.events.Append(ctx, id, job.EventProgress, []byte(`{}`), time.Now()); err != nil {
			r.fail("progress append %s: %v", id, err)
			return
		}
		status, err := r.jobs.Heartbeat(ctx, id, job.Progress{RowsRead: int64(k)}, time.Now().Add(time.Minute))
		if err != nil {
			r.fail("heartbeat %s: %v", id, err)
			return
		}
		if status == job.Canceled {
			return
		}
	}
	r.fail("job %s never saw its cancel", id)
}

// cancel cancels the job and stores its event, as the jobs service does.
func (r *cancelRace) cancel(id string) {
	err := r.tx.InTx(context.Background(), func(ctx context.Context) error {
		at := time.Now()
		if _, err := r.jobs.Update(ctx, r.orgID, id, func(j *job.Job) error { return j.Cancel(at) }); err != nil {
			return err
		}
		_, err := r.events.Append(ctx, id, job.EventCanceled, []byte(`{}`), at)
		return err
	})
	if err != nil {
		r.fail("cancel %s: %v", id, err)
	}
}

// checkCanceled: the job ended canceled, its events are numbered 1..n
// without a gap or a repeat, and one of them is the cancel.
func (r *cancelRace) checkCanceled(t *testing.T, id string) {
	t.Helper()
	ctx := context.Background()
	got, err := r.jobs.Get(ctx, r.orgID, id)
	if err != nil || got.Status != job.Canceled {
		t.Fatalf("job %s ended %s, %v", id, got.Status, err)
	}
	evs, err := r.events.After(ctx, id, 0)
	if err != nil {
		t.Fatal(err)
	}
	canceled := 0
	for i, ev := range evs {
		if ev.Seq != i+1 {
			t.Fatalf("job %s: event #%d has seq %d", id, i+1, ev.Seq)
		}
		if ev.Kind == job.EventCanceled {
			canceled++
		}
	}
	if canceled != 1 {
		t.Fatalf("job %s has %d canceled events", id, canceled)
	}
}

func TestJobEvents_appendToMissingJob(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, db *sqlstore.DB) {
		_, err := sqlstore.NewJobEvents(db).Append(context.Background(), "job_missing", job.EventProgress, []byte(`{}`), time.Now())
		if !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("append to a missing job: %v", err)
		}
	})
}
