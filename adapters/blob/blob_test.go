package blob

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/blob/blobtest"
	"github.com/tabnorm/tabnorm/ports"
	"github.com/tabnorm/tabnorm/ports/portstest"
)

// kinds opens a fresh store of each kind: a local folder, memory, and an
// S3 bucket when a server is configured.
func kinds(t *testing.T) map[string]func(t *testing.T) *Store {
	t.Helper()
	urls := map[string]func(t *testing.T) string{
		"file": func(t *testing.T) string { return "file://" + t.TempDir() + "/blobs" },
		"mem":  func(*testing.T) string { return "mem://" },
	}
	if srv, ok := blobtest.S3(t); ok {
		urls["s3"] = func(t *testing.T) string { return srv.URL(srv.Bucket(t)) }
	}
	out := map[string]func(t *testing.T) *Store{}
	for name, u := range urls {
		out[name] = func(t *testing.T) *Store {
			t.Helper()
			s, err := Open(context.Background(), u(t))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Close() })
			return s
		}
	}
	return out
}

// stores opens one store of each kind.
func stores(t *testing.T) map[string]*Store {
	t.Helper()
	out := map[string]*Store{}
	for name, open := range kinds(t) {
		out[name] = open(t)
	}
	return out
}

// TestStore_conformance runs the BlobStore suite on every kind of store.
func TestStore_conformance(t *testing.T) {
	t.Parallel()
	for name, open := range kinds(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			portstest.BlobStore(t, func(t *testing.T) ports.BlobStore { return open(t) })
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

// TestStore_stagingConformance runs the Staging suite on every kind of
// store.
func TestStore_stagingConformance(t *testing.T) {
	t.Parallel()
	for name, open := range kinds(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			portstest.Staging(t, func(t *testing.T) portstest.StagingNode {
				s := open(t)
				return portstest.StagingNode{Store: s, Staging: s}
			})
		})
	}
}

func TestStore_ready(t *testing.T) {
	t.Parallel()
	for name, open := range kinds(t) {
		t.Run(name, func(t *testing.T) {
			if err := open(t).Ready(context.Background()); err != nil {
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
