package jobs_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"

	"github.com/tabnorm/tabnorm/application/jobs"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/test/mocks"
)

func runningJob(id string, attempts int) job.Job {
	j := queuedJob(id)
	j.Status, j.Attempts = job.Running, attempts
	j.Progress.RowsRead = 10
	return j
}

func TestReaper_Reap(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("a job whose worker was lost goes back to the queue, first in line", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, jobs.Config{})
		f.put(runningJob("job_1", 1))
		f.jobs.EXPECT().Expired(mock.Anything, now).Return([][2]string{{"org_acme", "job_1"}}, nil).Once()
		f.queue.EXPECT().Enqueue(mock.Anything, mock.Anything, "job_1", 0).Return(nil).Once()
		f.noWaitingJobs()
		n, err := f.reap.Reap(ctx)
		if err != nil || n != 1 {
			t.Fatalf("Reap = %d, %v", n, err)
		}
		if got := f.job("job_1"); got.Status != job.Queued || got.Progress.RowsRead != 0 || got.Progress.BytesTotal != 40 {
			t.Fatalf("job %+v", got)
		}
		if f.kinds() != "" {
			t.Fatalf("events %s", f.kinds())
		}
	})

	t.Run("a job lost on its third attempt fails with worker_lost", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, jobs.Config{})
		f.put(runningJob("job_1", job.MaxAttempts))
		f.jobs.EXPECT().Expired(mock.Anything, now).Return([][2]string{{"org_acme", "job_1"}}, nil).Once()
		f.noWaitingJobs()
		n, err := f.reap.Reap(ctx)
		if err != nil || n != 1 {
			t.Fatalf("Reap = %d, %v", n, err)
		}
		if got := f.job("job_1"); got.Status != job.Failed || got.Failure.Code != "worker_lost" || got.FinishedAt == nil {
			t.Fatalf("job %+v", got)
		}
		if f.kinds() != "job.failed" || !f.withJob["job.failed"] {
			t.Fatalf("events %s", f.kinds())
		}
		// The queue mock fails the test on an Enqueue.
	})

	t.Run("a job that ended meanwhile is left alone", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, jobs.Config{})
		done := runningJob("job_1", 1)
		done.Status = job.Succeeded
		f.put(done)
		f.put(runningJob("job_2", 1))
		f.jobs.EXPECT().Expired(mock.Anything, now).Return([][2]string{{"org_acme", "job_1"}, {"org_acme", "job_2"}}, nil).Once()
		f.queue.EXPECT().Enqueue(mock.Anything, mock.Anything, "job_2", 0).Return(nil).Once()
		f.noWaitingJobs()
		if n, err := f.reap.Reap(ctx); err != nil || n != 1 {
			t.Fatalf("Reap = %d, %v", n, err)
		}
		if got := f.job("job_1"); got.Status != job.Succeeded {
			t.Fatalf("job %s", got.Status)
		}
	})

	t.Run("a store failure stops the round", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, jobs.Config{})
		down := errors.New("database down")
		f.jobs.EXPECT().Expired(mock.Anything, now).Return(nil, down).Once()
		if _, err := f.reap.Reap(ctx); !errors.Is(err, down) {
			t.Fatalf("error %v", err)
		}
		f.put(runningJob("job_1", 1))
		f.jobs.EXPECT().Expired(mock.Anything, now).Return([][2]string{{"org_acme", "job_1"}}, nil).Once()
		f.queue.EXPECT().Enqueue(mock.Anything, mock.Anything, "job_1", 0).Return(down).Once()
		if n, err := f.reap.Reap(ctx); !errors.Is(err, down) || n != 0 {
			t.Fatalf("Reap = %d, %v", n, err)
		}
	})
}

