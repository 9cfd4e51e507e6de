package jobs

import (
	"context"
	"errors"

	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/normalize"
	"github.com/tabnorm/tabnorm/domain/normalize/review"
	"github.com/tabnorm/tabnorm/ports"
)

// The review of a job's mapping (options.review) hooks into the run here:
// a job that asks for one and was not confirmed yet reads the sample of
// its files, keeps it, proposes its mapping and stops, awaiting review.
// The use cases that change, confirm and expire a review are in
// application/review; they call back into this package for what only it
// does: reading a job's files again (Sources.Resample, Sources.CheckRows),
// queueing a confirmed job (Creator.Resume) and telling a job's followers
// (Outbox.Announce).

// errAwaitingReview ends a run that stopped for its review.
var errAwaitingReview = errors.New("job awaits its review")

// review reads the sample of each file, keeps it for the review's later
// changes, and stops the job awaiting review with the proposed mapping
// and its preview. Its slot is free for the organization's next job.
func (r *Runner) review(ctx context.Context, l *lease, j job.Job, in normalize.Input) error {
	rev, samples, err := r.sampleAndReview(ctx, l, in)
	if err != nil {
		return err
	}
	stored, err := normalize.MarshalSamples(samples)
	if err != nil {
		return err
	}
	if err := KeepSample(ctx, r.blobs, j.OrgID, j.ID, stored); err != nil {
		return err
	}
	mapping, err := r.render.Mapping(rev.Mapping())
	if err != nil {
		return err
	}
	now := r.clock.Now()
	err = r.tx.InTx(context.WithoutCancel(ctx), func(ctx context.Context) error {
		stopped, err := r.jobs.Update(ctx, "", j.ID, func(j *job.Job) error {
			if j.Status != job.Running {
				return errCanceled // canceled meanwhile: nothing more to do
			}
			return j.AwaitReview(now, rev, mapping)
		})
		if err != nil {
			return err
		}
		return r.outbox.append(ctx, stopped, job.EventAwaitingReview, now, true)
	})
	if err != nil {
		return err
	}
	r.log.InfoContext(ctx, "job awaits review", "job_id", j.ID, "org_id", j.OrgID)
	r.dispatch.dispatch(ctx, j.OrgID)
	return errAwaitingReview
}

// sampleAndReview reads the job's samples and reviews them, under the
// run's lease, which stops the reading when the job is canceled.
func (r *Runner) sampleAndReview(ctx context.Context, l *lease, in normalize.Input) (review.Review, []normalize.Sample, error) {
	samples, err := normalize.ReadSamples(ctx, in.Sources)
	var rev review.Review
	if err == nil {
		rev, err = normalize.RunReview(ctx, normalize.ReviewInput{Mode: in.Mode, Schema: in.Schema, Options: in.Options, Learned: in.Learned, Samples: samples, Lists: in.Lists})
	}
	if l.isCanceled() {
		return rev, nil, errCanceled
	}
	return rev, samples, err
}

// KeepSample stores a job's samples, as MarshalSamples wrote them, at
// SampleKey: the run that stops for a review stores them first, and each
// change of the review that reads them again (another sheet) after.
func KeepSample(ctx context.Context, blobs ports.BlobStore, orgID, jobID string, stored []byte) error {
	w, err := blobs.Create(ctx, SampleKey(orgID, jobID))
	if err != nil {
		return err
	}
	if _, err := w.Write(stored); err != nil {
		_ = w.Close()
		return err
	}
	return w.Close()
}
