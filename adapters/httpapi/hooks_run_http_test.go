package httpapi_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	validator "github.com/pb33f/libopenapi-validator"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
	"github.com/tabnorm/tabnorm/test/testtime"
)

// batchIn is a batch as a hook receives it.
type batchIn struct {
	Type  string `json:"type"`
	JobID string `json:"job_id"`
	Hook  string `json:"hook"`
	Rows  []struct {
		Row    int64                      `json:"row"`
		Values map[string]json.RawMessage `json:"values"`
	} `json:"rows"`
}

// hookServer is a customer's hook on loopback: it checks each request's
// signature with the official Standard Webhooks library against the
// secret it was given, and answers with answer.
type hookServer struct {
	*httptest.Server
	mu       sync.Mutex
	secret   string
	answer   func(w http.ResponseWriter, b batchIn)
	requests atomic.Int32
	badSigs  atomic.Int32
	batches  []batchIn
}

func newHookServer(t *testing.T) *hookServer {
	s := &hookServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		secret, answer := s.secret, s.answer
		s.mu.Unlock()
		wh, err := standardwebhooks.NewWebhook(secret)
		if err == nil {
			err = wh.Verify(body, r.Header)
		}
		if err != nil {
			s.badSigs.Add(1)
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		var b batchIn
		if err := json.Unmarshal(body, &b); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		s.batches = append(s.batches, b)
		s.mu.Unlock()
		answer(w, b)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *hookServer) set(secret string, answer func(w http.ResponseWriter, b batchIn)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.secret, s.answer = secret, answer
	s.batches = nil
	s.requests.Store(0)
	s.badSigs.Store(0)
}

func answerJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

const hookedSchema = `{"fields":[{"name":"id","type":"integer"},{"name":"email","type":"string","format":"email"},{"name":"customer","type":"string"}],
 "hooks":[{"hook":"%s","fields":["customer","email"],"batch_size":2,"on_error":"%s"}]}`

const hookedCSV = "id,email,customer\n1,a@example.com,ok\n2,b@example.com,nope\n3,c@example.com,fixme\n4,not-an-address,ok\n5,e@example.com,old\n"

type hookedJob struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	Error  *struct{ Code, Message string }
	Result *struct {
		RowCount      int64 `json:"row_count"`
		RejectedCount int64 `json:"rejected_count"`
		Hooks         []struct {
			Hook                      string
			Batches, Issues, Failures int64
			RowsSent                  int64   `json:"rows_sent"`
			ValuesChanged             int64   `json:"values_changed"`
			TimeMS                    int64   `json:"time_ms"`
			FirstFailure              *string `json:"first_failure"`
		}
	}
}

// hooked is the state of the hooks' run script: one app, one customer
// hook server.
type hooked struct {
	v    validator.Validator
	app  *apptest.App
	key  apptest.Caller
	srv  *hookServer
	hook hookView
	// correctedJob is the job of the corrections' step, which the edits' step edits.
	correctedJob string
}

func (h *hooked) run(t *testing.T, name, onError, csv string) hookedJob {
	t.Helper()
	res := h.app.Request(upload(t, h.app, name+".csv", csv, map[string]string{"schema": fmt.Sprintf(hookedSchema, h.hook.Name, onError)}), h.key)
	expect(t, res, 202, "")
	var created struct{ ID string }
	res.JSON(t, &created)
	waitJob(t, h.app, h.key, created.ID)
	var j hookedJob
	h.app.Do("GET", "/v1/jobs/"+created.ID, h.key, nil).JSON(t, &j)
	return j
}

