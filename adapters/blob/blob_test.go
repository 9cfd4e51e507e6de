package blob

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/blob/blobtest"
	"github.com/tabnorm/tabnorm/domain"
)

func stores(t *testing.T) map[string]*Store {
	t.Helper()
	out := map[string]*Store{}
	urls := map[string]string{"file": "file://" + t.TempDir() + "/blobs", "mem": "mem://"}
	if srv, ok := blobtest.S3(t); ok {
		urls["s3"] = srv.URL(srv.Bucket(t))
	}
	for name, u := range urls {
		s, err := Open(context.Background(), u)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		out[name] = s
	}
	return out
}

func TestStore_contract(t *testing.T) {
	t.Parallel()
	for name, s := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			data := bytes.Repeat([]byte("0123456789"), 100_000)
			w, err := s.Create(ctx, "org/o1/jobs/j1/source")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.Copy(w, bytes.NewReader(data)); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if n, err := s.Size(ctx, "org/o1/jobs/j1/source"); err != nil || n != int64(len(data)) {
				t.Fatalf("Size = %d, %v", n, err)
			}
			r, err := s.Open(ctx, "org/o1/jobs/j1/source", 999_995, 10)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(r)
			r.Close()
			if string(got) != "56789" {
				t.Fatalf("range read %q", got)
			}
			r, _ = s.Open(ctx, "org/o1/jobs/j1/source", 0, -1)
			all, _ := io.ReadAll(r)
			r.Close()
			if !bytes.Equal(all, data) {
				t.Fatal("full read differs")
			}
			for _, k := range []string{"org/o1/jobs/j1/rows.jsonl", "org/o1/jobs/j2/source", "org/o2/jobs/j1/source"} {
				w, _ := s.Create(ctx, k)
				_, _ = w.Write([]byte("x"))
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.DeletePrefix(ctx, "org/o1/jobs/j1/"); err != nil {
				t.Fatal(err)
			}
			for k, want := range map[string]bool{"org/o1/jobs/j1/source": false, "org/o1/jobs/j1/rows.jsonl": false, "org/o1/jobs/j2/source": true, "org/o2/jobs/j1/source": true} {
				_, err := s.Size(ctx, k)
				if exists := err == nil; exists != want {
					t.Errorf("%s exists=%v, want %v (%v)", k, exists, want, err)
				}
			}
			if _, err := s.Open(ctx, "nope", 0, -1); !errors.Is(err, domain.ErrNotFound) {
				t.Fatalf("missing blob: %v", err)
			}
			if err := s.Delete(ctx, "nope"); err != nil {
				t.Fatalf("deleting a missing blob: %v", err)
			}
		})
	}
}

func TestStore_abandonedWriteLeavesNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := Open(context.Background(), "file://"+dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	w, err := s.Create(ctx, "partial")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = w.Write([]byte(strings.Repeat("x", 1000)))
	cancel()
	_ = w.Close()
	if _, err := s.Size(context.Background(), "partial"); err == nil {
		t.Fatal("an abandoned write left a blob")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		t.Errorf("left behind: %s", filepath.Join(dir, e.Name()))
	}
}

func TestOpen_relativeFolderIsCreated(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	s, err := Open(context.Background(), "file://./data/blobs")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if fi, err := os.Stat(filepath.Join(dir, "data", "blobs")); err != nil || !fi.IsDir() {
		t.Fatalf("folder not created: %v", err)
	}
}

func TestStore_localPath(t *testing.T) {
	t.Parallel()
	stores := stores(t)
	ctx := context.Background()
	for name, s := range stores {
		w, _ := s.Create(ctx, "org/o/jobs/j/source")
		_, _ = w.Write([]byte("a,b\n"))
		_ = w.Close()
		p, ok := s.LocalPath("org/o/jobs/j/source")
		if name != "file" {
			if ok {
				t.Fatalf("a %s store has no local path", name)
			}
			continue
		}
		b, err := os.ReadFile(p)
		if !ok || err != nil || string(b) != "a,b\n" {
			t.Fatalf("%s: %q %v %v", name, p, ok, err)
		}
		if _, ok := s.LocalPath("org/o/../../etc/passwd"); ok {
			t.Fatal("a path outside the store")
		}
	}
}

// TestStore_largeBlob writes a blob bigger than the S3 writer's 5 MiB part,
// so S3 takes it as a multipart upload, and reads ranges on both sides of
// and across the part boundary.
func TestStore_largeBlob(t *testing.T) {
	t.Parallel()
	const size = 12 << 20
	data := make([]byte, size)
	for i := range data {
		data[i] = byte(i * 7 / 3)
	}
	for name, s := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			w, err := s.Create(ctx, "org/o1/jobs/big/source")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.Copy(w, bytes.NewReader(data)); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if n, err := s.Size(ctx, "org/o1/jobs/big/source"); err != nil || n != size {
				t.Fatalf("Size = %d, %v", n, err)
			}
			for _, rg := range [][2]int64{{0, 10}, {5<<20 - 3, 7}, {size - 4, 4}, {size - 100, -1}, {123_456, 6 << 20}} {
				r, err := s.Open(ctx, "org/o1/jobs/big/source", rg[0], rg[1])
				if err != nil {
					t.Fatal(err)
				}
				got, err := io.ReadAll(r)
				r.Close()
				end := int64(size)
				if rg[1] >= 0 {
					end = rg[0] + rg[1]
				}
				if err != nil || !bytes.Equal(got, data[rg[0]:end]) {
					t.Fatalf("range %v: %d bytes, %v", rg, len(got), err)
				}
			}
			if err := s.Delete(ctx, "org/o1/jobs/big/source"); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Size(ctx, "org/o1/jobs/big/source"); !errors.Is(err, domain.ErrNotFound) {
				t.Fatalf("after Delete: %v", err)
			}
		})
	}
}

func TestStore_ready(t *testing.T) {
	t.Parallel()
	for name, s := range stores(t) {
		t.Run(name, func(t *testing.T) {
			if err := s.Ready(context.Background()); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestStore_readyMissingBucket: a bucket that does not exist is a clear
// readiness failure, not an error at the first upload.
func TestStore_readyMissingBucket(t *testing.T) {
	t.Parallel()
	srv, ok := blobtest.S3(t)
	if !ok {
		t.Skip("*** SKIPPED: needs an S3-compatible server (" + blobtest.EnvEndpoint + ") ***")
	}
	s, err := Open(context.Background(), srv.URL("tabnorm-no-such-bucket"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	err = s.Ready(context.Background())
	if err == nil || !strings.Contains(err.Error(), "bucket not found") {
		t.Fatalf("Ready = %v, want bucket not found", err)
	}
}
