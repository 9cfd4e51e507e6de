package jobs_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

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

func TestCreator_Submit(t *testing.T) {
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
		j, err := f.create.Submit(ctx, acme, jobs.Submission{SourceType: job.SourceUpload, Files: upload(40),
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
		if _, err := f.create.Submit(ctx, acme, jobs.Submission{SourceType: job.SourceUpload, Files: upload(1),
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
		j, err := f.create.Submit(ctx, acme, jobs.Submission{SourceType: job.SourceUpload, Files: upload(1), Params: jobs.Params{SchemaID: "sch_1"}})
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
			_, err := f.create.Submit(ctx, acme, jobs.Submission{SourceType: job.SourceUpload, Files: upload(1), Params: c.params})
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
		_, err := f.create.Submit(ctx, acme, jobs.Submission{SourceType: job.SourceUpload, Files: upload(1), Params: jobs.Params{Mode: "infer"}})
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
			_, err := f.create.Submit(ctx, acme, jobs.Submission{SourceType: c.source, Files: upload(c.size), Params: jobs.Params{Mode: "infer"}})
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

// TestCreator_uploadUnderIdempotencyKey follows a job upload as the HTTP
// adapter makes it: the file streams into storage under a reserved job
// id, then the job is created once per Idempotency-Key. A retry of the
// same request replays the first answer and its upload is removed; the
// key used for another request is refused, and that upload removed too.
func TestCreator_uploadUnderIdempotencyKey(t *testing.T) {
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
		up := f.create.NewUpload(acme, "people.csv")
		if err := f.create.Store(ctx, up, strings.NewReader(body)); err != nil {
			t.Fatal(err)
		}
		in := jobs.Params{Mode: "infer", Options: []byte(params)}
		ans, replayed, err := idem.Do(ctx, acme.OrgID, "key-1", params+" "+up.SHA256(), func(ctx context.Context) (ports.IdempotentAnswer, error) {
			j, err := f.create.Create(ctx, acme, up, in)
			created++
			return ports.IdempotentAnswer{Status: 202, Location: j.ID, Body: []byte(j.ID)}, err
		})
		if err != nil || replayed {
			f.blobs.EXPECT().Delete(mock.Anything, up.Key).Return(nil).Once()
			f.create.Discard(ctx, up)
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

func TestCreator_Usage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, jobs.Config{MaxRunningPerOrg: 3, MaxQueuedPerOrg: 30})
	f.quotas.EXPECT().Get(mock.Anything, "org_acme").Return(job.Quota{RowsPerMonth: 1000}, nil).Once()
	f.quotas.EXPECT().Usage(mock.Anything, "org_acme", job.MonthStart(now)).Return(int64(10), int64(20), nil).Once()
	f.slots.EXPECT().Counts(mock.Anything, "org_acme").Return(1, 4, nil).Once()
	u, err := f.create.Usage(ctx, acme)
	if err != nil || u.Rows != 10 || u.StorageBytes != 20 || u.Pending != 4 || u.Quota.RowsPerMonth != 1000 || u.MaxRunningPerOrg != 3 ||
		u.MaxQueuedPerOrg != 30 || !u.PeriodStart.Equal(job.MonthStart(now)) {
		t.Fatalf("Usage = %+v, %v", u, err)
	}
}
