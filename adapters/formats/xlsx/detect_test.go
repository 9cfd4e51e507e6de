package xlsx

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/tabnorm/tabnorm/adapters/formats/internal/formatstest"
	"github.com/tabnorm/tabnorm/domain/table"
)

func detectionOf(t *testing.T, path string, opts table.ReadOptions) table.Detection {
	t.Helper()
	r, err := openFile(context.Background(), path, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	d, ok := r.(table.Describer)
	if !ok {
		t.Fatal("the XLSX reader is no table.Describer")
	}
	return d.Detection()
}

// TestXLSXDetection: the reader says which sheet it read and where the
// header was, and those given back as options read the same table.
func TestXLSXDetection(t *testing.T) {
	t.Parallel()
	titled := formatstest.Workbook(t, func(f *excelize.File) {
		_ = f.SetCellValue("Sheet1", "A1", "Monthly export")
		_ = f.SetCellValue("Sheet1", "A2", "by region")
		_ = f.SetSheetRow("Sheet1", "A4", &[]any{"name", "n", "at"})
		for i := 5; i < 12; i++ {
			_ = f.SetSheetRow("Sheet1", fmt.Sprintf("A%d", i), &[]any{"x", i, "y"})
		}
	})
	emptyFirst := formatstest.Workbook(t, func(f *excelize.File) {
		_, _ = f.NewSheet("Notes")
		_, _ = f.NewSheet("Data")
		_ = f.SetCellValue("Notes", "B3", "see Data")
		_ = f.SetSheetRow("Data", "A2", &[]any{"a", "b"})
		_ = f.SetSheetRow("Data", "A3", &[]any{1, 2})
	})
	cases := []struct {
		name string
		path string
		opts table.ReadOptions
		want table.Detection
	}{
		{"title above the header", titled, table.ReadOptions{}, table.Detection{Format: table.XLSX, Sheet: "Sheet1", HeaderRow: 4, SkippedRows: []int{1, 2}, SkippedCount: 2}},
		{"rows skipped by option", titled, table.ReadOptions{SkipRows: 1}, table.Detection{Format: table.XLSX, Sheet: "Sheet1", HeaderRow: 4, SkippedRows: []int{1, 2}, SkippedCount: 2}},
		{"header row given", titled, table.ReadOptions{HeaderRow: 2}, table.Detection{Format: table.XLSX, Sheet: "Sheet1", HeaderRow: 2, SkippedRows: []int{1}, SkippedCount: 1}},
		{"empty first sheet", emptyFirst, table.ReadOptions{}, table.Detection{Format: table.XLSX, Sheet: "Notes", HeaderRow: 3,
			OtherSheets: []table.Sheet{{Name: "Data", Rows: 2, Complete: true}}}},
		{"sheet by index", emptyFirst, table.ReadOptions{Sheet: "3"}, table.Detection{Format: table.XLSX, Sheet: "Data", HeaderRow: 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := detectionOf(t, c.path, c.opts)
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("detection %+v, want %+v", got, c.want)
			}
			first := readAll(t, c.path, c.opts)
			again := readAll(t, c.path, table.ReadOptions{Sheet: got.Sheet, HeaderRow: got.HeaderRow})
			if first.err != nil || again.err != nil || !reflect.DeepEqual(first.header, again.header) || !reflect.DeepEqual(cellsOf(first.recs), cellsOf(again.recs)) {
				t.Fatalf("read with the detection as options differs:\n%q %q %v\n%q %q %v", first.header, cellsOf(first.recs), first.err, again.header, cellsOf(again.recs), again.err)
			}
		})
	}
}

func cellsOf(recs []table.Record) [][]string {
	out := make([][]string, len(recs))
	for i, r := range recs {
		out[i] = r.Cells
	}
	return out
}