// TestHooks_run runs jobs through a real hook server on loopback, on
// both databases: corrections and issues taken, failures under each
// on_error, retries honouring Retry-After, and hostile hooks refused.
func TestHooks_run(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			app := apptest.Start(t, target, withSecretKey, func(c *bootstrap.Config) { c.WebhookAllowPrivate, c.MetricsAddr = true, "127.0.0.1:0" })
			h := &hooked{v: openAPIValidator(t), app: app, key: apptest.Caller{Key: app.Key(app.Org("Acme", identity.Normalize))}, srv: newHookServer(t)}
			res := app.Do("POST", "/v1/hooks", h.key, map[string]any{"name": "crm", "url": h.srv.URL + "/validate", "timeout_ms": 1000})
			expect(t, res, 201, "")
			res.JSON(t, &h.hook)
			script(t, h,
				scriptStep[*hooked]{"an_unknown_hook_is_an_invalid_schema", hooksUnknown},
				scriptStep[*hooked]{"issues_and_corrections_are_taken", hooksCorrectAndFlag},
				scriptStep[*hooked]{"an_edited_row_goes_through_the_hook_again", hooksEditRecheck},
				scriptStep[*hooked]{"a_failing_hook_under_each_on_error", hooksFailing},
				scriptStep[*hooked]{"429_is_retried_after_retry_after", hooksRetryAfter},
				scriptStep[*hooked]{"a_slow_hook_times_out", hooksSlow},
				scriptStep[*hooked]{"hostile_answers_are_refused", hooksHostile},
				scriptStep[*hooked]{"a_wrong_secret_fails_and_a_rotated_one_still_signs", hooksSignatures},
				scriptStep[*hooked]{"a_sample_batch_gets_the_hooks_answer_or_failure", hooksSample},
				scriptStep[*hooked]{"metrics_count_the_requests_by_outcome_and_by_hook_id", hooksMetrics},
			)
		})
	}
}

func hooksUnknown(t *testing.T, h *hooked) {
	schema := fmt.Sprintf(hookedSchema, "nosuch", "fail_job")
	res := h.app.Request(upload(t, h.app, "x.csv", hookedCSV, map[string]string{"schema": schema}), h.key)
	expect(t, res, 422, "invalid_schema")
	if !strings.Contains(res.Body, "schema.hooks[0].hook") {
		t.Fatalf("the problem does not point at the declaration: %s", res.Body)
	}
	expect(t, h.app.Do("POST", "/v1/schemas", h.key, map[string]any{"name": "bad", "schema": json.RawMessage(`{"fields":[{"name":"a"}],"hooks":[{"hook":"crm","on_error":"explode"}]}`)}),
		422, "invalid_schema")
}

func hooksCorrectAndFlag(t *testing.T, h *hooked) {
	h.srv.set(h.hook.Secret, func(w http.ResponseWriter, b batchIn) {
		type issue struct{ Field, Severity, Code, Message string }
		var rows []map[string]any
		for _, r := range b.Rows {
			if _, sent := r.Values["id"]; sent {
				http.Error(w, "a field not listed was sent", 400)
				return
			}
			switch string(r.Values["customer"]) {
			case `"nope"`:
				rows = append(rows, map[string]any{"row": r.Row, "issues": []issue{{"customer", "error", "unknown_customer", "No such customer"}}})
			case `"old"`:
				rows = append(rows, map[string]any{"row": r.Row, "issues": []issue{{"customer", "warning", "customer_archived", "Archived"}}})
			case `"fixme"`:
				rows = append(rows, map[string]any{"row": r.Row, "values": map[string]any{"email": "fixed@example.com"}})
			}
		}
		answerJSON(w, map[string]any{"rows": rows})
	})
	j := h.run(t, "correct", "fail_job", hookedCSV)
	if j.Status != "succeeded" || j.Result.RowCount != 3 || j.Result.RejectedCount != 2 || len(j.Result.Hooks) != 1 {
		t.Fatalf("job: %+v %+v", j, j.Error)
	}
	st := j.Result.Hooks[0]
	// Row 4's email is refused by coercion, so 4 rows go, 2 a request.
	if st.Hook != "crm" || st.RowsSent != 4 || st.Batches != 2 || st.Issues != 2 || st.ValuesChanged != 1 || st.Failures != 0 || st.FirstFailure != nil {
		t.Fatalf("stats: %+v", st)
	}
	if n := h.srv.badSigs.Load(); n != 0 {
		t.Fatalf("%d requests failed the official signature check", n)
	}
	errs := h.app.Do("GET", "/v1/jobs/"+j.ID+"/errors", h.key, nil).Body
	for _, want := range []string{`"code":"unknown_customer"`, `"hook":"crm"`, `"code":"customer_archived"`, `"code":"hook_corrected"`} {
		if !strings.Contains(errs, want) {
			t.Fatalf("the errors lack %s: %s", want, errs)
		}
	}
	rows := h.app.Do("GET", "/v1/jobs/"+j.ID+"/rows.jsonl", h.key, nil).Body
	if !strings.Contains(rows, `"fixed@example.com"`) || strings.Contains(rows, `"nope"`) || !strings.Contains(rows, `"old"`) {
		t.Fatalf("rows: %s", rows)
	}
	h.correctedJob = j.ID
}

