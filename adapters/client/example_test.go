package client_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/client"
	"github.com/tabnorm/tabnorm/application/keys"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/domain/identity"
)

// serverURL and apiKey are those of the real server TestMain starts for
// the examples and tests of this package (SQLite in a temporary folder).
var serverURL, apiKey string

// newOrgKey makes an organization of its own, with both products, for a
// test that counts what it creates, and returns its API key (holding
// only scopes, when given).
var newOrgKey func(t *testing.T, scopes ...string) string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "tabnorm-client-")
	if err != nil {
		log.Fatal(err)
	}
	cfg, err := bootstrap.Load(func(k string) string {
		return map[string]string{
			"TABNORM_DATABASE_URL": "sqlite://" + filepath.Join(dir, "t.db"),
			"TABNORM_BLOB_URL":     "file://" + dir,
			"TABNORM_HTTP_ADDR":    "127.0.0.1:0",
			"TABNORM_LOG_LEVEL":    "error",
			// the webhook tests' receivers listen on loopback
			"TABNORM_WEBHOOK_ALLOW_PRIVATE": "true",
		}[k]
	}, nil)
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	h, stop, err := bootstrap.Start(ctx, cfg, bootstrap.RoleAll, io.Discard, bootstrap.Overrides{})
	cancel()
	if err != nil {
		log.Fatal(err)
	}
	org, err := h.Accounts.CreateOrg(context.Background(), "Examples", []identity.Product{identity.Normalize, identity.Connect})
	if err != nil {
		log.Fatal(err)
	}
	_, apiKey, err = h.Keys.CreateForOperator(context.Background(), org.ID, keys.NewKey{Name: "examples"})
	if err != nil {
		log.Fatal(err)
	}
	serverURL = "http://" + h.API.Addr()
	newOrgKey = func(t *testing.T, scopes ...string) string {
		t.Helper()
		org, err := h.Accounts.CreateOrg(context.Background(), t.Name(), []identity.Product{identity.Normalize, identity.Connect})
		if err != nil {
			t.Fatal(err)
		}
		req := keys.NewKey{Name: "test"}
		if len(scopes) > 0 {
			req.Scopes = scopes
		}
		_, key, err := h.Keys.CreateForOperator(context.Background(), org.ID, req)
		if err != nil {
			t.Fatal(err)
		}
		return key
	}
	code := m.Run()
	_ = stop(context.Background())
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

const people = `{"fields":[{"name":"id","type":"integer"},{"name":"email","type":"string","format":"email"}]}`

// A job from a file: upload, wait for its end, read its rows.
func Example() {
	ctx := context.Background()
	c := client.New(serverURL, apiKey)
	file := strings.NewReader("ID,E-mail\n9007199254740993,ANN@x.io\n2,bob@\n")
	job, err := c.CreateJob(ctx, client.Upload{Filename: "people.csv", Body: file}, client.JobParams{Schema: []byte(people)})
	if err != nil {
		log.Fatal(err)
	}
	job, err = c.Wait(ctx, job.ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(job.Status, job.Result.RowCount, "row,", job.Result.RejectedCount, "rejected")
	for row, err := range c.Rows(ctx, job.ID) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(row["id"], row["email"]) // numbers keep every digit
	}
	for issue, err := range c.Issues(ctx, job.ID) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(issue.Row, issue.Code)
	}
	// Output:
	// succeeded 1 row, 1 rejected
	// 9007199254740993 ann@x.io
	// 2 invalid_email
}

// Errors carry the problem's code and the request id.
func ExampleError() {
	_, err := client.New(serverURL, apiKey).GetJob(context.Background(), "job_nope")
	var e *client.Error
	if !errors.As(err, &e) {
		log.Fatal(err)
	}
	fmt.Println(e.Status, e.Code, strings.HasPrefix(e.RequestID, "req_"), client.IsCode(err, "not_found"))
	// Output: 404 not_found true true
}

// Follow prints a line per state change until the job ends.
func ExampleClient_Follow() {
	ctx := context.Background()
	c := client.New(serverURL, apiKey)
	job, err := c.CreateJob(ctx, client.Upload{Filename: "p.csv", Body: strings.NewReader("id\n1\n")}, client.JobParams{Mode: "infer"})
	if err != nil {
		log.Fatal(err)
	}
	for ev, err := range c.Follow(ctx, job.ID) {
		if err != nil {
			log.Fatal(err)
		}
		if ev.Kind != "job.progress" {
			fmt.Println(ev.Kind)
		}
	}
	// Output:
	// job.queued
	// job.started
	// job.succeeded
}

