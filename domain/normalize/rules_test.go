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
	"testing"

	"github.com/tabnorm/tabnorm/domain"
)

// setList is a reference list in memory, for tests.
type setList map[string]bool

func (s setList) Contains(v string) (bool, error) { return s[v], nil }

func executeIn(t *testing.T, in Input) run {
	t.Helper()
	var rows, issues bytes.Buffer
	res, err := Run(context.Background(), in, Output{Rows: &rows, Issues: &issues})
	r := run{res: res, err: err, raw: rows.String()}
	for _, line := range strings.Split(strings.TrimSpace(rows.String()), "\n") {
		if line != "" {
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("row is not JSON: %v\n%s", err, line)
			}
			r.rows = append(r.rows, m)
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(issues.String()), "\n") {
		if line != "" {
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("issue is not JSON: %v\n%s", err, line)
			}
			r.issues = append(r.issues, m)
		}
	}
	return r
}

const rulesSchema = `{"fields":[
   {"name":"start_date","type":"date"},
   {"name":"end_date","type":"date"},
   {"name":"country","type":"string","format":"country"},
   {"name":"zip","type":"string"},
   {"name":"quantity","type":"integer"},
   {"name":"divisor","type":"integer"},
   {"name":"price","type":"number"},
   {"name":"total","type":"number"},
   {"name":"full_name","type":"string","compute":"source['First'] + ' ' + source['Last']"},
   {"name":"per_unit","type":"integer","compute":"row.quantity / row.divisor"},
   {"name":"zip_number","type":"integer","compute":"row.zip"},
   {"name":"sku","type":"string","constraints":{"inList":"lst_skus"}}],
 "rules":[
   {"name":"end_after_start","expression":"row.end_date == null || row.start_date == null || row.end_date >= row.start_date",
    "message":"End date is before the start date","fields":["end_date"],"severity":"error"},
   {"name":"us_zip","expression":"row.country != 'US' || row.zip != null","message":"US addresses need a zip","fields":["zip"]},
   {"name":"total_matches","expression":"row.total == null || abs(row.total - double(row.quantity) * row.price) < 0.01","severity":"warning","fields":["total"]},
   {"name":"long_notes","expression":"!source['Notes'].contains('zzz')","severity":"warning"}]}`

var rulesHeader = []string{"Start Date", "End Date", "Country", "Zip", "Quantity", "Divisor", "Price", "Total", "First", "Last", "SKU", "Notes"}

func rulesRun(t *testing.T, mode Mode, opts string, lists map[string]ListLookup, recs ...[]string) run {
	t.Helper()
	o, err := ParseOptions(mode, []byte(opts))
	if err != nil {
		t.Fatal(err)
	}
	return executeIn(t, Input{Mode: mode, Schema: mustSchema(t, rulesSchema), Options: o, Lists: lists,
		Sources: []Source{source("", append([][]string{rulesHeader}, recs...)...)}})
}

// issueOf is the one issue of a row with the code, or nil.
func issueOf(r run, row float64, code string) map[string]any {
	for _, is := range r.issues {
		if is["row"] == row && is["code"] == code {
			return is
		}
	}
	return nil
}

