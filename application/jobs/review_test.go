package jobs_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/mock"

	"github.com/tabnorm/tabnorm/application/jobs"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/normalize"
)

// TestRunner_RunJob_review: a job that asks for a review reads only the
// sample of its files, keeps it under the job, and stops awaiting review
// with the proposed mapping, telling its subscribers and freeing its slot;
// it is not counted as ended.
func TestRunner_RunJob_review(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, jobs.Config{})
	j := queuedJob("job_1")
	j.Options = []byte(`{"review":true}`)
	f.put(j)
	f.renderResults() // the mapping of the job awaiting review
	f.stageFiles(map[string]string{sourceOf("job_1"): people})
	f.heartbeats()
	f.slots.EXPECT().Counts(mock.Anything, "org_acme").Return(0, 0, nil).Once() // the freed slot is offered
	f.slots.EXPECT().NextWaiting(mock.Anything, "org_acme").Return("", nil).Once()

	if err := f.run.RunJob(ctx, "job_1"); err != nil {
		t.Fatal(err)
	}
	got := f.job("job_1")
	if got.Status != job.AwaitingReview || got.Review == nil || got.ReviewSince == nil || got.Result != nil {
		t.Fatalf("job %+v", got)
	}
	if len(got.Review.Columns) != 2 {
		t.Fatalf("review %+v", got.Review)
	}
	stored, ok := f.blob(jobs.SampleKey("org_acme", "job_1"))
	if !ok {
		t.Fatal("the sample was not kept")
	}
	samples, err := normalize.UnmarshalSamples([]byte(stored))
	if err != nil || len(samples) != 1 || strings.Join(samples[0].Header, ",") != "Name,E-mail" || len(samples[0].Records) != 2 {
		t.Fatalf("kept samples %+v: %v", samples, err)
	}
	if kinds := f.kinds(); kinds != "job.started,job.awaiting_review" || !f.withJob["job.awaiting_review"] {
		t.Fatalf("events %s", kinds)
	}
	if _, ok := f.blob("org/org_acme/jobs/job_1/rows.jsonl"); ok {
		t.Fatal("a job awaiting review wrote rows")
	}
}

// TestCreator_Resume: a confirmed job is queued again under a new job's
// limits, with its job.queued event; a refusal leaves it as it was.
func TestCreator_Resume(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	awaiting := func(f *fixture) {
		j := queuedJob("job_1")
		j.Status = job.AwaitingReview
		f.put(j)
	}
	confirm := func(j *job.Job) error { return j.ConfirmReview(now) }

	t.Run("with a free slot it is queued", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, jobs.Config{MaxRunningPerOrg: 2})
		awaiting(f)
		f.acceptJobs(1, 1)
		f.queue.EXPECT().Enqueue(mock.Anything, "org_acme", "job_1", 1).Return(nil).Once()
		j, err := f.create.Resume(ctx, "org_acme", "job_1", confirm)
		if err != nil || j.Status != job.Queued || f.job("job_1").ReviewedAt == nil {
			t.Fatalf("Resume = %+v, %v", j, err)
		}
		if kinds := f.kinds(); kinds != "job.queued" || f.withJob["job.queued"] {
			t.Fatalf("events %s", kinds)
		}
	})

	t.Run("at its organization's running limit it waits for a slot", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, jobs.Config{MaxRunningPerOrg: 2})
		awaiting(f)
		f.acceptJobs(2, 2)
		f.slots.EXPECT().Hold(mock.Anything, "job_1").Return(nil).Once()
		if _, err := f.create.Resume(ctx, "org_acme", "job_1", confirm); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("past the queued limit it is refused and stays awaiting review", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, jobs.Config{MaxQueuedPerOrg: 3})
		awaiting(f)
		f.acceptJobs(3, 3)
		_, err := f.create.Resume(ctx, "org_acme", "job_1", confirm)
		var de *domain.Error
		if domain.CodeOf(err) != "quota_exceeded" || !errors.As(err, &de) || de.RetryAfter != 60 {
			t.Fatalf("Resume past the limit: %v", err)
		}
		if f.job("job_1").Status != job.AwaitingReview || f.kinds() != "" {
			t.Fatalf("job %s, events %q", f.job("job_1").Status, f.kinds())
		}
	})

	t.Run("with the monthly rows spent it is refused", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, jobs.Config{})
		awaiting(f)
		f.quotas.EXPECT().Get(mock.Anything, "org_acme").Return(job.Quota{RowsPerMonth: 10}, nil).Once()
		f.quotas.EXPECT().Usage(mock.Anything, "org_acme", job.MonthStart(now)).Return(int64(10), int64(0), nil).Once()
		if _, err := f.create.Resume(ctx, "org_acme", "job_1", confirm); domain.CodeOf(err) != "quota_exceeded" || !errors.Is(err, domain.ErrForbidden) {
			t.Fatalf("Resume over the quota: %v", err)
		}
	})

	t.Run("a change that does not queue the job is undone", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, jobs.Config{})
		awaiting(f)
		f.acceptJobs(0, 0)
		_, err := f.create.Resume(ctx, "org_acme", "job_1", func(j *job.Job) error { j.Name = "renamed"; return nil })
		if err == nil || !strings.Contains(err.Error(), "not queued") {
			t.Fatalf("Resume = %v", err)
		}
		if got := f.job("job_1"); got.Name != "" || got.Status != job.AwaitingReview || f.kinds() != "" {
			t.Fatalf("job %+v, events %q", got, f.kinds())
		}
	})
}

// TestOutbox_Announce: an event announced by another use case (an
// expired review) is stored with the job and told to the subscribers.
func TestOutbox_Announce(t *testing.T) {
	t.Parallel()
	f := newFixture(t, jobs.Config{})
	var heard []string
	f.outbox.Subscribe(recorder{name: "a", f: f, heard: &heard})
	j := queuedJob("job_1")
	j.Status = job.Canceled
	if err := f.outbox.Announce(context.Background(), j, job.EventCanceled, now); err != nil {
		t.Fatal(err)
	}
	if f.kinds() != "job.canceled" || !f.withJob["job.canceled"] || len(heard) != 1 || heard[0] != "a:job.canceled:canceled:1:stored=job.canceled" {
		t.Fatalf("events %q, heard %v", f.kinds(), heard)
	}
}
