package normalize

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/tabnorm/tabnorm/domain/normalize/match"
	"github.com/tabnorm/tabnorm/domain/schema"
	"github.com/tabnorm/tabnorm/domain/table"
)

// memReader is a table.Reader over rows in memory; the first row is the header.
type memReader struct {
	rows [][]string
	i    int
	rec  []table.Record // optional: records with issues, instead of rows
}

func (m *memReader) Format() table.Format { return table.CSV }
func (m *memReader) Header() []string     { return m.rows[0] }
func (m *memReader) BytesRead() int64     { return int64(m.i * 10) }
func (m *memReader) Close() error         { return nil }
func (m *memReader) Next() (table.Record, error) {
	if m.rec != nil {
		if m.i >= len(m.rec) {
			return table.Record{}, io.EOF
		}
		m.i++
		return m.rec[m.i-1], nil
	}
	if m.i+1 >= len(m.rows) {
		return table.Record{}, io.EOF
	}
	m.i++
	return table.Record{Number: m.i, Cells: m.rows[m.i]}, nil
}

// reusingReader hands records out as the CSV reader does: not owned, in
// one slice and one text buffer it overwrites on the next call (with junk
// first, so a record kept without copying shows it), with the buffer as the
// record's Text (and, for every third record, a wrong Text).
type reusingReader struct {
	memReader
	cells []string
	text  []byte
}

func (m *reusingReader) Next() (table.Record, error) {
	rec, err := m.memReader.Next()
	if err != nil {
		return rec, err
	}
	for i := range m.text {
		m.text[i] = '#'
	}
	m.cells, m.text = m.cells[:0], m.text[:0]
	for _, c := range rec.Cells {
		m.text = append(m.text, c...)
	}
	at := 0
	for _, c := range rec.Cells {
		m.cells = append(m.cells, string(m.text[at:at+len(c)]))
		if len(c) > 0 {
			m.cells[len(m.cells)-1] = unsafe.String(&m.text[at], len(c))
		}
		at += len(c)
	}
	rec.Cells = m.cells
	switch {
	case len(m.text) > 0 && rec.Number%3 != 0:
		rec.Text = unsafe.String(&m.text[0], len(m.text)) // where the cells are
	case rec.Number%3 == 0:
		rec.Text = "elsewhere" // wrong: the engine must not trust it
	}
	return rec, nil
}

func source(id string, rows ...[]string) Source {
	return Source{FileID: id, Open: func() (table.Reader, error) { return &memReader{rows: rows}, nil }}
}