// An edited row is checked through the hook again: the hook sees the
// edited value, and its answer decides the row.
func hooksEditRecheck(t *testing.T, h *hooked) {
	h.srv.mu.Lock()
	h.srv.batches = nil
	h.srv.mu.Unlock()
	type edit struct {
		Row        int64   `json:"row"`
		SourceFile *string `json:"source_file"`
		Field      string  `json:"field"`
		Value      string  `json:"value"`
	}
	var out struct {
		Data []struct {
			RowValid  bool                          `json:"row_valid"`
			RowIssues []struct{ Code, Hook string } `json:"row_issues"`
		}
	}
	fix := h.app.Do("POST", "/v1/jobs/"+h.correctedJob+"/edits", h.key, map[string]any{"edits": []edit{{Row: 2, Field: "customer", Value: "ok"}}})
	expect(t, fix, 200, "")
	fix.JSON(t, &out)
	if len(out.Data) != 1 || !out.Data[0].RowValid || len(out.Data[0].RowIssues) != 0 {
		t.Fatalf("the fixed row: %s", fix.Body)
	}
	breakIt := h.app.Do("POST", "/v1/jobs/"+h.correctedJob+"/edits", h.key, map[string]any{"edits": []edit{{Row: 1, Field: "customer", Value: "nope"}}})
	expect(t, breakIt, 200, "")
	out.Data = nil
	breakIt.JSON(t, &out)
	if len(out.Data) != 1 || out.Data[0].RowValid || len(out.Data[0].RowIssues) != 1 || out.Data[0].RowIssues[0].Code != "unknown_customer" ||
		out.Data[0].RowIssues[0].Hook != "crm" {
		t.Fatalf("the broken row: %s", breakIt.Body)
	}
	h.srv.mu.Lock()
	batches := h.srv.batches
	h.srv.mu.Unlock()
	// A hook down during an edit's check flags the row; the edit is stored.
	h.srv.set(h.hook.Secret, func(w http.ResponseWriter, _ batchIn) { http.Error(w, "no", http.StatusBadRequest) })
	down := h.app.Do("POST", "/v1/jobs/"+h.correctedJob+"/edits", h.key, map[string]any{"edits": []edit{{Row: 3, Field: "customer", Value: "ok"}}})
	expect(t, down, 200, "")
	out.Data = nil
	down.JSON(t, &out)
	if len(out.Data) != 1 || !out.Data[0].RowValid || len(out.Data[0].RowIssues) != 1 || out.Data[0].RowIssues[0].Code != "hook_unavailable" {
		t.Fatalf("an edit's check with the hook down: %s", down.Body)
	}
	h.srv.batches = batches
	expect(t, h.app.Do("PATCH", "/v1/hooks/"+h.hook.ID, h.key, map[string]any{"enabled": true}), 200, "") // its failure must not count toward a later step's breaker
	if len(h.srv.batches) != 2 || len(h.srv.batches[0].Rows) != 1 || h.srv.batches[0].Rows[0].Row != 2 || string(h.srv.batches[0].Rows[0].Values["customer"]) != `"ok"` {
		t.Fatalf("the hook saw %+v", h.srv.batches)
	}
}

