package jobs_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"

	"github.com/tabnorm/tabnorm/application/idempotency"
	"github.com/tabnorm/tabnorm/application/jobs"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/schema"
	"github.com/tabnorm/tabnorm/domain/table"
	"github.com/tabnorm/tabnorm/ports"
	"github.com/tabnorm/tabnorm/test/mocks"
)

// acceptJobs lets new jobs in: no quota, free slots, and the repository
// keeps what is created.
func (f *fixture) acceptJobs(active, pending int) {
	f.quotas.EXPECT().Get(mock.Anything, mock.Anything).Return(job.Quota{}, nil).Maybe()
	f.slots.EXPECT().Counts(mock.Anything, mock.Anything).Return(active, pending, nil).Maybe()
	f.jobs.EXPECT().Create(mock.Anything, mock.Anything).RunAndReturn(func(_ context.Context, j job.Job) error {
		f.put(j)
		return nil
	}).Maybe()
}

func TestService_Submit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	upload := func(size int64) []job.File {
		return []job.File{{ID: "file_1", Filename: "a.csv", Format: "csv", SizeBytes: size}}
	}

	t.Run("a job is stored, announced and queued behind its organization's active jobs", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, jobs.Config{})
		f.acceptJobs(2, 2)
		f.queue.EXPECT().Enqueue(mock.Anything, mock.Anything, mock.Anything, 2).Return(nil).Once()
		j, err := f.svc.Submit(ctx, acme, jobs.Submission{SourceType: job.SourceUpload, Files: upload(40),
			Params: jobs.Params{Mode: "normalize", Schema: []byte(peopleSchema), Options: []byte(`{"trim":true}`), Name: "Q3"}})
		if err != nil {
			t.Fatal(err)
		}
		got := f.job(j.ID)
		if !strings.HasPrefix(j.ID, "job_") || got.Status != job.Queued || got.Name != "Q3" || got.Mode != "normalize" || got.Progress.BytesTotal != 40 ||
			got.OrgID != "org_acme" || !got.CreatedAt.Equal(now) || !strings.Contains(string(got.Options), `"trim":true`) || got.Schema == nil {
			t.Fatalf("job %+v", got)
		}
		if f.kinds() != "job.queued" || f.withJob["job.queued"] {
			t.Fatalf("events %s", f.kinds())
		}
	})

	t.Run("a job whose organization's slots are taken waits for one", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, jobs.Config{MaxRunningPerOrg: 2})
		f.acceptJobs(2, 5)
		f.slots.EXPECT().Hold(mock.Anything, mock.Anything).Return(nil).Once()
		if _, err := f.svc.Submit(ctx, acme, jobs.Submission{SourceType: job.SourceUpload, Files: upload(1),
			Params: jobs.Params{Mode: "infer"}}); err != nil {
			t.Fatal(err)
		}
		// The queue mock fails the test on an Enqueue.
	})

	t.Run("a saved schema is copied into the job", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, jobs.Config{})
		f.acceptJobs(0, 0)
		f.queue.EXPECT().Enqueue(mock.Anything, mock.Anything, mock.Anything, 0).Return(nil).Once()
		f.schemas.EXPECT().Get(mock.Anything, "org_acme", "sch_1").Return(schema.Saved{ID: "sch_1", Document: []byte(peopleSchema)}, nil).Once()
		j, err := f.svc.Submit(ctx, acme, jobs.Submission{SourceType: job.SourceUpload, Files: upload(1), Params: jobs.Params{SchemaID: "sch_1"}})
		if err != nil {
			t.Fatal(err)
		}
		if j.SchemaID != "sch_1" || !strings.Contains(string(j.Schema), `"email"`) || j.Mode != "normalize" {
			t.Fatalf("job %+v", j)
		}
	})

	refusals := []struct {
		name   string
		params jobs.Params
		code   domain.Code
		field  string
	}{
		{"a mode that does not exist", jobs.Params{Mode: "transform", Schema: []byte(peopleSchema)}, "invalid_mode", ""},
		{"a schema and a schema_id", jobs.Params{Schema: []byte(peopleSchema), SchemaID: "sch_1"}, "invalid_request", ""},
		{"no schema outside infer mode", jobs.Params{Mode: "validate"}, "invalid_request", "schema"},
		{"a schema that is not one", jobs.Params{Schema: []byte(`{"fields":[{"name":"a","type":"money"}]}`)}, "invalid_schema", "schema.fields[0].type"},
		{"unknown options", jobs.Params{Mode: "infer", Options: []byte(`{"colour":1}`)}, "invalid_request", "options.colour"},
		{"a name over 200 characters", jobs.Params{Mode: "infer", Name: strings.Repeat("n", 201)}, "invalid_request", ""},
	}
	for _, c := range refusals {
		t.Run(c.name+" is refused", func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, jobs.Config{})
			_, err := f.svc.Submit(ctx, acme, jobs.Submission{SourceType: job.SourceUpload, Files: upload(1), Params: c.params})
			var de *domain.Error
			if !errors.As(err, &de) || de.Code != c.code || (c.field != "" && (len(de.Fields) == 0 || de.Fields[0].Field != c.field)) {
				t.Fatalf("error %v (%+v), want %s on %q", err, de, c.code, c.field)
			}
			// The repository mock fails the test on a Create.
		})
	}

	t.Run("an organization at its queued jobs limit is told to retry", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, jobs.Config{MaxQueuedPerOrg: 3})
		f.quotas.EXPECT().Get(mock.Anything, "org_acme").Return(job.Quota{}, nil)
		f.slots.EXPECT().Counts(mock.Anything, "org_acme").Return(3, 3, nil)
		_, err := f.svc.Submit(ctx, acme, jobs.Submission{SourceType: job.SourceUpload, Files: upload(1), Params: jobs.Params{Mode: "infer"}})
		var de *domain.Error
		if !errors.As(err, &de) || de.Code != "quota_exceeded" || de.Kind != domain.ErrTooMany || de.RetryAfter != 60 {
			t.Fatalf("error %v", err)
		}
	})

	t.Run("monthly rows and storage quotas", func(t *testing.T) {
		t.Parallel()
		cases := []struct {
			name          string
			source        job.SourceType
			size          int64
			rows, storage int64
			refused       bool
		}{
			{"rows spent", job.SourceUpload, 1, 100, 0, true},
			{"storage exceeded by the upload", job.SourceUpload, 60, 0, 50, true},
			{"storage just enough", job.SourceUpload, 50, 0, 50, false},
			{"library files are counted already", job.SourceConnect, 60, 0, 50, false},
		}
		for _, c := range cases {
			f := newFixture(t, jobs.Config{})
			f.quotas.EXPECT().Get(mock.Anything, "org_acme").Return(job.Quota{RowsPerMonth: 100, StorageBytes: 100}, nil)
			f.quotas.EXPECT().Usage(mock.Anything, "org_acme", job.MonthStart(now)).Return(c.rows, c.storage, nil)
			if !c.refused {
				f.acceptJobs(0, 0)
				f.queue.EXPECT().Enqueue(mock.Anything, mock.Anything, mock.Anything, 0).Return(nil).Once()
			}
			_, err := f.svc.Submit(ctx, acme, jobs.Submission{SourceType: c.source, Files: upload(c.size), Params: jobs.Params{Mode: "infer"}})
			if refused := domain.CodeOf(err) == "quota_exceeded" && errors.Is(err, domain.ErrForbidden); refused != c.refused || (!c.refused && err != nil) {
				t.Fatalf("%s: error %v", c.name, err)
			}
		}
	})
}

