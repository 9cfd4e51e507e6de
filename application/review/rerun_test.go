package review

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/application/jobs"
	"github.com/tabnorm/tabnorm/domain"
	domainconnect "github.com/tabnorm/tabnorm/domain/connect"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/normalize"
	"github.com/tabnorm/tabnorm/domain/schema"
	"github.com/tabnorm/tabnorm/ports"
)

// issuesKey is where a job's issues are stored.
func issuesKey(jobID string) string {
	return strings.TrimSuffix(jobs.SampleKey(acme.OrgID, jobID), "review-sample.json") + "issues.jsonl"
}

func issue(row int, field, code, value string) string {
	return fmt.Sprintf(`{"row":%d,"source_file":null,"column":"C","field":%q,"severity":"error","code":%q,"message":"m","value":%q}`, row, field, code, value)
}

// finished stores a succeeded upload job over peopleSchema, with its file.
func (f *fixture) finished(id, schemaID string) job.Job {
	f.t.Helper()
	sch, err := schema.Parse([]byte(peopleSchema))
	if err != nil {
		f.t.Fatal(err)
	}
	if schemaID != "" {
		f.mu.Lock()
		f.saved[schemaID] = schema.Saved{ID: schemaID, OrgID: acme.OrgID, Name: "people", Document: sch.JSON()}
		f.mu.Unlock()
	}
	opts, err := normalize.ParseOptions(normalize.ModeNormalize, []byte(`{"review":true,"date_order":"MDY","mapping":{"Flag":"active"}}`))
	if err != nil {
		f.t.Fatal(err)
	}
	f.putBlob(jobs.SourceKey(acme.OrgID, id), "Name,E-Mail,Flag\nAnn,ann@x.io,ja\n")
	finishedAt := now.Add(-time.Hour)
	return f.put(job.Job{ID: id, Name: "people", Mode: normalize.ModeNormalize, Status: job.Succeeded, SourceType: job.SourceUpload,
		Files: []job.File{{ID: "file_1", Filename: "people.csv", Format: "csv", SizeBytes: 33, SHA256: "abc"}}, SchemaID: schemaID, Schema: sch.JSON(),
		Options: opts.JSON(), CreatedAt: now.Add(-2 * time.Hour), FinishedAt: &finishedAt,
		Mapping: []byte(`[{"source_column":"Name","field":"name"},{"source_column":"E-Mail","field":"email"},{"source_column":"Flag","field":"active"}]`)})
}