func TestRun_rulesComputeAndLists(t *testing.T) {
	t.Parallel()
	skus := map[string]ListLookup{"lst_skus": setList{"A1": true, "B2": true}}
	r := rulesRun(t, ModeNormalize, "", skus,
		[]string{"2024-01-01", "2024-02-01", "DE", "", "2", "1", "1.5", "3", "Ada", "Lovelace", "A1", ""},       // 1 valid
		[]string{"2024-03-01", "2024-02-01", "DE", "", "2", "1", "1.5", "3", "Ada", "Lovelace", "A1", ""},       // 2 end before start
		[]string{"2024-01-01", "2024-02-01", "US", "", "2", "1", "1.5", "3", "Ada", "Lovelace", "A1", ""},       // 3 US without zip
		[]string{"2024-01-01", "2024-02-01", "DE", "", "2", "1", "1.5", "99", "Ada", "Lovelace", "B2", ""},      // 4 total off: warning
		[]string{"2024-01-01", "2024-02-01", "DE", "", "2", "1", "1.5", "3", "Ada", "Lovelace", "Z9", ""},       // 5 not in list
		[]string{"2024-01-01", "2024-02-01", "DE", "", "2", "0", "1.5", "3", "Ada", "Lovelace", "A1", ""},       // 6 compute divides by zero
		[]string{"2024-01-01", "2024-02-01", "US", "AB-1", "2", "1", "1.5", "3", "Ada", "Lovelace", "A1", ""},   // 7 computed zip_number invalid
		[]string{"2024-01-01", "2024-02-01", "DE", "", "2", "1", "1.5", "3", "Ada", "Lovelace", "A1", "no zzz"}, // 8 rule warning
	)
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.res.RowCount != 3 || r.res.RejectedCount != 5 {
		t.Fatalf("rows %d rejected %d, issues %v", r.res.RowCount, r.res.RejectedCount, r.issues)
	}
	if got := r.rows[0]; got["full_name"] != "Ada Lovelace" || got["per_unit"] != float64(2) || got["zip_number"] != nil {
		t.Fatalf("computed values: %v", got)
	}
	want := []struct {
		row             float64
		code, field     string
		severity, rule  string
		messageContains string
	}{
		{2, "rule_violation", "end_date", "error", "end_after_start", "End date is before the start date"},
		{3, "rule_violation", "zip", "error", "us_zip", "US addresses need a zip"},
		{4, "rule_violation", "total", "warning", "total_matches", "total_matches"},
		{5, "not_in_list", "sku", "error", "", "lst_skus"},
		{6, "rule_error", "per_unit", "error", "", "division by zero"},
		{7, "invalid_integer", "zip_number", "error", "", "computed value"},
		{8, "rule_violation", "", "warning", "long_notes", "long_notes"},
	}
	for _, w := range want {
		is := issueOf(r, w.row, w.code)
		if is == nil {
			t.Errorf("row %v: no %s issue in %v", w.row, w.code, r.issues)
			continue
		}
		field, _ := is["field"].(string)
		rule, _ := is["rule"].(string)
		if field != w.field || is["severity"] != w.severity || rule != w.rule || !strings.Contains(is["message"].(string), w.messageContains) {
			t.Errorf("row %v: %v", w.row, is)
		}
	}
	if c := issueOf(r, 2, "rule_violation")["column"]; c != "End Date" {
		t.Errorf("a rule's issue is in its first field's column, not %v", c)
	}
	if c := issueOf(r, 8, "rule_violation")["column"]; c != nil {
		t.Errorf("a rule without fields has no column, not %v", c)
	}
	if issueOf(r, 1, "rule_violation") != nil || len(r.issues) != len(want) {
		t.Errorf("unexpected issues: %v", r.issues)
	}
}

func TestRun_ruleErrorIsTheRowsIssue(t *testing.T) {
	t.Parallel()
	s := mustSchema(t, `{"fields":[{"name":"a","type":"integer"},{"name":"b","type":"integer"}],
	  "rules":[{"name":"ratio","expression":"row.a / row.b > 1","fields":["b"]}]}`)
	r := executeIn(t, Input{Mode: ModeValidate, Schema: s, Sources: []Source{source("", []string{"a", "b"}, []string{"4", "2"}, []string{"4", "0"}, []string{"4", ""})}})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.res.RowCount != 1 || codes(r.issues)[0] != "rule_error" || len(r.issues) != 2 {
		t.Fatalf("%d rows, issues %v", r.res.RowCount, r.issues)
	}
	if !strings.Contains(r.issues[0]["message"].(string), "division by zero") || r.issues[0]["rule"] != "ratio" || r.issues[0]["field"] != "b" {
		t.Fatalf("%v", r.issues[0])
	}
	if r.issues[1]["row"] != float64(3) || !strings.Contains(r.issues[1]["message"].(string), "no such overload") {
		t.Fatalf("a null operand: %v", r.issues[1])
	}
}