// A job reviewed before it runs: wait until its review is ready, map the
// column it could not, confirm, and wait for the run.
func ExampleClient_Confirm() {
	ctx := context.Background()
	c := client.New(serverURL, apiKey)
	file := strings.NewReader("Pos,E-mail\n1,ann@x.io\n")
	job, err := c.CreateJob(ctx, client.Upload{Filename: "people.csv", Body: file}, client.JobParams{Schema: []byte(people), Options: []byte(`{"review":true}`)})
	if err != nil {
		log.Fatal(err)
	}
	for ev, err := range c.Follow(ctx, job.ID) {
		if err != nil {
			log.Fatal(err)
		}
		if ev.Kind == "job.awaiting_review" {
			break
		}
	}
	review, err := c.Review(ctx, job.ID)
	if err != nil {
		log.Fatal(err)
	}
	for _, col := range review.Columns {
		fmt.Println(col.SourceColumn, "mapped:", col.Field != nil)
	}
	id := "id"
	if review, err = c.PatchMapping(ctx, job.ID, map[string]*string{"Pos": &id}); err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(review.Blocking), "blocking,", len(review.UnmappedFields), "unmapped")
	if _, err := c.Confirm(ctx, job.ID); err != nil {
		log.Fatal(err)
	}
	if job, err = c.Wait(ctx, job.ID); err != nil {
		log.Fatal(err)
	}
	fmt.Println(job.Status, job.Result.RowCount, "row")
	// Output:
	// Pos mapped: false
	// E-mail mapped: true
	// 0 blocking, 0 unmapped
	// succeeded 1 row
}

// Fixing rejected values: list a field's, then run the job again on the
// same file with a value_map for them.
func ExampleClient_Rerun() {
	ctx := context.Background()
	c := client.New(serverURL, apiKey)
	file := strings.NewReader("name,active\nAnn,ja\nBob,nein\nCy,ja\n")
	job, err := c.CreateJob(ctx, client.Upload{Filename: "members.csv", Body: file}, client.JobParams{Schema: []byte(members)})
	if err != nil {
		log.Fatal(err)
	}
	if job, err = c.Wait(ctx, job.ID); err != nil {
		log.Fatal(err)
	}
	for v, err := range c.InvalidValues(ctx, job.ID, "active") {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(v.Value, v.Count, v.Code)
	}
	rerun, err := c.Rerun(ctx, job.ID, client.RerunRequest{Options: []byte(`{"value_map":{"active":{"ja":"true","nein":"false"}}}`)})
	if err != nil {
		log.Fatal(err)
	}
	if rerun, err = c.Wait(ctx, rerun.ID); err != nil {
		log.Fatal(err)
	}
	fmt.Println(rerun.Status, rerun.Result.RowCount, "rows,", rerun.Result.RejectedCount, "rejected")
	// Output:
	// ja 2 invalid_boolean
	// nein 1 invalid_boolean
	// succeeded 3 rows, 0 rejected
}

// TestCreateJob_retries: a creation answered 503 (and 429) is sent again
// with the same Idempotency-Key after the Retry-After pause, and makes one
// job; an unreplayable stream is not retried.
func TestCreateJob_retries(t *testing.T) {
	target, _ := url.Parse(serverURL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	var mu sync.Mutex
	var keys []string
	failures := 2
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if r.Method == "POST" {
			keys = append(keys, r.Header.Get("Idempotency-Key"))
		}
		fail := r.Method == "POST" && failures > 0
		if fail {
			failures--
		}
		status := []int{http.StatusTooManyRequests, http.StatusServiceUnavailable}[failures%2]
		mu.Unlock()
		if fail {
			_, _ = io.Copy(io.Discard, r.Body)
			w.Header().Set("Retry-After", "0")
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(status)
			fmt.Fprintf(w, `{"status":%d,"code":"unavailable","detail":"try again","request_id":"req_x"}`, status)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	defer front.Close()
	ctx := context.Background()
	c := client.New(front.URL, apiKey, client.WithRetries(3, time.Millisecond))
	j, err := c.CreateJob(ctx, client.Upload{Filename: "a.csv", Body: bytes.NewReader([]byte("id\n1\n"))}, client.JobParams{Mode: "infer"})
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 3 || keys[0] == "" || keys[0] != keys[1] || keys[1] != keys[2] {
		t.Fatalf("Idempotency-Key per attempt: %q", keys)
	}
	if _, err := c.GetJob(ctx, j.ID); err != nil {
		t.Fatal(err)
	}
	// A plain stream cannot be sent twice: the 503 is the answer.
	mu.Lock()
	failures, keys = 1, nil
	mu.Unlock()
	stream := io.MultiReader(strings.NewReader("id\n1\n")) // not an io.Seeker
	_, err = c.CreateJob(ctx, client.Upload{Filename: "a.csv", Body: stream}, client.JobParams{Mode: "infer"})
	var e *client.Error
	if !errors.As(err, &e) || (e.Status != 429 && e.Status != 503) || e.RequestID != "req_x" || len(keys) != 1 {
		t.Fatalf("stream retried or error lost: %v, %d attempts", err, len(keys))
	}
}