func hooksFailing(t *testing.T, h *hooked) {
	h.srv.set(h.hook.Secret, func(w http.ResponseWriter, _ batchIn) {
		w.Header().Set("Retry-After", "0")
		http.Error(w, "down", http.StatusServiceUnavailable)
	})
	j := h.run(t, "failjob", "fail_job", hookedCSV)
	if j.Status != "failed" || j.Error == nil || j.Error.Code != "hook_failed" || !strings.Contains(j.Error.Message, "crm") || !strings.Contains(j.Error.Message, "503") {
		t.Fatalf("fail_job: %+v %+v", j, j.Error)
	}
	if n := h.srv.requests.Load(); n < 3 {
		t.Fatalf("a 503 was tried %d times, want 3", n)
	}
	j = h.run(t, "flag", "flag_rows", hookedCSV)
	errs := h.app.Do("GET", "/v1/jobs/"+j.ID+"/errors", h.key, nil).Body
	if j.Status != "succeeded" || j.Result.RowCount != 4 || strings.Count(errs, `"code":"hook_unavailable"`) != 4 || j.Result.Hooks[0].Failures != 2 {
		t.Fatalf("flag_rows: %+v\n%s", j.Result, errs)
	}
	j = h.run(t, "skip", "skip", hookedCSV)
	errs = h.app.Do("GET", "/v1/jobs/"+j.ID+"/errors", h.key, nil).Body
	if j.Status != "succeeded" || j.Result.RowCount != 4 || strings.Count(errs, `"code":"hook_unavailable"`) != 1 || !strings.Contains(errs, `"row":null`) {
		t.Fatalf("skip: %+v\n%s", j.Result, errs)
	}
	// Five failed batches in a row open the breaker: the next batch fails
	// without a request, until the hook is changed (or the breaker's time).
	h.srv.set(h.hook.Secret, func(w http.ResponseWriter, _ batchIn) { answerJSON(w, map[string]any{"rows": []any{}}) })
	j = h.run(t, "breaker", "fail_job", hookedCSV)
	if j.Status != "failed" || j.Error == nil || !strings.Contains(j.Error.Message, "no request until") || h.srv.requests.Load() != 0 {
		t.Fatalf("breaker: %+v %+v, %d requests", j, j.Error, h.srv.requests.Load())
	}
	expect(t, h.app.Do("PATCH", "/v1/hooks/"+h.hook.ID, h.key, map[string]any{"enabled": true}), 200, "")
	if j = h.run(t, "closed", "fail_job", hookedCSV); j.Status != "succeeded" || h.srv.requests.Load() == 0 {
		t.Fatalf("after a change of the hook: %+v %+v", j, j.Error)
	}
}

func hooksRetryAfter(t *testing.T, h *hooked) {
	var first atomic.Bool
	h.srv.set(h.hook.Secret, func(w http.ResponseWriter, _ batchIn) {
		if first.CompareAndSwap(false, true) {
			w.Header().Set("Retry-After", "1")
			http.Error(w, "slow down", http.StatusTooManyRequests)
			return
		}
		answerJSON(w, map[string]any{"rows": []any{}})
	})
	begun := time.Now()
	j := h.run(t, "retry", "fail_job", "id,email,customer\n1,a@example.com,ok\n")
	if j.Status != "succeeded" || h.srv.requests.Load() != 2 || time.Since(begun) < time.Second {
		t.Fatalf("after a 429: %s, %d requests, %s", j.Status, h.srv.requests.Load(), time.Since(begun))
	}
}

func hooksSlow(t *testing.T, h *hooked) {
	release := make(chan struct{})
	defer close(release)
	h.srv.set(h.hook.Secret, func(w http.ResponseWriter, _ batchIn) {
		select { // longer than the hook's timeout_ms (1 s)
		case <-release:
		case <-time.After(5 * time.Second):
		}
		answerJSON(w, map[string]any{"rows": []any{}})
	})
	begun := time.Now()
	j := h.run(t, "slow", "skip", "id,email,customer\n1,a@example.com,ok\n")
	took := time.Since(begun)
	if j.Status != "succeeded" || j.Result.Hooks[0].Failures != 1 || j.Result.Hooks[0].FirstFailure == nil ||
		!strings.Contains(*j.Result.Hooks[0].FirstFailure, "timed out") || took > testtime.Scale(10*time.Second) {
		t.Fatalf("slow hook: %+v after %s", j.Result, took)
	}
}

