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

	"github.com/tabnorm/tabnorm/domain"
)

func stores(t *testing.T) map[string]*Store {
	t.Helper()
	out := map[string]*Store{}
	for name, u := range map[string]string{"file": "file://" + t.TempDir() + "/blobs", "mem": "mem://"} {
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
		if name == "mem" {
			if ok {
				t.Fatal("a memory store has no local path")
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
