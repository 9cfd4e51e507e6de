package jobs

import (
	"context"
	"sync"
	"time"

	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/normalize"
)

// progressEventEvery is the least time between a job's progress events.
const progressEventEvery = 250 * time.Millisecond

// lease keeps a running job's lease alive while the engine runs, also
// between its progress reports: every beat stores the latest progress,
// extends the lease, and notices a cancellation, which stops the run.
type lease struct {
	r      *Runner
	jobID  string
	cancel context.CancelFunc

	mu       sync.Mutex
	latest   job.Progress
	canceled bool

	stop chan struct{}
	done chan struct{}
}

// holdLease starts beating for a job that started; cancel stops its run.
func (r *Runner) holdLease(ctx context.Context, j job.Job, cancel context.CancelFunc) *lease {
	l := &lease{r: r, jobID: j.ID, cancel: cancel, latest: job.Progress{BytesTotal: j.Progress.BytesTotal},
		stop: make(chan struct{}), done: make(chan struct{})}
	go l.keep(context.WithoutCancel(ctx))
	return l
}

func (l *lease) keep(ctx context.Context) {
	defer close(l.done)
	t := time.NewTicker(l.r.beatEvery)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
			l.beat(ctx)
		}
	}
}

// beat stores the latest progress and extends the lease. A failed beat is
// let go: the next one tries again, and a job whose beats all fail is
// requeued by the reaper once its lease ends.
func (l *lease) beat(ctx context.Context) {
	status, err := l.r.jobs.Heartbeat(ctx, l.jobID, l.progress(), l.r.clock.Now().Add(l.r.cfg.Lease))
	if err == nil {
		l.notice(status)
	}
}

// notice stops the run of a job found canceled.
func (l *lease) notice(status job.Status) {
	if status == job.Canceled {
		l.mu.Lock()
		l.canceled = true
		l.mu.Unlock()
		l.cancel()
	}
}

func (l *lease) report(p job.Progress) {
	l.mu.Lock()
	l.latest = p
	l.mu.Unlock()
}

func (l *lease) progress() job.Progress {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.latest
}

// isCanceled reports whether a beat or a progress report found the job
// canceled so far.
func (l *lease) isCanceled() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.canceled
}

// end stops the beats and reports whether the job was canceled meanwhile.
func (l *lease) end() (canceled bool) {
	close(l.stop)
	<-l.done
	return l.isCanceled()
}

// reportProgress is the engine's progress callback for a job: the lease
// stores the progress at its next beat, and the job's subscribers hear of
// it at most four times a second, while it runs; a cancellation found
// then stops the run at once.
func (r *Runner) reportProgress(ctx context.Context, j job.Job, l *lease) func(normalize.Progress) {
	var last time.Time
	return func(p normalize.Progress) {
		cur := job.Progress{RowsRead: p.RowsRead, RowsValid: p.RowsValid, RowsRejected: p.RowsRejected, BytesRead: p.BytesRead,
			BytesTotal: j.Progress.BytesTotal}
		l.report(cur)
		if now := time.Now(); now.Sub(last) >= progressEventEvery {
			last = now
			jj := j
			jj.Progress = cur
			status, err := r.runningEvent(ctx, jj, job.EventProgress)
			if err != nil {
				r.log.ErrorContext(ctx, "store job event", "job_id", j.ID, "kind", job.EventProgress, "error", err)
			}
			l.notice(status)
		}
	}
}
