package jobs_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"

	"github.com/tabnorm/tabnorm/application/jobs"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/normalize"
	"github.com/tabnorm/tabnorm/domain/schema"
	"github.com/tabnorm/tabnorm/domain/table"
)

func succeededJob(id string) job.Job {
	j := queuedJob(id)
	j.Status = job.Succeeded
	return j
}

// TestReader_ReadSource: a finished job's files are read again as its
// run read them, header then rows, from a working folder removed after;
// an unfinished job, or one whose file is gone, cannot be.
func TestReader_ReadSource(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, jobs.Config{})
	f.put(succeededJob("job_done"))
	f.put(succeededJob("job_gone"))
	f.put(queuedJob("job_queued"))
	f.stageFiles(map[string]string{sourceOf("job_done"): people})

	var seen []string
	visit := jobs.SourceVisit{
		File: func(sourceFile, filename string, header []string) error {
			seen = append(seen, "file:"+sourceFile+":"+filename+":"+strings.Join(header, "|"))
			return nil
		},
		Row: func(rec table.Record) error {
			seen = append(seen, strings.Join(rec.Cells, "|"))
			return nil
		},
	}
	if _, err := f.read.ReadSource(ctx, acme, "job_done", visit); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(seen, ";"); got != "file::people.csv:Name|E-mail;Ann|ann@x.io;Bob|bob@" {
		t.Fatalf("visited %s", got)
	}
	if _, err := os.Stat(f.workdirs[0]); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the working folder stayed: %v", err)
	}
	if _, err := f.read.ReadSource(ctx, acme, "job_queued", visit); domain.CodeOf(err) != "job_not_finished" {
		t.Fatalf("an unfinished job's files: %v", err)
	}
	if _, err := f.read.ReadSource(ctx, acme, "job_gone", visit); domain.CodeOf(err) != "source_deleted" || !errors.Is(err, domain.ErrConflict) {
		t.Fatalf("a job whose file is gone: %v", err)
	}
	stop := errors.New("the workbook is full")
	visit.Row = func(table.Record) error { return stop }
	if _, err := f.read.ReadSource(ctx, acme, "job_done", visit); !errors.Is(err, stop) {
		t.Fatalf("a visit's error: %v", err)
	}
}

func TestReader_ResultSize(t *testing.T) {
	t.Parallel()
	f := newFixture(t, jobs.Config{})
	f.blobs.EXPECT().Size(mock.Anything, "org/org_acme/jobs/job_1/issues.jsonl").Return(int64(42), nil).Once()
	if n, err := f.read.ResultSize(context.Background(), succeededJob("job_1"), jobs.Issues); n != 42 || err != nil {
		t.Fatalf("ResultSize = %d, %v", n, err)
	}
}

// TestSources_Resample: a job's files are sampled again with other
// options, from a working folder of their own.
func TestSources_Resample(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, jobs.Config{})
	f.stageFiles(map[string]string{sourceOf("job_1"): people})
	samples, err := f.sources.Resample(ctx, queuedJob("job_1"), normalize.Options{})
	if err != nil || len(samples) != 1 || strings.Join(samples[0].Header, ",") != "Name,E-mail" || len(samples[0].Records) != 2 || !samples[0].Complete {
		t.Fatalf("Resample = %+v, %v", samples, err)
	}
	if _, err := os.Stat(f.workdirs[0]); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the working folder stayed: %v", err)
	}
	// A file retention deleted is the request's conflict, as for a rerun,
	// not a file the request chose badly.
	if _, err := f.sources.Resample(ctx, queuedJob("job_gone"), normalize.Options{}); domain.CodeOf(err) != domain.CodeSourceDeleted {
		t.Fatalf("a job whose file is gone: %v", err)
	}
}

