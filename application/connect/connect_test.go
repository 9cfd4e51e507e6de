package connect_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"

	"github.com/tabnorm/tabnorm/application/connect"
	"github.com/tabnorm/tabnorm/application/jobs"
	"github.com/tabnorm/tabnorm/domain"
	domainconnect "github.com/tabnorm/tabnorm/domain/connect"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/table"
	"github.com/tabnorm/tabnorm/ports"
	"github.com/tabnorm/tabnorm/test/mocks"
)

type fixture struct {
	files  *mocks.Files
	blobs  *mocks.BlobStore
	tables *mocks.TableOpener
	// the ports the jobs service uses to queue a connect job
	jobs   *mocks.Jobs
	slots  *mocks.JobSlots
	quotas *mocks.Quotas
	queue  *mocks.Queue
	svc    *connect.Service
}

var now = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

// newFixture runs transactions inline: the policies are under test here,
// the repositories' own behaviour is tested against real databases.
func newFixture(t *testing.T) fixture {
	t.Helper()
	f := fixture{files: mocks.NewFiles(t), blobs: mocks.NewBlobStore(t), tables: mocks.NewTableOpener(t),
		jobs: mocks.NewJobs(t), slots: mocks.NewJobSlots(t), quotas: mocks.NewQuotas(t), queue: mocks.NewQueue(t)}
	tx, clock := mocks.NewTransactor(t), mocks.NewClock(t)
	tx.EXPECT().InTx(mock.Anything, mock.Anything).RunAndReturn(func(ctx context.Context, fn func(context.Context) error) error { return fn(ctx) }).Maybe()
	clock.EXPECT().Now().Return(now).Maybe()
	events, bus, render := mocks.NewJobEvents(t), mocks.NewEventBus(t), mocks.NewJobRenderer(t)
	events.EXPECT().Append(mock.Anything, mock.Anything, mock.Anything, mock.Anything, mock.Anything).Return(ports.Event{Seq: 1}, nil).Maybe()
	bus.EXPECT().Publish(mock.Anything, mock.Anything, 1).Return(nil).Maybe()
	render.EXPECT().Event(mock.Anything, mock.Anything, false).Return([]byte(`{}`), nil).Maybe()
	log := slog.New(slog.DiscardHandler)
	cfg := jobs.Config{}
	create := jobs.NewCreator(cfg, f.jobs, mocks.NewImportSessions(t), nil, f.quotas, f.blobs, f.tables, tx, clock, jobs.NewOutbox(events, render, bus),
		jobs.NewDispatcher(cfg, f.slots, f.queue, tx, log))
	f.svc = connect.NewService(f.files, create, f.blobs, f.tables, tx, clock, log)
	return f
}

var acme = identity.Principal{OrgID: "org_acme"}

func TestService_DeleteFile(t *testing.T) {
	t.Parallel()
	t.Run("a file an unfinished job reads is a conflict, and stays", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.files.EXPECT().ActiveJobs(mock.Anything, "org_acme", "file_a").Return([]string{"job_1"}, nil)
		err := f.svc.DeleteFile(context.Background(), acme, "file_a")
		if domain.CodeOf(err) != "conflict" || !errors.Is(err, domain.ErrConflict) {
			t.Fatalf("error %v, want a conflict", err)
		}
		// The mocks fail the test on any Delete of the record or the bytes.
	})
	t.Run("a file no unfinished job reads goes, record and bytes", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.files.EXPECT().ActiveJobs(mock.Anything, "org_acme", "file_a").Return(nil, nil)
		f.files.EXPECT().Delete(mock.Anything, "org_acme", "file_a").Return(nil)
		f.blobs.EXPECT().Delete(mock.Anything, domainconnect.BlobKey("org_acme", "file_a")).Return(nil)
		if err := f.svc.DeleteFile(context.Background(), acme, "file_a"); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("an unknown or foreign file is not found, and nothing is deleted", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.files.EXPECT().ActiveJobs(mock.Anything, "org_acme", "file_x").Return(nil, domain.NotFound("file"))
		if err := f.svc.DeleteFile(context.Background(), acme, "file_x"); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("error %v, want not found", err)
		}
	})
}