func TestService_InvalidValues(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, Config{})
	f.finished("job_done", "")
	f.putBlob(issuesKey("job_done"), strings.Join([]string{
		issue(1, "active", "invalid_boolean", "ja"), issue(2, "active", "invalid_boolean", "nein"), issue(3, "active", "invalid_boolean", "ja"),
		issue(4, "email", "invalid_email", "ja"), issue(5, "active", "invalid_boolean", "x"), issue(6, "active", "invalid_boolean", "ja"),
		issue(7, "active", "invalid_boolean", "nein"),
	}, "\n")+"\n")

	first, err := f.svc.InvalidValues(ctx, acme, "job_done", "active", ports.Page{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if first.Field != "active" || first.Distinct != 3 || first.Capped || fmt.Sprint(first.Values) != "[{ja 3 invalid_boolean} {nein 2 invalid_boolean}]" ||
		first.Next == "" {
		t.Fatalf("first page %+v", first)
	}
	second, err := f.svc.InvalidValues(ctx, acme, "job_done", "active", ports.Page{Limit: 2, Cursor: first.Next})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(second.Values) != "[{x 1 invalid_boolean}]" || second.Next != "" || second.Distinct != 3 {
		t.Fatalf("second page %+v", second)
	}
	past, err := f.svc.InvalidValues(ctx, acme, "job_done", "active", ports.Page{Limit: 2, Cursor: valuesCursor("job_done", "active", 10)})
	if err != nil || past.Values == nil || len(past.Values) != 0 || past.Next != "" {
		t.Fatalf("a page past the end: %+v, %v", past, err)
	}
	other, err := f.svc.InvalidValues(ctx, acme, "job_done", "email", ports.Page{Limit: 10})
	if err != nil || fmt.Sprint(other.Values) != "[{ja 1 invalid_email}]" {
		t.Fatalf("another field: %+v, %v", other, err)
	}

	running := f.finished("job_running", "")
	running.Status, running.FinishedAt = job.Running, nil
	f.put(running)
	f.finished("job_purged", "")
	noSchema := f.finished("job_inferred", "")
	noSchema.Schema = nil
	f.put(noSchema)
	f.finished("job_broken", "")
	f.putBlob(issuesKey("job_broken"), issue(1, "active", "invalid_boolean", "ja")+"\n")
	f.brokenAt[issuesKey("job_broken")] = 10

	for _, c := range []struct {
		name, job, field, cursor string
		want                     domain.Code
	}{
		{"no field", "job_done", "", "", domain.CodeInvalidRequest},
		{"not a field of the schema", "job_done", "colour", "", domain.CodeInvalidRequest},
		{"a job without a schema", "job_inferred", "active", "", domain.CodeInvalidRequest},
		{"another field's cursor", "job_done", "email", first.Next, domain.CodeInvalidCursor},
		{"an unfinished job", "job_running", "active", "", domain.CodeJobNotFinished},
		{"results deleted", "job_purged", "active", "", domain.CodeNotFound},
		{"an unknown job", "job_nope", "active", "", domain.CodeNotFound},
	} {
		if _, err := f.svc.InvalidValues(ctx, acme, c.job, c.field, ports.Page{Limit: 10, Cursor: c.cursor}); domain.CodeOf(err) != c.want {
			t.Errorf("%s: %v, want %s", c.name, err, c.want)
		}
	}
	if _, err := f.svc.InvalidValues(ctx, acme, "job_broken", "active", ports.Page{Limit: 10}); err == nil || !strings.Contains(err.Error(), "issues of job job_broken") {
		t.Errorf("issues that cannot be read: %v", err)
	}
}

func TestService_Rerun_upload(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("the file is copied to the new job, which is queued with the original's settings and the request's", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, Config{})
		orig := f.finished("job_done", "sch_people")
		r, err := f.svc.PrepareRerun(ctx, acme, "job_done", RerunRequest{Options: []byte(`{"date_order":"DMY"}`), Mapping: map[string]*string{"Flag": nil}})
		if err != nil {
			t.Fatal(err)
		}
		src, _ := f.blob(jobs.SourceKey(acme.OrgID, "job_done"))
		if copied, ok := f.blob(jobs.SourceKey(acme.OrgID, r.jobID)); !ok || copied != src || !strings.HasPrefix(r.jobID, "job_") {
			t.Fatalf("the copy of %s is %q, %v", r.jobID, copied, ok)
		}
		j, err := f.svc.SubmitRerun(ctx, acme, r)
		if err != nil {
			t.Fatal(err)
		}
		stored := f.job(j.ID)
		if j.ID != r.jobID || stored.ID != j.ID || stored.Status != job.Queued || stored.RerunOf != "job_done" || stored.SchemaID != "sch_people" ||
			stored.SourceType != job.SourceUpload || fmt.Sprint(stored.Files) != fmt.Sprint(orig.Files) || stored.Name != "people" {
			t.Fatalf("the rerun is %+v", stored)
		}
		opts, err := normalize.ParseOptions(stored.Mode, stored.Options)
		if err != nil {
			t.Fatal(err)
		}
		if opts.Review || fmt.Sprint(opts.Mapping) != "map[E-Mail:email Flag: Name:name]" || !strings.Contains(string(stored.Options), `"date_order":"DMY"`) {
			t.Fatalf("the rerun's options are %s", stored.Options)
		}
		if f.eventsOf(j.ID) != job.EventQueued || fmt.Sprint(f.queuedJobs()) != "["+j.ID+"]" {
			t.Fatalf("events %q, queued %v", f.eventsOf(j.ID), f.queuedJobs())
		}
		if f.job("job_done").Status != job.Succeeded {
			t.Fatal("the original changed")
		}
	})

	t.Run("a deleted saved schema leaves the job's own copy", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, Config{})
		orig := f.finished("job_done", "sch_people")
		f.mu.Lock()
		delete(f.saved, "sch_people")
		f.mu.Unlock()
		r, err := f.svc.PrepareRerun(ctx, acme, "job_done", RerunRequest{})
		if err != nil {
			t.Fatal(err)
		}
		j, err := f.svc.SubmitRerun(ctx, acme, r)
		if err != nil {
			t.Fatal(err)
		}
		if j.SchemaID != "" || string(j.Schema) != string(orig.Schema) {
			t.Fatalf("schema_id %q, schema %s", j.SchemaID, j.Schema)
		}
	})

	t.Run("a refused rerun's copy is discarded; the original's file stays", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, Config{})
		f.finished("job_done", "")
		r, err := f.svc.PrepareRerun(ctx, acme, "job_done", RerunRequest{})
		if err != nil {
			t.Fatal(err)
		}
		f.pending = 1000
		if _, err := f.svc.SubmitRerun(ctx, acme, r); domain.CodeOf(err) != domain.CodeQuotaExceeded {
			t.Fatalf("error %v", err)
		}
		if f.job(r.jobID).ID != "" || len(f.queuedJobs()) != 0 {
			t.Fatal("a refused rerun was stored")
		}
		f.svc.DiscardRerun(ctx, r)
		if _, ok := f.blob(jobs.SourceKey(acme.OrgID, r.jobID)); ok {
			t.Fatal("the copy is still stored")
		}
		if _, ok := f.blob(jobs.SourceKey(acme.OrgID, "job_done")); !ok {
			t.Fatal("the original's file was deleted")
		}
		f.svc.DiscardRerun(ctx, nil)
		f.mu.Lock()
		deleted := fmt.Sprint(f.deleted)
		f.mu.Unlock()
		if deleted != "["+jobs.SourceKey(acme.OrgID, r.jobID)+"]" {
			t.Fatalf("deleted %s", deleted)
		}
	})

	t.Run("refusals copy nothing", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, Config{})
		f.finished("job_done", "")
		running := f.finished("job_running", "")
		running.Status = job.Running
		f.put(running)
		f.finished("job_purged", "")
		f.mu.Lock()
		delete(f.blobMap, jobs.SourceKey(acme.OrgID, "job_purged"))
		blobs := len(f.blobMap)
		f.mu.Unlock()
		for _, c := range []struct {
			name, job string
			req       RerunRequest
			want      domain.Code
			kind      error
		}{
			{"an unfinished job", "job_running", RerunRequest{}, domain.CodeJobNotFinished, domain.ErrConflict},
			{"a purged file", "job_purged", RerunRequest{}, domain.CodeSourceDeleted, domain.ErrConflict},
			{"an unknown column", "job_done", RerunRequest{Mapping: map[string]*string{"Nope": ptr("name")}}, domain.CodeInvalidMapping, domain.ErrInvalid},
			{"options not an object", "job_done", RerunRequest{Options: []byte(`"x"`)}, domain.CodeInvalidRequest, domain.ErrInvalid},
			{"an unknown job", "job_nope", RerunRequest{}, domain.CodeNotFound, domain.ErrNotFound},
		} {
			r, err := f.svc.PrepareRerun(ctx, acme, c.job, c.req)
			if r != nil || domain.CodeOf(err) != c.want || !errors.Is(err, c.kind) {
				t.Errorf("%s: %v, want %s", c.name, err, c.want)
			}
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		if len(f.blobMap) != blobs {
			t.Fatalf("%d blobs, want %d", len(f.blobMap), blobs)
		}
	})

	t.Run("a saved schema that cannot be read is the error", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, Config{})
		f.finished("job_done", "sch_people")
		f.schemaErr = errors.New("the database is down")
		if _, err := f.svc.PrepareRerun(ctx, acme, "job_done", RerunRequest{}); !errors.Is(err, f.schemaErr) {
			t.Fatalf("error %v", err)
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		if len(f.blobMap) != 1 {
			t.Fatalf("%d blobs: the file was copied", len(f.blobMap))
		}
	})
}

