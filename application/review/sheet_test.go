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
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/normalize"
	reviewdoc "github.com/tabnorm/tabnorm/domain/normalize/review"
	"github.com/tabnorm/tabnorm/domain/schema"
	"github.com/tabnorm/tabnorm/domain/table"
)

// TestService_keepSample: the sample a review's change keeps is the one
// its next change reads; a store that cannot take it says so.
func TestService_keepSample(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, Config{})
	j := job.Job{ID: "job_1", OrgID: acme.OrgID}
	if err := f.svc.keepSample(ctx, j.OrgID, j.ID, []byte(`[{"Header":["a"]}]`)); err != nil {
		t.Fatal(err)
	}
	if b, err := f.svc.sampleBytes(ctx, j); err != nil || string(b) != `[{"Header":["a"]}]` {
		t.Fatalf("sampleBytes = %s, %v", b, err)
	}
	f.createErr = errors.New("the store is full")
	if err := f.svc.keepSample(ctx, j.OrgID, j.ID, []byte(`[]`)); !errors.Is(err, f.createErr) {
		t.Fatalf("keepSample on a full store: %v", err)
	}
}

// book is a workbook (see openTable): the review starts on People; Staff
// has other columns; Broken cannot be read.
const book = "[People]\nName,E-Mail,Flag\nAnn,ann@x.io,yes\n" +
	"[Staff]\nName,Mail,Flag,Team\nBo,bo@x.io,no,ops\nCy,cy@x.io,yes,dev\n" +
	"[Broken]\n!unreadable\n"

// awaitingBook stores a job awaiting its review whose one file is the
// workbook content, sampled as the run that stopped for the review did.
func (f *fixture) awaitingBook(id, options, content string) job.Job {
	f.t.Helper()
	sch, err := schema.Parse([]byte(peopleSchema))
	if err != nil {
		f.t.Fatal(err)
	}
	opts, err := normalize.ParseOptions(normalize.ModeNormalize, []byte(options))
	if err != nil {
		f.t.Fatal(err)
	}
	f.putBlob(jobs.SourceKey(acme.OrgID, id), content)
	samples, err := normalize.ReadSamples(context.Background(), []normalize.Source{{Open: func() (table.Reader, error) {
		return openTable(content, "people.xlsx", opts.Sheet)
	}}})
	if err != nil {
		f.t.Fatal(err)
	}
	stored, err := normalize.MarshalSamples(samples)
	if err != nil {
		f.t.Fatal(err)
	}
	f.putBlob(jobs.SampleKey(acme.OrgID, id), string(stored))
	rev, err := normalize.RunReview(context.Background(), normalize.ReviewInput{Mode: normalize.ModeNormalize, Schema: sch, Options: opts, Samples: samples})
	if err != nil {
		f.t.Fatal(err)
	}
	since := now.Add(-time.Hour)
	return f.put(job.Job{ID: id, Mode: normalize.ModeNormalize, Status: job.AwaitingReview, SourceType: job.SourceUpload,
		Files: []job.File{{ID: "file_" + id, Filename: "people.xlsx", Format: "xlsx", SizeBytes: int64(len(content))}}, Schema: sch.JSON(),
		Options: opts.JSON(), Mapping: must(apiMapping(rev.Mapping())), Review: &rev, ReviewSince: &since, Attempts: 1, CreatedAt: now.Add(-2 * time.Hour)})
}

// sampleOf is the header of each file of a job's stored sample ("" for
// none).
func (f *fixture) sampleOf(id string) string {
	f.t.Helper()
	b, ok := f.blob(jobs.SampleKey(acme.OrgID, id))
	if !ok {
		return ""
	}
	samples, err := normalize.UnmarshalSamples([]byte(b))
	if err != nil {
		f.t.Fatal(err)
	}
	var out []string
	for _, s := range samples {
		out = append(out, strings.Join(s.Header, ","))
	}
	return strings.Join(out, " ")
}

