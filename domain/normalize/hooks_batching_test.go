package normalize

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/domain/hook"
)

// A hook's requests carry its batch_size rows whatever the engine's
// batches (512 rows) hold: with batch_size 1000, 2,600 accepted rows go
// out as 1000, 1000 and the last, short 600, each row once; the
// hook's issues and corrections land on their rows across the engine's
// batch boundaries, and the rows are written in the file's order.
func TestRun_hookRequestsCarryBatchSize(t *testing.T) {
	t.Parallel()
	srv, counted := countingHookServer()
	defer srv.Close()

	const n = 2653 // rows 50, 100, … 2650 have no id: 2,600 are sent
	rows := [][]string{{"id", "email", "customer"}}
	for i := 1; i <= n; i++ {
		id := strconv.Itoa(i)
		if i%50 == 0 {
			id = "x"
		}
		rows = append(rows, []string{id, fmt.Sprintf("r%d@example.com", i), "c" + strconv.Itoa(i)})
	}
	h := httpHook{url: srv.URL, slots: make(chan struct{}, 4), client: srv.Client()}
	crm := hookFunc(func(ctx context.Context, rs []hook.Row) ([]hook.Answer, error) {
		return h.checkFields(ctx, rs, []string{"customer", "email"}, []string{"id", "email", "customer"})
	})
	r := runWithHooks(t, hookSchema, []HookUse{{Name: "crm", Fields: []string{"customer", "email"}, BatchSize: 1000, OnError: hook.FailJob, Hook: crm}}, rows...)
	if r.err != nil {
		t.Fatal(r.err)
	}
	sizes, sent := counted()
	slices.Sort(sizes)
	if !slices.Equal(sizes, []int{600, 1000, 1000}) {
		t.Fatalf("rows per request %v, want 1000, 1000 and the last 600 (batch_size 1000, 2,600 rows sent)", sizes)
	}
	slices.Sort(sent)
	var want []int64
	for i := int64(1); i <= n; i++ {
		if i%50 != 0 {
			want = append(want, i)
		}
	}
	if !slices.Equal(sent, want) {
		t.Fatalf("rows sent: %d rows, want each accepted row once (%d)", len(sent), len(want))
	}
	checkHookedRows(t, r, n)
	rejected := 0
	for _, is := range r.issues {
		if is["code"] == "unknown_customer" {
			rejected++
			if row := int(is["row"].(float64)); row%97 != 0 || is["hook"] != "crm" {
				t.Fatalf("the hook's issue landed on row %d: %+v", row, is)
			}
		}
	}
	st := r.res.Hooks
	if len(st) != 1 || st[0].Batches != 3 || st[0].RowsSent != 2600 || st[0].Issues != int64(rejected) || rejected == 0 || st[0].ValuesChanged == 0 {
		t.Fatalf("stats %+v (issues written %d), want 3 requests, 2,600 rows", st, rejected)
	}
}

// countingHookServer is a loopback hook that rejects rows 97, 194, …
// (rows past the first engine batch among them) and corrects the email of
// rows 101, 202, …; counted gives the rows of each request and every row
// sent.
func countingHookServer() (srv *httptest.Server, counted func() (sizes []int, sent []int64)) {
	var mu sync.Mutex
	var sizes []int
	var sent []int64
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var batch hook.Batch
		if err := json.NewDecoder(r.Body).Decode(&batch); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		sizes = append(sizes, len(batch.Rows))
		for _, row := range batch.Rows {
			sent = append(sent, row.Row)
		}
		mu.Unlock()
		type answer struct {
			Row    int64             `json:"row"`
			Issues []hook.Issue      `json:"issues,omitempty"`
			Values map[string]string `json:"values,omitempty"`
		}
		var out []answer
		for _, row := range batch.Rows {
			switch {
			case row.Row%97 == 0:
				out = append(out, answer{Row: row.Row, Issues: []hook.Issue{{Field: "customer", Severity: "error", Code: "unknown_customer", Message: "No such customer"}}})
			case row.Row%101 == 0:
				out = append(out, answer{Row: row.Row, Values: map[string]string{"email": fmt.Sprintf("fixed%d@example.com", row.Row)}})
			}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"rows": out})
	}))
	return srv, func() ([]int, []int64) {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(sizes), slices.Clone(sent)
	}
}

