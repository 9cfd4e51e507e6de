package jobs

import (
	"context"
	"log/slog"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/importsession"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/ports"
)

// Canceler cancels and deletes an organization's jobs.
type Canceler struct {
	jobs     ports.Jobs
	blobs    ports.BlobStore
	tx       ports.Transactor
	clock    ports.Clock
	log      *slog.Logger
	outbox   *Outbox
	dispatch *Dispatcher
}

// NewCanceler returns the cancellation and deletion of jobs.
func NewCanceler(jobs ports.Jobs, blobs ports.BlobStore, tx ports.Transactor, clock ports.Clock, log *slog.Logger, outbox *Outbox,
	dispatcher *Dispatcher) *Canceler {
	return &Canceler{jobs: jobs, blobs: blobs, tx: tx, clock: clock, log: log, outbox: outbox, dispatch: dispatcher}
}

// Cancel stops a queued or running job; a running job's worker notices at
// its next heartbeat (within a second) and stops.
func (c *Canceler) Cancel(ctx context.Context, p identity.Principal, jobID string) (job.Job, error) {
	var out job.Job
	err := c.tx.InTx(ctx, func(ctx context.Context) error {
		now := c.clock.Now()
		j, err := c.jobs.Update(ctx, p.OrgID, jobID, func(j *job.Job) error {
			if err := importsession.CanPrincipalUseJob(p, importsession.CancelJob, j.ID, j.ImportSessionID); err != nil {
				return err
			}
			return j.Cancel(now)
		})
		if err != nil {
			return err
		}
		out = j
		return c.outbox.append(ctx, j, job.EventCanceled, now, true)
	})
	if err == nil {
		c.dispatch.dispatch(ctx, out.OrgID) // its slot, if it held one, is free
	}
	return out, err
}

// Delete removes a job, its file and its results. A running job is
// canceled first.
func (c *Canceler) Delete(ctx context.Context, p identity.Principal, jobID string) error {
	j, err := c.jobs.Get(ctx, p.OrgID, jobID)
	if err != nil {
		return err
	}
	if err := importsession.CanPrincipalUseJob(p, importsession.DeleteJob, j.ID, j.ImportSessionID); err != nil {
		return err
	}
	if !j.Status.Terminal() {
		if _, err := c.Cancel(ctx, p, jobID); err != nil && domain.CodeOf(err) != domain.CodeJobNotCancelable {
			return err
		}
	}
	if err := c.jobs.Delete(ctx, p.OrgID, jobID); err != nil {
		return err
	}
	if err := c.blobs.DeletePrefix(ctx, jobPrefix(p.OrgID, jobID)); err != nil {
		c.log.ErrorContext(ctx, "delete job files", "job_id", jobID, "error", err)
	}
	return nil
}