func TestService_CreateJob(t *testing.T) {
	t.Parallel()
	t.Run("invalid file_ids never reach the store", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		_, err := f.svc.CreateJob(context.Background(), acme, []string{"file_a", "file_a"}, jobs.Params{})
		if domain.CodeOf(err) != "invalid_request" {
			t.Fatalf("error %v, want invalid_request", err)
		}
	})
	t.Run("a job reads the files in the order asked, holds them and links them", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.files.EXPECT().Hold(mock.Anything, "org_acme", []string{"file_b", "file_a"}).Return([]domainconnect.File{
			{ID: "file_a", OrgID: "org_acme", Filename: "a.csv", SizeBytes: 10}, {ID: "file_b", OrgID: "org_acme", Filename: "b.csv", SizeBytes: 20}}, nil).Once()
		f.quotas.EXPECT().Get(mock.Anything, "org_acme").Return(job.Quota{}, nil).Once()
		f.slots.EXPECT().Counts(mock.Anything, "org_acme").Return(0, 0, nil).Once()
		var created job.Job
		f.jobs.EXPECT().Create(mock.Anything, mock.Anything).Run(func(_ context.Context, j job.Job) { created = j }).Return(nil).Once()
		f.queue.EXPECT().Enqueue(mock.Anything, mock.Anything, mock.Anything, 0).Return(nil).Once()
		var linked string
		f.files.EXPECT().Link(mock.Anything, mock.Anything, []string{"file_b", "file_a"}).Run(func(_ context.Context, jobID string, _ []string) { linked = jobID }).
			Return(nil).Once()
		j, err := f.svc.CreateJob(context.Background(), acme, []string{"file_b", "file_a"}, jobs.Params{Mode: "infer"})
		if err != nil {
			t.Fatal(err)
		}
		if j.SourceType != job.SourceConnect || len(j.Files) != 2 || j.Files[0].ID != "file_b" || j.Files[1].Filename != "a.csv" ||
			j.Progress.BytesTotal != 30 || created.ID != j.ID || linked != j.ID {
			t.Fatalf("job %+v, created %s, linked %s", j, created.ID, linked)
		}
	})
	t.Run("missing files are file_not_found, and no job is made", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.files.EXPECT().Hold(mock.Anything, "org_acme", []string{"file_a", "file_b"}).
			Return([]domainconnect.File{{ID: "file_b", OrgID: "org_acme"}}, nil)
		_, err := f.svc.CreateJob(context.Background(), acme, []string{"file_a", "file_b"}, jobs.Params{})
		if domain.CodeOf(err) != "file_not_found" {
			t.Fatalf("error %v, want file_not_found", err)
		}
		// No Link expected: the mock fails the test if one happens.
	})
}

// blob is a stored blob.
type blob struct{ strings.Builder }

func (*blob) Close() error { return nil }

func TestService_files(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("an upload is stored under its file id and recorded in the library", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		up := f.svc.NewUpload(acme, "people.csv")
		var stored blob
		f.blobs.EXPECT().Create(mock.Anything, mock.Anything).Return(&stored, nil).Once()
		f.tables.EXPECT().Sniff([]byte("a,b\n"), "people.csv").Return(table.CSV, nil).Once()
		if err := f.svc.Store(ctx, up, strings.NewReader("a,b\n")); err != nil {
			t.Fatal(err)
		}
		var recorded domainconnect.File
		f.files.EXPECT().Create(mock.Anything, mock.Anything).Run(func(_ context.Context, file domainconnect.File) { recorded = file }).Return(nil).Once()
		file, err := f.svc.CreateFile(ctx, acme, up)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(file.ID, "file_") || up.Key != domainconnect.BlobKey("org_acme", file.ID) || file.Filename != "people.csv" || file.Format != "csv" ||
			file.SizeBytes != 4 || file.SHA256 != up.SHA256() || !file.CreatedAt.Equal(now) || recorded != file || stored.String() != "a,b\n" {
			t.Fatalf("file %+v at %s, recorded %+v", file, up.Key, recorded)
		}
	})

	t.Run("an upload that did not become a file is removed; none is nothing to remove", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		up := f.svc.NewUpload(acme, "people.csv")
		f.blobs.EXPECT().Delete(mock.Anything, up.Key).Return(nil).Once()
		f.svc.Discard(ctx, up)
		f.svc.Discard(ctx, nil)
	})

	t.Run("reads are the organization's", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.files.EXPECT().Get(mock.Anything, "org_acme", "file_a").Return(domainconnect.File{ID: "file_a"}, nil).Once()
		if file, err := f.svc.GetFile(ctx, acme, "file_a"); err != nil || file.ID != "file_a" {
			t.Fatalf("GetFile = %+v, %v", file, err)
		}
		page := ports.Page{Limit: 3}
		f.files.EXPECT().List(mock.Anything, "org_acme", page).Return([]domainconnect.File{{ID: "file_a"}}, "next", nil).Once()
		if list, next, err := f.svc.ListFiles(ctx, acme, page); err != nil || len(list) != 1 || next != "next" {
			t.Fatalf("ListFiles = %v, %q, %v", list, next, err)
		}
	})
}