// TestReaper: once started, the reaper requeues lost jobs and dispatches
// waiting ones every round, a failed round does not stop it, and it
// removes the working folders dead runs left; Stop ends it.
func TestReaper(t *testing.T) {
	t.Parallel()
	f := newFixture(t, jobs.Config{})
	reaped, dispatched := make(chan struct{}, 10), make(chan struct{}, 10)
	f.jobs.EXPECT().Expired(mock.Anything, now).RunAndReturn(func(context.Context, time.Time) ([][2]string, error) {
		reaped <- struct{}{}
		return nil, errors.New("database down") // logged; the next round tries again
	})
	f.slots.EXPECT().OrgsWaiting(mock.Anything, mock.Anything).RunAndReturn(func(context.Context, int) ([]string, error) {
		dispatched <- struct{}{}
		return nil, nil
	})
	tmp := t.TempDir()
	dead, live := filepath.Join(tmp, "tabnorm-job-dead"), filepath.Join(tmp, "tabnorm-job-live")
	for _, dir := range []string{dead, live} {
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chtimes(dead, now.Add(-48*time.Hour), now.Add(-48*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(live, now, now); err != nil {
		t.Fatal(err)
	}
	clock := mocks.NewClock(t)
	clock.EXPECT().Now().Return(now)
	orphans := jobs.NewOrphans(24*time.Hour, mocks.NewBlobOwners(t), f.blobs, clock, slog.New(slog.DiscardHandler))
	r := f.newReaper(jobs.Config{}, orphans)
	r.SetEvery(time.Millisecond, tmp)
	r.Start()
	for range 2 { // two rounds: a failed one does not stop it
		for _, ch := range []chan struct{}{reaped, dispatched} {
			select {
			case <-ch:
			case <-time.After(10 * time.Second):
				t.Fatal("the reaper did not run")
			}
		}
	}
	r.Stop()
	for len(reaped) > 0 || len(dispatched) > 0 { // rounds started before Stop
		<-reaped
		<-dispatched
	}
	time.Sleep(20 * time.Millisecond)
	if len(reaped) != 0 {
		t.Fatal("the reaper ran after Stop")
	}
	if _, err := os.Stat(dead); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a dead run's working folder stayed: %v", err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Fatalf("a live run's working folder went: %v", err)
	}
}

func TestReaper_Purge(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("without a retention nothing is purged", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, jobs.Config{})
		if n, err := f.reap.Purge(ctx); n != 0 || err != nil {
			t.Fatalf("Purge = %d, %v", n, err)
		}
	})
	t.Run("files of jobs finished before the retention go, batch after batch", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, jobs.Config{Retention: 24 * time.Hour})
		before := now.Add(-24 * time.Hour)
		f.jobs.EXPECT().FinishedBefore(mock.Anything, before, 200).Return([][2]string{{"org_a", "job_1"}, {"org_b", "job_2"}}, nil).Once()
		f.jobs.EXPECT().FinishedBefore(mock.Anything, before, 200).Return([][2]string{{"org_a", "job_3"}}, nil).Once()
		f.jobs.EXPECT().FinishedBefore(mock.Anything, before, 200).Return(nil, nil).Once()
		for _, p := range [][2]string{{"org_a", "job_1"}, {"org_b", "job_2"}, {"org_a", "job_3"}} {
			f.blobs.EXPECT().DeletePrefix(mock.Anything, "org/"+p[0]+"/jobs/"+p[1]+"/").Return(nil).Once()
			f.jobs.EXPECT().MarkPurged(mock.Anything, p[1], now).Return(nil).Once()
		}
		if n, err := f.reap.Purge(ctx); n != 3 || err != nil {
			t.Fatalf("Purge = %d, %v", n, err)
		}
	})
	t.Run("a store failure stops the purge, and the job is not marked", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, jobs.Config{Retention: time.Hour})
		f.jobs.EXPECT().FinishedBefore(mock.Anything, now.Add(-time.Hour), 200).Return([][2]string{{"org_a", "job_1"}}, nil).Once()
		f.blobs.EXPECT().DeletePrefix(mock.Anything, "org/org_a/jobs/job_1/").Return(errors.New("store down")).Once()
		if n, err := f.reap.Purge(ctx); n != 0 || err == nil {
			t.Fatalf("Purge = %d, %v", n, err)
		}
	})
}
