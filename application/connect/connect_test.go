package connect_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/mock"

	"github.com/tabnorm/tabnorm/application/connect"
	"github.com/tabnorm/tabnorm/application/jobs"
	"github.com/tabnorm/tabnorm/domain"
	domainconnect "github.com/tabnorm/tabnorm/domain/connect"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/mocks"
)

type fixture struct {
	files *mocks.Files
	blobs *mocks.BlobStore
	svc   *connect.Service
}

// newFixture runs transactions inline: the policies are under test here,
// the repositories' own behaviour is tested against real databases.
func newFixture(t *testing.T) fixture {
	t.Helper()
	f := fixture{files: mocks.NewFiles(t), blobs: mocks.NewBlobStore(t)}
	tx := mocks.NewTransactor(t)
	tx.EXPECT().InTx(mock.Anything, mock.Anything).RunAndReturn(func(ctx context.Context, fn func(context.Context) error) error { return fn(ctx) }).Maybe()
	f.svc = connect.NewService(f.files, nil, f.blobs, nil, tx, mocks.NewClock(t), slog.New(slog.DiscardHandler))
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