func hooksHostile(t *testing.T, h *hooked) {
	cases := []struct {
		name, want string
		answer     func(w http.ResponseWriter, b batchIn)
	}{
		{"other_rows", "did not hold", func(w http.ResponseWriter, _ batchIn) {
			answerJSON(w, map[string]any{"rows": []any{map[string]any{"row": 999, "issues": []any{map[string]any{"severity": "error", "code": "x", "message": "x"}}}}})
		}},
		{"huge", "longer than", func(w http.ResponseWriter, _ batchIn) {
			_, _ = io.WriteString(w, `{"rows":[],"pad":"`+strings.Repeat("x", 200<<10)+`"}`)
		}},
		{"unlisted_field", "does not list", func(w http.ResponseWriter, b batchIn) {
			answerJSON(w, map[string]any{"rows": []any{map[string]any{"row": b.Rows[0].Row, "values": map[string]any{"id": 7}}}})
		}},
		{"redirect_to_private", "answered 307", func(w http.ResponseWriter, _ batchIn) {
			w.Header().Set("Location", "http://169.254.169.254/latest/meta-data")
			w.WriteHeader(http.StatusTemporaryRedirect)
		}},
	}
	for _, c := range cases {
		h.srv.set(h.hook.Secret, c.answer)
		j := h.run(t, c.name, "fail_job", "id,email,customer\n1,a@example.com,ok\n")
		if j.Status != "failed" || j.Error == nil || j.Error.Code != "hook_failed" || !strings.Contains(j.Error.Message, c.want) {
			t.Fatalf("%s: %+v %+v", c.name, j, j.Error)
		}
	}
	// Four failures in a row: a change of the hook closes the breaker
	// before the next step's.
	expect(t, h.app.Do("PATCH", "/v1/hooks/"+h.hook.ID, h.key, map[string]any{"enabled": true}), 200, "")
}

func hooksSignatures(t *testing.T, h *hooked) {
	ok := func(w http.ResponseWriter, _ batchIn) { answerJSON(w, map[string]any{"rows": []any{}}) }
	h.srv.set("whsec_"+strings.Repeat("A", 43)+"=", ok) // a receiver expecting another secret
	j := h.run(t, "wrongsecret", "fail_job", "id,email,customer\n1,a@example.com,ok\n")
	if j.Status != "failed" || j.Error == nil || !strings.Contains(j.Error.Message, "answered 401") || h.srv.badSigs.Load() == 0 {
		t.Fatalf("a receiver with another secret: %+v %+v", j, j.Error)
	}
	var rotated hookView
	h.app.Do("POST", "/v1/hooks/"+h.hook.ID+"/rotate-secret", h.key, nil).JSON(t, &rotated)
	for _, secret := range []string{h.hook.Secret, rotated.Secret} { // during the overlap both sign
		h.srv.set(secret, ok)
		if j := h.run(t, "rotated", "fail_job", "id,email,customer\n1,a@example.com,ok\n"); j.Status != "succeeded" {
			t.Fatalf("a receiver still on the %s secret: %+v", map[bool]string{true: "old", false: "new"}[secret == h.hook.Secret], j.Error)
		}
	}
}

// TestIsolation_hangingHook: organization A's hook accepts connections
// and never answers; while A's job waits on it, organization B's 1-row
// job still finishes within 10 s, and canceling A's job stops it at once.
func TestIsolation_hangingHook(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			app := apptest.Start(t, target, withSecretKey, func(c *bootstrap.Config) { c.WebhookAllowPrivate = true })
			a := apptest.Caller{Key: app.Key(app.Org("Hostile", identity.Normalize))}
			v := apptest.Caller{Key: app.Key(app.Org("Victim", identity.Normalize))}
			hole := newBlackhole(t)
			expect(t, app.Do("POST", "/v1/hooks", a, map[string]any{"name": "slow", "url": "http://" + hole.Addr().String() + "/", "timeout_ms": 30000, "concurrency": 16}), 201, "")
			var held []string
			for i := range 3 {
				var j timedJob
				res := app.Request(upload(t, app, fmt.Sprintf("held%d.csv", i), hookedCSV, map[string]string{"schema": fmt.Sprintf(hookedSchema, "slow", "fail_job")}), a)
				expect(t, res, 202, "")
				res.JSON(t, &j)
				held = append(held, j.ID)
			}
			waitUntil(t, "the hook to hold a request", func() bool { return hole.accepted.Load() >= 1 })

			res := app.Request(upload(t, app, "one.csv", "ID,E-mail,Joined\n1,ann@x.io,2024-01-31\n", map[string]string{"schema": peopleSchema}), v)
			expect(t, res, 202, "")
			var created timedJob
			res.JSON(t, &created)
			j := waitFinished(t, app, v, created.ID, testtime.Scale(30*time.Second))
			took := parseTime(t, j.FinishedAt).Sub(parseTime(t, &j.CreatedAt))
			t.Logf("%s: the victim's job finished %s after it was created, %d connections held", target.Name, took.Round(time.Millisecond), hole.accepted.Load())
			if j.Status != "succeeded" || took > testtime.Scale(10*time.Second) {
				t.Fatalf("the victim's job: %s after %s (want succeeded within 10 s)", j.Status, took)
			}

			running := ""
			for _, id := range held {
				var hj timedJob
				app.Do("GET", "/v1/jobs/"+id, a, nil).JSON(t, &hj)
				if hj.Status == "running" {
					running = id
				}
			}
			if running == "" {
				t.Fatal("none of the held jobs is running: the test proves nothing")
			}
			begun := time.Now()
			expect(t, app.Do("POST", "/v1/jobs/"+running+"/cancel", a, nil), 200, "")
			done := waitFinished(t, app, a, running, testtime.Scale(10*time.Second))
			if done.Status != "canceled" || time.Since(begun) > testtime.Scale(5*time.Second) {
				t.Fatalf("cancel: %s after %s", done.Status, time.Since(begun))
			}
		})
	}
}

