package normalize

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/nyaruka/phonenumbers"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/normalize/coerce"
	"github.com/tabnorm/tabnorm/domain/schema"
	"github.com/tabnorm/tabnorm/domain/table"
)

func TestRun_inferNeverPanics(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("Very long header ", 30) // 510 characters
	accents := strings.Repeat("é", 150)             // 300 bytes: cut between characters
	tests := []struct {
		name   string
		header []string
		code   domain.Code // "" succeeds
		fields []string
	}{
		{"zero columns", []string{}, "no_columns", nil},
		{"long header", []string{long, long}, "", nil},
		{"long accented header", []string{accents, accents + "x"}, "", nil},
		{"generated names collide", []string{"a", "a", "a_2", "A"}, "", []string{"a", "a_2", "a_2_2", "a_3"}},
		{"blank headers", []string{"", " ", "column_1"}, "", []string{"column_1", "column_2", "column_1_2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			row := make([]string, len(tc.header))
			r := execute(t, ModeInfer, nil, "", source("", tc.header, row))
			if tc.code != "" {
				var f *Failure
				if !errors.As(r.err, &f) || f.Code != tc.code || r.res.InferredSchema != nil {
					t.Fatalf("%v, want %s", r.err, tc.code)
				}
				return
			}
			if r.err != nil || r.res.InferredSchema == nil {
				t.Fatalf("%v", r.err)
			}
			if _, err := schema.Parse(r.res.InferredSchema.JSON()); err != nil {
				t.Fatalf("proposed schema does not parse: %v", err)
			}
			var names []string
			for _, f := range r.res.InferredSchema.Fields {
				names = append(names, f.Name)
				if len(f.Name) > 200 {
					t.Fatalf("name of %d bytes", len(f.Name))
				}
			}
			if tc.fields != nil && strings.Join(names, ",") != strings.Join(tc.fields, ",") {
				t.Fatalf("fields %q, want %q", names, tc.fields)
			}
		})
	}
}

// panicReader panics where it is told to, as a reader's bug would.
type panicReader struct {
	memReader
	inHeader bool
}

func (p *panicReader) Header() []string {
	if p.inHeader {
		panic("header bug")
	}
	return []string{"a"}
}

func (p *panicReader) Next() (table.Record, error) {
	p.i++
	if p.i > 600 { // past the first batch, in the reader's goroutine
		panic("next bug")
	}
	return table.Record{Number: p.i, Cells: []string{"1"}}, nil
}

func TestRun_panicIsAFailureWithItsStack(t *testing.T) {
	t.Parallel()
	s := mustSchema(t, `{"fields":[{"name":"a","type":"integer"}]}`)
	for _, mode := range []Mode{ModeNormalize, ModeInfer} {
		for _, inHeader := range []bool{true, false} {
			src := Source{Open: func() (table.Reader, error) { return &panicReader{inHeader: inHeader}, nil }}
			o := Defaults(mode)
			_, err := Run(t.Context(), Input{Mode: mode, Schema: s, Options: o, Sources: []Source{src}}, Output{Rows: io.Discard, Issues: io.Discard})
			var f *Failure
			if !errors.As(err, &f) || f.Code != "internal_error" || !strings.Contains(f.Stack, "bug") || strings.Contains(f.Message, "bug") {
				t.Fatalf("%s header=%v: %v", mode, inHeader, err)
			}
		}
	}
}

func TestRun_raggedRows(t *testing.T) {
	t.Parallel()
	s := mustSchema(t, `{"fields":[{"name":"a"},{"name":"b"},{"name":"c"}]}`)
	rows := [][]string{{"a", "b", "c"},
		{"1", "2", "3", ""},      // a trailing delimiter
		{"1", "2", "3", " ", ""}, // two, one a space
		{"1", "2"},               // a missing trailing cell
		{"1", "2", "3", "4"},     // data that would be lost
		{"1", "2", "3"}}
	tests := []struct {
		opts      string
		valid     int
		severites string
	}{
		{``, 4, "warning,warning,warning,error"},
		{`{"ragged_rows":"pad"}`, 4, "warning,warning,warning,error"},
		{`{"ragged_rows":"reject"}`, 1, "error,error,error,error"},
	}
	for _, tc := range tests {
		r := execute(t, ModeNormalize, s, tc.opts, source("", rows...))
		var sev []string
		for _, is := range r.issues {
			if is["code"] != "ragged_row" {
				t.Fatalf("%s: issue %v", tc.opts, is)
			}
			sev = append(sev, is["severity"].(string))
		}
		if len(r.rows) != tc.valid || strings.Join(sev, ",") != tc.severites {
			t.Fatalf("%s: %d rows, issues %v", tc.opts, len(r.rows), sev)
		}
		if tc.valid == 4 && (r.rows[2]["c"] != nil || r.rows[0]["c"] != "3") {
			t.Fatalf("%s: rows %v", tc.opts, r.rows)
		}
	}
	if _, err := ParseOptions(ModeNormalize, []byte(`{"ragged_rows":"drop"}`)); err == nil {
		t.Fatal("ragged_rows drop accepted")
	}
}