// idempotencyStore keeps answers in memory as the repository would.
func idempotencyStore(t *testing.T) *mocks.Idempotency {
	store := mocks.NewIdempotency(t)
	kept := map[string]ports.IdempotentResponse{}
	store.EXPECT().DeleteBefore(mock.Anything, mock.Anything, mock.Anything, mock.Anything).Return(nil).Maybe()
	store.EXPECT().Get(mock.Anything, mock.Anything, mock.Anything).RunAndReturn(func(_ context.Context, org, key string) (ports.IdempotentResponse, error) {
		r, ok := kept[org+" "+key]
		if !ok {
			return r, domain.NotFound("idempotency key")
		}
		return r, nil
	}).Maybe()
	store.EXPECT().Put(mock.Anything, mock.Anything).RunAndReturn(func(_ context.Context, r ports.IdempotentResponse) error {
		kept[r.OrgID+" "+r.Key] = r
		return nil
	}).Maybe()
	return store
}

// TestService_uploadUnderIdempotencyKey follows a job upload as the HTTP
// adapter makes it: the file streams into storage under a reserved job
// id, then the job is created once per Idempotency-Key. A retry of the
// same request replays the first answer and its upload is removed; the
// key used for another request is refused, and that upload removed too.
func TestService_uploadUnderIdempotencyKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, jobs.Config{})
	f.acceptJobs(0, 0)
	f.queue.EXPECT().Enqueue(mock.Anything, mock.Anything, mock.Anything, 0).Return(nil).Once()
	f.tables.EXPECT().Sniff(mock.Anything, "people.csv").Return(table.CSV, nil)
	tx, clock := mocks.NewTransactor(t), mocks.NewClock(t)
	tx.EXPECT().InTx(mock.Anything, mock.Anything).RunAndReturn(func(ctx context.Context, fn func(context.Context) error) error { return fn(ctx) })
	clock.EXPECT().Now().Return(now)
	idem := idempotency.NewService(idempotencyStore(t), tx, clock)

	created := 0
	request := func(body, params string) (*jobs.Upload, ports.IdempotentAnswer, bool, error) {
		up := f.svc.NewUpload(acme, "people.csv")
		if err := f.svc.Store(ctx, up, strings.NewReader(body)); err != nil {
			t.Fatal(err)
		}
		in := jobs.Params{Mode: "infer", Options: []byte(params)}
		ans, replayed, err := idem.Do(ctx, acme.OrgID, "key-1", params+" "+up.SHA256(), func(ctx context.Context) (ports.IdempotentAnswer, error) {
			j, err := f.svc.Create(ctx, acme, up, in)
			created++
			return ports.IdempotentAnswer{Status: 202, Location: j.ID, Body: []byte(j.ID)}, err
		})
		if err != nil || replayed {
			f.blobs.EXPECT().Delete(mock.Anything, up.Key).Return(nil).Once()
			f.svc.Discard(ctx, up)
		}
		return up, ans, replayed, err
	}

	first, ans, replayed, err := request(people, `{}`)
	if err != nil || replayed {
		t.Fatalf("first request: %v, replayed %v", err, replayed)
	}
	j := f.job(ans.Location)
	sum := sha256.Sum256([]byte(people))
	if j.ID != first.JobID || len(j.Files) != 1 || j.Files[0].SHA256 != hex.EncodeToString(sum[:]) || j.Files[0].Format != "csv" ||
		j.Files[0].SizeBytes != int64(len(people)) || j.Files[0].Filename != "people.csv" || j.SourceType != job.SourceUpload {
		t.Fatalf("job %+v", j)
	}
	if stored, ok := f.blob(first.Key); !ok || stored != people || first.Key != sourceOf(j.ID) {
		t.Fatalf("upload at %s: %q", first.Key, stored)
	}

	_, again, replayed, err := request(people, `{}`)
	if err != nil || !replayed || again.Location != ans.Location || string(again.Body) != string(ans.Body) || again.Status != 202 {
		t.Fatalf("retry: %+v, replayed %v, %v", again, replayed, err)
	}
	if _, _, _, err := request(people, `{"trim":true}`); domain.CodeOf(err) != "idempotency_key_reused" {
		t.Fatalf("another request under the key: %v", err)
	}
	if created != 1 {
		t.Fatalf("%d jobs created", created)
	}
}