func hooksMetrics(t *testing.T, h *hooked) {
	res, err := http.Get(h.app.MetricsURL)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = res.Body.Close() }()
	body, _ := io.ReadAll(res.Body)
	var lines []string
	for line := range strings.Lines(string(body)) {
		if strings.HasPrefix(line, "tabnorm_hook_request_duration_seconds_count") {
			lines = append(lines, strings.TrimSpace(line))
		}
	}
	joined := strings.Join(lines, "\n")
	for _, outcome := range []string{"succeeded", "refused", "failed", "error"} {
		prefix := `tabnorm_hook_request_duration_seconds_count{outcome="` + outcome + `"} `
		if !strings.Contains(joined, prefix) || strings.Contains(joined, prefix+"0\n") || strings.HasSuffix(joined, prefix+"0") {
			t.Errorf("no %s requests counted: %s", outcome, joined)
		}
	}
	if len(lines) != 4 || strings.Contains(joined, "crm") {
		t.Fatalf("the series are not bounded by outcome: %s", joined)
	}
	// Per hook: its id (never its name) and the outcome; its latency.
	for _, want := range []string{`tabnorm_hook_requests_total{hook="` + h.hook.ID + `",outcome="succeeded"} `,
		`tabnorm_hook_requests_total{hook="` + h.hook.ID + `",outcome="refused"} `, `tabnorm_hook_request_latency_seconds_count{hook="` + h.hook.ID + `"} `} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %s…", want)
		}
	}
	if strings.Contains(string(body), `hook="crm"`) {
		t.Error("a hook's name is a label")
	}
}

type hookTestView struct {
	Object, Hook, Status string
	StatusCode           *int  `json:"status_code"`
	DurationMS           int64 `json:"duration_ms"`
	Rows                 []struct {
		Row    int64
		Issues []struct{ Field, Severity, Code, Message string }
		Values map[string]*string
	}
	Error *string
}

