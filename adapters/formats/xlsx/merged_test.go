package xlsx

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/tabnorm/tabnorm/adapters/formats/internal/formatstest"
	"github.com/tabnorm/tabnorm/domain/table"
)

// TestMergedRangesOverData: a merged range that covers cells of data rows
// is named in the detection once the sheet is read (its value is in its
// first cell; the others read empty, so it is never silent), in a sheet
// read whole in the sample and in a longer one alike; ranges in the
// header or a title band above it, single cells and ranges below the
// last row are not.
func TestMergedRangesOverData(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		rows   int
		title  bool // a title band in row 1, the header in row 2
		merges [][2]string
		opts   table.ReadOptions
		want   []string
		count  int
	}{
		{"a short sheet, a region merged down", 6, false, [][2]string{{"A2", "A4"}}, table.ReadOptions{}, []string{"A2:A4"}, 1},
		{"a long sheet, down and across", 200, false, [][2]string{{"A2", "A4"}, {"A150", "A160"}, {"B199", "C199"}}, table.ReadOptions{}, []string{"A2:A4", "A150:A160", "B199:C199"}, 3},
		{"a long sheet, past the listed ones", 200, false, eleven(), table.ReadOptions{}, names(eleven()[:maxListed]), 11},
		{"a title band and a merged header cell", 6, true, [][2]string{{"A1", "C1"}, {"B2", "C2"}}, table.ReadOptions{}, nil, 0},
		{"a long sheet, a header cell merged, a range below the rows", 200, false, [][2]string{{"B1", "C1"}, {"A300", "A305"}, {"D5", "D5"}}, table.ReadOptions{}, nil, 0},
		{"a header cell merged down into the data", 6, false, [][2]string{{"A1", "A2"}}, table.ReadOptions{}, []string{"A1:A2"}, 1},
		{"no header row: the first row is data", 6, false, [][2]string{{"A1", "A2"}}, table.ReadOptions{NoHeader: true}, []string{"A1:A2"}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			path := formatstest.Workbook(t, func(f *excelize.File) {
				first := 1
				if c.title {
					must(t, f.SetSheetRow("Sheet1", "A1", &[]any{"Sales by region, 2025"}))
					first = 2
				}
				must(t, f.SetSheetRow("Sheet1", fmt.Sprintf("A%d", first), &[]any{"Region", "City", "Sales"}))
				for i := first + 1; i <= c.rows; i++ {
					must(t, f.SetSheetRow("Sheet1", fmt.Sprintf("A%d", i), &[]any{fmt.Sprintf("R%d", i), fmt.Sprintf("C%d", i), i * 10}))
				}
				for _, m := range c.merges {
					must(t, f.MergeCell("Sheet1", m[0], m[1]))
				}
			})
			r, err := openFile(context.Background(), path, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if d := r.(table.Describer).Detection(); d.MergedCount != 0 {
				t.Fatalf("counted before the end: %+v", d.MergedRanges)
			}
			recs, err := formatstest.Records(r)
			if err != nil || len(recs) == 0 {
				t.Fatalf("%d records, %v", len(recs), err)
			}
			d := r.(table.Describer).Detection()
			if d.MergedCount != c.count || !slices.Equal(d.MergedRanges, c.want) {
				t.Fatalf("merged over data: %d %q, want %d %q", d.MergedCount, d.MergedRanges, c.count, c.want)
			}
		})
	}
}

func eleven() [][2]string {
	var out [][2]string
	for i := range 11 {
		out = append(out, [2]string{fmt.Sprintf("B%d", 10+i*10), fmt.Sprintf("B%d", 11+i*10)})
	}
	return out
}

func names(merges [][2]string) []string {
	out := make([]string, len(merges))
	for i, m := range merges {
		out[i] = m[0] + ":" + m[1]
	}
	return out
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestCellName(t *testing.T) {
	t.Parallel()
	for col, want := range map[int]string{1: "A1", 26: "Z1", 27: "AA1", 52: "AZ1", 53: "BA1", 702: "ZZ1", 703: "AAA1", 16384: "XFD1"} {
		if got := cellName(col, 1); got != want {
			t.Errorf("cellName(%d, 1) = %q, want %q", col, got, want)
		}
	}
}