func mustSchema(t *testing.T, doc string) *schema.Schema {
	t.Helper()
	s, err := schema.Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

type run struct {
	res    Result
	err    error
	rows   []map[string]any
	raw    string
	issues []map[string]any
}

func execute(t *testing.T, mode Mode, s *schema.Schema, opts string, sources ...Source) run {
	t.Helper()
	o, err := ParseOptions(mode, []byte(opts))
	if err != nil {
		t.Fatal(err)
	}
	var rows, issues bytes.Buffer
	res, err := Run(context.Background(), Input{Mode: mode, Schema: s, Options: o, Sources: sources}, Output{Rows: &rows, Issues: &issues})
	r := run{res: res, err: err, raw: rows.String()}
	for _, line := range strings.Split(strings.TrimSpace(rows.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		dec := json.NewDecoder(strings.NewReader(line))
		dec.UseNumber()
		if err := dec.Decode(&m); err != nil {
			t.Fatalf("row is not JSON: %v\n%s", err, line)
		}
		r.rows = append(r.rows, m)
	}
	for _, line := range strings.Split(strings.TrimSpace(issues.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("issue is not JSON: %v\n%s", err, line)
		}
		r.issues = append(r.issues, m)
	}
	return r
}

func codes(issues []map[string]any) []string {
	var out []string
	for _, is := range issues {
		out = append(out, is["code"].(string))
	}
	return out
}

const contactsSchema = `{"fields":[
	{"name":"id","type":"integer","constraints":{"required":true,"unique":true}},
	{"name":"email","type":"string","format":"email","aliases":["mail"]},
	{"name":"signup_date","type":"date"},
	{"name":"amount","type":"number"},
	{"name":"zip","type":"string"}],
 "missingValues":["","NA"]}`

func TestRun_normalizesAndReports(t *testing.T) {
	t.Parallel()
	s := mustSchema(t, contactsSchema)
	r := execute(t, ModeNormalize, s, "", source("",
		[]string{"ID", "E-mail", "Signup Date", "Amount", "ZIP"},
		[]string{" 1 ", "Ann@Example.com", "31/01/2024", "$1,234.50", "08123"},
		[]string{"2", "bob@", "01/02/2024", "12", "00501"},
		[]string{"3", "NA", "2024-02-30", "(7)", ""},
		[]string{"4", "c@d.io", "15/03/2024", "12.00 USD", "99999"},
		[]string{"1", "dup@d.io", "01/01/2024", "1", "1"},
	))
	if r.err != nil {
		t.Fatal(r.err)
	}
	if len(r.rows) != 2 || r.res.RowCount != 2 || r.res.RejectedCount != 3 {
		t.Fatalf("rows %v, result %+v", r.rows, r.res)
	}
	first := r.rows[0]
	if first["id"] != json.Number("1") || first["email"] != "ann@example.com" || first["signup_date"] != "2024-01-31" ||
		first["amount"] != json.Number("1234.50") || first["zip"] != "08123" {
		t.Fatalf("first row %v", first)
	}
	// Keys come in schema order and numbers keep their digits.
	if !strings.HasPrefix(r.raw, `{"id":1,"email":"ann@example.com","signup_date":"2024-01-31","amount":1234.50,"zip":"08123"}`) {
		t.Fatalf("raw %s", r.raw)
	}
	if r.rows[1]["signup_date"] != "2024-03-15" || r.rows[1]["amount"] != json.Number("12.00") {
		t.Fatalf("second row %v", r.rows[1])
	}
	got := strings.Join(codes(r.issues), ",")
	if got != "invalid_email,invalid_date,not_unique" {
		t.Fatalf("issues %s\n%v", got, r.issues)
	}
	bad := r.issues[0]
	if bad["row"] != 2.0 || bad["column"] != "E-mail" || bad["field"] != "email" || bad["severity"] != "error" || bad["value"] != "bob@" || bad["source_file"] != nil {
		t.Fatalf("issue %v", bad)
	}
	methods := map[string]string{}
	for _, m := range r.res.Mapping {
		methods[m.SourceColumn] = m.Method
	}
	if methods["ID"] != match.MethodNormalized || methods["E-mail"] != match.MethodNormalized || methods["Signup Date"] != match.MethodNormalized {
		t.Fatalf("mapping %+v", r.res.Mapping)
	}
}

func TestRun_dateOrderIsDecidedPerColumn(t *testing.T) {
	t.Parallel()
	s := mustSchema(t, `{"fields":[{"name":"a","type":"date"},{"name":"b","type":"date"}]}`)
	r := execute(t, ModeNormalize, s, "", source("",
		[]string{"a", "b"},
		[]string{"01/02/2024", "01/02/2024"},
		[]string{"31/01/2024", "01/31/2024"}, // a is day-first, b month-first
	))
	if r.err != nil || len(r.rows) != 2 {
		t.Fatalf("%v %v %v", r.err, r.rows, r.issues)
	}
	if r.rows[0]["a"] != "2024-02-01" || r.rows[0]["b"] != "2024-01-02" {
		t.Fatalf("ambiguous dates did not follow their column: %v", r.rows[0])
	}
	r = execute(t, ModeNormalize, s, `{"date_order":"DMY"}`, source("", []string{"a", "b"}, []string{"01/02/2024", "02/01/2024"}))
	if r.rows[0]["a"] != "2024-02-01" || r.rows[0]["b"] != "2024-01-02" {
		t.Fatalf("explicit DMY: %v", r.rows[0])
	}
}

func TestRun_twoDigitYearIsAWarning(t *testing.T) {
	t.Parallel()
	s := mustSchema(t, `{"fields":[{"name":"d","type":"date"}]}`)
	r := execute(t, ModeNormalize, s, "", source("", []string{"d"}, []string{"31/01/24"}))
	if len(r.rows) != 1 || r.rows[0]["d"] != "2024-01-31" || len(r.issues) != 1 || r.issues[0]["severity"] != "warning" {
		t.Fatalf("rows %v issues %v", r.rows, r.issues)
	}
}

func TestRun_onError(t *testing.T) {
	t.Parallel()
	s := mustSchema(t, `{"fields":[{"name":"n","type":"integer"},{"name":"r","type":"string","constraints":{"required":true}}]}`)
	rows := [][]string{{"n", "r"}, {"1", "a"}, {"x", "b"}, {"3", ""}}
	t.Run("skip_row", func(t *testing.T) {
		r := execute(t, ModeNormalize, s, "", source("", rows...))
		if len(r.rows) != 1 || strings.Join(codes(r.issues), ",") != "invalid_integer,required" {
			t.Fatalf("%v %v", r.rows, r.issues)
		}
	})
	t.Run("null_value", func(t *testing.T) {
		r := execute(t, ModeNormalize, s, `{"on_error":"null_value"}`, source("", rows...))
		if len(r.rows) != 2 || r.rows[1]["n"] != nil || r.issues[0]["severity"] != "warning" || r.issues[1]["code"] != "required" || r.issues[1]["severity"] != "error" {
			t.Fatalf("%v %v", r.rows, r.issues)
		}
	})
	t.Run("fail_job", func(t *testing.T) {
		r := execute(t, ModeNormalize, s, `{"on_error":"fail_job"}`, source("", rows...))
		var f *Failure
		if !errors.As(r.err, &f) || f.Code != "invalid_row" || len(r.rows) != 1 {
			t.Fatalf("%v %v", r.err, r.rows)
		}
	})
	t.Run("max_errors", func(t *testing.T) {
		many := [][]string{{"n", "r"}}
		for range 10 {
			many = append(many, []string{"x", "a"})
		}
		r := execute(t, ModeNormalize, s, `{"max_errors":3}`, source("", many...))
		var f *Failure
		if !errors.As(r.err, &f) || f.Code != "too_many_errors" || !r.res.IssuesTruncated || len(r.issues) != 4 {
			t.Fatalf("%v %+v %d issues", r.err, r.res, len(r.issues))
		}
	})
}

func TestRun_raggedAndReaderIssues(t *testing.T) {
	t.Parallel()
	s := mustSchema(t, `{"fields":[{"name":"a"},{"name":"b"}]}`)
	v := "#DIV/0!"
	src := Source{Open: func() (table.Reader, error) {
		return &memReader{rows: [][]string{{"a", "b"}}, rec: []table.Record{
			{Number: 1, Cells: []string{"1"}},
			{Number: 2, Cells: []string{"1", "2", "3"}},
			{Number: 3, RowIssue: &table.CellIssue{Column: -1, Code: "malformed_json", Message: "bad", Value: "{"}},
			{Number: 4, Cells: []string{"", "ok"}, CellIssues: []table.CellIssue{{Column: 0, Code: "cell_error", Message: "err", Value: v}}},
			{Number: 5, Cells: []string{"x", "y"}},
		}}, nil
	}}
	r := execute(t, ModeNormalize, s, "", src)
	if got := strings.Join(codes(r.issues), ","); got != "ragged_row,ragged_row,malformed_json,cell_error" {
		t.Fatalf("issues %s", got)
	}
	if len(r.rows) != 3 || r.rows[0]["a"] != "1" || r.rows[0]["b"] != nil || r.rows[1]["a"] != nil || r.rows[1]["b"] != "ok" || r.res.RejectedCount != 2 {
		t.Fatalf("rows %v %+v (good rows must survive bad ones)", r.rows, r.res)
	}
}

func TestRun_multipleFilesShareUniqueness(t *testing.T) {
	t.Parallel()
	s := mustSchema(t, `{"fields":[{"name":"email","type":"string","format":"email","aliases":["mail address"]},{"name":"n","type":"integer"}],"primaryKey":["email"]}`)
	r := execute(t, ModeNormalize, s, `{"dedupe":true}`,
		source("file_a", []string{"email", "n"}, []string{"a@b.io", "1"}, []string{"c@d.io", "2"}),
		source("file_b", []string{"N", "Mail Address"}, []string{"3", "A@B.io"}, []string{"4", "e@f.io"}),
	)
	if r.err != nil {
		t.Fatal(r.err)
	}
	if len(r.rows) != 3 || r.rows[2]["email"] != "e@f.io" || r.rows[2]["n"] != json.Number("4") {
		t.Fatalf("rows %v", r.rows)
	}
	if len(r.issues) == 0 {
		t.Fatal("no issues")
	}
	last := r.issues[len(r.issues)-1]
	if last["code"] != "duplicate_row" || last["source_file"] != "file_b" || last["row"] != 1.0 {
		t.Fatalf("issues %v", r.issues)
	}
	var files []string
	for _, m := range r.res.Mapping {
		files = append(files, m.SourceFile+":"+m.SourceColumn+">"+m.Field)
	}
	if strings.Join(files, " ") != "file_a:email>email file_a:n>n file_b:N>n file_b:Mail Address>email" {
		t.Fatalf("mapping %v", files)
	}
}

func TestRun_requiredFieldUnmappedFails(t *testing.T) {
	t.Parallel()
	s := mustSchema(t, `{"fields":[{"name":"email","constraints":{"required":true}}]}`)
	r := execute(t, ModeNormalize, s, "", source("", []string{"name"}, []string{"x"}))
	var f *Failure
	if !errors.As(r.err, &f) || f.Code != "required_field_unmapped" {
		t.Fatalf("%v", r.err)
	}
}

func TestRun_keepUnmapped(t *testing.T) {
	t.Parallel()
	s := mustSchema(t, `{"fields":[{"name":"a"}]}`)
	r := execute(t, ModeNormalize, s, `{"keep_unmapped":true}`, source("", []string{"a", "Other \"col\""}, []string{"1", "x\ny"}))
	if r.raw != `{"a":"1","_extra":{"Other \"col\"":"x\ny"}}`+"\n" {
		t.Fatalf("raw %q", r.raw)
	}
}

func TestRun_validateModeChecksWithoutCoercing(t *testing.T) {
	t.Parallel()
	s := mustSchema(t, `{"fields":[{"name":"d","type":"date"},{"name":"n","type":"number"},{"name":"e","type":"string","format":"email"}]}`)
	r := execute(t, ModeValidate, s, "", source("", []string{"d", "n", "e"},
		[]string{"2024-01-31", "12.5", "a@b.io"},
		[]string{"31/01/2024", "1,000", "A@B.io"}))
	if len(r.rows) != 1 || strings.Join(codes(r.issues), ",") != "invalid_date,invalid_number,invalid_email" {
		t.Fatalf("rows %v issues %v", r.rows, codes(r.issues))
	}
}

func TestRun_progressAndCancellation(t *testing.T) {
	t.Parallel()
	s := mustSchema(t, `{"fields":[{"name":"a"}]}`)
	rows := [][]string{{"a"}}
	for range 20_000 {
		rows = append(rows, []string{"x"})
	}
	var reports []Progress
	o, _ := ParseOptions(ModeNormalize, nil)
	res, err := Run(context.Background(), Input{Mode: ModeNormalize, Schema: s, Options: o, Sources: []Source{source("", rows...)},
		OnProgress: func(p Progress) { reports = append(reports, p) }, ProgressEvery: time.Nanosecond}, Output{Rows: io.Discard, Issues: io.Discard})
	if err != nil || res.RowCount != 20_000 || len(reports) < 2 || reports[len(reports)-1].RowsRead != 20_000 || reports[len(reports)-1].BytesRead == 0 {
		t.Fatalf("%v %+v %d reports", err, res, len(reports))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, Input{Mode: ModeNormalize, Schema: s, Options: o, Sources: []Source{source("", rows...)}}, Output{Rows: io.Discard, Issues: io.Discard}); !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled run: %v", err)
	}
}

func TestRun_rowLimit(t *testing.T) {
	t.Parallel()
	s := mustSchema(t, `{"fields":[{"name":"a"}]}`)
	o, _ := ParseOptions(ModeNormalize, nil)
	_, err := Run(context.Background(), Input{Mode: ModeNormalize, Schema: s, Options: o, MaxRows: 2,
		Sources: []Source{source("", []string{"a"}, []string{"1"}, []string{"2"}, []string{"3"})}}, Output{Rows: io.Discard, Issues: io.Discard})
	var f *Failure
	if !errors.As(err, &f) || f.Code != "row_limit_exceeded" {
		t.Fatalf("%v", err)
	}
}

func TestRun_infer(t *testing.T) {
	t.Parallel()
	r := execute(t, ModeInfer, nil, "", source("", []string{"ID", "Zip", "E-mail", "Joined", "Score", "Active", "Notes"},
		[]string{"1", "00501", "a@b.io", "2024-01-31", "1.5", "yes", "hello"},
		[]string{"2", "08123", "c@d.io", "2024-02-01", "2", "no", ""},
		[]string{"3", "10001", "NA", "2024-02-02", "3.25", "yes", "x"},
	))
	if r.err != nil || r.res.InferredSchema == nil || len(r.rows) != 0 {
		t.Fatalf("%v %+v", r.err, r.res)
	}
	got := map[string]string{}
	for _, f := range r.res.InferredSchema.Fields {
		got[f.Name] = string(f.Type) + "/" + string(f.Format)
	}
	want := map[string]string{"id": "integer/default", "zip": "string/default", "e_mail": "string/email", "joined": "date/default",
		"score": "number/default", "active": "boolean/default", "notes": "string/default"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s, want %s", k, got[k], v)
		}
	}
	if _, err := schema.Parse(r.res.InferredSchema.JSON()); err != nil {
		t.Fatalf("inferred schema is not valid: %v", err)
	}
	var email ColumnProfile
	for _, p := range r.res.Profile {
		if p.Field == "e_mail" {
			email = p
		}
	}
	if email.NullCount != 1 || email.DistinctCount != 2 || len(email.Examples) != 2 || email.NullRate() < 0.33 {
		t.Fatalf("profile %+v", email)
	}
}

