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
		ctx := context.Background()
		org, _ := seedOrgUser(t, db)
		jobs, events, tx := sqlstore.NewJobs(db), sqlstore.NewJobEvents(db), sqlstore.NewTransactor(db)
		now := time.Now().UTC()
		const n = 100
		ids := make([]string, n)
		for i := range ids {
			j := newJob(org.ID, now)
			if err := jobs.Create(ctx, j); err != nil {
				t.Fatal(err)
			}
			if _, err := events.Append(ctx, j.ID, job.EventQueued, []byte(`{}`), now); err != nil {
				t.Fatal(err)
			}
			if _, err := jobs.Update(ctx, "", j.ID, func(j *job.Job) error { return j.Start(now) }); err != nil {
				t.Fatal(err)
			}
			ids[i] = j.ID
		}

		var mu sync.Mutex
		var errs []string
		fail := func(format string, args ...any) {
			mu.Lock()
			errs = append(errs, fmt.Sprintf(format, args...))
			mu.Unlock()
		}
		sem := make(chan struct{}, 8)
		var wg sync.WaitGroup
		for _, id := range ids {
			wg.Go(func() {
				sem <- struct{}{}
				defer func() { <-sem }()
				var worker sync.WaitGroup
				worker.Go(func() { // progress until the worker sees the cancel
					for k := 0; k < 1000; k++ {
						if _, err := events.Append(ctx, id, job.EventProgress, []byte(`{}`), time.Now()); err != nil {
							fail("progress append %s: %v", id, err)
							return
						}
						status, err := jobs.Heartbeat(ctx, id, job.Progress{RowsRead: int64(k)}, time.Now().Add(time.Minute))
						if err != nil {
							fail("heartbeat %s: %v", id, err)
							return
						}
						if status == job.Canceled {
							return
						}
					}
					fail("job %s never saw its cancel", id)
				})
				time.Sleep(time.Duration(rand.IntN(3000)) * time.Microsecond)
				err := tx.InTx(ctx, func(ctx context.Context) error { // as the jobs service cancels
					at := time.Now()
					if _, err := jobs.Update(ctx, org.ID, id, func(j *job.Job) error { return j.Cancel(at) }); err != nil {
						return err
					}
					_, err := events.Append(ctx, id, job.EventCanceled, []byte(`{}`), at)
					return err
				})
				if err != nil {
					fail("cancel %s: %v", id, err)
				}
				worker.Wait()
			})
		}
		wg.Wait()
		for _, e := range errs[:min(len(errs), 10)] {
			t.Error(e)
		}
		if len(errs) > 0 {
			t.Fatalf("%d errors", len(errs))
		}
		for _, id := range ids {
			got, err := jobs.Get(ctx, org.ID, id)
			if err != nil || got.Status != job.Canceled {
				t.Fatalf("job %s ended %s, %v", id, got.Status, err)
			}
			evs, err := events.After(ctx, id, 0)
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
	})
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