func TestService_copyBlob(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("a copy that breaks off leaves nothing", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, Config{})
		f.putBlob("from", "0123456789")
		f.brokenAt["from"] = 4
		if err := f.svc.copyBlob(ctx, "from", "to"); err == nil {
			t.Fatal("a broken read copied")
		}
		if b, ok := f.blob("to"); ok {
			t.Fatalf("the partial copy %q was stored", b)
		}
	})

	t.Run("a copy that cannot be written, or read, is the error", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, Config{})
		f.putBlob("from", "0123456789")
		f.createErr = errors.New("the disk is full")
		if err := f.svc.copyBlob(ctx, "from", "to"); !errors.Is(err, f.createErr) {
			t.Fatalf("error %v", err)
		}
		f.openErr["from"] = errors.New("access denied")
		if err := f.svc.copyBlob(ctx, "from", "to"); !errors.Is(err, f.openErr["from"]) {
			t.Fatalf("error %v", err)
		}
		if err := f.svc.copyBlob(ctx, "nope", "to"); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("error %v", err)
		}
	})

	t.Run("a copy is the same bytes", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, Config{})
		f.putBlob("from", strings.Repeat("0123456789", 10_000))
		if err := f.svc.copyBlob(ctx, "from", "to"); err != nil {
			t.Fatal(err)
		}
		from, _ := f.blob("from")
		if to, ok := f.blob("to"); !ok || to != from {
			t.Fatal("the copy differs")
		}
	})
}

