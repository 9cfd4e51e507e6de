package normalize

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/domain/table"
)

// describedReader is a memReader that reports a Detection.
type describedReader struct {
	memReader
	det table.Detection
}

func (d *describedReader) Detection() table.Detection { return d.det }

func TestReaderWarnings(t *testing.T) {
	t.Parallel()
	s := mustSchema(t, `{"fields":[{"name":"id","type":"integer"}]}`)
	cases := []struct {
		name   string
		det    table.Detection
		header []string
		want   []string // code: part of the message
	}{
		{"nothing to say", table.Detection{Format: table.CSV, Encoding: "UTF-8", EncodingConfidence: "certain", Delimiter: ",", HeaderRow: 1}, []string{"id", "x"}, nil},
		{"preamble", table.Detection{Format: table.CSV, Delimiter: ",", HeaderRow: 4, SkippedRows: []int{1, 2}, SkippedCount: 2}, []string{"id", "x"},
			[]string{"skipped_preamble: 2 record(s) above the header (row 4) were skipped: rows 1, 2."}},
		{"many skipped", table.Detection{Format: table.CSV, Delimiter: ",", HeaderRow: 300, SkippedRows: []int{1, 2}, SkippedCount: 299}, []string{"id", "x"},
			[]string{"skipped_preamble: 299 record(s) above the header (row 300) were skipped: rows 1, 2, …."}},
		{"guessed", table.Detection{Format: table.CSV, Encoding: "KOI8-R", EncodingConfidence: "guessed", Delimiter: ";", HeaderRow: 1}, []string{"id", "x"},
			[]string{"encoding_guessed: The encoding was guessed as KOI8-R"}},
		{"one column", table.Detection{Format: table.TSV, Delimiter: "\t", HeaderRow: 1}, []string{"a;b"},
			[]string{"delimiter_not_found: The delimiter tab splits no record"}},
		{"one column of JSON lines is fine", table.Detection{Format: table.JSONL, Encoding: "UTF-8"}, []string{"id"}, nil},
	}
	for _, c := range cases {
		rows := [][]string{c.header, {"1"}}
		src := Source{Open: func() (table.Reader, error) { return &describedReader{memReader{rows: rows}, c.det}, nil }}
		r := execute(t, ModeNormalize, s, `{}`, src)
		var got []string
		for _, is := range r.issues {
			if is["row"] == nil && is["severity"] == "warning" {
				got = append(got, fmt.Sprintf("%s: %s", is["code"], is["message"]))
			}
		}
		if len(got) != len(c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
			continue
		}
		for i := range got {
			if !strings.HasPrefix(got[i], c.want[i]) {
				t.Errorf("%s: %q, want %q…", c.name, got[i], c.want[i])
			}
		}
	}
}