func TestService_Cancel(t *testing.T) {
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
			got, err := f.svc.Cancel(ctx, acme, "job_1")
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
		_, err := f.svc.Cancel(ctx, acme, "job_1")
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
		if _, err := f.svc.Cancel(ctx, acme, "job_1"); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("error %v", err)
		}
		if f.job("job_1").Status != job.Queued {
			t.Fatal("another organization's job was canceled")
		}
	})
}

func TestService_Delete(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("a running job is canceled, then removed with its files", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, jobs.Config{})
		f.put(runningJob("job_1", 1))
		f.noWaitingJobs()
		f.jobs.EXPECT().Delete(mock.Anything, "org_acme", "job_1").Return(nil).Once()
		f.blobs.EXPECT().DeletePrefix(mock.Anything, "org/org_acme/jobs/job_1/").Return(errors.New("store down")).Once() // logged only
		if err := f.svc.Delete(ctx, acme, "job_1"); err != nil {
			t.Fatal(err)
		}
		if f.kinds() != "job.canceled" {
			t.Fatalf("events %s", f.kinds())
		}
	})
	t.Run("an unknown job is not found", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, jobs.Config{})
		if err := f.svc.Delete(ctx, acme, "job_1"); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("error %v", err)
		}
	})
}

func TestService_Purge(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("without a retention nothing is purged", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, jobs.Config{})
		if n, err := f.svc.Purge(ctx); n != 0 || err != nil {
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
		if n, err := f.svc.Purge(ctx); n != 3 || err != nil {
			t.Fatalf("Purge = %d, %v", n, err)
		}
	})
	t.Run("a store failure stops the purge, and the job is not marked", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, jobs.Config{Retention: time.Hour})
		f.jobs.EXPECT().FinishedBefore(mock.Anything, now.Add(-time.Hour), 200).Return([][2]string{{"org_a", "job_1"}}, nil).Once()
		f.blobs.EXPECT().DeletePrefix(mock.Anything, "org/org_a/jobs/job_1/").Return(errors.New("store down")).Once()
		if n, err := f.svc.Purge(ctx); n != 0 || err == nil {
			t.Fatalf("Purge = %d, %v", n, err)
		}
	})
}

