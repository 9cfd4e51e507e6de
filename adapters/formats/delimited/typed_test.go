package delimited

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/formats/detect"
	"github.com/tabnorm/tabnorm/adapters/formats/internal/formatstest"
	"github.com/tabnorm/tabnorm/domain/table"
)

// openFile opens a file of testdata as the Opener does (its first 64 KiB
// sniffed) and reads it to its end.
func openFile(t *testing.T, name string, opts table.ReadOptions) (*Reader, []table.Record) {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	head := make([]byte, 64<<10)
	n, _ := f.Read(head)
	d, err := Open(t.Context(), f, head[:n], name, detect.Encoding(head[:n]), opts)
	if err != nil {
		_ = f.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	recs, err := formatstest.Records(d)
	if err != nil {
		t.Fatal(err)
	}
	return d, recs
}

// TestHeaderlessTypedFirstRecord: a first record whose cells have the
// shape of their columns' values (a date among dates, a URL among URLs)
// is data, not the header: no record is lost to the column names.
func TestHeaderlessTypedFirstRecord(t *testing.T) {
	t.Parallel()
	cases := []struct {
		file, first string
		records     int
	}{
		{"headerless-dates.csv", "08-03-2020|Visits suspended", 17},
		{"headerless-links.csv", "Visits suspended|https://news.example/visits-suspended", 6},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			t.Parallel()
			d, recs := openFile(t, c.file, table.ReadOptions{})
			if h := strings.Join(d.Header(), "|"); h != "column_1|column_2" || d.Detection().HeaderRow != 0 {
				t.Fatalf("header %s (row %d)", h, d.Detection().HeaderRow)
			}
			if len(recs) != c.records || strings.Join(recs[0].Cells, "|") != c.first {
				t.Fatalf("%d records, first %q", len(recs), recs[0].Cells)
			}
		})
	}
}

// TestColonInValuesIsNoDelimiter: a one-column list of URLs or clock
// times has colons in every record, in the same number, but they are the
// values' own: colon is no delimiter on such evidence.
func TestColonInValuesIsNoDelimiter(t *testing.T) {
	t.Parallel()
	cases := []struct {
		file, first string
		records     int
	}{
		{"one-column-urls.csv", "https://a.example/x", 5},
		{"one-column-times.csv", "12:30", 6},
		{"one-column-clock.csv", "1:30:00", 4},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			t.Parallel()
			d, recs := openFile(t, c.file, table.ReadOptions{})
			if got := d.Detection().Delimiter; got == ":" || len(d.Header()) != 1 {
				t.Fatalf("delimiter %q, header %q", got, d.Header())
			}
			if len(recs) != c.records || strings.Join(recs[0].Cells, "|") != c.first {
				t.Fatalf("%d records, first %q", len(recs), recs[0].Cells)
			}
		})
	}
}

// TestOneMultilineRecordKeepsTheHeadersDelimiter: a comma file whose only
// record spans many lines holding semicolons is read with the comma that
// splits its header and its record alike, not with the semicolon that
// leaves the header one cell and the record in fragments.
func TestOneMultilineRecordKeepsTheHeadersDelimiter(t *testing.T) {
	t.Parallel()
	d, recs := openFile(t, "multiline-semicolons.csv", table.ReadOptions{})
	if got := d.Detection().Delimiter; got != "," || strings.Join(d.Header(), "|") != "id|recipe|author" {
		t.Fatalf("delimiter %q, header %q", got, d.Header())
	}
	if len(recs) != 1 || len(recs[0].Cells) != 3 || recs[0].Cells[2] != "Ann" || strings.Count(recs[0].Cells[1], "\n") != 5 {
		t.Fatalf("%d records: %v", len(recs), recs)
	}
}