func TestRun_ruleCostBudgetStopsAHostileRow(t *testing.T) {
	t.Parallel()
	// The estimate takes a cell as 1,024 characters; a 400,000-character
	// cell costs the rule more than its budget on that row.
	long := strings.Repeat("ab", 200_000)
	s := mustSchema(t, `{"fields":[{"name":"id","type":"integer"}],
	  "rules":[{"name":"notes","expression":"!source['Notes'].contains('zzz')"}]}`)
	r := executeIn(t, Input{Mode: ModeNormalize, Schema: s, Sources: []Source{source("", []string{"id", "Notes"}, []string{"1", "short"}, []string{"2", long})}})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.res.RowCount != 1 || len(r.issues) != 1 || r.issues[0]["code"] != "rule_error" || r.issues[0]["row"] != float64(2) ||
		!strings.Contains(r.issues[0]["message"].(string), "cost limit") {
		t.Fatalf("%d rows, issues %v", r.res.RowCount, r.issues)
	}
}

func TestRun_unknownListFailsTheJob(t *testing.T) {
	t.Parallel()
	s := mustSchema(t, `{"fields":[{"name":"sku","constraints":{"inList":"lst_gone"}}]}`)
	r := executeIn(t, Input{Mode: ModeNormalize, Schema: s, Sources: []Source{source("", []string{"sku"}, []string{"A"})}})
	var f *Failure
	if !errors.As(r.err, &f) || f.Code != domain.CodeInvalidSchema || !strings.Contains(f.Message, "lst_gone") {
		t.Fatalf("%v", r.err)
	}
}

func TestRun_inListWithNullValue(t *testing.T) {
	t.Parallel()
	s := mustSchema(t, `{"fields":[{"name":"id","type":"integer"},{"name":"sku","constraints":{"inList":"lst_s"}}]}`)
	o, _ := ParseOptions(ModeNormalize, []byte(`{"on_error":"null_value"}`))
	r := executeIn(t, Input{Mode: ModeNormalize, Schema: s, Options: o, Lists: map[string]ListLookup{"lst_s": setList{"A": true}},
		Sources: []Source{source("", []string{"id", "sku"}, []string{"1", "A"}, []string{"2", "B"})}})
	if r.err != nil || r.res.RowCount != 2 || r.rows[1]["sku"] != nil || !slices.Equal(codes(r.issues), []string{"not_in_list"}) || r.issues[0]["severity"] != "warning" {
		t.Fatalf("%v %v %v", r.err, r.rows, r.issues)
	}
}

