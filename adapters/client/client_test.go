package client_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/tabnorm/tabnorm/adapters/client"
)

// front is a real HTTP server on loopback in front of the test server:
// intercept answers what it wants to and returns true; everything else
// goes through to the server. It keeps every request it saw.
type front struct {
	*httptest.Server
	mu   sync.Mutex
	seen []*http.Request
}

func newFront(t *testing.T, intercept func(w http.ResponseWriter, r *http.Request, n int) bool) *front {
	t.Helper()
	target, _ := url.Parse(serverURL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	f := &front{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.seen = append(f.seen, r.Clone(context.Background()))
		n := len(f.seen) - 1
		f.mu.Unlock()
		if intercept != nil && intercept(w, r, n) {
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *front) requests() []*http.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.seen)
}

// finishedJob runs a job to its end on the test server.
func finishedJob(t *testing.T, c *client.Client, csv string) *client.Job {
	t.Helper()
	ctx := context.Background()
	j, err := c.CreateJob(ctx, client.Upload{Filename: "p.csv", Body: strings.NewReader(csv)}, client.JobParams{Schema: []byte(people)})
	if err != nil {
		t.Fatal(err)
	}
	if j, err = c.Wait(ctx, j.ID); err != nil || j.Status != "succeeded" {
		t.Fatalf("job %+v: %v", j, err)
	}
	return j
}

func peopleCSV(n int) string {
	var b strings.Builder
	b.WriteString("id,email\n")
	for i := range n {
		fmt.Fprintf(&b, "%d,user%d@example.com\n", i+1, i)
	}
	return b.String()
}

// TestFollow_reconnectsWithLastEventID: a stream that breaks off, once
// between events and once inside one, is reopened with the id of the
// last whole event; every event arrives once, in order, up to the end.
func TestFollow_reconnectsWithLastEventID(t *testing.T) {
	key := newOrgKey(t)
	direct := client.New(serverURL, key)
	j := finishedJob(t, direct, peopleCSV(3))
	want := followAll(t, direct, j.ID)
	if len(want) < 3 || !want[len(want)-1].Terminal() {
		t.Fatalf("the job's events: %+v", want)
	}

	// The first stream ends after two events; the second after one event
	// and the first line of the next; the third is whole.
	cut := &cuttingProxy{t: t, cuts: []int{2, 1}}
	f := newFront(t, cut.intercept)
	got := followAll(t, client.New(f.URL, key, client.WithRetries(3, time.Millisecond)), j.ID)
	if len(got) != len(want) {
		t.Fatalf("%d events through the broken streams, %d direct", len(got), len(want))
	}
	for i := range want {
		if got[i].ID != want[i].ID || got[i].Kind != want[i].Kind || string(got[i].Data) != string(want[i].Data) {
			t.Fatalf("event %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if !got[len(got)-1].Terminal() || got[len(got)-1].Job == nil || got[len(got)-1].Job.ID != j.ID {
		t.Fatalf("the last event %+v is not the job's end", got[len(got)-1])
	}
	if wantIDs := []string{"", want[1].ID, want[2].ID}; !slices.Equal(cut.lastIDs, wantIDs) {
		t.Fatalf("Last-Event-ID per stream %q, want %q", cut.lastIDs, wantIDs)
	}
}

// followAll follows a job's events to its end.
func followAll(t *testing.T, c *client.Client, jobID string) []client.Event {
	t.Helper()
	var evs []client.Event
	for ev, err := range c.Follow(context.Background(), jobID) {
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
	return evs
}

// cuttingProxy passes event streams through, dropping stream i's
// connection after cuts[i] events (the second one inside the next event),
// and records each stream's Last-Event-ID.
type cuttingProxy struct {
	t       *testing.T
	cuts    []int
	mu      sync.Mutex
	lastIDs []string
}

func (c *cuttingProxy) intercept(w http.ResponseWriter, r *http.Request, _ int) bool {
	if !strings.HasSuffix(r.URL.Path, "/events") {
		return false
	}
	c.mu.Lock()
	stream := len(c.lastIDs)
	c.lastIDs = append(c.lastIDs, r.Header.Get("Last-Event-ID"))
	c.mu.Unlock()
	req, _ := http.NewRequestWithContext(r.Context(), "GET", serverURL+r.URL.Path, nil)
	req.Header = r.Header.Clone()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Error(err)
		panic(http.ErrAbortHandler)
	}
	defer res.Body.Close()
	for k, v := range res.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(res.StatusCode)
	if stream >= len(c.cuts) {
		_, _ = io.Copy(w, res.Body)
		return true
	}
	sc := bufio.NewScanner(res.Body)
	events := 0
	for sc.Scan() {
		fmt.Fprintf(w, "%s\n", sc.Text())
		if sc.Text() == "" {
			events++
		}
		if events == c.cuts[stream] {
			if stream == 1 && sc.Scan() {
				fmt.Fprintf(w, "%s\n", sc.Text()) // "id: …" of an event that never ends
			}
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler) // the connection drops
		}
	}
	return true
}

// TestErrors_typed: an error answer is an *Error with the problem's
// status, code, request id and field errors; an answer that is not a
// problem (a proxy's page) keeps its status as http_<status>.
func TestErrors_typed(t *testing.T) {
	ctx := context.Background()
	c := client.New(serverURL, newOrgKey(t))
	_, err := c.CreateSchema(ctx, "bad", json.RawMessage(`{"fields":[{"name":"a","type":"money"}]}`))
	var e *client.Error
	if !errors.As(err, &e) {
		t.Fatalf("%T %v", err, err)
	}
	if e.Status != 422 || e.Code != "invalid_schema" || !strings.HasPrefix(e.RequestID, "req_") || len(e.Errors) != 1 || e.Errors[0].Field != "schema.fields[0].type" ||
		!client.IsCode(err, "invalid_schema") || client.IsCode(err, "not_found") {
		t.Fatalf("error %+v", e)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "invalid_schema: ") || !strings.Contains(msg, "request "+e.RequestID) || !strings.Contains(msg, "schema.fields[0].type") {
		t.Fatalf("message %q", msg)
	}
	_, err = client.New(serverURL, newOrgKey(t, "jobs:read")).CreateSchema(ctx, "people", json.RawMessage(people))
	if !errors.As(err, &e) || e.Status != 403 || e.Code != client.CodeInsufficientScope || e.RequiredScope != "schemas:write" {
		t.Fatalf("a key without the scope: %+v", err)
	}
	_, err = client.New(serverURL, "svc_live_nope").GetJob(ctx, "job_x")
	if !errors.As(err, &e) || e.Status != 401 || e.Code != "invalid_api_key" {
		t.Fatalf("bad key: %v", err)
	}

	page := newFront(t, func(w http.ResponseWriter, _ *http.Request, _ int) bool {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("X-Request-Id", "req_proxy")
		w.WriteHeader(http.StatusBadGateway)
		_, _ = io.WriteString(w, "<h1>Bad gateway</h1>")
		return true
	})
	_, err = client.New(page.URL, "k", client.WithRetries(1, time.Millisecond)).GetJob(ctx, "job_x")
	if !errors.As(err, &e) || e.Status != 502 || e.Code != "http_502" || e.RequestID != "req_proxy" || e.Detail != "<h1>Bad gateway</h1>" {
		t.Fatalf("proxy page: %+v", err)
	}
	if n := len(page.requests()); n != 2 {
		t.Fatalf("a 502 was tried %d times, want 2 (one retry)", n)
	}
}

// TestRetries: 429 and 5xx are retried after the longer of the backoff and
// Retry-After; other errors are not retried; when the retries run out the
// last answer is the error.
func TestRetries(t *testing.T) {
	ctx := context.Background()
	key := newOrgKey(t)
	t.Run("Retry-After is honoured", func(t *testing.T) {
		f := newFront(t, func(w http.ResponseWriter, _ *http.Request, n int) bool {
			if n > 0 {
				return false
			}
			w.Header().Set("Retry-After", "1")
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = io.WriteString(w, `{"status":429,"code":"rate_limited","detail":"slow down","request_id":"req_1"}`)
			return true
		})
		start := time.Now()
		for _, err := range client.New(f.URL, key, client.WithRetries(3, time.Millisecond)).Jobs(ctx, client.ListParams{}) {
			if err != nil {
				t.Fatal(err)
			}
		}
		if d := time.Since(start); d < time.Second || d > 10*time.Second {
			t.Fatalf("retried after %s, want the 1 s Retry-After asked", d)
		}
		if n := len(f.requests()); n != 2 {
			t.Fatalf("%d requests, want 2", n)
		}
	})
	t.Run("4xx is not retried", func(t *testing.T) {
		f := newFront(t, nil)
		_, err := client.New(f.URL, key, client.WithRetries(3, time.Millisecond)).GetJob(ctx, "job_nope")
		if !client.IsCode(err, "not_found") || len(f.requests()) != 1 {
			t.Fatalf("%v after %d requests", err, len(f.requests()))
		}
	})
	t.Run("retries run out", func(t *testing.T) {
		f := newFront(t, func(w http.ResponseWriter, _ *http.Request, n int) bool {
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintf(w, `{"status":503,"code":"unavailable","detail":"down","request_id":"req_%d"}`, n)
			return true
		})
		_, err := client.New(f.URL, key, client.WithRetries(2, time.Millisecond)).GetJob(ctx, "job_x")
		var e *client.Error
		if !errors.As(err, &e) || e.Code != "unavailable" || e.RequestID != "req_2" || len(f.requests()) != 3 {
			t.Fatalf("%v after %d requests", err, len(f.requests()))
		}
	})
	t.Run("a broken connection is retried", func(t *testing.T) {
		f := newFront(t, func(_ http.ResponseWriter, _ *http.Request, n int) bool {
			if n > 0 {
				return false
			}
			panic(http.ErrAbortHandler) // the connection closes without an answer
		})
		for _, err := range client.New(f.URL, key, client.WithRetries(3, time.Millisecond)).Schemas(ctx, client.ListParams{}) {
			if err != nil {
				t.Fatal(err)
			}
		}
		if n := len(f.requests()); n != 2 {
			t.Fatalf("%d requests, want 2", n)
		}
	})
}

// TestCreate_answerLostIsRetriedSafely: the server made the schema but its
// answer was lost on the way; the retry carries the same Idempotency-Key,
// so the server replays its answer instead of making a second schema.
func TestCreate_answerLostIsRetriedSafely(t *testing.T) {
	ctx := context.Background()
	key := newOrgKey(t)
	target, _ := url.Parse(serverURL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	f := newFront(t, func(w http.ResponseWriter, r *http.Request, n int) bool {
		if n > 0 {
			return false
		}
		rec := httptest.NewRecorder()
		proxy.ServeHTTP(rec, r) // the server does the work ...
		if rec.Code != http.StatusCreated {
			t.Errorf("first attempt: %d %s", rec.Code, rec.Body)
		}
		w.WriteHeader(http.StatusBadGateway) // ... and its answer is lost
		return true
	})
	s, err := client.New(f.URL, key, client.WithRetries(3, time.Millisecond)).CreateSchema(ctx, "people", json.RawMessage(people))
	if err != nil {
		t.Fatal(err)
	}
	reqs := f.requests()
	if len(reqs) != 2 || reqs[0].Header.Get("Idempotency-Key") == "" || reqs[0].Header.Get("Idempotency-Key") != reqs[1].Header.Get("Idempotency-Key") {
		t.Fatalf("%d attempts, keys %q", len(reqs), []string{reqs[0].Header.Get("Idempotency-Key"), reqs[len(reqs)-1].Header.Get("Idempotency-Key")})
	}
	var ids []string
	for saved, err := range client.New(serverURL, key).Schemas(ctx, client.ListParams{}) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, saved.ID)
	}
	if len(ids) != 1 || ids[0] != s.ID {
		t.Fatalf("schemas %v, want only %s", ids, s.ID)
	}
	// Two calls are two creations: each call has a key of its own.
	if _, err := client.New(serverURL, key).CreateSchema(ctx, "people", json.RawMessage(people)); err != nil {
		t.Fatal(err)
	}
}

// TestIterators_pageByCursor: lists and rows are fetched a page at a time
// as the loop goes on, each page from the cursor of the one before, and
// no further than the loop goes.
func TestIterators_pageByCursor(t *testing.T) {
	ctx := context.Background()
	key := newOrgKey(t)
	direct := client.New(serverURL, key)
	var made []string
	for i := range 5 {
		s, err := direct.CreateSchema(ctx, fmt.Sprintf("s%d", i), json.RawMessage(people))
		if err != nil {
			t.Fatal(err)
		}
		made = append(made, s.ID)
	}
	slices.Reverse(made) // newest first

	f := newFront(t, nil)
	c := client.New(f.URL, key)
	var got []string
	for s, err := range c.Schemas(ctx, client.ListParams{PageSize: 2}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, s.ID)
	}
	if !slices.Equal(got, made) {
		t.Fatalf("schemas %v, want %v", got, made)
	}
	reqs := f.requests()
	if len(reqs) != 3 || reqs[0].URL.Query().Get("cursor") != "" || reqs[1].URL.Query().Get("cursor") == "" ||
		reqs[2].URL.Query().Get("cursor") == reqs[1].URL.Query().Get("cursor") || reqs[2].URL.Query().Get("limit") != "2" {
		t.Fatalf("pages fetched: %v", queries(reqs))
	}

	// Stopping early fetches no further page.
	f = newFront(t, nil)
	n := 0
	for _, err := range client.New(f.URL, key).Schemas(ctx, client.ListParams{PageSize: 2}) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 3 {
			break
		}
	}
	if len(f.requests()) != 2 {
		t.Fatalf("stopping at the third schema fetched %v", queries(f.requests()))
	}

	// Rows come 200 a page; 450 rows are three pages, every row once, in order.
	j := finishedJob(t, direct, peopleCSV(450))
	f = newFront(t, nil)
	var ids []string
	for row, err := range client.New(f.URL, key).Rows(ctx, j.ID) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, row["id"].(json.Number).String())
	}
	if len(ids) != 450 || ids[0] != "1" || ids[449] != "450" || len(f.requests()) != 3 {
		t.Fatalf("%d rows (%v … %v) in %d pages", len(ids), ids[:min(3, len(ids))], ids[max(0, len(ids)-3):], len(f.requests()))
	}
	for i, id := range ids {
		if id != fmt.Sprint(i+1) {
			t.Fatalf("row %d is %s", i, id)
		}
	}
}

