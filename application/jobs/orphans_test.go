package jobs_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"

	"github.com/tabnorm/tabnorm/application/jobs"
	"github.com/tabnorm/tabnorm/ports"
	"github.com/tabnorm/tabnorm/test/mocks"
)

type fixedClock time.Time

func (c fixedClock) Now() time.Time { return time.Time(c) }

var sweepNow = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

// listing makes a blob store's List call fn with blobs.
func listing(blobs []ports.BlobInfo) func(context.Context, string, func(ports.BlobInfo) error) error {
	return func(_ context.Context, _ string, fn func(ports.BlobInfo) error) error {
		for _, b := range blobs {
			if err := fn(b); err != nil {
				return err
			}
		}
		return nil
	}
}

// known answers which of ids are in the set.
func known(set ...string) func(context.Context, []string) (map[string]bool, error) {
	return func(_ context.Context, ids []string) (map[string]bool, error) {
		out := map[string]bool{}
		for _, id := range ids {
			for _, s := range set {
				if id == s {
					out[id] = true
				}
			}
		}
		return out, nil
	}
}

func TestOrphans_Purge(t *testing.T) {
	t.Parallel()
	old, fresh := sweepNow.Add(-25*time.Hour), sweepNow.Add(-23*time.Hour)
	newOrphans := func(t *testing.T) (*jobs.Orphans, *mocks.BlobStore, *mocks.BlobOwners) {
		blobs, owners := mocks.NewBlobStore(t), mocks.NewBlobOwners(t)
		return jobs.NewOrphans(24*time.Hour, owners, blobs, fixedClock(sweepNow), slog.New(slog.DiscardHandler)), blobs, owners
	}

	t.Run("old blobs no record owns go; owned, new and foreign ones stay", func(t *testing.T) {
		t.Parallel()
		o, blobs, owners := newOrphans(t)
		blobs.EXPECT().List(mock.Anything, "org/", mock.Anything).RunAndReturn(listing([]ports.BlobInfo{
			{Key: "org/o1/jobs/job_gone/source", ModTime: old},     // an upload whose job was never created
			{Key: "org/o1/jobs/job_live/source", ModTime: old},     // a job's upload, however old
			{Key: "org/o1/jobs/job_live/rows.jsonl", ModTime: old}, // and its results
			{Key: "org/o1/jobs/job_new/source", ModTime: fresh},    // an upload whose job is being created
			{Key: "org/o1/files/file_gone", ModTime: old},          // a library upload that never became a file
			{Key: "org/o1/files/file_live", ModTime: old},          // a library file
			{Key: "org/o1/elsewhere/x", ModTime: old},              // not a shape the sweep knows
			{Key: "org/o1/jobs/job_gone", ModTime: old},
		}))
		owners.EXPECT().Jobs(mock.Anything, []string{"job_gone", "job_live"}).RunAndReturn(known("job_live"))
		owners.EXPECT().Files(mock.Anything, []string{"file_gone", "file_live"}).RunAndReturn(known("file_live"))
		blobs.EXPECT().Delete(mock.Anything, "org/o1/jobs/job_gone/source").Return(nil).Once()
		blobs.EXPECT().Delete(mock.Anything, "org/o1/files/file_gone").Return(nil).Once()
		blobs.EXPECT().Sweep(mock.Anything, "org/", sweepNow.Add(-24*time.Hour)).Return(3, nil).Once()
		n, err := o.Purge(context.Background())
		if err != nil || n != 5 {
			t.Fatalf("Purge = %d, %v; want 2 blobs and 3 leftovers", n, err)
		}
		// The mocks fail the test on any other Delete.
	})

	t.Run("the database is asked in batches", func(t *testing.T) {
		t.Parallel()
		o, blobs, owners := newOrphans(t)
		var many []ports.BlobInfo
		for i := range 1201 {
			many = append(many, ports.BlobInfo{Key: fmt.Sprintf("org/o1/jobs/job_%04d/source", i), ModTime: old})
		}
		blobs.EXPECT().List(mock.Anything, "org/", mock.Anything).RunAndReturn(listing(many))
		var sizes []int
		owners.EXPECT().Jobs(mock.Anything, mock.Anything).RunAndReturn(func(ctx context.Context, ids []string) (map[string]bool, error) {
			sizes = append(sizes, len(ids))
			return known()(ctx, ids)
		})
		owners.EXPECT().Files(mock.Anything, mock.Anything).Return(map[string]bool{}, nil)
		blobs.EXPECT().Delete(mock.Anything, mock.Anything).Return(nil).Times(1201)
		blobs.EXPECT().Sweep(mock.Anything, "org/", mock.Anything).Return(0, nil)
		if n, err := o.Purge(context.Background()); err != nil || n != 1201 {
			t.Fatalf("Purge = %d, %v", n, err)
		}
		if fmt.Sprint(sizes) != "[500 500 201]" {
			t.Fatalf("batches of %v", sizes)
		}
	})

	t.Run("a failure stops the sweep and is returned", func(t *testing.T) {
		t.Parallel()
		o, blobs, owners := newOrphans(t)
		blobs.EXPECT().List(mock.Anything, "org/", mock.Anything).RunAndReturn(listing([]ports.BlobInfo{{Key: "org/o1/jobs/job_gone/source", ModTime: old}}))
		owners.EXPECT().Jobs(mock.Anything, mock.Anything).RunAndReturn(known())
		owners.EXPECT().Files(mock.Anything, mock.Anything).RunAndReturn(known())
		broken := errors.New("disk gone")
		blobs.EXPECT().Delete(mock.Anything, "org/o1/jobs/job_gone/source").Return(broken)
		if _, err := o.Purge(context.Background()); !errors.Is(err, broken) {
			t.Fatalf("Purge error %v", err)
		}
	})
}

type purgeFunc func(context.Context) (int, error)

func (f purgeFunc) Purge(ctx context.Context) (int, error) { return f(ctx) }

func TestPurgers_runAllAndSum(t *testing.T) {
	t.Parallel()
	broken := errors.New("broken")
	ran := 0
	ps := jobs.Purgers{
		purgeFunc(func(context.Context) (int, error) { ran++; return 1, broken }),
		purgeFunc(func(context.Context) (int, error) { ran++; return 2, nil }),
	}
	n, err := ps.Purge(context.Background())
	if n != 3 || ran != 2 || !errors.Is(err, broken) {
		t.Fatalf("Purge = %d, %v after %d purgers", n, err, ran)
	}
}

func TestOrphans_SweepWorkdirs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	old := sweepNow.Add(-25 * time.Hour)
	for name, at := range map[string]time.Time{
		"tabnorm-job-111": old,                           // a killed worker's: removed, with its copy
		"tabnorm-job-222": sweepNow.Add(-23 * time.Hour), // a run that may still be going: kept
		"other-333":       old,                           // not a job's: kept
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(p, 0o750); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "source-0"), []byte("a,b\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
	o := jobs.NewOrphans(24*time.Hour, mocks.NewBlobOwners(t), mocks.NewBlobStore(t), fixedClock(sweepNow), slog.New(slog.DiscardHandler))
	n, err := o.SweepWorkdirs(context.Background(), dir)
	if err != nil || n != 1 {
		t.Fatalf("SweepWorkdirs = %d, %v", n, err)
	}
	entries, _ := os.ReadDir(dir)
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if fmt.Sprint(left) != "[other-333 tabnorm-job-222]" {
		t.Fatalf("left %v", left)
	}
}
