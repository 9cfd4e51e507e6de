package jobs_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/mock"

	"github.com/tabnorm/tabnorm/application/jobs"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/job"
)

func TestCanceler_Cancel(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("a queued or running job is canceled, told, and its slot passed on", func(t *testing.T) {
		t.Parallel()
		for _, st := range []job.Status{job.Queued, job.Running} {
			f := newFixture(t, jobs.Config{})
			j := queuedJob("job_1")
			j.Status = st
			f.put(j)
			f.slots.EXPECT().Counts(mock.Anything, "org_acme").Return(0, 1, nil).Once()
			f.slots.EXPECT().NextWaiting(mock.Anything, "org_acme").Return("job_2", nil).Once()
			f.queue.EXPECT().Enqueue(mock.Anything, mock.Anything, "job_2", 0).Return(nil).Once()
			f.slots.EXPECT().NextWaiting(mock.Anything, "org_acme").Return("", nil).Once()
			got, err := f.cancel.Cancel(ctx, acme, "job_1")
			if err != nil || got.Status != job.Canceled || got.FinishedAt == nil || f.job("job_1").Status != job.Canceled {
				t.Fatalf("%s: Cancel = %+v, %v", st, got, err)
			}
			if f.kinds() != "job.canceled" || !f.withJob["job.canceled"] {
				t.Fatalf("events %s", f.kinds())
			}
		}
	})

	t.Run("a job that ended is not cancelable, and nothing is told", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, jobs.Config{})
		j := queuedJob("job_1")
		j.Status = job.Succeeded
		f.put(j)
		_, err := f.cancel.Cancel(ctx, acme, "job_1")
		if domain.CodeOf(err) != "job_not_cancelable" || !errors.Is(err, domain.ErrConflict) || f.kinds() != "" {
			t.Fatalf("error %v, events %q", err, f.kinds())
		}
		// The slots mock fails the test on a dispatch.
	})

	t.Run("another organization's job is not found", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, jobs.Config{})
		j := queuedJob("job_1")
		j.OrgID = "org_other"
		f.put(j)
		if _, err := f.cancel.Cancel(ctx, acme, "job_1"); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("error %v", err)
		}
		if f.job("job_1").Status != job.Queued {
			t.Fatal("another organization's job was canceled")
		}
	})
}

func TestCanceler_Delete(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("a running job is canceled, then removed with its files", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, jobs.Config{})
		f.put(runningJob("job_1", 1))
		f.noWaitingJobs()
		f.jobs.EXPECT().Delete(mock.Anything, "org_acme", "job_1").Return(nil).Once()
		f.blobs.EXPECT().DeletePrefix(mock.Anything, "org/org_acme/jobs/job_1/").Return(errors.New("store down")).Once() // logged only
		if err := f.cancel.Delete(ctx, acme, "job_1"); err != nil {
			t.Fatal(err)
		}
		if f.kinds() != "job.canceled" {
			t.Fatalf("events %s", f.kinds())
		}
	})
	t.Run("an unknown job is not found", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, jobs.Config{})
		if err := f.cancel.Delete(ctx, acme, "job_1"); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("error %v", err)
		}
	})
}
