package blob

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/blob/blobtest"
	"github.com/tabnorm/tabnorm/ports"
)

func put(t *testing.T, s *Store, key, content string) {
	t.Helper()
	w, err := s.Create(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = w.Write([]byte(content))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestStore_listSkipsLocalLeftovers: what a killed writer leaves beside
// its key in a local folder is no blob. (The BlobStore suite checks the
// rest of List on every kind of store.)
func TestStore_listSkipsLocalLeftovers(t *testing.T) {
	t.Parallel()
	s := stores(t)["file"]
	put(t, s, "org/o1/jobs/j1/rows.jsonl", "{}\n")
	if err := os.WriteFile(filepath.Join(s.dir, "org/o1/jobs/j1/rows.jsonl.18b2c3d4e5f.tmp"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	var keys []string
	if err := s.List(context.Background(), "org/o1/", func(b ports.BlobInfo) error { keys = append(keys, b.Key); return nil }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(keys, []string{"org/o1/jobs/j1/rows.jsonl"}) {
		t.Fatalf("List = %v, want the blob alone", keys)
	}
}

func TestStore_sweepLocalLeftovers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := Open(context.Background(), "file://"+dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	now := time.Now()
	old := now.Add(-48 * time.Hour)
	file := func(key string, at time.Time) {
		p := filepath.Join(dir, filepath.FromSlash(key))
		if err := os.MkdirAll(filepath.Dir(p), 0o750); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
	folder := func(key string, at time.Time) {
		p := filepath.Join(dir, filepath.FromSlash(key))
		if err := os.MkdirAll(p, 0o750); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
	file("org/o1/jobs/j1/source", old)                     // a blob, however old: kept
	file("org/o1/jobs/j1/rows.jsonl.18b2c3d4e5f.tmp", old) // a killed attempt's results: removed
	file("org/o1/jobs/j2/rows.jsonl.18b2c3d4e60.tmp", now) // a running job's results: kept
	file("org/o1/files/f1.18b2c3d4e61.tmp", old)           // a crashed upload: removed
	file("other/x.18b2c3d4e62.tmp", old)                   // not under the prefix: kept
	folder("org/o1/jobs/j3", old)                          // empty and old: removed
	folder("org/o1/jobs/j4", now)                          // empty but new: kept
	file("org/o1/jobs/j5/source.18b2c3d4e63.tmp", old)     // all that is in an old folder: both removed
	folder("org/o1/jobs/j5", old)
	// org/o1/files changed just now (its file was written): emptied by the sweep, but kept for now

	n, err := s.Sweep(context.Background(), "org/", now.Add(-24*time.Hour))
	if err != nil || n != 5 {
		t.Fatalf("Sweep = %d, %v; want 5", n, err)
	}
	for key, want := range map[string]bool{
		"org/o1/jobs/j1/source": true, "org/o1/jobs/j1/rows.jsonl.18b2c3d4e5f.tmp": false, "org/o1/jobs/j2/rows.jsonl.18b2c3d4e60.tmp": true,
		"org/o1/files/f1.18b2c3d4e61.tmp": false, "other/x.18b2c3d4e62.tmp": true, "org/o1/jobs/j3": false, "org/o1/jobs/j4": true,
		"org/o1/jobs/j5": false, "org/o1/files": true,
	} {
		_, err := os.Stat(filepath.Join(dir, filepath.FromSlash(key)))
		if exists := err == nil; exists != want {
			t.Errorf("%s exists=%v, want %v", key, exists, want)
		}
	}
	put(t, s, "org/o1/jobs/j3/source", "a") // a removed folder is made again
}

func TestStore_deleteLeavesNoEmptyFolder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := Open(context.Background(), "file://"+dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	for _, k := range []string{"org/o1/jobs/j1/source", "org/o1/jobs/j1/rows.jsonl", "org/o1/files/f1"} {
		put(t, s, k, "x")
	}
	if err := s.DeletePrefix(ctx, "org/o1/jobs/j1/"); err != nil {
		t.Fatal(err)
	}
	exists := func(key string) bool {
		_, err := os.Stat(filepath.Join(dir, filepath.FromSlash(key)))
		return err == nil
	}
	if exists("org/o1/jobs/j1") || exists("org/o1/jobs") || !exists("org/o1/files/f1") {
		t.Fatal("DeletePrefix left an empty folder, or removed too much")
	}
	if err := s.Delete(ctx, "org/o1/files/f1"); err != nil {
		t.Fatal(err)
	}
	if exists("org") {
		t.Fatal("Delete left empty folders")
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
		t.Fatalf("the store's own folder: %v %v", entries, err)
	}
	put(t, s, "org/o1/jobs/j2/source", "x")
}

// TestStore_createBesideRemovals: writes go on while other blobs of the
// same folders are deleted and their folders removed; none fails.
func TestStore_createBesideRemovals(t *testing.T) {
	t.Parallel()
	s, err := Open(context.Background(), "file://"+t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for w := range 4 {
		wg.Go(func() {
			for i := range 300 {
				key := fmt.Sprintf("org/o1/jobs/j%d/source", (i+w)%3)
				wr, err := s.Create(ctx, key)
				if err == nil {
					_, _ = wr.Write([]byte("x"))
					err = wr.Close()
				}
				if err == nil {
					err = s.Delete(ctx, key)
				}
				if err != nil && !errors.Is(err, fs.ErrNotExist) {
					errs <- err
					return
				}
			}
		})
	}
	wg.Go(func() {
		for range 300 {
			if _, err := s.Sweep(ctx, "org/", time.Now().Add(time.Hour)); err != nil {
				errs <- err
				return
			}
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestStore_sweepUnfinishedUploads(t *testing.T) {
	t.Parallel()
	srv, ok := blobtest.S3(t)
	if !ok {
		return
	}
	bucket := srv.Bucket(t)
	s, err := Open(context.Background(), srv.URL(bucket))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	srv.StartUpload(t, bucket, "org/o1/jobs/j1/rows.jsonl")
	srv.StartUpload(t, bucket, "other/x")
	ctx := context.Background()
	if n, err := s.Sweep(ctx, "org/", time.Now().Add(-time.Hour)); err != nil || n != 0 {
		t.Fatalf("Sweep of uploads newer than the cutoff = %d, %v", n, err)
	}
	if got := srv.Uploads(t, bucket, ""); len(got) != 2 {
		t.Fatalf("uploads %v", got)
	}
	if n, err := s.Sweep(ctx, "org/", time.Now().Add(time.Minute)); err != nil || n != 1 {
		t.Fatalf("Sweep = %d, %v; want 1", n, err)
	}
	if got := srv.Uploads(t, bucket, ""); !slices.Equal(got, []string{"other/x"}) {
		t.Fatalf("uploads left: %v", got)
	}
}

// TestStore_sweepUnreadableFolder: a folder the sweep cannot read is an
// error naming it, not a sweep that silently did nothing there.
// Not parallel: it replaces the package's readDir while it runs.
func TestStore_sweepUnreadableFolder(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(context.Background(), "file://"+dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	put(t, s, "org/o1/jobs/j1/source", "x")
	broken := errors.New("input/output error")
	readDir = func(name string) ([]os.DirEntry, error) {
		if filepath.Base(name) == "j1" {
			return nil, broken
		}
		return os.ReadDir(name)
	}
	defer func() { readDir = os.ReadDir }()
	_, err = s.Sweep(context.Background(), "org/", time.Now())
	if !errors.Is(err, broken) || !strings.Contains(err.Error(), "org/o1/jobs/") {
		t.Fatalf("Sweep over an unreadable folder = %v; want an error naming org/o1/jobs/j1", err)
	}
}