// TestStrayQuoteIsNeverSilent: each shape of a record that lost a quote
// or the delimiter before a quoted value, and kept a stray quote in a
// cell, gets a suspicious_quoting warning on the cell where the value
// starts; quotes of inches and seconds (12" long, 37.8"N) do not.
func TestStrayQuoteIsNeverSilent(t *testing.T) {
	t.Parallel()
	_, recs := openFile(t, "stray-closing-quote.csv", table.ReadOptions{})
	want := map[string]int{"A2": 2, "A3": 0, "A4": 2, "A5": 0, "A6": 0, "A7": 1} // the warned column, by sku
	if len(recs) != 10 {
		t.Fatalf("%d records", len(recs))
	}
	for _, r := range recs {
		sku := r.Cells[0][:2]
		col, warned := want[sku]
		var got []table.CellIssue
		for _, is := range r.CellIssues {
			if is.Code == "suspicious_quoting" {
				got = append(got, is)
			}
		}
		if warned != (len(got) == 1) || warned && got[0].Column != col {
			t.Errorf("%s %q: %v, want a warning on column %d: %v", sku, r.Cells, got, col, warned)
		}
	}
}

// TestCommentLines: in a file whose first lines are # comments, every #
// line is a comment: skipped (an unbalanced quote in one opens nothing),
// counted with its physical line, and numbered as a row so that the
// rows below keep their lines' numbers. comment none reads them as data,
// and a file not starting with a comment keeps its # lines as data
// unless the comment option names the character.
func TestCommentLines(t *testing.T) {
	t.Parallel()
	d, recs := openFile(t, "comments.csv", table.ReadOptions{})
	det := d.Detection()
	if h := strings.Join(d.Header(), "|"); h != "id|name|amount" || det.HeaderRow != 1 || det.SkippedCount != 0 {
		t.Fatalf("header %s at %d, %d skipped", h, det.HeaderRow, det.SkippedCount)
	}
	var got []string
	for _, r := range recs {
		got = append(got, fmt.Sprintf("%d:%s", r.Number, strings.Join(r.Cells, ",")))
	}
	if strings.Join(got, " ") != "1:1,Ann,5 3:2,Bob,6 5:4,Dee,8" {
		t.Fatalf("records %s", got)
	}
	if det.Comment != "#" || det.CommentCount != 4 || !slices.Equal(det.CommentLines, []int{1, 2, 5, 7}) {
		t.Fatalf("comment %q: %d lines %v", det.Comment, det.CommentCount, det.CommentLines)
	}
	d, recs = openFile(t, "comments.csv", table.ReadOptions{Comment: table.CommentNone})
	if det := d.Detection(); det.Comment != "" || det.CommentCount != 0 || det.SkippedCount+len(recs) < 7 {
		t.Fatalf("none: comment %q (%d), %d skipped, %d records", det.Comment, det.CommentCount, det.SkippedCount, len(recs))
	}
	d, recs = openFile(t, "hash-data.csv", table.ReadOptions{})
	if det := d.Detection(); det.Comment != "" || len(recs) != 3 || recs[1].Cells[0] != "#2" {
		t.Fatalf("data: comment %q, %d records", det.Comment, len(recs))
	}
	d, recs = openFile(t, "hash-data.csv", table.ReadOptions{Comment: "#"})
	if det := d.Detection(); det.CommentCount != 1 || len(recs) != 2 || recs[1].Number != 3 || recs[0].Cells[1] != "#red" {
		t.Fatalf("given: %d comments, %d records", det.CommentCount, len(recs))
	}
}

// TestBlankAndRepeatedNames: a header with blank and repeated names is
// narrower than the records of numbers under it, and still their header:
// the reader keeps its names as written (the engine names the blank ones
// and tells the repeats apart) and no record is taken for it.
func TestBlankAndRepeatedNames(t *testing.T) {
	t.Parallel()
	d, recs := openFile(t, "blank-repeated-names.csv", table.ReadOptions{})
	if h := d.Header(); !slices.Equal(h, []string{"", "var2", "", "var2"}) || d.Detection().HeaderRow != 1 {
		t.Fatalf("header %q (row %d)", h, d.Detection().HeaderRow)
	}
	if len(recs) != 3 || strings.Join(recs[0].Cells, "|") != "1|2|3|4" {
		t.Fatalf("%d records, first %q", len(recs), recs[0].Cells)
	}
}
