package jobs

import (
	"context"
	"errors"
	"os"
	"time"

	"github.com/tabnorm/tabnorm/domain/job"
)

// Reap requeues running jobs whose worker stopped renewing its lease, or
// fails them with worker_lost after their third attempt. Any node may run
// it; the row lock makes each requeue happen once.
func (s *Service) Reap(ctx context.Context) (int, error) {
	expired, err := s.jobs.Expired(ctx, s.clock.Now())
	if err != nil {
		return 0, err
	}
	n := 0
	for _, pair := range expired {
		err := s.requeue(ctx, pair[0], pair[1])
		if errors.Is(err, errSkip) {
			continue
		}
		if err != nil {
			return n, err
		}
		s.dispatch(ctx, pair[0])
		n++
	}
	return n, nil
}

// requeue puts a job whose worker was lost back in the queue, first in
// line and keeping its slot, or fails it when it used its attempts.
// errSkip: it is no longer running.
func (s *Service) requeue(ctx context.Context, orgID, jobID string) error {
	return s.tx.InTx(ctx, func(ctx context.Context) error {
		now := s.clock.Now()
		var again bool
		j, err := s.jobs.Update(ctx, orgID, jobID, func(j *job.Job) error {
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
			return s.queue.Enqueue(ctx, j.OrgID, j.ID, 0)
		}
		if j.Failure != nil {
			s.log.WarnContext(ctx, "job failed", "job_id", j.ID, "org_id", j.OrgID, "code", j.Failure.Code)
		}
		return s.append(ctx, j, job.EventFailed, now, true)
	})
}

// Reaper runs Reap and Dispatch on a worker node every third of the lease
// (at least every second): jobs of lost workers go back to the queue, and
// waiting jobs get the slots that a stopped node left. Every hour it also
// removes the working folders that this node's dead runs left.
type Reaper struct {
	s        *Service
	orphans  *Orphans
	workdirs string // where runs make their working folders
	every    time.Duration
	also     []task
	stop     chan struct{}
	done     chan struct{}
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

// NewReaper returns the service's reaper, not yet started.
func (s *Service) NewReaper(orphans *Orphans) *Reaper {
	return &Reaper{s: s, orphans: orphans, workdirs: os.TempDir(), every: max(time.Second, s.cfg.Lease/3)}
}

// Start runs the reaper until Stop.
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
		r.s.log.ErrorContext(ctx, "remove working folders of dead job runs", "error", err)
	}
}

// sweep is one round; its failures are logged, and the next round tries
// again.
func (r *Reaper) sweep(ctx context.Context) {
	log := r.s.log
	if n, err := r.s.Reap(ctx); err != nil {
		log.ErrorContext(ctx, "requeue lost jobs", "error", err)
	} else if n > 0 {
		log.WarnContext(ctx, "requeued jobs whose worker was lost", "jobs", n)
	}
	if _, err := r.s.Dispatch(ctx); err != nil {
		log.ErrorContext(ctx, "dispatch waiting jobs", "error", err)
	}
	for _, t := range r.also {
		if _, err := t.run(ctx); err != nil {
			log.ErrorContext(ctx, t.what, "error", err)
		}
	}
}