// checkHookedRows: the rows written are the file's 1..n in order but
// those without an id (every 50th) and those the hook rejected (every
// 97th), each with its own email or the hook's correction of it.
func checkHookedRows(t *testing.T, r run, n int) {
	t.Helper()
	var ids []int
	for _, row := range r.rows {
		id := int(row["id"].(float64))
		ids = append(ids, id)
		if id%101 == 0 && id%97 != 0 && row["email"] != fmt.Sprintf("fixed%d@example.com", id) {
			t.Fatalf("row %d: email %v, want the hook's correction", id, row["email"])
		}
		if id%101 != 0 && row["email"] != fmt.Sprintf("r%d@example.com", id) {
			t.Fatalf("row %d: email %v, want the file's (a correction landed on another row)", id, row["email"])
		}
	}
	var wantIDs []int
	for i := 1; i <= n; i++ {
		if i%50 != 0 && i%97 != 0 {
			wantIDs = append(wantIDs, i)
		}
	}
	if !slices.Equal(ids, wantIDs) {
		t.Fatalf("rows written: %d, want %d in the file's order without those the hook rejected", len(ids), len(wantIDs))
	}
}

// Canceling a run while its hook requests hang stops it at once: the
// requests being gathered are dropped and those out end with the run's
// context.
func TestRun_hookCancelStopsRequests(t *testing.T) {
	t.Parallel()
	called := make(chan struct{}, 1)
	hang := hookFunc(func(ctx context.Context, _ []hook.Row) ([]hook.Answer, error) {
		select {
		case called <- struct{}{}:
		default:
		}
		<-ctx.Done()
		return nil, ctx.Err()
	})
	recs := [][]string{{"id", "email", "customer"}}
	for i := 1; i <= 20_000; i++ {
		recs = append(recs, []string{strconv.Itoa(i), "a@example.com", "c"})
	}
	s := mustSchema(t, hookSchema)
	o, err := ParseOptions(ModeNormalize, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type result struct {
		err error
		at  time.Time
	}
	done := make(chan result, 1)
	go func() {
		_, err := Run(ctx, Input{Mode: ModeNormalize, Schema: s, Options: o, Sources: []Source{source("", recs...)},
			Hooks: []HookUse{{Name: "crm", BatchSize: 1000, OnError: hook.FailJob, Hook: hang}}},
			Output{Rows: io.Discard, Issues: io.Discard})
		done <- result{err, time.Now()}
	}()
	<-called
	canceled := time.Now()
	cancel()
	select {
	case r := <-done:
		if !errors.Is(r.err, context.Canceled) {
			t.Fatalf("err %v, want context.Canceled", r.err)
		}
		if took := r.at.Sub(canceled); took > 3*time.Second { // milliseconds; the bound allows a loaded machine
			t.Fatalf("the run stopped %s after the cancel, want at once", took)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the run did not stop within 10 s of the cancel")
	}
}

// A failed request of rows of several engine batches flags each of its
// rows once under on_error flag_rows, and counts once.
func TestRun_hookFlagRowsAcrossBatches(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var sizes []int
	down := hookFunc(func(_ context.Context, rows []hook.Row) ([]hook.Answer, error) {
		mu.Lock()
		sizes = append(sizes, len(rows))
		mu.Unlock()
		return nil, errors.New("503 Service Unavailable")
	})
	recs := [][]string{{"id", "email", "customer"}}
	for i := 1; i <= 1300; i++ {
		recs = append(recs, []string{strconv.Itoa(i), "a@example.com", "c"})
	}
	r := runWithHooks(t, hookSchema, []HookUse{{Name: "crm", BatchSize: 1000, OnError: hook.FlagRows, Hook: down}}, recs...)
	if r.err != nil || len(r.rows) != 1300 {
		t.Fatalf("err %v, rows %d, want 1300 rows kept", r.err, len(r.rows))
	}
	slices.Sort(sizes)
	if !slices.Equal(sizes, []int{300, 1000}) {
		t.Fatalf("rows per request %v, want 1000 and 300", sizes)
	}
	flagged := map[float64]int{}
	for _, is := range r.issues {
		if is["code"] == "hook_unavailable" {
			flagged[is["row"].(float64)]++
		}
	}
	for i := 1; i <= 1300; i++ {
		if flagged[float64(i)] != 1 {
			t.Fatalf("row %d flagged %d times, want once", i, flagged[float64(i)])
		}
	}
	if st := r.res.Hooks[0]; st.Batches != 2 || st.Failures != 2 || st.RowsSent != 1300 {
		t.Fatalf("stats %+v, want 2 requests, 2 failures, 1300 rows", st)
	}
}
