package jobs_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"

	"github.com/tabnorm/tabnorm/application/jobs"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/normalize"
	"github.com/tabnorm/tabnorm/domain/table"
)

const peopleSchema = `{"fields":[{"name":"name"},{"name":"email","type":"string","format":"email"}]}`

func queuedJob(id string) job.Job {
	return job.Job{ID: id, OrgID: acme.OrgID, Mode: normalize.ModeNormalize, Status: job.Queued, SourceType: job.SourceUpload,
		Files: []job.File{{ID: "file_1", Filename: "people.csv", Format: "csv", SizeBytes: 40}}, Schema: []byte(peopleSchema),
		Options: []byte(`{}`), Progress: job.Progress{BytesTotal: 40}, CreatedAt: now}
}

func sourceOf(id string) string { return "org/org_acme/jobs/" + id + "/source" }

const people = "Name,E-mail\nAnn,ann@x.io\nBob,bob@\n"

func TestRunner_RunJob(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("a queued job runs to success: results stored, mapping learned, subscribers told, slot passed on", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, jobs.Config{})
		j := queuedJob("job_1")
		j.SchemaID, j.Options = "sch_1", []byte(`{"mapping":{"E-mail":"email"}}`)
		f.put(j)
		f.stageFiles(map[string]string{sourceOf("job_1"): people})
		f.heartbeats()
		f.renderResults()
		f.noWaitingJobs()
		f.learned.EXPECT().Get(mock.Anything, "org_acme", "sch_1").Return(map[string]string{}, nil).Once()
		f.learned.EXPECT().Put(mock.Anything, "org_acme", "sch_1", "email", "email", now).Return(nil).Once()
		var finished job.Job
		f.observer.EXPECT().JobFinished(mock.Anything).Run(func(j job.Job) { finished = j }).Once()

		if err := f.run.RunJob(ctx, "job_1"); err != nil {
			t.Fatal(err)
		}
		got := f.job("job_1")
		if got.Status != job.Succeeded || got.Attempts != 1 || got.StartedAt == nil || got.FinishedAt == nil || got.Result == nil ||
			got.Result.RowCount != 1 || got.Result.RejectedCount != 1 || got.Result.IssueCount != 1 || got.Result.InferredSchema != nil ||
			string(got.Result.Detected) != `{"options":{},"files":[]}` { // the fake reader detects nothing
			t.Fatalf("job %+v (result %+v)", got, got.Result)
		}
		if p := got.Progress; p.RowsRead != 2 || p.RowsValid != 1 || p.RowsRejected != 1 || p.BytesRead != 40 || p.BytesTotal != 40 {
			t.Fatalf("progress %+v", p)
		}
		if !strings.Contains(string(got.Mapping), `"SourceColumn":"E-mail","Field":"email","Method":"explicit"`) {
			t.Fatalf("mapping %s", got.Mapping)
		}
		rows, _ := f.blob("org/org_acme/jobs/job_1/rows.jsonl")
		issues, _ := f.blob("org/org_acme/jobs/job_1/issues.jsonl")
		if rows != `{"name":"Ann","email":"ann@x.io"}`+"\n" || !strings.Contains(issues, "invalid_email") {
			t.Fatalf("rows %q, issues %q", rows, issues)
		}
		kinds := f.kinds()
		if !strings.HasPrefix(kinds, "job.started,") || !strings.HasSuffix(kinds, ",job.succeeded") || !f.withJob["job.succeeded"] || f.withJob["job.started"] {
			t.Fatalf("events %s (with job: %v)", kinds, f.withJob)
		}
		if finished.ID != "job_1" || finished.Status != job.Succeeded {
			t.Fatalf("observer saw %+v", finished)
		}
		if len(f.workdirs) != 1 || !strings.HasPrefix(filepath.Base(f.workdirs[0]), "tabnorm-job-") {
			t.Fatalf("staged in %v", f.workdirs)
		}
		if _, err := os.Stat(f.workdirs[0]); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("the working folder stayed: %v", err)
		}
	})

	t.Run("a job never ends without its terminal event: when it cannot be stored, the job stays running and the queue retries", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, jobs.Config{})
		f.put(queuedJob("job_1"))
		f.stageFiles(map[string]string{sourceOf("job_1"): people})
		f.heartbeats()
		f.renderResults()
		f.failKind = job.EventSucceeded
		if err := f.run.RunJob(ctx, "job_1"); err == nil {
			t.Fatal("RunJob succeeded without storing job.succeeded")
		}
		if got := f.job("job_1"); got.Status != job.Running || got.FinishedAt != nil {
			t.Fatalf("job %+v", got)
		}
		if kinds := f.kinds(); strings.Contains(kinds, "job.succeeded") {
			t.Fatalf("events %s", kinds)
		}
	})

	t.Run("a connect job reads its library files in order, each named in the mapping", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, jobs.Config{})
		j := queuedJob("job_1")
		j.SourceType = job.SourceConnect
		j.Files = []job.File{{ID: "file_a", Filename: "a.csv"}, {ID: "file_b", Filename: "b.csv"}}
		f.put(j)
		f.stageFiles(map[string]string{"org/org_acme/files/file_a": "Name,Email\nAnn,ann@x.io\n", "org/org_acme/files/file_b": "Name,Email\nBob,bob@x.io\n"})
		f.heartbeats()
		f.renderResults()
		f.noWaitingJobs()
		f.observer.EXPECT().JobFinished(mock.Anything).Once()
		if err := f.run.RunJob(ctx, "job_1"); err != nil {
			t.Fatal(err)
		}
		got := f.job("job_1")
		rows, _ := f.blob("org/org_acme/jobs/job_1/rows.jsonl")
		if got.Status != job.Succeeded || strings.Count(rows, "\n") != 2 || !strings.Contains(string(got.Mapping), `"SourceFile":"file_b"`) ||
			len(f.workdirs) != 2 || f.workdirs[0] != f.workdirs[1] {
			t.Fatalf("job %s, rows %q, mapping %s, staged in %v", got.Status, rows, got.Mapping, f.workdirs)
		}
	})

	t.Run("a job that is not queued has nothing to run", func(t *testing.T) {
		t.Parallel()
		for _, st := range []job.Status{job.Running, job.Canceled, job.Succeeded} {
			f := newFixture(t, jobs.Config{})
			j := queuedJob("job_1")
			j.Status = st
			f.put(j)
			if err := f.run.RunJob(ctx, "job_1"); err != nil {
				t.Fatalf("%s: %v", st, err)
			}
			if got := f.job("job_1"); got.Status != st || got.Attempts != 0 || f.kinds() != "" {
				t.Fatalf("%s job became %+v, events %q", st, got, f.kinds())
			}
			// The mocks fail the test on a heartbeat, a staged file or a blob.
		}
	})

	t.Run("a job that cannot be claimed is tried again", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, jobs.Config{})
		if err := f.run.RunJob(ctx, "job_gone"); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("error %v", err)
		}
	})

	t.Run("a file gone from storage fails the job with unreadable_file", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, jobs.Config{})
		f.put(queuedJob("job_1"))
		f.stageFiles(nil)
		f.heartbeats()
		f.noWaitingJobs()
		f.observer.EXPECT().JobFinished(mock.Anything).Once()
		if err := f.run.RunJob(ctx, "job_1"); err != nil {
			t.Fatal(err)
		}
		got := f.job("job_1")
		if got.Status != job.Failed || got.Failure == nil || got.Failure.Code != "unreadable_file" || !strings.Contains(got.Failure.Message, "people.csv") {
			t.Fatalf("job %+v", got)
		}
		if f.kinds() != "job.started,job.failed" || !f.withJob["job.failed"] {
			t.Fatalf("events %s", f.kinds())
		}
	})

	t.Run("options stored unreadable fail the job with invalid_request", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, jobs.Config{})
		j := queuedJob("job_1")
		j.Options = []byte(`{"colour":"red"}`)
		f.put(j)
		f.stageFiles(map[string]string{sourceOf("job_1"): people})
		f.heartbeats()
		f.noWaitingJobs()
		f.observer.EXPECT().JobFinished(mock.Anything).Once()
		if err := f.run.RunJob(ctx, "job_1"); err != nil {
			t.Fatal(err)
		}
		if got := f.job("job_1"); got.Status != job.Failed || got.Failure.Code != "invalid_request" {
			t.Fatalf("job %+v", got)
		}
		if _, err := os.Stat(f.workdirs[0]); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("the working folder stayed: %v", err)
		}
	})

	t.Run("storage trouble leaves the job running for the queue to try again", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, jobs.Config{})
		f.put(queuedJob("job_1"))
		f.heartbeats()
		down := errors.New("connection refused")
		f.staging.EXPECT().Stage(mock.Anything, sourceOf("job_1"), mock.Anything).Return("", down).Once()
		if err := f.run.RunJob(ctx, "job_1"); !errors.Is(err, down) {
			t.Fatalf("error %v", err)
		}
		if got := f.job("job_1"); got.Status != job.Running || f.kinds() != "job.started" {
			t.Fatalf("job %s, events %s", got.Status, f.kinds())
		}
		// The observer mock fails the test if the job were announced as ended.
	})

	t.Run("a job canceled while it runs stops at the next beat, as canceled", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, jobs.Config{})
		jobs.SetBeatEvery(f.run, 5*time.Millisecond)
		f.put(queuedJob("job_1"))
		f.runEndlessly()
		f.heartbeats()
		go func() { // the client cancels once the job runs
			for f.job("job_1").Status != job.Running {
				time.Sleep(time.Millisecond)
			}
			j := f.job("job_1")
			_ = j.Cancel(now)
			f.put(j)
		}()
		done := make(chan error)
		go func() { done <- f.run.RunJob(ctx, "job_1") }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the run did not stop")
		}
		if got := f.job("job_1"); got.Status != job.Canceled || got.Result != nil {
			t.Fatalf("job %+v", got)
		}
		if strings.Contains(f.kinds(), "succeeded") || strings.Contains(f.kinds(), "failed") {
			t.Fatalf("events %s", f.kinds())
		}
	})

	t.Run("a job that runs longer than the timeout fails with job_timeout", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, jobs.Config{JobTimeout: 50 * time.Millisecond})
		f.put(queuedJob("job_1"))
		f.runEndlessly()
		f.heartbeats()
		f.noWaitingJobs()
		f.observer.EXPECT().JobFinished(mock.Anything).Once()
		if err := f.run.RunJob(ctx, "job_1"); err != nil {
			t.Fatal(err)
		}
		if got := f.job("job_1"); got.Status != job.Failed || got.Failure.Code != "job_timeout" || got.Failure.Message != "The job ran longer than 50ms." {
			t.Fatalf("job %+v", got)
		}
	})

	t.Run("a stopping worker leaves the job running for the reaper", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, jobs.Config{})
		f.put(queuedJob("job_1"))
		f.runEndlessly()
		f.heartbeats()
		stopping, stop := context.WithCancel(ctx)
		go func() {
			for f.job("job_1").Status != job.Running {
				time.Sleep(time.Millisecond)
			}
			stop()
		}()
		if err := f.run.RunJob(stopping, "job_1"); !errors.Is(err, context.Canceled) {
			t.Fatalf("error %v", err)
		}
		if got := f.job("job_1"); got.Status != job.Running {
			t.Fatalf("job %s", got.Status)
		}
	})

	t.Run("a job canceled as it finishes keeps its cancellation", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, jobs.Config{})
		f.put(queuedJob("job_1"))
		f.heartbeats()
		f.renderResults()
		f.staging.EXPECT().Stage(mock.Anything, sourceOf("job_1"), mock.Anything).Return("people.csv", nil).Once()
		f.tables.EXPECT().Open(mock.Anything, "people.csv", "people.csv", mock.Anything).RunAndReturn(
			func(context.Context, string, string, table.ReadOptions) (table.Reader, error) {
				j := f.job("job_1") // the client cancels between the last beat and the end
				_ = j.Cancel(now)
				f.put(j)
				return newCSVReader(people), nil
			}).Once()
		if err := f.run.RunJob(ctx, "job_1"); err != nil {
			t.Fatal(err)
		}
		if got := f.job("job_1"); got.Status != job.Canceled || got.Result != nil {
			t.Fatalf("job %+v", got)
		}
		// The observer mock fails the test if the job were announced as ended.
	})
}
