package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// hugeServer answers a job's rows download with size bytes of rows and
// every other request with a JSON answer of size bytes, written as they
// go.
func hugeServer(t *testing.T, size int64) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		chunk := []byte(strings.Repeat(`{"id":1,"email":"ann@x.io"}`+"\n", 2048))
		if strings.HasSuffix(r.URL.Path, ".jsonl") {
			w.Header().Set("Content-Type", "application/x-ndjson")
		} else {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"id":"job_1","object":"job","status":"`)
			chunk = []byte(strings.Repeat("x", len(chunk)))
		}
		for sent := int64(0); sent < size; sent += int64(len(chunk)) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func allocatedBy(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestRemote_boundedAnswers: the CLI refuses a JSON answer past the
// client's limit with a clear error instead of holding it, and streams a
// download to its file with a heap that does not grow with it.
func TestRemote_boundedAnswers(t *testing.T) {
	const size = 200 << 20
	srv := hugeServer(t, size)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	t.Setenv("TABNORM_API_URL", srv.URL)
	t.Setenv("TABNORM_API_KEY", "svc_live_x")
	var err error
	n := allocatedBy(func() { _, _, err = runRemote(t, "jobs", "get", "job_1") })
	if err == nil || !strings.Contains(err.Error(), "larger than the client's limit") {
		t.Fatalf("jobs get of a 200 MB answer: %v", err)
	}
	if n > 128<<20 {
		t.Fatalf("jobs get of a 200 MB answer allocated %d MB", n>>20)
	}
	out := filepath.Join(t.TempDir(), "rows.jsonl")
	n = allocatedBy(func() { _, _, err = runRemote(t, "jobs", "rows", "job_1", "-o", out) })
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(out); err != nil || fi.Size() < size {
		t.Fatalf("the download: %v, %v", fi, err)
	}
	if n > 16<<20 {
		t.Fatalf("a 200 MB download allocated %d MB", n>>20)
	}
	t.Logf("a 200 MB download to a file allocated %d KB", n>>10)
}