func TestRun_oneIssuePerCell(t *testing.T) {
	t.Parallel()
	s := mustSchema(t, `{"fields":[{"name":"email","format":"email","constraints":{"required":true}},{"name":"n","type":"integer","constraints":{"required":true}}]}`)
	r := execute(t, ModeNormalize, s, "", source("", []string{"email", "n"}, []string{"bob@", "x"}, []string{"", "1"}))
	if got := strings.Join(codes(r.issues), ","); got != "invalid_email,invalid_integer,required" {
		t.Fatalf("issues %s", got)
	}
}

func TestRun_noColumnsMapped(t *testing.T) {
	t.Parallel()
	s := mustSchema(t, `{"fields":[{"name":"email"},{"name":"phone"}]}`)
	r := execute(t, ModeNormalize, s, "", source("", []string{"Title of the report", ""}, []string{"x", "y"}))
	var f *Failure
	if !errors.As(r.err, &f) || f.Code != "no_columns_mapped" || len(r.rows) != 0 {
		t.Fatalf("%v %v", r.err, r.rows)
	}
}

// describingReader is a reader that reports its Detection.
type describingReader struct {
	memReader
	d table.Detection
}

func (d *describingReader) Detection() table.Detection { return d.d }

func TestRun_fileWarningsFromTheReader(t *testing.T) {
	t.Parallel()
	s := mustSchema(t, `{"fields":[{"name":"a"}]}`)
	d := table.Detection{Format: table.CSV, Encoding: "windows-1251", EncodingConfidence: "guessed", Delimiter: ",", Quote: `"`,
		HeaderRow: 4, SkippedRows: []int{1, 2, 3}, SkippedCount: 3}
	src := Source{Open: func() (table.Reader, error) {
		return &describingReader{memReader: memReader{rows: [][]string{{"a", "b"}, {"1", "2"}}}, d: d}, nil // two columns: the delimiter split
	}}
	r := execute(t, ModeNormalize, s, "", src)
	if got := strings.Join(codes(r.issues), ","); got != "skipped_preamble,encoding_guessed" || len(r.rows) != 1 {
		t.Fatalf("issues %s, %d rows", got, len(r.rows))
	}
	if m := r.issues[0]["message"].(string); !strings.Contains(m, "rows 1, 2, 3") || r.issues[0]["severity"] != "warning" || r.issues[0]["row"] != nil {
		t.Fatalf("%v", r.issues[0])
	}
	if m := r.issues[1]["message"].(string); !strings.Contains(m, "windows-1251") {
		t.Fatalf("%v", r.issues[1])
	}
}

// The schema infer proposes for a file normalizes that file without
// rejecting a row: the values it took for missing are missing, and every
// value fits the type it proposed.
func TestRun_inferRoundTrips(t *testing.T) {
	t.Parallel()
	rows := [][]string{{"id", "score", "when", "note", "flag"},
		{"1", "1.5", "2024-01-31", "x", "yes"},
		{"2", "NULL", "None", "NaN", "n/a"},
		{"3", "Na", "-", " NA ", "N/A"},
		{"4", "null", "nan", "none", "no"},
		{"5", "2", "2024-02-01", "", "yes"},
	}
	r := execute(t, ModeInfer, nil, "", source("", rows...))
	if r.err != nil {
		t.Fatal(r.err)
	}
	sch := r.res.InferredSchema
	got := map[string]string{}
	for _, f := range sch.Fields {
		got[f.Name] = string(f.Type)
	}
	if got["id"] != "integer" || got["score"] != "number" || got["when"] != "date" || got["flag"] != "boolean" {
		t.Fatalf("types %v", got)
	}
	if want := []string{"", "-", "N/A", "NA", "NULL", "Na", "NaN", "None", "n/a", "nan", "none", "null"}; strings.Join(sch.MissingValues, "|") != strings.Join(want, "|") {
		t.Fatalf("missingValues %q, want %q", sch.MissingValues, want)
	}
	n := execute(t, ModeNormalize, mustSchema(t, string(sch.JSON())), "", source("", rows...))
	if n.err != nil || n.res.RejectedCount != 0 || len(n.rows) != 5 || n.rows[1]["score"] != nil {
		t.Fatalf("%v: %d rejected, issues %v", n.err, n.res.RejectedCount, n.issues)
	}
}

