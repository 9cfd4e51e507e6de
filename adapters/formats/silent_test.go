package formats

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/formats/internal/formatstest"
	"github.com/tabnorm/tabnorm/domain/table"
)

// readToEnd reads a file of testdata/silent and returns its records and
// the Detection once every record is read (what the reader let go of is
// counted while reading).
func readToEnd(t *testing.T, name string, opts table.ReadOptions) (parsed, table.Detection) {
	t.Helper()
	path := filepath.Join("testdata", "silent", name)
	r, err := NewOpener().Open(t.Context(), path, name, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	recs, err := formatstest.Records(r)
	if err != nil {
		t.Fatal(err)
	}
	return parsed{format: r.Format(), header: r.Header(), recs: recs}, r.(table.Describer).Detection()
}

func firstCells(recs []table.Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.Cells[0]
	}
	return out
}

// TestRepeatedHeader: records equal to the header (concatenated files,
// spaces aside) are not rows; the Detection names them.
func TestRepeatedHeader(t *testing.T) {
	t.Parallel()
	got, det := readToEnd(t, "repeated-header.csv", table.ReadOptions{})
	if f := strings.Join(firstCells(got.recs), "|"); f != "A-1|A-2|B-7|B-8|C-3" {
		t.Fatalf("records %s", f)
	}
	if !slices.Equal(det.RepeatedHeaderRows, []int{3, 6}) || det.RepeatedHeaderCount != 2 || got.recs[2].Number != 4 {
		t.Fatalf("repeated %v (%d), B-7 is row %d", det.RepeatedHeaderRows, det.RepeatedHeaderCount, got.recs[2].Number)
	}
}

// TestStackedTables: after a blank record, the header of another table
// with some of the same columns ends this table; the rest is counted.
func TestStackedTables(t *testing.T) {
	t.Parallel()
	got, det := readToEnd(t, "stacked-tables.csv", table.ReadOptions{})
	if f := strings.Join(firstCells(got.recs), "|"); f != "North|South|East" {
		t.Fatalf("records %s", f)
	}
	if det.StackedRow != 5 || det.StackedCount != 3 || strings.Join(det.StackedHeader, "|") != "station|wind|gust" {
		t.Fatalf("stacked at %d (%d records) %q", det.StackedRow, det.StackedCount, det.StackedHeader)
	}
}

// TestNotesBelowTable: a block of notes after a blank record at the end
// of the file is not rows (footer_rows auto); "none" reads it, and a
// count skips that many last records.
func TestNotesBelowTable(t *testing.T) {
	t.Parallel()
	got, det := readToEnd(t, "notes-below.csv", table.ReadOptions{})
	if f := strings.Join(firstCells(got.recs), "|"); f != "North|South|West" {
		t.Fatalf("records %s", f)
	}
	if !slices.Equal(det.FooterRows, []int{5, 6}) || det.FooterCount != 2 || !slices.Equal(det.BlankRows, []int{4}) {
		t.Fatalf("footer %v (%d), blank %v", det.FooterRows, det.FooterCount, det.BlankRows)
	}
	got, det = readToEnd(t, "notes-below.csv", table.ReadOptions{FooterRows: table.FooterNone})
	if len(got.recs) != 5 || det.FooterCount != 0 {
		t.Fatalf("none: %d records, footer %d", len(got.recs), det.FooterCount)
	}
	got, det = readToEnd(t, "notes-below.csv", table.ReadOptions{FooterRows: 4})
	if f := strings.Join(firstCells(got.recs), "|"); f != "North|South" || !slices.Equal(det.FooterRows, []int{3, 5, 6}) || det.BlankCount != 1 {
		t.Fatalf("4: records %s, footer %v, blank %d", f, det.FooterRows, det.BlankCount)
	}
}

// TestBlankRowsCounted: blank and white-space records are skipped, and
// counted, so that the rows read and skipped add up to the records.
func TestBlankRowsCounted(t *testing.T) {
	t.Parallel()
	got, det := readToEnd(t, "blank-rows.csv", table.ReadOptions{})
	if f := strings.Join(firstCells(got.recs), "|"); f != "Ann|Bob|Cid" {
		t.Fatalf("records %s", f)
	}
	if !slices.Equal(det.BlankRows, []int{2, 4, 5}) || det.BlankCount != 3 {
		t.Fatalf("blank %v (%d)", det.BlankRows, det.BlankCount)
	}
}

// TestRowLabels: a header one cell short of every record (a table written
// with row names) reads the first column as row labels.
func TestRowLabels(t *testing.T) {
	t.Parallel()
	got, det := readToEnd(t, "row-labels.csv", table.ReadOptions{})
	if h := strings.Join(got.header, "|"); h != "row_label|height|weight" || !det.RowLabels || len(got.recs) != 3 ||
		strings.Join(got.recs[0].Cells, "|") != "a|1.62|58" {
		t.Fatalf("header %s, labels %v, %d records %v", h, det.RowLabels, len(got.recs), got.recs)
	}
	// Passed back with its header row, the reading is the same.
	again, det2 := readToEnd(t, "row-labels.csv", optionsOf(det))
	if strings.Join(again.header, "|") != "row_label|height|weight" || !det2.RowLabels {
		t.Fatalf("again: %q %v", again.header, det2.RowLabels)
	}
}

// TestOneLineFile: a file of one record is data when it has no text (as
// the first record of a longer file would be), else a header.
func TestOneLineFile(t *testing.T) {
	t.Parallel()
	got, det := readToEnd(t, "one-line-numbers.csv", table.ReadOptions{})
	if h := strings.Join(got.header, "|"); h != "column_1|column_2|column_3" || len(got.recs) != 1 || det.HeaderRow != 0 ||
		strings.Join(got.recs[0].Cells, "|") != "7|2024-03-01|19.99" {
		t.Fatalf("numbers: header %s, %d records, header row %d", h, len(got.recs), det.HeaderRow)
	}
	got, det = readToEnd(t, "one-line-header.csv", table.ReadOptions{})
	if h := strings.Join(got.header, "|"); h != "id|name|amount" || len(got.recs) != 0 || det.HeaderRow != 1 {
		t.Fatalf("header: %s, %d records, header row %d", h, len(got.recs), det.HeaderRow)
	}
}

// TestSuspiciousQuoting: a record missing the delimiter before a quoted
// value is split inside the quotes with the header's cell count; it gets
// a suspicious_quoting warning. A literal quote in a cell (37.8"N) does not.
func TestSuspiciousQuoting(t *testing.T) {
	t.Parallel()
	got, _ := readToEnd(t, "missing-delimiter.csv", table.ReadOptions{})
	if len(got.recs) != 4 {
		t.Fatalf("%d records", len(got.recs))
	}
	for i, r := range got.recs {
		warned := len(r.CellIssues) == 1 && r.CellIssues[0].Code == "suspicious_quoting" && r.CellIssues[0].Column == 0
		if warned != (i == 1) {
			t.Errorf("record %d %q: %v", i+1, r.Cells, r.CellIssues)
		}
	}
}

// TestRareBackslashEscape: backslash escapes past the records the sniffer
// reads first are decided on the whole sample, and noted for a warning.
func TestRareBackslashEscape(t *testing.T) {
	t.Parallel()
	got, det := readToEnd(t, "rare-backslash.csv", table.ReadOptions{})
	if len(got.recs) != 47 || got.recs[45].Cells[1] != `she said "yes", then left` || det.Escape != `\` || det.RareEscapes != 2 {
		t.Fatalf("%d records, %q, escape %q (%d rare)", len(got.recs), got.recs[45].Cells, det.Escape, det.RareEscapes)
	}
}
