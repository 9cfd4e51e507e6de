package jobs_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/mock"

	"github.com/tabnorm/tabnorm/application/jobs"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/ports"
)

func TestReader_OpenResult(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, jobs.Config{})
	done := queuedJob("job_done")
	done.Status = job.Succeeded
	f.put(done)
	purged := done
	purged.ID = "job_purged"
	f.put(purged)
	f.put(queuedJob("job_queued"))
	f.blobs.EXPECT().Open(mock.Anything, "org/org_acme/jobs/job_done/rows.jsonl", int64(7), int64(-1)).Return(io.NopCloser(strings.NewReader("row\n")), nil)
	f.blobs.EXPECT().Open(mock.Anything, "org/org_acme/jobs/job_purged/issues.jsonl", int64(0), int64(-1)).Return(nil, domain.NotFound("blob"))

	_, rc, err := f.read.OpenResult(ctx, acme, "job_done", jobs.Rows, 7)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(rc); string(b) != "row\n" {
		t.Fatalf("read %q", b)
	}
	if _, _, err := f.read.OpenResult(ctx, acme, "job_queued", jobs.Rows, 0); domain.CodeOf(err) != "job_not_finished" {
		t.Fatalf("a queued job's results: %v", err)
	}
	if _, _, err := f.read.OpenResult(ctx, acme, "job_purged", jobs.Issues, 0); domain.CodeOf(err) != "not_found" || !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("purged results: %v", err)
	}
	if _, _, err := f.read.OpenResult(ctx, identityOther, "job_done", jobs.Rows, 0); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("another organization's results: %v", err)
	}
}

func TestReader_reads(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, jobs.Config{MaxRunningPerOrg: 3, MaxQueuedPerOrg: 30})
	f.put(queuedJob("job_1"))
	if j, err := f.read.Get(ctx, acme, "job_1"); err != nil || j.ID != "job_1" {
		t.Fatalf("Get = %+v, %v", j, err)
	}
	filter, page := ports.JobFilter{Status: job.Queued}, ports.Page{Limit: 5}
	f.jobs.EXPECT().List(mock.Anything, "org_acme", filter, page).Return([]job.Job{f.job("job_1")}, "next", nil).Once()
	if list, next, err := f.read.List(ctx, acme, filter, page); err != nil || len(list) != 1 || next != "next" {
		t.Fatalf("List = %v, %q, %v", list, next, err)
	}
	f.events.EXPECT().After(mock.Anything, "job_1", 2).Return([]ports.Event{{JobID: "job_1", Seq: 3}}, nil).Once()
	if evs, err := f.read.Events(ctx, acme, "job_1", 2); err != nil || len(evs) != 1 {
		t.Fatalf("Events = %v, %v", evs, err)
	}
	if _, err := f.read.Events(ctx, identityOther, "job_1", 0); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("another organization's events: %v", err)
	}

	j := queuedJob("job_1")
	if names := jobs.FieldNames(j); strings.Join(names, ",") != "name,email" {
		t.Fatalf("FieldNames = %v", names)
	}
	j.Schema = nil
	if names := jobs.FieldNames(j); names != nil {
		t.Fatalf("FieldNames without a schema = %v", names)
	}
}
