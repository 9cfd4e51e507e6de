package normalize

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"

	"github.com/tabnorm/tabnorm/domain/schema"
	"github.com/tabnorm/tabnorm/domain/table"
)

// BenchmarkReview_200Columns is the review's answer for a wide file: 200
// columns of real open-data headers and values (the real evaluation set's
// columns side by side), 1,000 sampled records, and a schema of 80 fields
// from the set's schemas. The review profiles every column and scores
// every column–field pair; its answer is to stay under 200 ms.
func BenchmarkReview_200Columns(b *testing.B) {
	smp, sch := wideSample(b, 200, 80, 1000)
	in := ReviewInput{Mode: ModeNormalize, Schema: sch, Options: Defaults(ModeNormalize), Samples: []Sample{*smp}}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := RunReview(context.Background(), in); err != nil {
			b.Fatal(err)
		}
	}
}

// distinctOf makes a repeated value distinct where that keeps its kind:
// whole numbers grow with the record, so that columns of counts hold as
// many distinct values as a real file's do.
func distinctOf(v string, i int) string {
	n, err := strconv.Atoi(v)
	if err != nil || i < 25 {
		return v
	}
	return strconv.Itoa(n + i)
}

// columnOf is column c's cells of a sample's records.
func columnOf(smp *Sample, c int) []string {
	var out []string
	for _, r := range smp.Records {
		if c < len(r.Cells) {
			out = append(out, r.Cells[c])
		}
	}
	return out
}

// wideSample lays the real files' columns side by side until it has cols
// of them (a header seen twice gets a suffix), repeats their rows to the
// given number of records, and gathers the first fields distinct fields of
// their schemas.
func wideSample(tb testing.TB, cols, fields, records int) (*Sample, *schema.Schema) {
	tb.Helper()
	type column struct {
		header string
		values []string
	}
	var out []column
	seen := map[string]int{}
	type field struct {
		Name   string `json:"name"`
		Type   string `json:"type"`
		Format string `json:"format,omitempty"`
	}
	var doc struct {
		Fields []field `json:"fields"`
	}
	have := map[string]bool{}
	for _, rf := range readRealManifest(tb) {
		sch := realSchema(tb, rf)
		smp, _ := readRealFile(tb, rf, sch)
		for _, f := range sch.Fields {
			if !have[f.Name] && len(doc.Fields) < fields {
				have[f.Name] = true
				doc.Fields = append(doc.Fields, field{Name: f.Name, Type: string(f.Type), Format: string(f.Format)})
			}
		}
		for c, h := range smp.Header {
			if len(out) < cols {
				seen[h]++
				if seen[h] > 1 {
					h = fmt.Sprintf("%s_%d", h, seen[h])
				}
				out = append(out, column{header: h, values: columnOf(smp, c)})
			}
		}
	}
	if len(out) < cols {
		tb.Fatalf("the real set has %d columns, want %d", len(out), cols)
	}
	smp := &Sample{Format: table.CSV, Complete: true}
	for _, col := range out {
		smp.Header = append(smp.Header, col.header)
	}
	for i := range records {
		cells := make([]string, cols)
		for c, col := range out {
			if len(col.values) > 0 {
				cells[c] = distinctOf(col.values[i%len(col.values)], i)
			}
		}
		smp.Records = append(smp.Records, table.Record{Number: i + 1, Cells: cells, Owned: true})
	}
	b, err := json.Marshal(doc)
	if err != nil {
		tb.Fatal(err)
	}
	sch, err := schema.Parse(b)
	if err != nil {
		tb.Fatal(err)
	}
	return smp, sch
}