func TestService_Rerun_connect(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	library := func(f *fixture) job.Job {
		f.mu.Lock()
		for _, id := range []string{"file_a", "file_b"} {
			f.library[id] = domainconnect.File{ID: id, OrgID: acme.OrgID, Filename: id + ".csv", Format: "csv", SizeBytes: 10}
		}
		f.mu.Unlock()
		orig := f.finished("job_done", "")
		orig.SourceType = job.SourceConnect
		orig.Files = []job.File{f.library["file_b"].JobFile(), f.library["file_a"].JobFile()}
		return f.put(orig)
	}

	t.Run("a rerun reads the same library files, in order, copying nothing", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, Config{})
		library(f)
		f.mu.Lock()
		delete(f.blobMap, jobs.SourceKey(acme.OrgID, "job_done")) // a connect job has no file of its own
		f.mu.Unlock()
		r, err := f.svc.PrepareRerun(ctx, acme, "job_done", RerunRequest{})
		if err != nil {
			t.Fatal(err)
		}
		j, err := f.svc.SubmitRerun(ctx, acme, r)
		if err != nil {
			t.Fatal(err)
		}
		stored := f.job(j.ID)
		if stored.SourceType != job.SourceConnect || stored.RerunOf != "job_done" || len(stored.Files) != 2 || stored.Files[0].ID != "file_b" ||
			stored.Progress.BytesTotal != 20 || fmt.Sprint(f.linked[j.ID]) != "[file_b file_a]" {
			t.Fatalf("the rerun is %+v, linked %v", stored, f.linked[j.ID])
		}
		f.svc.DiscardRerun(ctx, r) // nothing was copied: nothing to delete
		f.mu.Lock()
		defer f.mu.Unlock()
		if len(f.deleted) != 0 || len(f.blobMap) != 0 {
			t.Fatalf("deleted %v, blobs %v", f.deleted, f.blobMap)
		}
	})

	t.Run("a library file deleted since is file_not_found, and no job is made", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, Config{})
		library(f)
		f.mu.Lock()
		delete(f.library, "file_a")
		f.mu.Unlock()
		r, err := f.svc.PrepareRerun(ctx, acme, "job_done", RerunRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.svc.SubmitRerun(ctx, acme, r); domain.CodeOf(err) != domain.CodeFileNotFound {
			t.Fatalf("error %v", err)
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		if len(f.stored) != 1 || len(f.queued) != 0 {
			t.Fatalf("%d jobs stored, %v queued", len(f.stored), f.queued)
		}
	})
}