// coerce.ParsePhone agrees with libphonenumber on calling codes and lengths: a
// number whose calling code is not in use, or whose length no number of
// that code has, is refused on the fast path as libphonenumber refuses it.
// (Within a calling code, the fast path does not check number ranges:
// libphonenumber costs about 100× more per value.)
func TestParsePhone_agreesWithLibphonenumber(t *testing.T) {
	t.Parallel()
	cases := []string{"+999 1234 5678", "+1 (415) 555-2671", "+44 20 7946 0958", "+49 30 2345678",
		"+33 1 23 45 67 89", "415-555-2671", "+80012345678", "+210 1234 5678", "+42 123 456 789",
		"+44 1234", "+353 1 234 5678 9012", "+86 10 1234 5678", "+7 495 123 45 67", "+383 44 123 456", "+688 12345678"}
	rnd := rand.New(rand.NewPCG(1, 2))
	for range 500 { // calling codes in use and not, of any length
		cases = append(cases, fmt.Sprintf("+%d %d", 2+rnd.IntN(998), rnd.Int64N(1e9)))
	}
	for _, s := range cases {
		got, ok := coerce.ParsePhone(new(coerce.Scratch), s, "US")
		want, wantOK := "", false
		if num, err := phonenumbers.Parse(s, "US"); err == nil && phonenumbers.IsValidNumber(num) {
			want, wantOK = phonenumbers.Format(num, phonenumbers.E164), true
		}
		if wantOK && (!ok || got != want) {
			t.Errorf("%q: %q %v, libphonenumber %q %v", s, got, ok, want, wantOK)
		}
		possible := false
		if num, err := phonenumbers.Parse(s, "US"); err == nil {
			possible = phonenumbers.IsPossibleNumber(num) && phonenumbers.GetRegionCodeForCountryCode(int(num.GetCountryCode())) != "ZZ"
		}
		if ok && !possible {
			t.Errorf("%q: %q accepted, libphonenumber says no such number", s, got)
		}
	}
	for _, s := range []string{"+999 1234 5678", "+42 123 456 789", "+44 1234"} {
		if v, ok := coerce.ParsePhone(new(coerce.Scratch), s, "US"); ok {
			t.Errorf("%q accepted as %q", s, v)
		}
	}
}

func TestRun_decimalMarkIsDecidedPerColumn(t *testing.T) {
	t.Parallel()
	s := mustSchema(t, `{"fields":[{"name":"eu","type":"number"},{"name":"us","type":"number"},{"name":"odd","type":"number"}]}`)
	rows := [][]string{{"eu", "us", "odd"},
		{"52,545", "12,426", "12,426"}, // ambiguous alone: each follows its column
		{"0,611553068", "1,234.50", "7"},
		{"1.234,5", "40,000,000.00", "8"},
		{"3", "£68,486.66", "9"}}
	r := execute(t, ModeNormalize, s, "", source("", rows...))
	if r.err != nil || len(r.rows) != 4 {
		t.Fatalf("%v %v %v", r.err, r.rows, r.issues)
	}
	want := [][]string{{"52.545", "12426", "12426"}, {"0.611553068", "1234.50", "7"}, {"1234.5", "40000000.00", "8"}, {"3", "68486.66", "9"}}
	for i, w := range want {
		for j, f := range []string{"eu", "us", "odd"} {
			if got := fmt.Sprint(r.rows[i][f]); got != w[j] {
				t.Errorf("row %d %s: %s, want %s", i+1, f, got, w[j])
			}
		}
	}
	if got := strings.Join(codes(r.issues), ","); got != "ambiguous_decimal_separator" || r.issues[0]["column"] != "odd" {
		t.Fatalf("issues %v", r.issues)
	}
	var eu Decision
	for _, d := range r.res.Decisions {
		if d.Field == "eu" {
			eu = d
		}
	}
	if eu.Decimal != "," || eu.CommaVotes != 2 || eu.DecimalAmbiguous != 1 || eu.Column != "eu" {
		t.Fatalf("decision %+v", eu)
	}
	// A value the column's mark cannot read is invalid, never read ×1000.
	r = execute(t, ModeNormalize, s, `{"decimal":"."}`, source("", []string{"eu", "us", "odd"}, []string{"0,611553068", "1", "1"}))
	if got := strings.Join(codes(r.issues), ","); got != "invalid_number" {
		t.Fatalf("issues %v, rows %v", r.issues, r.rows)
	}
	// The options the decisions name reproduce the run: no warning, same rows.
	r2 := execute(t, ModeNormalize, s, `{"columns":{"eu":{"decimal":","},"us":{"decimal":"."},"odd":{"decimal":".","evidence":{"ambiguous":1}}}}`, source("", rows...))
	if len(r2.issues) != 0 || fmt.Sprint(r2.rows) != fmt.Sprint(execute(t, ModeNormalize, s, "", source("", rows...)).rows) {
		t.Fatalf("%v %v", r2.issues, r2.rows)
	}
	if _, err := ParseOptions(ModeNormalize, []byte(`{"decimal":";"}`)); err == nil {
		t.Fatal("decimal ; accepted")
	}
	if _, err := ParseOptions(ModeNormalize, []byte(`{"columns":{"a":{"decimal":"x"}}}`)); err == nil {
		t.Fatal("columns.a.decimal x accepted")
	}
}