// hooksSample: POST /v1/hooks/{id}/test sends a signed sample batch to the
// real hook server and returns its answer (issues, corrections) or why a
// job's batch would have failed (a refused answer, a redirect not
// followed, a receiver with another secret); each attempt is audited, and
// the hook's recent batches (the jobs') are on the hook.
func hooksSample(t *testing.T, h *hooked) {
	var before struct {
		RecentBatches []struct {
			Status    string
			LatencyMS int64 `json:"latency_ms"`
			Rows      int
			At        string
		} `json:"recent_batches"`
	}
	(&hooks{app: h.app, v: h.v}).valid(t, "GET", "/v1/hooks/"+h.hook.ID, h.key, nil, 200).JSON(t, &before)
	if len(before.RecentBatches) == 0 || before.RecentBatches[0].Status != "succeeded" || before.RecentBatches[0].Rows != 1 || before.RecentBatches[0].At == "" {
		t.Fatalf("the hook's recent batches after the jobs: %+v", before.RecentBatches)
	}
	sample := map[string]any{"rows": []any{
		map[string]any{"row": 1, "values": map[string]any{"customer": "nope", "email": "a@example.com"}},
		map[string]any{"row": 2, "values": map[string]any{"customer": "fixme", "email": "b@example.com"}},
		map[string]any{"row": 3, "values": map[string]any{"customer": "ok", "email": nil}},
	}}
	test := func(want string) hookTestView {
		t.Helper()
		var out hookTestView
		(&hooks{app: h.app, v: h.v}).valid(t, "POST", "/v1/hooks/"+h.hook.ID+"/test", h.key, sample, 200).JSON(t, &out)
		if out.Object != "hook_test" || out.Hook != h.hook.ID || out.Status != want {
			t.Fatalf("a sample: %+v, want status %s", out, want)
		}
		return out
	}
	h.srv.set(h.hook.Secret, func(w http.ResponseWriter, b batchIn) {
		var rows []any
		for _, r := range b.Rows {
			switch string(r.Values["customer"]) {
			case `"nope"`:
				rows = append(rows, map[string]any{"row": r.Row, "issues": []any{map[string]any{"field": "customer", "severity": "error", "code": "unknown_customer", "message": "No such customer"}}})
			case `"fixme"`:
				rows = append(rows, map[string]any{"row": r.Row, "values": map[string]any{"email": "fixed@example.com", "customer": nil}})
			}
		}
		answerJSON(w, map[string]any{"rows": rows})
	})
	got := test("succeeded")
	if got.StatusCode == nil || *got.StatusCode != 200 || got.Error != nil || len(got.Rows) != 2 ||
		got.Rows[0].Row != 1 || len(got.Rows[0].Issues) != 1 || got.Rows[0].Issues[0].Code != "unknown_customer" ||
		got.Rows[1].Row != 2 || got.Rows[1].Values["email"] == nil || *got.Rows[1].Values["email"] != "fixed@example.com" ||
		got.Rows[1].Values["customer"] != nil || len(got.Rows[1].Values) != 2 {
		t.Fatalf("the answer to a sample: %+v", got)
	}
	h.srv.mu.Lock()
	sent := h.srv.batches
	h.srv.mu.Unlock()
	if len(sent) != 1 || sent[0].Type != "rows.validate" || sent[0].JobID != "" || sent[0].Hook != h.hook.Name || len(sent[0].Rows) != 3 ||
		string(sent[0].Rows[2].Values["email"]) != "null" || h.srv.badSigs.Load() != 0 {
		t.Fatalf("the hook received %+v (%d bad signatures), want the 3 sample rows, signed, job_id empty", sent, h.srv.badSigs.Load())
	}
	h.srv.set(h.hook.Secret, func(w http.ResponseWriter, _ batchIn) {
		answerJSON(w, map[string]any{"rows": []any{map[string]any{"row": 99, "issues": []any{map[string]any{"severity": "error", "code": "x", "message": "x"}}}}})
	})
	if got := test("refused"); got.Error == nil || !strings.Contains(*got.Error, "did not hold") || len(got.Rows) != 0 {
		t.Fatalf("an answer for other rows: %+v", got)
	}
	h.srv.set(h.hook.Secret, func(w http.ResponseWriter, _ batchIn) {
		w.Header().Set("Location", "http://169.254.169.254/latest/meta-data")
		w.WriteHeader(http.StatusTemporaryRedirect)
	})
	if got := test("failed"); got.StatusCode == nil || *got.StatusCode != 307 || got.Error == nil || !strings.Contains(*got.Error, "answered 307") {
		t.Fatalf("a redirect: %+v", got)
	}
	h.srv.set("whsec_"+strings.Repeat("A", 43)+"=", func(w http.ResponseWriter, _ batchIn) { answerJSON(w, map[string]any{"rows": []any{}}) })
	if got := test("failed"); got.StatusCode == nil || *got.StatusCode != 401 || h.srv.badSigs.Load() != 1 {
		t.Fatalf("a receiver with another secret: %+v", got)
	}

	var after struct {
		RecentBatches []struct{ Status string } `json:"recent_batches"`
	}
	h.app.Do("GET", "/v1/hooks/"+h.hook.ID, h.key, nil).JSON(t, &after)
	if len(after.RecentBatches) != len(before.RecentBatches) {
		t.Fatalf("the samples changed the hook's recent batches: %d, then %d", len(before.RecentBatches), len(after.RecentBatches))
	}
	events, _ := auditPage(t, h.app, h.key, "?action=hook.test")
	if len(events) != 4 || events[0].Action != "hook.test" || events[0].TargetID == nil || *events[0].TargetID != h.hook.ID {
		t.Fatalf("the samples' audit: %+v, want 4 hook.test events on the hook", events)
	}
}