// sheetsOf are a review's sheets, the selected one marked with a star.
func sheetsOf(rev reviewdoc.Review) string {
	var out []string
	for _, sh := range rev.Sheets {
		s := fmt.Sprintf("%s/%d", sh.Name, sh.Rows)
		if sh.Selected {
			s += "*"
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

func TestService_ChooseSheet(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const options = `{"review":true,"mapping":{"Flag":"active","E-Mail":"email"}}`

	t.Run("the review is computed again from the sheet chosen, the mapping chosen so far kept", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, Config{TTL: ttl})
		f.awaitingBook("job_1", options, book)
		if got := sheetsOf(mustReview(t, f.job("job_1"))); got != "People/2* Staff/3 Broken/1" {
			t.Fatalf("sheets before %s", got)
		}
		v, err := f.svc.ChooseSheet(ctx, acme, "job_1", "Staff")
		if err != nil {
			t.Fatal(err)
		}
		j := f.job("job_1")
		opts, err := normalize.ParseOptions(j.Mode, j.Options)
		if err != nil {
			t.Fatal(err)
		}
		if v.Status != StatusPending || j.Status != job.AwaitingReview || opts.Sheet != "Staff" || fmt.Sprint(opts.Mapping) != "map[E-Mail:email Flag:active]" {
			t.Fatalf("view %s, job %s, options %s", v.Status, j.Status, j.Options)
		}
		if got := fieldOf(column(t, j, "Flag")) + " " + fieldOf(column(t, j, "Team")); got != "active/explicit -" || len(v.Review.Columns) != 4 {
			t.Fatalf("columns %s of %+v", got, v.Review.Columns)
		}
		if got := sheetsOf(v.Review); got != "People/2 Staff/3* Broken/1" {
			t.Fatalf("sheets %s", got)
		}
		if len(v.Review.Preview) != 2 || f.sampleOf("job_1") != "Name,Mail,Flag,Team" {
			t.Fatalf("preview %d rows, sample %q", len(v.Review.Preview), f.sampleOf("job_1"))
		}
	})

	t.Run("a sample from before sheets were listed lets the workbook's reader decide", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, Config{TTL: ttl})
		f.awaitingBook("job_1", options, book)
		b, _ := f.blob(jobs.SampleKey(acme.OrgID, "job_1"))
		samples, err := normalize.UnmarshalSamples([]byte(b))
		if err != nil {
			t.Fatal(err)
		}
		samples[0].Sheets = nil
		old, err := normalize.MarshalSamples(samples)
		if err != nil {
			t.Fatal(err)
		}
		f.putBlob(jobs.SampleKey(acme.OrgID, "job_1"), string(old))
		_, err = f.svc.ChooseSheet(ctx, acme, "job_1", "Payroll")
		if domain.CodeOf(err) != domain.CodeInvalidRequest || fieldsOf(err) != "sheet" || !strings.Contains(err.Error(), `The sheet "Payroll" cannot be read`) {
			t.Fatalf("a sheet the workbook lacks: %v", err)
		}
		if _, err := f.svc.ChooseSheet(ctx, acme, "job_1", "Staff"); err != nil || f.sampleOf("job_1") != "Name,Mail,Flag,Team" {
			t.Fatalf("ChooseSheet = %v, sample of %q", err, f.sampleOf("job_1"))
		}
	})
}

func mustReview(t *testing.T, j job.Job) reviewdoc.Review {
	t.Helper()
	if j.Review == nil {
		t.Fatalf("job %s has no review", j.ID)
	}
	return *j.Review
}

// TestService_ChooseSheet_refused: a refused choice leaves the job as it
// was, awaiting its review with its options and sample.
func TestService_ChooseSheet_refused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, Config{TTL: ttl})
	const options = `{"review":true}`
	f.awaitingBook("job_1", options, book)
	f.awaiting("job_csv", "", options, header, ann)
	f.finished("job_done", "")
	other := f.awaitingBook("job_other", options, book)
	other.OrgID = "org_other"
	f.put(other)
	f.awaitingBook("job_deleted", options, book)
	f.mu.Lock()
	delete(f.blobMap, jobs.SourceKey(acme.OrgID, "job_deleted"))
	f.mu.Unlock()

	for _, c := range []struct {
		name, job, sheet string
		code             domain.Code
		message          string
	}{
		{"no sheet", "job_1", "", domain.CodeInvalidRequest, "Send the name of a sheet"},
		{"a sheet the workbook does not list", "job_1", "Payroll", domain.CodeInvalidRequest, `its sheets are "People", "Staff", "Broken"`},
		{"a sheet that cannot be read", "job_1", "Broken", domain.CodeInvalidRequest, `The sheet "Broken" cannot be read`},
		{"a job without workbooks", "job_csv", "People", domain.CodeInvalidRequest, "not workbooks"},
		{"a job not awaiting review", "job_done", "People", domain.CodeJobNotAwaitingReview, ""},
		{"another organization's job", "job_other", "Staff", domain.CodeNotFound, ""},
		{"a file retention deleted", "job_deleted", "Staff", domain.CodeSourceDeleted, "no longer in storage"},
	} {
		before, sample := f.job(c.job), f.sampleOf(c.job)
		_, err := f.svc.ChooseSheet(ctx, acme, c.job, c.sheet)
		if domain.CodeOf(err) != c.code || !strings.Contains(fmt.Sprint(err), c.message) {
			t.Errorf("%s: %v, want %s %q", c.name, err, c.code, c.message)
		}
		if c.code == domain.CodeInvalidRequest && fieldsOf(err) != "sheet" {
			t.Errorf("%s: fields %q", c.name, fieldsOf(err))
		}
		if after := f.job(c.job); after.Status != before.Status || string(after.Options) != string(before.Options) || f.sampleOf(c.job) != sample {
			t.Errorf("%s: the job changed: %s %s, sample %q", c.name, after.Status, after.Options, f.sampleOf(c.job))
		}
	}
}

