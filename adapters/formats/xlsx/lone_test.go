package xlsx

import (
	"reflect"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/tabnorm/tabnorm/adapters/formats/internal/formatstest"
	"github.com/tabnorm/tabnorm/domain/table"
)

// TestXLSXOneCell: a sheet of one cell reads as a text file of one record
// does, wherever the cell is (below the rows header detection looks at
// too): text is a header without rows, a value is one record.
func TestXLSXOneCell(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		cell      string
		value     any
		header    []string
		headerRow int
		records   [][]string
		numbers   []int
	}{
		"text_at_A1":    {"A1", "hello", []string{"hello"}, 1, nil, nil},
		"number_at_A1":  {"A1", 42, []string{"column_1"}, 0, [][]string{{"42"}}, []int{1}},
		"text_at_C60":   {"C60", "hello", []string{"", "", "hello"}, 60, nil, nil},
		"number_at_B80": {"B80", 42.5, []string{"column_1", "column_2"}, 0, [][]string{{"", "42.5"}}, []int{80}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := formatstest.Workbook(t, func(f *excelize.File) { must(t, f.SetCellValue("Sheet1", c.cell, c.value)) })
			got := readAll(t, path, table.ReadOptions{})
			if got.err != nil || !reflect.DeepEqual(got.header, c.header) || (len(got.recs) > 0 || len(c.records) > 0) && !reflect.DeepEqual(cellsOf(got.recs), c.records) {
				t.Fatalf("header %q records %q err %v; want %q %q", got.header, cellsOf(got.recs), got.err, c.header, c.records)
			}
			var numbers []int
			for _, r := range got.recs {
				numbers = append(numbers, r.Number)
			}
			if det := detectionOf(t, path, table.ReadOptions{}); det.HeaderRow != c.headerRow || det.SkippedCount != 0 || !reflect.DeepEqual(numbers, c.numbers) {
				t.Errorf("header row %d, skipped %d, record numbers %v; want %d, 0, %v", det.HeaderRow, det.SkippedCount, numbers, c.headerRow, c.numbers)
			}
		})
	}
}
