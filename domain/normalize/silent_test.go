package normalize

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/domain/table"
)

// csvSource reads a small test file with the standard library's reader
// (this package does not read files itself).
func csvSource(t *testing.T, name string) Source {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return source("", rows...)
}

// TestBlankHeaderMapsByPosition: a column with a blank header cell (a
// dataframe's index) is named column_1 by infer, and normalize with that
// schema maps it by position: its values come through, never null.
func TestBlankHeaderMapsByPosition(t *testing.T) {
	t.Parallel()
	inf := execute(t, ModeInfer, nil, "", csvSource(t, "blank-header.csv"))
	if inf.err != nil || inf.res.InferredSchema == nil || inf.res.InferredSchema.Fields[0].Name != "column_1" {
		t.Fatalf("infer: %v %+v", inf.err, inf.res.InferredSchema)
	}
	got := execute(t, ModeNormalize, inf.res.InferredSchema, "", csvSource(t, "blank-header.csv"))
	if got.err != nil || len(got.rows) != 3 {
		t.Fatalf("%v %d rows", got.err, len(got.rows))
	}
	for i, r := range got.rows {
		if r["column_1"] == nil || r["city"] == nil {
			t.Fatalf("row %d: %v", i+1, r)
		}
	}
	m := got.res.Mapping[0]
	if m.SourceColumn != "" || m.Field != "column_1" || m.Method != "position" {
		t.Fatalf("mapping %+v", m)
	}
}

// tallyReader is a reader whose Detection counts what it let go of, as
// the text readers' do, once its records are read.
type tallyReader struct {
	memReader
	start, end table.Detection
}

func (r *tallyReader) Detection() table.Detection {
	if r.i+1 < len(r.rows) {
		return r.start
	}
	return r.end
}

// TestTailWarnings: what a reader let go of under the header is a
// file-level warning each, and result.detected has the final counts.
func TestTailWarnings(t *testing.T) {
	t.Parallel()
	end := table.Detection{Format: table.CSV, HeaderRow: 1, RowLabels: true, BlankRows: []int{2}, BlankCount: 1,
		RepeatedHeaderRows: []int{4}, RepeatedHeaderCount: 1, FooterRows: []int{7, 8}, FooterCount: 2,
		StackedRow: 9, StackedCount: 3, StackedHeader: []string{"station", "wind"},
		MergedRanges: []string{"A2:A3"}, MergedCount: 2, Sheet: "data", SheetPassedOver: "METHODS",
		OtherSheets: []table.Sheet{{Name: "2023", Rows: 12, Complete: true}, {Name: "big", Rows: 9000}}}
	src := Source{Open: func() (table.Reader, error) {
		return &tallyReader{memReader: memReader{rows: [][]string{{"row_label", "name"}, {"a", "Ann"}, {"b", "Bob"}}},
			start: table.Detection{Format: table.CSV, HeaderRow: 1}, end: end}, nil
	}}
	got := execute(t, ModeNormalize, mustSchema(t, `{"fields":[{"name":"name","type":"string"}]}`), "", src)
	if got.err != nil || len(got.rows) != 2 {
		t.Fatalf("%v %d rows", got.err, len(got.rows))
	}
	codes := map[string]string{}
	for _, is := range got.issues {
		codes[is["code"].(string)], _ = is["message"].(string)
	}
	for code, has := range map[string]string{"header_one_short": `"row_label"`, "skipped_blank_rows": "rows 2.", "repeated_header": "rows 4.",
		"skipped_footer": "rows 7, 8.", "stacked_tables": "row 9", "merged_cells": "2 merged range(s) of the sheet cover data rows: A2:A3, ….",
		"sheet_chosen": `sheet "data" was read in place of the first, "METHODS"`, "other_sheets": `"2023" (12 rows), "big" (at least 9000 rows)`} {
		if !strings.Contains(codes[code], has) {
			t.Errorf("%s: %q, want %q in it", code, codes[code], has)
		}
	}
	if d := got.res.Detected[0]; d.FooterCount != 2 || d.BlankCount != 1 {
		t.Errorf("detected %+v", d)
	}
}