// TestSources_CheckRows: rows of a finished job are run again with an
// edit applied, reading only the files rows are asked of.
func TestSources_CheckRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, jobs.Config{})
	f.stageFiles(map[string]string{sourceOf("job_1"): people})
	j := succeededJob("job_1")
	opts := normalize.Options{Mapping: normalize.Mapping{"Name": "name", "E-mail": "email"}}
	fixed := "bob@x.io"
	edits := []normalize.Edit{{Row: 2, Field: "email", Value: &fixed}}
	checks, err := f.sources.CheckRows(ctx, j, opts, edits, nil, map[string][]int64{"": {1, 2}})
	if err != nil || len(checks) != 2 || !checks[0].Found || !checks[0].Valid || !checks[1].Valid || strings.Join(checks[1].Edited, ",") != "email" {
		t.Fatalf("CheckRows = %+v, %v", checks, err)
	}
	if checks, err := f.sources.CheckRows(ctx, j, opts, nil, nil, map[string][]int64{"": {2}}); err != nil || len(checks) != 1 || checks[0].Valid {
		t.Fatalf("CheckRows without the edit = %+v, %v", checks, err)
	}
	gone := succeededJob("job_gone")
	if _, err := f.sources.CheckRows(ctx, gone, opts, nil, nil, map[string][]int64{"": {1}}); domain.CodeOf(err) != "source_deleted" {
		t.Fatalf("a job whose file is gone: %v", err)
	}
}

// TestSources_CheckRowsShareTheNode: an organization's row checks take
// at most its share of the node's check slots; past it a check waits (and
// gives up with its request), while another organization's check runs.
func TestSources_CheckRowsShareTheNode(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, jobs.Config{})
	f.stageFiles(map[string]string{sourceOf("job_1"): people, "org/org_other/jobs/job_2/source": people})
	opts := normalize.Options{Mapping: normalize.Mapping{"Name": "name", "E-mail": "email"}}
	mine, other := succeededJob("job_1"), succeededJob("job_2")
	other.OrgID = "org_other"
	var held []func()
	for range jobs.CheckSlotsPerOrg {
		release, err := f.sources.CheckGate().Acquire(ctx, mine.OrgID)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, release)
	}
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if _, err := f.sources.CheckRows(short, mine, opts, nil, nil, map[string][]int64{"": {1}}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a check past the organization's share ran: %v", err)
	}
	if checks, err := f.sources.CheckRows(ctx, other, opts, nil, nil, map[string][]int64{"": {1}}); err != nil || len(checks) != 1 {
		t.Fatalf("another organization's check: %+v %v", checks, err)
	}
	for _, release := range held {
		release()
	}
	if checks, err := f.sources.CheckRows(ctx, mine, opts, nil, nil, map[string][]int64{"": {1}}); err != nil || len(checks) != 1 {
		t.Fatalf("after the slots were given back: %+v %v", checks, err)
	}
}

// lists opens every list as empty, and counts what it closes.
type lists struct{ opened, closed int }

func (l *lists) Open(_ context.Context, _ string, ids []string) (map[string]normalize.ListLookup, func(), error) {
	l.opened += len(ids)
	out := map[string]normalize.ListLookup{}
	for _, id := range ids {
		out[id] = emptyList{}
	}
	return out, func() { l.closed += len(ids) }, nil
}

type emptyList struct{}

func (emptyList) Contains(string) (bool, error) { return false, nil }

// TestSources_OpenSchemaLists: a review's preview gets the lists its
// schema checks, staged in a folder of their own; a server that keeps no
// lists fails such a schema, and a schema without lists needs none.
func TestSources_OpenSchemaLists(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	sch, err := schema.Parse([]byte(`{"fields":[{"name":"sku","type":"string","constraints":{"inList":"lst_0123abc"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	l := &lists{}
	sources := jobs.NewSources(jobs.Config{}, nil, nil, l, nil)
	got, closeLists, err := sources.OpenSchemaLists(ctx, "org_acme", sch)
	if err != nil || len(got) != 1 || got["lst_0123abc"] == nil || l.opened != 1 {
		t.Fatalf("OpenSchemaLists = %v, %v", got, err)
	}
	closeLists()
	if l.closed != 1 {
		t.Fatalf("closed %d lists", l.closed)
	}

	var failure *normalize.Failure
	if _, _, err := jobs.NewSources(jobs.Config{}, nil, nil, nil, nil).OpenSchemaLists(ctx, "org_acme", sch); !errors.As(err, &failure) ||
		failure.Code != "invalid_schema" {
		t.Fatalf("lists on a server without them: %v", err)
	}
	plain, err := schema.Parse([]byte(peopleSchema))
	if err != nil {
		t.Fatal(err)
	}
	if got, closeLists, err := sources.OpenSchemaLists(ctx, "org_acme", plain); err != nil || got != nil {
		t.Fatalf("a schema without lists: %v, %v", got, err)
	} else {
		closeLists()
	}
}
