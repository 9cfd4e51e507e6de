package client_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/client"
)

// huge answers every request with size bytes: a JSON object whose one
// string never ends (for a JSON call), or rows (for a download), written
// as they go, never held.
func huge(t *testing.T, size int64) *httptest.Server {
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
				return // the client stopped reading
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// allocated is how many bytes fn allocated on the heap.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestCall_answerIsCapped: a JSON answer past the client's limit is an
// error that says so, and reading it allocates about the limit, not the
// answer.
func TestCall_answerIsCapped(t *testing.T) {
	srv := huge(t, 200<<20)
	c := client.New(srv.URL, "svc_live_x", client.WithMaxAnswer(1<<20))
	var err error
	n := allocated(func() { _, err = c.GetJob(context.Background(), "job_1") })
	if !errors.Is(err, client.ErrAnswerTooLarge) || !strings.Contains(err.Error(), "larger than the client's limit") {
		t.Fatalf("a 200 MB answer: %v", err)
	}
	if n > 16<<20 {
		t.Fatalf("reading a 200 MB answer with a 1 MiB limit allocated %d MB", n>>20)
	}
	t.Logf("a 200 MB answer refused after %d KB allocated", n>>10)
}

// TestDownload_streams: a download of 200 MB goes through a small
// buffer: the heap does not grow with it.
func TestDownload_streams(t *testing.T) {
	const size = 200 << 20
	srv := huge(t, size)
	c := client.New(srv.URL, "svc_live_x")
	var copied int64
	n := allocated(func() {
		rc, err := c.Download(context.Background(), "job_1", "rows", "jsonl")
		if err != nil {
			t.Fatal(err)
		}
		defer rc.Close()
		if copied, err = io.Copy(io.Discard, rc); err != nil {
			t.Fatal(err)
		}
	})
	if copied < size {
		t.Fatalf("downloaded %d bytes of %d", copied, size)
	}
	if n > 16<<20 {
		t.Fatalf("a %d MB download allocated %d MB", size>>20, n>>20)
	}
	t.Logf("a %d MB download allocated %d KB", copied>>20, n>>10)
}
