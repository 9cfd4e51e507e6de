package portstest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/ports"
)

// BlobStore is the suite of ports.BlobStore. open returns a fresh, empty
// store.
func BlobStore(t *testing.T, open func(t *testing.T) ports.BlobStore) {
	t.Helper()
	runSteps(t, open, []step[ports.BlobStore]{
		{"write_then_read_whole_and_ranges", blobWriteThenRead},
		{"large_blob_ranges_across_parts", blobLarge},
		{"create_replaces", blobReplace},
		{"missing_blob_is_not_found", blobMissing},
		{"delete", blobDelete},
		{"delete_prefix_removes_only_the_prefix", blobDeletePrefix},
		{"canceled_write_leaves_nothing", blobCanceledWrite},
		{"list_names_the_closed_blobs_under_a_prefix", blobList},
		{"list_stops_at_fns_error", blobListStops},
		{"sweep_leaves_blobs_alone", blobSweep},
	})
}

func putBlob(t *testing.T, s ports.BlobStore, key string, data []byte) {
	t.Helper()
	w, err := s.Create(context.Background(), key)
	ok(t, err)
	if _, err := io.Copy(w, bytes.NewReader(data)); err != nil {
		t.Fatalf("BlobStore.Create(%s) then Write: %v, want the bytes written", key, err)
	}
	ok(t, w.Close())
}

func readBlob(t *testing.T, s ports.BlobStore, key string, offset, length int64) []byte {
	t.Helper()
	r, err := s.Open(context.Background(), key, offset, length)
	ok(t, err)
	defer func() { _ = r.Close() }()
	b, err := io.ReadAll(r)
	ok(t, err)
	return b
}

func blobWriteThenRead(t *testing.T, s ports.BlobStore) {
	data := bytes.Repeat([]byte("0123456789"), 100_000)
	putBlob(t, s, "org/o1/jobs/j1/source", data)
	if n, err := s.Size(context.Background(), "org/o1/jobs/j1/source"); err != nil || n != int64(len(data)) {
		t.Fatalf("BlobStore.Size = %d, %v; want %d", n, err, len(data))
	}
	if !bytes.Equal(readBlob(t, s, "org/o1/jobs/j1/source", 0, -1), data) {
		t.Fatal("BlobStore.Open(0, -1) read other bytes than were written, want the same")
	}
	if got := readBlob(t, s, "org/o1/jobs/j1/source", 999_995, 10); string(got) != "56789" {
		t.Fatalf("BlobStore.Open of a range over the end = %q, want \"56789\" (up to the end)", got)
	}
	if got := readBlob(t, s, "org/o1/jobs/j1/source", 12, 5); string(got) != "23456" {
		t.Fatalf("BlobStore.Open(12, 5) = %q, want \"23456\"", got)
	}
}

// blobLarge writes a blob bigger than an S3 writer's 5 MiB part, so a
// multipart upload, and reads ranges on both sides of and across a part
// boundary.
func blobLarge(t *testing.T, s ports.BlobStore) {
	const size = 12 << 20
	data := make([]byte, size)
	for i := range data {
		data[i] = byte(i * 7 / 3)
	}
	putBlob(t, s, "org/o1/jobs/big/source", data)
	if n, err := s.Size(context.Background(), "org/o1/jobs/big/source"); err != nil || n != size {
		t.Fatalf("BlobStore.Size = %d, %v; want %d", n, err, size)
	}
	for _, rg := range [][2]int64{{0, 10}, {5<<20 - 3, 7}, {size - 4, 4}, {size - 100, -1}, {123_456, 6 << 20}} {
		end := int64(size)
		if rg[1] >= 0 {
			end = rg[0] + rg[1]
		}
		if got := readBlob(t, s, "org/o1/jobs/big/source", rg[0], rg[1]); !bytes.Equal(got, data[rg[0]:end]) {
			t.Fatalf("BlobStore.Open of range %v: %d bytes, want the same bytes as written there", rg, len(got))
		}
	}
}

func blobReplace(t *testing.T, s ports.BlobStore) {
	putBlob(t, s, "org/o1/jobs/j1/rows.jsonl", []byte("first, longer"))
	putBlob(t, s, "org/o1/jobs/j1/rows.jsonl", []byte("second"))
	if got := readBlob(t, s, "org/o1/jobs/j1/rows.jsonl", 0, -1); string(got) != "second" {
		t.Fatalf("BlobStore.Open after a second Create = %q, want \"second\" (the blob replaced)", got)
	}
}

func blobMissing(t *testing.T, s ports.BlobStore) {
	_, err := s.Open(context.Background(), "org/o1/nope", 0, -1)
	isKind(t, err, domain.ErrNotFound, "BlobStore.Open of a missing blob")
	_, err = s.Size(context.Background(), "org/o1/nope")
	isKind(t, err, domain.ErrNotFound, "BlobStore.Size of a missing blob")
}

func blobDelete(t *testing.T, s ports.BlobStore) {
	ctx := context.Background()
	putBlob(t, s, "org/o1/jobs/j1/source", []byte("x"))
	ok(t, s.Delete(ctx, "org/o1/jobs/j1/source"))
	_, err := s.Size(ctx, "org/o1/jobs/j1/source")
	isKind(t, err, domain.ErrNotFound, "BlobStore.Size: a deleted blob")
	if err := s.Delete(ctx, "org/o1/jobs/j1/source"); err != nil {
		t.Fatalf("BlobStore.Delete of a missing blob: %v, want no error", err)
	}
}