func TestService_OpenResult(t *testing.T) {
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

	_, rc, err := f.svc.OpenResult(ctx, acme, "job_done", jobs.Rows, 7)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(rc); string(b) != "row\n" {
		t.Fatalf("read %q", b)
	}
	if _, _, err := f.svc.OpenResult(ctx, acme, "job_queued", jobs.Rows, 0); domain.CodeOf(err) != "job_not_finished" {
		t.Fatalf("a queued job's results: %v", err)
	}
	if _, _, err := f.svc.OpenResult(ctx, acme, "job_purged", jobs.Issues, 0); domain.CodeOf(err) != "not_found" || !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("purged results: %v", err)
	}
	if _, _, err := f.svc.OpenResult(ctx, identityOther, "job_done", jobs.Rows, 0); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("another organization's results: %v", err)
	}
}

func TestService_reads(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, jobs.Config{MaxRunningPerOrg: 3, MaxQueuedPerOrg: 30})
	f.put(queuedJob("job_1"))
	if j, err := f.svc.Get(ctx, acme, "job_1"); err != nil || j.ID != "job_1" {
		t.Fatalf("Get = %+v, %v", j, err)
	}
	filter, page := ports.JobFilter{Status: job.Queued}, ports.Page{Limit: 5}
	f.jobs.EXPECT().List(mock.Anything, "org_acme", filter, page).Return([]job.Job{f.job("job_1")}, "next", nil).Once()
	if list, next, err := f.svc.List(ctx, acme, filter, page); err != nil || len(list) != 1 || next != "next" {
		t.Fatalf("List = %v, %q, %v", list, next, err)
	}
	f.events.EXPECT().After(mock.Anything, "job_1", 2).Return([]ports.Event{{JobID: "job_1", Seq: 3}}, nil).Once()
	if evs, err := f.svc.Events(ctx, acme, "job_1", 2); err != nil || len(evs) != 1 {
		t.Fatalf("Events = %v, %v", evs, err)
	}
	if _, err := f.svc.Events(ctx, identityOther, "job_1", 0); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("another organization's events: %v", err)
	}

	f.quotas.EXPECT().Get(mock.Anything, "org_acme").Return(job.Quota{RowsPerMonth: 1000}, nil).Once()
	f.quotas.EXPECT().Usage(mock.Anything, "org_acme", job.MonthStart(now)).Return(int64(10), int64(20), nil).Once()
	f.slots.EXPECT().Counts(mock.Anything, "org_acme").Return(1, 4, nil).Once()
	u, err := f.svc.Usage(ctx, acme)
	if err != nil || u.Rows != 10 || u.StorageBytes != 20 || u.Pending != 4 || u.Quota.RowsPerMonth != 1000 || u.MaxRunningPerOrg != 3 ||
		u.MaxQueuedPerOrg != 30 || !u.PeriodStart.Equal(job.MonthStart(now)) {
		t.Fatalf("Usage = %+v, %v", u, err)
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

func TestService_Dispatch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, jobs.Config{MaxRunningPerOrg: 2})
	f.slots.EXPECT().OrgsWaiting(mock.Anything, 1000).Return([]string{"org_a", "org_b"}, nil).Once()
	f.slots.EXPECT().Counts(mock.Anything, "org_a").Return(1, 5, nil).Once() // one free slot
	f.slots.EXPECT().NextWaiting(mock.Anything, "org_a").Return("job_a1", nil).Once()
	f.queue.EXPECT().Enqueue(mock.Anything, mock.Anything, "job_a1", 1).Return(nil).Once()
	f.slots.EXPECT().Counts(mock.Anything, "org_b").Return(0, 1, nil).Once() // one waits
	f.slots.EXPECT().NextWaiting(mock.Anything, "org_b").Return("job_b1", nil).Once()
	f.queue.EXPECT().Enqueue(mock.Anything, mock.Anything, "job_b1", 0).Return(nil).Once()
	f.slots.EXPECT().NextWaiting(mock.Anything, "org_b").Return("", nil).Once()
	if n, err := f.svc.Dispatch(ctx); n != 2 || err != nil {
		t.Fatalf("Dispatch = %d, %v", n, err)
	}
}