// TestXLSXEmptyFirstSheet: the default sheet is the first with data; a
// workbook with none fails with the list of its sheets, and an empty sheet
// asked for by name reads as an empty table.
func TestXLSXEmptyFirstSheet(t *testing.T) {
	t.Parallel()
	empty := formatstest.Workbook(t, func(f *excelize.File) { _, _ = f.NewSheet("Other") })
	got := readAll(t, empty, table.ReadOptions{})
	if !errors.Is(got.err, table.ErrUnreadable) || got.err.Error() != `unreadable file: no sheet of the workbook has data; the sheets are ["Sheet1" "Other"]` {
		t.Fatalf("no data anywhere: %v", got.err)
	}
	if got := readAll(t, empty, table.ReadOptions{Sheet: "Other"}); got.err != nil || len(got.header) != 0 || len(got.recs) != 0 {
		t.Fatalf("an empty sheet by name: %v %q %d", got.err, got.header, len(got.recs))
	}
	second := formatstest.Workbook(t, func(f *excelize.File) {
		_, _ = f.NewSheet("Data")
		_ = f.SetSheetRow("Data", "A1", &[]any{"a", "b"})
		_ = f.SetSheetRow("Data", "A2", &[]any{1, 2})
	})
	if got := readAll(t, second, table.ReadOptions{}); got.err != nil || len(got.header) != 2 || len(got.recs) != 1 || got.recs[0].Cells[1] != "2" {
		t.Fatalf("first sheet with data: %v %q %v", got.err, got.header, got.recs)
	}
}

// TestXLSXDateSystem: the workbook's own workbookPr decides the epoch, not
// an extension's element of the same name.
func TestXLSXDateSystem(t *testing.T) {
	t.Parallel()
	parts := formatstest.SheetWorkbookParts(`<sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>d</t></is></c></row><row r="2"><c r="A2" s="1"><v>43860</v></c></row></sheetData>`, "", xlsxKindsStyles, true)
	for i := range parts {
		if parts[i] == "xl/workbook.xml" {
			parts[i+1] = strings.Replace(parts[i+1], "</workbook>", `<extLst><ext uri="{x}" xmlns:x14="http://schemas.microsoft.com/office/spreadsheetml/2009/9/main"><x14:workbookPr defaultImageDpi="32767"/><x14:sheet/></ext></extLst></workbook>`, 1)
		}
	}
	got := readAll(t, formatstest.WriteFile(t, "d1904.xlsx", formatstest.ZipParts(parts...)), table.ReadOptions{})
	if got.err != nil || len(got.recs) != 1 || got.recs[0].Cells[0] != "2024-01-31" {
		t.Fatalf("1904 workbook: %v %v", got.err, got.recs)
	}
}

// TestXLSXNoHeader: header_row "none" reads every row as a record, with
// columns named by position, as it does for delimited files; the Detection
// says the sheet has no header row (0).
func TestXLSXNoHeader(t *testing.T) {
	t.Parallel()
	path := formatstest.Workbook(t, func(f *excelize.File) {
		_ = f.SetSheetRow("Sheet1", "A1", &[]any{"alice", 30})
		_ = f.SetSheetRow("Sheet1", "A2", &[]any{"bob", 41, "extra"})
	})
	opts := table.ReadOptions{NoHeader: true}
	got := readAll(t, path, opts)
	want := [][]string{{"alice", "30", ""}, {"bob", "41", "extra"}}
	if got.err != nil || !reflect.DeepEqual(got.header, []string{table.PositionalName(0), table.PositionalName(1), table.PositionalName(2)}) ||
		!reflect.DeepEqual(cellsOf(got.recs), want) {
		t.Fatalf("header %q records %q err %v", got.header, cellsOf(got.recs), got.err)
	}
	if got.recs[0].Number != 1 || got.recs[1].Number != 2 {
		t.Fatalf("record numbers %d %d", got.recs[0].Number, got.recs[1].Number)
	}
	if d := detectionOf(t, path, opts); d.HeaderRow != 0 || d.SkippedCount != 0 {
		t.Fatalf("detection %+v", d)
	}
}
