package normalize

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/hook"
)

type hookFunc func(ctx context.Context, rows []hook.Row) ([]hook.Answer, error)

func (f hookFunc) Check(ctx context.Context, rows []hook.Row) ([]hook.Answer, error) {
	return f(ctx, rows)
}

const hookSchema = `{"fields":[
	{"name":"id","type":"integer"},
	{"name":"email","type":"string","format":"email"},
	{"name":"customer","type":"string"}],
 "hooks":[{"hook":"crm","fields":["customer","email"]}]}`

func runWithHooks(t *testing.T, doc string, hooks []HookUse, rows ...[]string) run {
	t.Helper()
	s := mustSchema(t, doc)
	o, err := ParseOptions(ModeNormalize, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out, issues bytes.Buffer
	res, err := Run(context.Background(), Input{Mode: ModeNormalize, Schema: s, Options: o, Sources: []Source{source("", rows...)}, Hooks: hooks},
		Output{Rows: &out, Issues: &issues})
	r := run{res: res, err: err, raw: out.String()}
	for line := range strings.Lines(out.String()) {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		r.rows = append(r.rows, m)
	}
	for line := range strings.Lines(issues.String()) {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		r.issues = append(r.issues, m)
	}
	return r
}

// A hook's error rejects a row, its warning keeps it, its corrections
// are coerced again (a bad one rejects the row) and each is recorded as
// the warning hook_corrected; only the listed fields are sent.
func TestRun_hookIssuesAndCorrections(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var sent []hook.Row
	crm := hookFunc(func(_ context.Context, rows []hook.Row) ([]hook.Answer, error) {
		mu.Lock()
		sent = append(sent, rows...)
		mu.Unlock()
		var out []hook.Answer
		for _, r := range rows {
			switch string(r.Value("customer")) {
			case `"nope"`:
				out = append(out, hook.Answer{Row: r.Row, Issues: []hook.Issue{{Field: "customer", Severity: "error", Code: "unknown_customer", Message: "No such customer"}}})
			case `"old"`:
				out = append(out, hook.Answer{Row: r.Row, Issues: []hook.Issue{{Field: "customer", Severity: "warning", Code: "customer_archived", Message: "Archived"}}})
			case `"fixme"`:
				out = append(out, hook.Answer{Row: r.Row, Corrections: []hook.Correction{{Field: "email", Value: "fixed@example.com"}}})
			case `"breakme"`:
				out = append(out, hook.Answer{Row: r.Row, Corrections: []hook.Correction{{Field: "email", Value: "not an address"}}})
			}
		}
		return out, nil
	})
	r := runWithHooks(t, hookSchema, []HookUse{{Name: "crm", Fields: []string{"customer", "email"}, BatchSize: 500, OnError: hook.FailJob, Hook: crm}},
		[]string{"id", "email", "customer"},
		[]string{"1", "a@example.com", "ok"},
		[]string{"2", "b@example.com", "nope"},
		[]string{"3", "c@example.com", "old"},
		[]string{"4", "wrong@", "fixme"},
		[]string{"5", "e@example.com", "breakme"},
		[]string{"x", "f@example.com", "never sent"},
	)
	if r.err != nil {
		t.Fatal(r.err)
	}
	if len(sent) != 4 || string(sent[0].Value("email")) != `"a@example.com"` {
		t.Fatalf("sent: %+v", sent)
	}
	var nums []int64
	for _, s := range sent {
		nums = append(nums, s.Row)
		if s.Value("id") != nil {
			t.Fatalf("a field not listed was sent: %+v", s)
		}
	}
	if !slices.Equal(nums, []int64{1, 2, 3, 5}) {
		t.Fatalf("rows sent %v, want those that passed coercion: 1 2 3 5 (4's email and 6's id are refused)", nums)
	}
	var ids []string
	for _, row := range r.rows {
		ids = append(ids, strconv.Itoa(int(row["id"].(float64))))
	}
	if !slices.Equal(ids, []string{"1", "3"}) {
		t.Fatalf("rows written %v, want 1 (kept) and 3 (a warning keeps it); raw %s", ids, r.raw)
	}
	got := map[string]map[string]any{}
	for _, is := range r.issues {
		got[is["code"].(string)+"@"+strconv.Itoa(int(is["row"].(float64)))] = is
	}
	if is := got["unknown_customer@2"]; is == nil || is["hook"] != "crm" || is["severity"] != "error" || is["message"] != "No such customer" || is["field"] != "customer" {
		t.Fatalf("the hook's error: %+v\nall: %v", is, codes(r.issues))
	}
	if is := got["customer_archived@3"]; is == nil || is["hook"] != "crm" || is["severity"] != "warning" {
		t.Fatalf("the hook's warning: %+v", is)
	}
	// Row 5's correction is no address: it is coerced again and refused.
	if is := got["hook_corrected@5"]; is == nil || is["value"] != `"e@example.com"` || !strings.Contains(is["message"].(string), "not an address") {
		t.Fatalf("the correction is not recorded: %+v\nall: %v", is, codes(r.issues))
	}
	if got["invalid_email@5"] == nil && got["invalid_format@5"] == nil {
		t.Fatalf("the corrected value was not coerced again: %v", codes(r.issues))
	}
	st := r.res.Hooks
	if len(st) != 1 || st[0].Name != "crm" || st[0].Batches != 1 || st[0].RowsSent != 4 || st[0].Issues != 2 || st[0].ValuesChanged != 1 || st[0].Failures != 0 {
		t.Fatalf("stats: %+v", st)
	}
}

// A correction that coerces is written, replacing the file's value, and
// counted; it is not a person's edit.
func TestRun_hookCorrectionIsWritten(t *testing.T) {
	t.Parallel()
	crm := hookFunc(func(_ context.Context, rows []hook.Row) ([]hook.Answer, error) {
		return []hook.Answer{{Row: rows[0].Row, Corrections: []hook.Correction{{Field: "customer", Value: "ACME-1"}}}}, nil
	})
	r := runWithHooks(t, hookSchema, []HookUse{{Name: "crm", Fields: []string{"customer"}, BatchSize: 10, OnError: hook.FailJob, Hook: crm}},
		[]string{"id", "email", "customer"}, []string{"1", "a@example.com", "acme 1"})
	if r.err != nil || len(r.rows) != 1 || r.rows[0]["customer"] != "ACME-1" || r.res.EditsApplied != 0 || r.res.Hooks[0].ValuesChanged != 1 {
		t.Fatalf("%v %s %+v", r.err, r.raw, r.res.Hooks)
	}
	if len(r.issues) != 1 || r.issues[0]["code"] != "hook_corrected" || r.issues[0]["severity"] != "warning" || r.issues[0]["hook"] != "crm" {
		t.Fatalf("issues: %v", r.issues)
	}
}

// Rows go in requests of at most the declared batch size, each row once.
func TestRun_hookBatches(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	seen := map[int64]int{}
	largest := 0
	crm := hookFunc(func(_ context.Context, rows []hook.Row) ([]hook.Answer, error) {
		mu.Lock()
		defer mu.Unlock()
		largest = max(largest, len(rows))
		for _, r := range rows {
			seen[r.Row]++
		}
		return nil, nil
	})
	recs := [][]string{{"id", "email", "customer"}}
	for i := range 1300 {
		recs = append(recs, []string{strconv.Itoa(i), "a@example.com", "c"})
	}
	r := runWithHooks(t, hookSchema, []HookUse{{Name: "crm", BatchSize: 100, OnError: hook.FailJob, Hook: crm}}, recs...)
	if r.err != nil || len(r.rows) != 1300 || len(seen) != 1300 || largest != 100 {
		t.Fatalf("err %v, rows %d, distinct rows sent %d, largest request %d", r.err, len(r.rows), len(seen), largest)
	}
	for row, n := range seen {
		if n != 1 {
			t.Fatalf("row %d sent %d times", row, n)
		}
	}
	if r.res.Hooks[0].RowsSent != 1300 || r.res.Hooks[0].Batches < 13 {
		t.Fatalf("stats %+v", r.res.Hooks)
	}
}

// A batch without a usable answer: fail_job fails the job with
// hook_failed naming the hook, flag_rows warns on each of its rows, skip
// warns once for the job.
func TestRun_hookOnError(t *testing.T) {
	t.Parallel()
	down := hookFunc(func(context.Context, []hook.Row) ([]hook.Answer, error) {
		return nil, errors.New("503 Service Unavailable")
	})
	recs := [][]string{{"id", "email", "customer"}, {"1", "a@example.com", "c"}, {"2", "b@example.com", "d"}}
	use := func(mode string) []HookUse { return []HookUse{{Name: "crm", BatchSize: 10, OnError: mode, Hook: down}} }

	r := runWithHooks(t, hookSchema, use(hook.FailJob), recs...)
	var f *Failure
	if !errors.As(r.err, &f) || f.Code != domain.CodeHookFailed || !strings.Contains(f.Message, "crm") || !strings.Contains(f.Message, "503") {
		t.Fatalf("fail_job: %v", r.err)
	}
	r = runWithHooks(t, hookSchema, use(hook.FlagRows), recs...)
	if r.err != nil || len(r.rows) != 2 || len(r.issues) != 2 || r.issues[0]["code"] != "hook_unavailable" || r.issues[0]["severity"] != "warning" ||
		r.issues[1]["row"] != float64(2) || r.res.Hooks[0].Failures != 1 {
		t.Fatalf("flag_rows: %v %v %+v", r.err, r.issues, r.res.Hooks)
	}
	r = runWithHooks(t, hookSchema, use(hook.Skip), recs...)
	if r.err != nil || len(r.rows) != 2 || len(r.issues) != 1 || r.issues[0]["row"] != nil || r.issues[0]["code"] != "hook_unavailable" ||
		len(r.res.FileIssues) != 1 {
		t.Fatalf("skip: %v %v", r.err, r.issues)
	}
}

// TestAppendHookValues: picking a row's members by scanning its JSON
// gives what decoding the row and keeping the listed fields gives.
func TestAppendHookValues(t *testing.T) {
	rows := []string{
		`{"id":1,"email":"a@b.c","name":"q\"u,o}t:e\\","tags":["a","b]"],"obj":{"k":{"n":[1,2]}},"n":-1.5e3,"ok":false,"nil":null,"_extra":{"x":"y"}}` + "\n",
		`{ "email" : null , "id" : 2 }`,
		`{}`,
	}
	cases := [][]string{nil, {"email"}, {"name", "tags", "obj"}, {"n", "ok", "nil", "absent"}}
	for _, row := range rows {
		var all map[string]json.RawMessage
		if err := json.Unmarshal([]byte(row), &all); err != nil {
			t.Fatal(err)
		}
		for _, fields := range cases {
			keys := make([][]byte, len(fields))
			for i, f := range fields {
				keys[i] = appendJSONString(nil, f)
			}
			got := appendHookValues([]byte("prefix"), []byte(row), keys)
			var back map[string]json.RawMessage
			if err := json.Unmarshal(got[len("prefix"):], &back); err != nil {
				t.Fatalf("row %s fields %v: invalid JSON %s: %v", row, fields, got, err)
			}
			want := map[string]json.RawMessage{}
			for k, v := range all {
				if fields == nil && k != "_extra" || slices.Contains(fields, k) {
					want[k] = v
				}
			}
			if fmt.Sprint(back) != fmt.Sprint(want) {
				t.Fatalf("row %s fields %v: got %s, want %v", row, fields, got, want)
			}
		}
	}
}