func TestRun_ambiguousDateOrderIsAWarning(t *testing.T) {
	t.Parallel()
	s := mustSchema(t, `{"fields":[{"name":"month","type":"date"},{"name":"iso","type":"date"},{"name":"eu","type":"date"}]}`)
	r := execute(t, ModeNormalize, s, "", source("", []string{"month", "iso", "eu"},
		[]string{"01-02-2013", "2024-01-02", "01/02/2024"},
		[]string{"01-03-2013", "2024-01-03", "13/02/2024"}))
	if got := strings.Join(codes(r.issues), ","); got != "ambiguous_date_order" || r.issues[0]["column"] != "month" ||
		!strings.Contains(r.issues[0]["message"].(string), "MDY") || len(r.rows) != 2 {
		t.Fatalf("issues %v", r.issues)
	}
	r = execute(t, ModeNormalize, s, `{"columns":{"month":{"date_order":"DMY"}}}`, source("", []string{"month", "iso", "eu"},
		[]string{"01-02-2013", "2024-01-02", "01/02/2024"}, []string{"01-03-2013", "2024-01-03", "13/02/2024"}))
	if len(r.issues) != 0 || r.rows[0]["month"] != "2013-02-01" || r.rows[0]["eu"] != "2024-02-01" {
		t.Fatalf("%v %v", r.issues, r.rows)
	}
}

func TestRun_inferReadsNumbersAsTheEngineDoes(t *testing.T) {
	t.Parallel()
	rows := [][]string{{"Price", "Total", "Count", "Ratio", "Zip", "Phone"},
		{"£68,486.66", "40,000,000.00", "12,426", "0,611553068", "00501", "555 1234"},
		{"£1.50", "1,000.5", "7", "1,5", "10001", "555 9876"},
		{"NULL", "2", "12,000", "2", "02134", "555 0000"}}
	r := execute(t, ModeInfer, nil, "", source("", rows...))
	if r.err != nil {
		t.Fatal(r.err)
	}
	got := map[string]string{}
	for _, f := range r.res.InferredSchema.Fields {
		got[f.Name] = string(f.Type) + f.DecimalChar
	}
	want := map[string]string{"price": "number.", "total": "number.", "count": "integer.", "ratio": "number,", "zip": "string", "phone": "string"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("types %v, want %v", got, want)
	}
	n := execute(t, ModeNormalize, mustSchema(t, string(r.res.InferredSchema.JSON())), "", source("", rows...))
	if n.res.RejectedCount != 0 || fmt.Sprintf("%v %v %v", n.rows[0]["ratio"], n.rows[0]["count"], n.rows[0]["price"]) != "0.611553068 12426 68486.66" {
		t.Fatalf("%v %v", n.rows, n.issues)
	}
}

