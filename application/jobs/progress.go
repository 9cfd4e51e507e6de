package jobs

import (
	"context"

	"github.com/tabnorm/tabnorm/domain/job"
)

// runningEvent stores a job.started or job.progress event, with the
// progress it reports and a renewed lease, only while the job runs. The
// heartbeat and the event share one transaction that holds the job, so a
// cancel either commits first, and nothing is stored after its terminal
// event, or waits for this event and follows it. It returns the job's
// status, so the worker notices a cancel at once.
func (r *Runner) runningEvent(ctx context.Context, j job.Job, kind string) (job.Status, error) {
	ctx = context.WithoutCancel(ctx)
	var status job.Status
	err := r.tx.InTx(ctx, func(ctx context.Context) error {
		now := r.clock.Now()
		var err error
		if status, err = r.jobs.Heartbeat(ctx, j.ID, j.Progress, now.Add(r.cfg.Lease)); err != nil || status != job.Running {
			return err
		}
		return r.outbox.append(ctx, j, kind, now, false)
	})
	return status, err
}
