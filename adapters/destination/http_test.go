package destination_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/destination"
	domaindst "github.com/tabnorm/tabnorm/domain/destination"
	"github.com/tabnorm/tabnorm/domain/webhook"
)

// receiver is an HTTP destination as a customer would write one: it
// checks each message's signature, keeps one batch per idempotency key,
// and takes the rows once the complete call's count and checksum match.
type receiver struct {
	secret string
	mu     sync.Mutex
	fail   map[string]int // idempotency key → failures still to answer
	seen   map[string]bool
	rows   map[string][]json.RawMessage // job → rows of the batches kept
	done   map[string]bool
	bad    []string
}

func newReceiver(t *testing.T) (*receiver, *httptest.Server) {
	r := &receiver{secret: webhook.NewSecret(), fail: map[string]int{}, seen: map[string]bool{}, rows: map[string][]json.RawMessage{}, done: map[string]bool{}}
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	return r, srv
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	defer r.mu.Unlock()
	id, ts := req.Header.Get("webhook-id"), req.Header.Get("webhook-timestamp")
	sec, _ := strconv.ParseInt(ts, 10, 64)
	want, _ := webhook.Sign([]string{r.secret}, id, time.Unix(sec, 0), body)
	if req.Header.Get("webhook-signature") != want || req.Header.Get("Idempotency-Key") != id {
		r.bad = append(r.bad, id)
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	if r.fail[id] > 0 {
		r.fail[id]--
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	if r.seen[id] {
		return // a repeat: kept already
	}
	var msg struct {
		Type    string            `json:"type"`
		JobID   string            `json:"job_id"`
		Batch   int               `json:"batch"`
		Rows    []json.RawMessage `json:"rows"`
		Count   int64             `json:"rows_count"`
		Batches int               `json:"batches"`
		SHA256  string            `json:"sha256"`
	}
	_ = json.Unmarshal(body, &msg)
	switch msg.Type {
	case destination.TypeBatch:
		r.rows[msg.JobID] = append(r.rows[msg.JobID], msg.Rows...)
	case destination.TypeComplete:
		var c struct {
			Rows int64 `json:"rows"`
		}
		_ = json.Unmarshal(body, &c)
		h := sha256.New()
		for _, row := range r.rows[msg.JobID] {
			h.Write(row)
			h.Write([]byte{'\n'})
		}
		if int64(len(r.rows[msg.JobID])) != c.Rows || hex.EncodeToString(h.Sum(nil)) != msg.SHA256 {
			w.WriteHeader(http.StatusConflict)
			return
		}
		r.done[msg.JobID] = true
	}
	r.seen[id] = true
}

func httpTarget(srv *httptest.Server, secret string) domaindst.Target {
	return target(domaindst.HTTP, map[string]string{"url": srv.URL + "/rows"}, map[string]string{"signing_secret": secret})
}

func TestHTTP_signedNumberedBatchesThenComplete_repeatsKeptOnce(t *testing.T) {
	t.Parallel()
	r, srv := newReceiver(t)
	rows := manyRows(5)
	w := newWriter(true) // batches of 2
	r.fail["job_h:batch:2"] = 1
	_, err := w.Deliver(context.Background(), httpTarget(srv, r.secret), shipment("job_h", nil, rowsOf(rows...)))
	if err == nil || !strings.Contains(err.Error(), "answered 503 to batch 2") {
		t.Fatalf("a batch refused: %v; want an error naming it", err)
	}
	got, err := w.Deliver(context.Background(), httpTarget(srv, r.secret), shipment("job_h", nil, rowsOf(rows...)))
	if err != nil || got.Rows != 5 {
		t.Fatalf("the next attempt: %+v, %v", got, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.bad) != 0 || !r.done["job_h"] || len(r.rows["job_h"]) != 5 {
		t.Fatalf("receiver: bad signatures %v, complete %v, rows %d; want every row once", r.bad, r.done["job_h"], len(r.rows["job_h"]))
	}
	for i, row := range r.rows["job_h"] {
		if string(row) != rows[i] {
			t.Fatalf("row %d = %s, want %s", i, row, rows[i])
		}
	}
}

func TestHTTP_privateAddressRefusedAndTestMessageSigned(t *testing.T) {
	t.Parallel()
	r, srv := newReceiver(t)
	private := httpTarget(srv, r.secret)
	private.Config["url"] = strings.Replace(private.Config["url"], "http://", "https://", 1) // refused before any TLS
	_, err := newWriter(false).Deliver(context.Background(), private, shipment("job_p", nil, rowsOf(manyRows(1)...)))
	if err == nil || !strings.Contains(err.Error(), "private") {
		t.Fatalf("a loopback endpoint without TABNORM_DESTINATION_ALLOW_PRIVATE: %v", err)
	}
	if err := newWriter(true).Check(context.Background(), httpTarget(srv, r.secret)); err != nil {
		t.Fatalf("Check: %v", err)
	}
	if err := newWriter(true).Check(context.Background(), httpTarget(srv, webhook.NewSecret())); err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("Check signed with another secret: %v; want the receiver's 401", err)
	}
}