func queries(reqs []*http.Request) []string {
	var out []string
	for _, r := range reqs {
		out = append(out, r.URL.RawQuery)
	}
	return out
}

// TestDownload_byteIdentical: Download streams the server's bytes.
func TestDownload_byteIdentical(t *testing.T) {
	ctx := context.Background()
	key := newOrgKey(t)
	c := client.New(serverURL, key)
	j := finishedJob(t, c, "id,email\n9007199254740993,ann@x.io\n2,bob@\n")
	for _, d := range []struct{ which, format string }{{"rows", "jsonl"}, {"rows", "csv"}, {"errors", "jsonl"}, {"errors", "csv"},
		{"rows", "xlsx"}, {"rows", "parquet"}, {"errors", "xlsx"}} {
		rc, err := c.Download(ctx, j.ID, d.which, d.format)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequest("GET", serverURL+"/v1/jobs/"+j.ID+"/"+d.which+"."+d.format, nil)
		req.Header.Set("Authorization", "Bearer "+key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if string(got) != string(want) || len(want) == 0 {
			t.Fatalf("%s.%s: %q, API %q", d.which, d.format, got, want)
		}
	}
	wb, err := c.ErrorsWorkbook(ctx, j.ID, true)
	if err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(wb)
	wb.Close()
	if err != nil {
		t.Fatal(err)
	}
	if rows, _ := f.GetRows("Rows"); len(rows) != 2 || strings.Join(rows[1], ",") != "2,2,bob@" {
		t.Fatalf("the rejected rows' workbook: %q", rows)
	}
	if !strings.Contains(string(mustDownload(t, c, j.ID)), "9007199254740993") {
		t.Fatal("a big integer lost digits")
	}
}

func mustDownload(t *testing.T, c *client.Client, id string) []byte {
	t.Helper()
	rc, err := c.Download(context.Background(), id, "rows", "jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, _ := io.ReadAll(bufio.NewReader(rc))
	return b
}

// TestJob_fileIssues: what the run says of the file itself (comment lines
// it skipped) is in the job's result, for a person to read first.
func TestJob_fileIssues(t *testing.T) {
	t.Parallel()
	c := client.New(serverURL, newOrgKey(t))
	j := finishedJob(t, c, "# exported 2026-11-27\n"+peopleCSV(2))
	if j.Result == nil || len(j.Result.FileIssues) != 1 {
		t.Fatalf("file issues %+v", j.Result)
	}
	if is := j.Result.FileIssues[0]; is.Code != "skipped_comments" || is.Severity != "warning" || is.Message == "" || is.Field != nil {
		t.Fatalf("file issue %+v", is)
	}
}