// A reader that reuses its memory gives the same rows, issues and profile
// as one that hands every record over fresh: the engine copies what it
// keeps past the next record (batches, issue values, caches, profiles).
func TestRun_readerThatReusesMemory(t *testing.T) {
	t.Parallel()
	rows := [][]string{{"id", "mail", "signup_date", "amount", "zip", "country", "extra"}}
	for i := range 3000 {
		rows = append(rows, []string{fmt.Sprint(i % 2900), fmt.Sprintf("User%d@Example.com", i), []string{"31/01/2024", "Jan 31 2024", "bad"}[i%3],
			[]string{"$1,234.50", "7", "x"}[i%3], fmt.Sprintf("%05d", i), []string{"DE", "GerMany", "The Netherlands", "méxico"}[i%4], fmt.Sprint("extra ", i)})
	}
	s := mustSchema(t, strings.Replace(contactsSchema, `{"name":"zip","type":"string"}`,
		`{"name":"zip","type":"string"},{"name":"country","type":"string","format":"country"}`, 1))
	for _, mode := range []Mode{ModeNormalize, ModeInfer} {
		var sc *schema.Schema
		if mode != ModeInfer {
			sc = s
		}
		fresh := execute(t, mode, sc, `{"keep_unmapped":true}`, source("", rows...))
		reused := execute(t, mode, sc, `{"keep_unmapped":true}`, Source{Open: func() (table.Reader, error) {
			return &reusingReader{memReader: memReader{rows: rows}}, nil
		}})
		if fresh.raw != reused.raw || fmt.Sprint(fresh.issues) != fmt.Sprint(reused.issues) || fmt.Sprint(fresh.res.Profile) != fmt.Sprint(reused.res.Profile) {
			t.Fatalf("%s: a reader that reuses its memory changes the output", mode)
		}
		if mode == ModeNormalize && (len(fresh.rows) == 0 || len(fresh.issues) < 1000) {
			t.Fatalf("%d rows, %d issues", len(fresh.rows), len(fresh.issues))
		}
	}
}

