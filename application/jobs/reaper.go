package jobs

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"time"

	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/ports"
)

// Reaper reclaims what jobs leave behind. On a worker node it runs, every
// third of the lease (at least every second), Reap and the Dispatcher's
// catch-up Dispatch: jobs of lost workers go back to the queue, and
// waiting jobs get the slots that a stopped node left; every hour it also
// removes the working folders that this node's dead runs left (Orphans).
// Its Purge, which the queue's periodic job runs with the Orphans', deletes
// the files of jobs past their retention.
type Reaper struct {
	retention time.Duration
	jobs      ports.Jobs
	blobs     ports.BlobStore
	tx        ports.Transactor
	clock     ports.Clock
	log       *slog.Logger
	outbox    *Outbox
	dispatch  *Dispatcher
	orphans   *Orphans

	workdirs string // where runs make their working folders
	every    time.Duration
	also     []task
	stop     chan struct{}
	done     chan struct{}
}

// NewReaper returns the reaper of jobs, not yet started.
func NewReaper(cfg Config, jobs ports.Jobs, blobs ports.BlobStore, tx ports.Transactor, clock ports.Clock, log *slog.Logger, outbox *Outbox,
	dispatcher *Dispatcher, orphans *Orphans) *Reaper {
	cfg = cfg.withDefaults()
	return &Reaper{retention: cfg.Retention, jobs: jobs, blobs: blobs, tx: tx, clock: clock, log: log, outbox: outbox, dispatch: dispatcher,
		orphans: orphans, workdirs: os.TempDir(), every: max(time.Second, cfg.Lease/3)}
}

// Reap requeues running jobs whose worker stopped renewing its lease, or
// fails them with worker_lost after their third attempt. Any node may run
// it; the row lock makes each requeue happen once.
func (r *Reaper) Reap(ctx context.Context) (int, error) {
	expired, err := r.jobs.Expired(ctx, r.clock.Now())
	if err != nil {
		return 0, err
	}
	n := 0
	for _, pair := range expired {
		err := r.requeue(ctx, pair[0], pair[1])
		if errors.Is(err, errSkip) {
			continue
		}
		if err != nil {
			return n, err
		}
		r.dispatch.dispatch(ctx, pair[0])
		n++
	}
	return n, nil
}

// requeue puts a job whose worker was lost back in the queue, first in
// line and keeping its slot, or fails it when it used its attempts.
// errSkip: it is no longer running.
func (r *Reaper) requeue(ctx context.Context, orgID, jobID string) error {
	return r.tx.InTx(ctx, func(ctx context.Context) error {
		now := r.clock.Now()
		var again bool
		j, err := r.jobs.Update(ctx, orgID, jobID, func(j *job.Job) error {
			if j.Status != job.Running {
				return errSkip
			}
			var err error
			again, err = j.Requeue(now)
			return err
		})
		if err != nil {
			return err
		}
		if again {
			return r.dispatch.requeue(ctx, j)
		}
		if j.Failure != nil {
			r.log.WarnContext(ctx, "job failed", "job_id", j.ID, "org_id", j.OrgID, "code", j.Failure.Code)
		}
		return r.outbox.append(ctx, j, job.EventFailed, now, true)
	})
}

var _ ports.Purger = (*Reaper)(nil)

// Purge deletes the files (source and results) of jobs that finished more
// than the retention ago; the jobs themselves stay, and their results then
// answer 404. It works in batches until none is left.
func (r *Reaper) Purge(ctx context.Context) (int, error) {
	if r.retention <= 0 {
		return 0, nil
	}
	n := 0
	for {
		old, err := r.jobs.FinishedBefore(ctx, r.clock.Now().Add(-r.retention), 200)
		if err != nil || len(old) == 0 {
			return n, err
		}
		for _, pair := range old {
			if err := r.blobs.DeletePrefix(ctx, jobPrefix(pair[0], pair[1])); err != nil {
				return n, err
			}
			if err := r.jobs.MarkPurged(ctx, pair[1], r.clock.Now()); err != nil {
				return n, err
			}
			n++
		}
	}
}

// task is another use case's periodic work, run in each round.
type task struct {
	what string
	run  func(context.Context) (int, error)
}

// Also adds work to each round: another use case's periodic sweep (such as
// expiring reviews). Its failure is logged under what.
func (r *Reaper) Also(what string, run func(context.Context) (int, error)) *Reaper {
	r.also = append(r.also, task{what, run})
	return r
}

// workdirsEvery is how often a node looks for dead runs' working folders.
const workdirsEvery = time.Hour

// Start runs the reaper's rounds until Stop.
func (r *Reaper) Start() {
	r.stop, r.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(r.done)
		t := time.NewTicker(r.every)
		defer t.Stop()
		var swept time.Time
		for {
			if time.Since(swept) >= workdirsEvery {
				swept = time.Now()
				r.sweepWorkdirs(context.Background())
			}
			select {
			case <-r.stop:
				return
			case <-t.C:
				r.sweep(context.Background())
			}
		}
	}()
}

// Stop ends the reaper and waits for a round in progress.
func (r *Reaper) Stop() {
	close(r.stop)
	<-r.done
}

// sweepWorkdirs removes dead runs' working folders.
func (r *Reaper) sweepWorkdirs(ctx context.Context) {
	if _, err := r.orphans.SweepWorkdirs(ctx, r.workdirs); err != nil {
		r.log.ErrorContext(ctx, "remove working folders of dead job runs", "error", err)
	}
}

// sweep is one round; its failures are logged, and the next round tries
// again.
func (r *Reaper) sweep(ctx context.Context) {
	if n, err := r.Reap(ctx); err != nil {
		r.log.ErrorContext(ctx, "requeue lost jobs", "error", err)
	} else if n > 0 {
		r.log.WarnContext(ctx, "requeued jobs whose worker was lost", "jobs", n)
	}
	if _, err := r.dispatch.Dispatch(ctx); err != nil {
		r.log.ErrorContext(ctx, "dispatch waiting jobs", "error", err)
	}
	for _, t := range r.also {
		if _, err := t.run(ctx); err != nil {
			r.log.ErrorContext(ctx, t.what, "error", err)
		}
	}
}