func TestFooterRowsOption(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int{`{}`: 0, `{"footer_rows":"auto"}`: 0, `{"footer_rows":"none"}`: table.FooterNone, `{"footer_rows":3}`: 3} {
		o, err := ParseOptions(ModeNormalize, []byte(in))
		if err != nil || o.ReadOptions(table.Limits{}).FooterRows != want {
			t.Errorf("%s: %v %d", in, err, o.ReadOptions(table.Limits{}).FooterRows)
		}
	}
	for _, bad := range []string{`{"footer_rows":0}`, `{"footer_rows":-1}`, `{"footer_rows":1001}`, `{"footer_rows":"all"}`} {
		if _, err := ParseOptions(ModeNormalize, []byte(bad)); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

// TestSerial60IsNoDate: 1900-02-29, what a spreadsheet shows for its date
// serial 60, is invalid_date with a message that says why.
func TestSerial60IsNoDate(t *testing.T) {
	t.Parallel()
	got := execute(t, ModeNormalize, mustSchema(t, `{"fields":[{"name":"when","type":"date"},{"name":"at","type":"datetime"}]}`), "",
		source("", []string{"when", "at"}, []string{"1900-02-29", "1900-02-29T06:00:00"}, []string{"1900-03-01", "1900-03-01T06:00:00"}))
	if got.err != nil || len(got.rows) != 1 || len(got.issues) != 2 {
		t.Fatalf("%v %d rows %v", got.err, len(got.rows), got.issues)
	}
	for _, is := range got.issues {
		if !strings.HasPrefix(is["code"].(string), "invalid_date") || !strings.Contains(is["message"].(string), "serial 60") {
			t.Errorf("issue %v", is)
		}
	}
}

// TestPhoneValidForItsRegion: a number of a possible length that the
// phone library does not hold valid (+49 1234 5678: no such German
// number) is invalid_phone, never accepted.
func TestPhoneValidForItsRegion(t *testing.T) {
	t.Parallel()
	got := execute(t, ModeNormalize, mustSchema(t, `{"fields":[{"name":"name","type":"string"},{"name":"phone","type":"string","format":"phone"}]}`), "",
		csvSource(t, "phones.csv"))
	if got.err != nil || len(got.rows) != 2 || got.rows[0]["phone"] != "+4930901820" || got.rows[1]["phone"] != "+14155552671" {
		t.Fatalf("%v %v", got.err, got.rows)
	}
	bad := map[any]bool{}
	for _, is := range got.issues {
		if is["code"] == "invalid_phone" {
			bad[is["row"]] = true
		}
	}
	if len(bad) != 2 {
		t.Fatalf("issues %v", got.issues)
	}
}

// TestRareEscapeWarning: an escape decided on few pairs is a file-level
// warning saying which way it went.
func TestRareEscapeWarning(t *testing.T) {
	t.Parallel()
	for esc, has := range map[string]string{`\`: "read as escaped quotes", "": "kept as text"} {
		det := table.Detection{Format: table.JSONL, HeaderRow: 1, Escape: esc, RareEscapes: 2}
		src := Source{Open: func() (table.Reader, error) {
			return &tallyReader{memReader: memReader{rows: [][]string{{"name"}, {"Ann"}}}, start: det, end: det}, nil
		}}
		got := execute(t, ModeNormalize, mustSchema(t, `{"fields":[{"name":"name","type":"string"}]}`), "", src)
		found := false
		for _, is := range got.issues {
			found = found || is["code"] == "rare_escape" && strings.Contains(is["message"].(string), has)
		}
		if got.err != nil || !found {
			t.Errorf("escape %q: %v %v", esc, got.err, got.issues)
		}
	}
}

// TestUnmappedFieldWarned: a field of the schema that matches no column is
// null in every row; a file-level warning names it, so it is never null in
// silence (a required one still stops the run).
func TestUnmappedFieldWarned(t *testing.T) {
	t.Parallel()
	s := mustSchema(t, `{"fields":[{"name":"name"},{"name":"city"},{"name":"email","type":"string","format":"email"}]}`)
	got := execute(t, ModeNormalize, s, "", csvSource(t, "unmapped-field.csv"))
	if got.err != nil || len(got.rows) != 2 || got.rows[0]["email"] != nil {
		t.Fatalf("%v %v", got.err, got.rows)
	}
	var warned []string
	for _, is := range got.issues {
		if is["code"] == "unmapped_field" {
			if is["row"] != nil || is["severity"] != "warning" || !strings.Contains(is["message"].(string), `"email"`) {
				t.Fatalf("warning %v", is)
			}
			warned = append(warned, is["field"].(string))
		}
	}
	if strings.Join(warned, ",") != "email" {
		t.Fatalf("unmapped_field warnings for %v; want email alone (issues %v)", warned, got.issues)
	}
}