func TestParseOptions(t *testing.T) {
	t.Parallel()
	o, err := ParseOptions(ModeNormalize, []byte(`{"delimiter":";","date_order":"DMY","phone_region":"gb","sheet":2,"mapping":{"A":"a"}}`))
	if err != nil || o.Delimiter != ";" || o.PhoneRegion != "GB" || o.Sheet != "2" || o.Mapping["A"] != "a" || !o.Trim || o.OnError != "skip_row" {
		t.Fatalf("%+v %v", o, err)
	}
	for _, bad := range []string{`{"colour":1}`, `{"date_order":"DDMM"}`, `{"on_error":"ignore"}`, `{"trim":"yes"}`, `[1]`, `{"phone_region":"ZZ"}`, `{"max_errors":-1}`} {
		if _, err := ParseOptions(ModeNormalize, []byte(bad)); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	var all map[string]any
	if err := json.Unmarshal(Defaults(ModeNormalize).JSON(), &all); err != nil || len(all) != 24 || all["footer_rows"] != "auto" || all["comment"] != "auto" {
		t.Fatalf("options JSON has %d keys: %v", len(all), err)
	}
	if _, err := ParseMode("transform"); err == nil {
		t.Fatal("unknown mode accepted")
	}
}

func TestParseReadOptions(t *testing.T) {
	t.Parallel()
	cases := []struct {
		doc  string
		want table.ReadOptions
		json string // the effective header_row, quote and escape in the job's options document
	}{
		{`{}`, table.ReadOptions{}, `0 "auto" "auto"`},
		{`{"header_row":"none"}`, table.ReadOptions{NoHeader: true}, `"none" "auto" "auto"`},
		{`{"header_row":3}`, table.ReadOptions{HeaderRow: 3}, `3 "auto" "auto"`},
		{`{"quote":"'","escape":"\\"}`, table.ReadOptions{Quote: "'", Escape: `\`}, `0 "'" "\\"`},
		{`{"quote":"none","escape":"none"}`, table.ReadOptions{Quote: table.QuoteNone, Escape: table.EscapeNone}, `0 "none" "none"`},
		{`{"encoding":"KOI8-R"}`, table.ReadOptions{Encoding: "KOI8-R"}, `0 "auto" "auto"`},
		{`{"encoding":"shift_jis"}`, table.ReadOptions{Encoding: "shift_jis"}, `0 "auto" "auto"`},
	}
	for _, c := range cases {
		o, err := ParseOptions(ModeNormalize, []byte(c.doc))
		if err != nil {
			t.Errorf("%s: %v", c.doc, err)
			continue
		}
		if got := o.ReadOptions(table.Limits{}); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: %+v, want %+v", c.doc, got, c.want)
		}
		var all map[string]json.RawMessage
		_ = json.Unmarshal(o.JSON(), &all)
		if got := fmt.Sprintf("%s %s %s", all["header_row"], all["quote"], all["escape"]); got != c.json {
			t.Errorf("%s: options document %s, want %s", c.doc, got, c.json)
		}
	}
	for _, bad := range []string{`{"header_row":-1}`, `{"header_row":10001}`, `{"header_row":"auto"}`, `{"quote":"*"}`, `{"escape":"/"}`,
		`{"encoding":"klingon"}`, `{"quote":""}`} {
		if _, err := ParseOptions(ModeNormalize, []byte(bad)); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}