// result.detected names every decision, and its options, passed back,
// reproduce the run.
func TestResult_detectedRoundTrips(t *testing.T) {
	t.Parallel()
	s := mustSchema(t, `{"fields":[{"name":"when","type":"date"},{"name":"amount","type":"number"},{"name":"note"}]}`)
	rows := [][]string{{"When", "Amount", "Note"}, {"01/02/2024", "12,426", "a"}, {"13/02/2024", "0,5", "b"}, {"03/04/2024", "7", "c"}}
	d := table.Detection{Format: table.CSV, Encoding: "utf-8", EncodingConfidence: "certain", Delimiter: "\t", Quote: `"`, HeaderRow: 2,
		SkippedRows: []int{1}, SkippedCount: 1}
	src := Source{Open: func() (table.Reader, error) {
		return &describingReader{memReader: memReader{rows: rows}, d: d}, nil
	}}
	first := execute(t, ModeNormalize, s, "", src)
	var det struct {
		Options map[string]json.RawMessage `json:"options"`
		Files   []map[string]any           `json:"files"`
	}
	raw := first.res.DetectedJSON()
	if err := json.Unmarshal(raw, &det); err != nil {
		t.Fatal(err)
	}
	if len(det.Files) != 1 || det.Files[0]["encoding_confidence"] != "certain" || det.Files[0]["skipped_count"] != 1.0 {
		t.Fatalf("%s", raw)
	}
	if got := string(det.Options["columns"]); got != `{"Amount":{"decimal":",","evidence":{"decimal_ambiguous":1,"decimal_comma":1,"decimal_point":0}},"When":{"date_order":"DMY","evidence":{"date_ambiguous":2,"day_first":1,"month_first":0}}}` {
		t.Fatalf("columns %s", got)
	}
	opts, _ := json.Marshal(det.Options)
	o, err := ParseOptions(ModeNormalize, opts)
	if err != nil || o.Delimiter != `\t` || o.Encoding != "utf-8" || o.HeaderRow != 2 || o.Quote != `"` || o.Escape != "none" {
		t.Fatalf("%s: %v %+v", opts, err, o)
	}
	again := execute(t, ModeNormalize, s, string(opts), src)
	// The same decisions (now given, so without evidence) and the same rows.
	var det2 struct {
		Options json.RawMessage `json:"options"`
	}
	_ = json.Unmarshal(again.res.DetectedJSON(), &det2)
	o2, err := ParseOptions(ModeNormalize, det2.Options)
	if err != nil || fmt.Sprint(o2) != fmt.Sprint(o) || fmt.Sprint(again.rows) != fmt.Sprint(first.rows) {
		t.Fatalf("%v\n%v\n%s\n%s", again.rows, first.rows, again.res.DetectedJSON(), raw)
	}
}

// A header-less, unquoted reading is said explicitly in the detected
// options ("none"), so that passing them back cannot detect a header or
// quotes; settings that apply to no file (a workbook's sheet for delimited
// files, a delimiter for a workbook) are not given, and one file's
// setting is not lost because a file of another format lacks it.
func TestResult_detectedOptionsSayNone(t *testing.T) {
	t.Parallel()
	s := mustSchema(t, `{"fields":[{"name":"a"},{"name":"b"}]}`)
	detected := func(ds ...table.Detection) map[string]any {
		t.Helper()
		srcs := make([]Source, len(ds))
		for i, d := range ds {
			srcs[i] = Source{FileID: fmt.Sprintf("f%d", i), Open: func() (table.Reader, error) {
				return &describingReader{memReader: memReader{rows: [][]string{{"a", "b"}, {"1", "2"}}}, d: d}, nil
			}}
		}
		r := execute(t, ModeNormalize, s, "", srcs...)
		var det struct {
			Options map[string]any `json:"options"`
		}
		if err := json.Unmarshal(r.res.DetectedJSON(), &det); err != nil {
			t.Fatal(err)
		}
		return det.Options
	}
	csv := table.Detection{Format: table.CSV, Encoding: "UTF-8", Delimiter: ";"}
	if got := fmt.Sprint(detected(csv)); got != "map[comment:none delimiter:; encoding:UTF-8 escape:none header_row:none quote:none]" {
		t.Fatalf("header-less, unquoted CSV: %s", got)
	}
	opts, _ := json.Marshal(detected(csv))
	if o, err := ParseOptions(ModeNormalize, opts); err != nil || o.HeaderRow != HeaderNone || o.Quote != "none" || o.Escape != "none" {
		t.Fatalf("%s: %v %+v", opts, err, o)
	} else if ro := o.ReadOptions(table.Limits{}); !ro.NoHeader || ro.Quote != table.QuoteNone || ro.Escape != table.EscapeNone || ro.Delimiter != ';' {
		t.Fatalf("read options %+v", ro)
	}
	quoted := table.Detection{Format: table.CSV, Encoding: "UTF-8", Delimiter: ",", Quote: "'", Escape: `\`, HeaderRow: 1}
	book := table.Detection{Format: table.XLSX, Sheet: "Data", HeaderRow: 1}
	if got := fmt.Sprint(detected(quoted, book)); got != `map[comment:none delimiter:, encoding:UTF-8 escape:\ header_row:1 quote:' sheet:Data]` {
		t.Fatalf("a CSV and a workbook: %s", got)
	}
	if got := fmt.Sprint(detected(quoted, csv)); got != "map[comment:none encoding:UTF-8]" {
		t.Fatalf("two CSVs that disagree: %s", got)
	}
}
