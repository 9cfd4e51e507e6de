package jobs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/normalize"
)

// The review of a job's mapping (options.review) hooks into the run here:
// a job that asks for one and was not confirmed yet reads the sample of
// its files, keeps it, proposes its mapping and stops, awaiting review.
// The use cases that change, confirm and expire a review are in
// application/review; they call back here for what only this service
// does: queueing a job and telling its followers.

// errAwaitingReview ends a run that stopped for its review.
var errAwaitingReview = errors.New("job awaits its review")

// SourceKey is where the file of an uploaded job is stored.
func SourceKey(orgID, jobID string) string { return sourceKey(orgID, jobID) }

// SampleKey is where a reviewed job's sample is kept: under the job's own
// prefix, so deleting the job or purging its files takes it along.
func SampleKey(orgID, jobID string) string { return resultKey(orgID, jobID, "review-sample.json") }

// review reads the sample of each file, keeps it for the review's later
// changes, and stops the job awaiting review with the proposed mapping
// and its preview. Its slot is free for the organization's next job.
func (s *Service) review(ctx context.Context, cancel context.CancelFunc, j job.Job, in normalize.Input) error {
	rev, samples, err := s.sampleAndReview(ctx, cancel, j, in)
	if err != nil {
		return err
	}
	stored, err := normalize.MarshalSamples(samples)
	if err != nil {
		return err
	}
	if err := s.putBlob(ctx, SampleKey(j.OrgID, j.ID), stored); err != nil {
		return err
	}
	now := s.clock.Now()
	err = s.tx.InTx(context.WithoutCancel(ctx), func(ctx context.Context) error {
		stopped, err := s.jobs.Update(ctx, "", j.ID, func(j *job.Job) error {
			if j.Status != job.Running {
				return errCanceled // canceled meanwhile: nothing more to do
			}
			return j.AwaitReview(now, rev.JSON(), rev.MappingJSON())
		})
		if err != nil {
			return err
		}
		return s.append(ctx, stopped, job.EventAwaitingReview, now, true)
	})
	if err != nil {
		return err
	}
	s.log.InfoContext(ctx, "job awaits review", "job_id", j.ID, "org_id", j.OrgID)
	s.dispatch(ctx, j.OrgID)
	return errAwaitingReview
}

// sampleAndReview reads the job's samples and reviews them while a lease
// keeps the job alive and watches for its cancellation, which stops the
// reading (calling cancel) as it stops a run.
func (s *Service) sampleAndReview(ctx context.Context, cancel context.CancelFunc, j job.Job, in normalize.Input) (normalize.Review, []normalize.Sample, error) {
	l := s.holdLease(ctx, j, cancel)
	samples, err := normalize.ReadSamples(ctx, in.Sources)
	var rev normalize.Review
	if err == nil {
		rev, err = normalize.RunReview(ctx, normalize.ReviewInput{Mode: in.Mode, Schema: in.Schema, Options: in.Options, Learned: in.Learned, Samples: samples, Lists: in.Lists})
	}
	if l.end() {
		return rev, nil, errCanceled
	}
	return rev, samples, err
}

// Resample reads the samples of a job's files again with other reader
// options (another sheet of a workbook), for a review a person changes.
// The files are staged in a working folder of their own, removed after.
func (s *Service) Resample(ctx context.Context, j job.Job, opts normalize.Options) ([]normalize.Sample, error) {
	dir, err := os.MkdirTemp("", workdirPrefix)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err := os.RemoveAll(dir); err != nil { // the reaper's hourly sweep takes what is left
			s.log.WarnContext(ctx, "remove a resample's working folder", "job_id", j.ID, "error", err)
		}
	}()
	paths, err := s.stage(ctx, j, dir)
	if err != nil {
		return nil, err
	}
	return normalize.ReadSamples(ctx, s.sources(ctx, j, paths, opts))
}

// KeepSample stores a job's samples, as stored by MarshalSamples, where
// its review's later changes read them.
func (s *Service) KeepSample(ctx context.Context, orgID, jobID string, stored []byte) error {
	return s.putBlob(ctx, SampleKey(orgID, jobID), stored)
}

func (s *Service) putBlob(ctx context.Context, key string, data []byte) error {
	w, err := s.blobs.Create(ctx, key)
	if err != nil {
		return err
	}
	if _, err := w.Write(data); err != nil {
		_ = w.Close()
		return err
	}
	return w.Close()
}

// Resume queues again a job that stopped for its review, once change (the
// confirmation) has moved it to queued, under the limits of a new job: the
// monthly quota, the organization's queued jobs and its running slots.
func (s *Service) Resume(ctx context.Context, orgID, jobID string, change func(*job.Job) error) (job.Job, error) {
	if err := s.checkQuota(ctx, orgID, 0); err != nil {
		return job.Job{}, err
	}
	var out job.Job
	err := s.tx.InTx(ctx, func(ctx context.Context) error {
		active, pending, err := s.slots.Counts(ctx, orgID)
		if err != nil {
			return err
		}
		if pending >= s.cfg.MaxQueuedPerOrg {
			return &domain.Error{Kind: domain.ErrTooMany, Code: domain.CodeQuotaExceeded, RetryAfter: 60,
				Message: fmt.Sprintf("Your organization has %d jobs queued or running, the most it may have; retry when some have finished.", pending)}
		}
		now := s.clock.Now()
		j, err := s.jobs.Update(ctx, orgID, jobID, change)
		if err != nil {
			return err
		}
		if j.Status != job.Queued {
			return fmt.Errorf("resume job %s: it is %s, not queued", jobID, j.Status)
		}
		out = j
		if err := s.append(ctx, j, job.EventQueued, now, false); err != nil {
			return err
		}
		if active >= s.cfg.MaxRunningPerOrg { // it waits for a slot of its organization
			return s.slots.Hold(ctx, j.ID)
		}
		return s.queue.Enqueue(ctx, j.OrgID, j.ID, active)
	})
	if err != nil {
		return job.Job{}, err
	}
	return out, nil
}

// Announce stores a job's event, with the job, and tells its followers;
// inside a transaction, they hear of it when it commits.
func (s *Service) Announce(ctx context.Context, j job.Job, kind string, at time.Time) error {
	return s.append(ctx, j, kind, at, true)
}