// A review's preview shows what the rules, computed fields and lists make
// of the sample's rows.
func TestRunReview_previewRunsRules(t *testing.T) {
	t.Parallel()
	s := mustSchema(t, `{"fields":[{"name":"sku","constraints":{"inList":"lst_s"}},{"name":"qty","type":"integer"},
	  {"name":"label","compute":"row.sku + '#' + string(row.qty)"}],
	  "rules":[{"name":"positive","expression":"row.qty > 0","fields":["qty"]}]}`)
	samples, err := ReadSamples(context.Background(), []Source{source("", []string{"sku", "qty"}, []string{"A", "1"}, []string{"A", "0"}, []string{"B", "1"})})
	if err != nil {
		t.Fatal(err)
	}
	rev, err := RunReview(context.Background(), ReviewInput{Mode: ModeNormalize, Schema: s, Samples: samples, Lists: map[string]ListLookup{"lst_s": setList{"A": true}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rev.Preview) != 3 || !rev.Preview[0].Valid || string(rev.Preview[0].Values) != `{"sku":"A","qty":1,"label":"A#1"}` {
		t.Fatalf("preview %+v", rev.Preview)
	}
	if is := rev.Preview[1].Issues; len(is) != 1 || is[0].Code != "rule_violation" || is[0].Rule == nil || *is[0].Rule != "positive" {
		t.Fatalf("row 2: %+v", rev.Preview[1])
	}
	if is := rev.Preview[2].Issues; len(is) != 1 || is[0].Code != "not_in_list" || is[0].Rule != nil {
		t.Fatalf("row 3: %+v", rev.Preview[2])
	}
	if slices.ContainsFunc(rev.UnmappedFields, func(f string) bool { return f == "label" }) {
		t.Fatalf("a computed field is listed as unmapped: %v", rev.UnmappedFields)
	}
}

// An integer beyond 64 bits is kept in the row, but a rule that reads it
// cannot: that row's rule_error, not a pass on a null.
func TestRun_ruleReadingAHugeIntegerIsARuleError(t *testing.T) {
	t.Parallel()
	s := mustSchema(t, `{"fields":[{"name":"n","type":"integer"}],"rules":[{"name":"small","expression":"row.n == null || row.n < 10","fields":["n"]}]}`)
	r := executeIn(t, Input{Mode: ModeNormalize, Schema: s, Sources: []Source{source("", []string{"n"}, []string{"5"}, []string{"99999999999999999999"})}})
	if r.err != nil || r.res.RowCount != 1 || len(r.issues) != 1 || r.issues[0]["code"] != "rule_error" ||
		!strings.Contains(r.issues[0]["message"].(string), "99999999999999999999") {
		t.Fatalf("%v %d %v", r.err, r.res.RowCount, r.issues)
	}
}

// An issue's value is its own row's value, also when the engine wrote
// that value in the row's scratch (a date put in ISO form, a number
// without its grouping), which the next rows reuse before the batch's
// issues are written.
func TestRules_issueValuesAreTheirRows(t *testing.T) {
	t.Parallel()
	doc := `{"fields":[{"name":"id","type":"integer"},{"name":"d","type":"date"},{"name":"n","type":"number"},
	  {"name":"code","type":"integer","constraints":{"inList":"lst_codes"}}],
	 "rules":[{"name":"old","expression":"row.d == null || row.d < date('2000-01-01')","fields":["d"],"severity":"warning"},
	          {"name":"neg","expression":"row.n == null || row.n < 0.0","fields":["n"],"severity":"warning"}]}`
	recs := [][]string{{"id", "d", "n", "code"}}
	want := map[float64][3]string{}
	for i := range 1500 {
		day, month := 13+i%16, 1+i%12
		recs = append(recs, []string{strconv.Itoa(i + 1), fmt.Sprintf("%d/%d/%d", day, month, 2001+i%20),
			fmt.Sprintf("%d,%03d.50", 1+i%9, i%1000), fmt.Sprintf("%d,%03d", 1+i%7, i%1000)})
		want[float64(i+1)] = [3]string{fmt.Sprintf("%d-%02d-%02d", 2001+i%20, month, day), fmt.Sprintf("%d%03d.50", 1+i%9, i%1000),
			fmt.Sprintf("%d%03d", 1+i%7, i%1000)}
	}
	// null_value keeps the rows whose code is not in the list (a warning),
	// so the rules run on them too.
	o, err := ParseOptions(ModeNormalize, []byte(`{"on_error":"null_value"}`))
	if err != nil {
		t.Fatal(err)
	}
	r := executeIn(t, Input{Mode: ModeNormalize, Schema: mustSchema(t, doc), Options: o, Lists: map[string]ListLookup{"lst_codes": setList{}},
		Sources: []Source{source("", recs...)}})
	if r.err != nil {
		t.Fatal(r.err)
	}
	seen := map[string]int{}
	for _, is := range r.issues {
		row, ok := is["row"].(float64)
		if !ok {
			continue // the file's warnings (the decimal mark of "1,234")
		}
		w := want[row]
		var expect string
		switch is["code"].(string) + "/" + fmt.Sprint(is["rule"]) {
		case "rule_violation/old":
			expect = w[0]
		case "rule_violation/neg":
			expect = w[1]
		case "not_in_list/<nil>":
			expect = w[2]
		default:
			t.Fatalf("unexpected issue %v", is)
		}
		seen[is["code"].(string)+fmt.Sprint(is["rule"])]++
		if is["value"] != expect {
			t.Errorf("row %v %s %v: value %v, want %q", row, is["code"], is["rule"], is["value"], expect)
		}
	}
	if len(seen) != 3 || seen["not_in_list<nil>"] != 1500 || seen["rule_violationold"] != 1500 || seen["rule_violationneg"] != 1500 {
		t.Errorf("issues %v", seen)
	}
}