// TestService_ChooseSheet_failures: what goes wrong outside the request
// is not blamed on it, and leaves the review with the sample it was made
// from.
func TestService_ChooseSheet_failures(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const options = `{"review":true}`

	t.Run("a store that cannot stage the file is the server's error", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, Config{TTL: ttl})
		f.awaitingBook("job_1", options, book)
		f.stageErr = errors.New("the store is down")
		_, err := f.svc.ChooseSheet(ctx, acme, "job_1", "Staff")
		if !errors.Is(err, f.stageErr) || domain.CodeOf(err) == domain.CodeInvalidRequest {
			t.Fatalf("ChooseSheet = %v (%s)", err, domain.CodeOf(err))
		}
	})

	t.Run("a job canceled meanwhile is not awaiting review, and keeps its sample", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, Config{TTL: ttl})
		f.awaitingBook("job_1", options, book)
		f.beforeUpdate = func(j *job.Job) { j.Status = job.Canceled }
		if _, err := f.svc.ChooseSheet(ctx, acme, "job_1", "Staff"); domain.CodeOf(err) != domain.CodeJobNotAwaitingReview {
			t.Fatalf("ChooseSheet = %v", err)
		}
		if got := f.sampleOf("job_1"); got != "Name,E-Mail,Flag" {
			t.Fatalf("the sample is of %q", got)
		}
	})

	t.Run("a change that is not stored puts the review's sample back", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, Config{TTL: ttl})
		f.awaitingBook("job_1", options, book)
		f.commitErr = errors.New("the database is gone")
		if _, err := f.svc.ChooseSheet(ctx, acme, "job_1", "Staff"); !errors.Is(err, f.commitErr) {
			t.Fatalf("ChooseSheet = %v", err)
		}
		if got := f.sampleOf("job_1"); got != "Name,E-Mail,Flag" {
			t.Fatalf("the sample is of %q", got)
		}
		if opts := f.job("job_1").Options; strings.Contains(string(opts), "Staff") {
			t.Fatalf("options %s", opts)
		}
	})

	t.Run("a sample that cannot be stored leaves the review as it was", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, Config{TTL: ttl})
		f.awaitingBook("job_1", options, book)
		f.createErr = errors.New("the store is full")
		if _, err := f.svc.ChooseSheet(ctx, acme, "job_1", "Staff"); !errors.Is(err, f.createErr) {
			t.Fatalf("ChooseSheet = %v", err)
		}
		if got := f.sampleOf("job_1"); got != "Name,E-Mail,Flag" || strings.Contains(string(f.job("job_1").Options), "Staff") {
			t.Fatalf("the sample is of %q, options %s", got, f.job("job_1").Options)
		}
	})
}

// TestUnreadableSheet: a sheet the reader fails on is the request's
// problem; the engine's own failure, or any other error, is not.
func TestUnreadableSheet(t *testing.T) {
	t.Parallel()
	damaged := &normalize.Failure{Code: domain.CodeUnreadableFile, Message: "The file cannot be read: bad XML"}
	if err := unreadableSheet("People", fmt.Errorf("resample: %w", damaged)); domain.CodeOf(err) != domain.CodeInvalidRequest || fieldsOf(err) != "sheet" ||
		!strings.Contains(err.Error(), `The sheet "People" cannot be read: The file cannot be read: bad XML`) {
		t.Errorf("a damaged sheet: %v", err)
	}
	bug := &normalize.Failure{Code: domain.CodeInternalError, Message: "The engine failed on this file"}
	other := errors.New("the disk is gone")
	for _, err := range []error{bug, other} {
		if got := unreadableSheet("People", err); got != err {
			t.Errorf("unreadableSheet(%v) = %v", err, got)
		}
	}
}