func blobDeletePrefix(t *testing.T, s ports.BlobStore) {
	ctx := context.Background()
	keys := []string{"org/o1/jobs/j1/source", "org/o1/jobs/j1/rows.jsonl", "org/o1/jobs/j10/source", "org/o1/jobs/j2/source", "org/o2/jobs/j1/source"}
	for _, k := range keys {
		putBlob(t, s, k, []byte("x"))
	}
	ok(t, s.DeletePrefix(ctx, "org/o1/jobs/j1/"))
	for _, k := range keys {
		_, err := s.Size(ctx, k)
		if gone, want := err != nil, k == keys[0] || k == keys[1]; gone != want {
			t.Errorf("BlobStore.DeletePrefix(org/o1/jobs/j1/): %s gone = %v, want %v (%v)", k, gone, want, err)
		}
	}
}

func blobCanceledWrite(t *testing.T, s ports.BlobStore) {
	ctx, cancel := context.WithCancel(context.Background())
	w, err := s.Create(ctx, "org/o1/partial")
	ok(t, err)
	_, _ = w.Write(bytes.Repeat([]byte("x"), 1000))
	cancel()
	_ = w.Close()
	_, err = s.Size(context.Background(), "org/o1/partial")
	isKind(t, err, domain.ErrNotFound, "BlobStore.Size: a write canceled before Close")
}

func blobList(t *testing.T, s ports.BlobStore) {
	start := time.Now().Add(-2 * time.Second)
	for k, v := range map[string]string{"org/o1/jobs/j1/source": "abc", "org/o1/jobs/j1/rows.jsonl": "{}\n\n", "org/o1/files/f1": "a", "org/o2/jobs/j9/source": "x"} {
		putBlob(t, s, k, []byte(v))
	}
	ctx, cancel := context.WithCancel(context.Background())
	open, err := s.Create(ctx, "org/o1/jobs/j2/source") // not closed: no blob yet
	ok(t, err)
	_, _ = open.Write([]byte("partial"))
	defer func() { cancel(); _ = open.Close() }()
	var got []string
	ok(t, s.List(context.Background(), "org/o1/", func(b ports.BlobInfo) error {
		got = append(got, fmt.Sprintf("%s:%d", b.Key, b.Size))
		if b.ModTime.Before(start) || b.ModTime.After(time.Now().Add(2*time.Second)) {
			t.Errorf("BlobStore.List: %s written at %s, want the time it was written", b.Key, b.ModTime)
		}
		return nil
	}))
	slices.Sort(got)
	if want := []string{"org/o1/files/f1:1", "org/o1/jobs/j1/rows.jsonl:4", "org/o1/jobs/j1/source:3"}; !slices.Equal(got, want) {
		t.Fatalf("BlobStore.List(org/o1/) = %v, want %v", got, want)
	}
}

func blobListStops(t *testing.T, s ports.BlobStore) {
	putBlob(t, s, "org/o1/a", []byte("a"))
	putBlob(t, s, "org/o1/b", []byte("b"))
	stop := errors.New("stop")
	calls := 0
	err := s.List(context.Background(), "org/", func(ports.BlobInfo) error { calls++; return stop })
	if !errors.Is(err, stop) || calls != 1 {
		t.Fatalf("BlobStore.List = %v after %d calls; want fn's error after one", err, calls)
	}
}

// blobSweep: a sweep removes only what unfinished writes left, never a
// blob, however old the time it is given.
func blobSweep(t *testing.T, s ports.BlobStore) {
	putBlob(t, s, "org/o1/jobs/j1/source", []byte("abc"))
	n, err := s.Sweep(context.Background(), "org/", time.Now().Add(time.Hour))
	if err != nil || n != 0 {
		t.Fatalf("BlobStore.Sweep with nothing unfinished = %d, %v; want 0", n, err)
	}
	if got := readBlob(t, s, "org/o1/jobs/j1/source", 0, -1); string(got) != "abc" {
		t.Fatalf("BlobStore.Open after Sweep = %q, want \"abc\" (a finished blob kept)", got)
	}
}

// StagingNode is a blob store and the Staging of its blobs.
type StagingNode struct {
	Store   ports.BlobStore
	Staging ports.Staging
}

// Staging is the suite of ports.Staging. open returns a fresh, empty
// store with its staging.
func Staging(t *testing.T, open func(t *testing.T) StagingNode) {
	t.Helper()
	runSteps(t, open, []step[StagingNode]{
		{"stage_gives_a_local_file_with_the_bytes", stageBytes},
		{"a_missing_blob_is_not_found", stageMissing},
	})
}

func stageBytes(t *testing.T, n StagingNode) {
	data := bytes.Repeat([]byte("a,b\n1,2\n"), 50_000)
	putBlob(t, n.Store, "org/o/jobs/j/source", data)
	path, err := n.Staging.Stage(context.Background(), "org/o/jobs/j/source", t.TempDir())
	ok(t, err)
	if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("Staging.Stage: the staged file has %d bytes, want the blob's %d (%v)", len(got), len(data), err)
	}
}

func stageMissing(t *testing.T, n StagingNode) {
	_, err := n.Staging.Stage(context.Background(), "org/o/jobs/nope/source", t.TempDir())
	isKind(t, err, domain.ErrNotFound, "Staging.Stage of a missing blob")
}
