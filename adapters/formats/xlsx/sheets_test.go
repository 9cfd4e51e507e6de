package xlsx

import (
	"archive/zip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/tabnorm/tabnorm/adapters/formats/internal/formatstest"
	"github.com/tabnorm/tabnorm/domain/table"
)

func sheetsOf(t *testing.T, path string, opts table.ReadOptions) []table.Sheet {
	t.Helper()
	r, err := openFile(context.Background(), path, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	l, ok := r.(table.SheetLister)
	if !ok {
		t.Fatal("the XLSX reader is no table.SheetLister")
	}
	sheets, err := l.Sheets()
	if err != nil {
		t.Fatal(err)
	}
	return sheets
}

// TestXLSXSheets: the reader lists every sheet in order, with its rows
// that hold a value and the first of them, the same whichever sheet the
// reader reads.
func TestXLSXSheets(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 40) // 80 bytes: cut to 64, on a character's edge
	path := formatstest.Workbook(t, func(f *excelize.File) {
		_ = f.SetSheetName("Sheet1", "Orders")
		_ = f.SetSheetRow("Orders", "A1", &[]any{"order", "amount", "", ""})
		for i := 2; i <= 4; i++ {
			_ = f.SetSheetRow("Orders", fmt.Sprintf("A%d", i), &[]any{i, 9.5})
		}
		_, _ = f.NewSheet("Empty")
		_, _ = f.NewSheet("Customers")
		_ = f.SetCellValue("Customers", "B3", " name ")
		_ = f.SetCellValue("Customers", "C3", long)
		_ = f.SetSheetRow("Customers", "B4", &[]any{"Ann", "x"})
		_, _ = f.NewSheet("Wide")
		_ = f.SetSheetRow("Wide", "A1", &[]any{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	})
	want := []table.Sheet{
		{Name: "Orders", Rows: 4, Complete: true, FirstRow: []string{"order", "amount"}},
		{Name: "Empty", Complete: true},
		{Name: "Customers", Rows: 2, Complete: true, FirstRow: []string{"", "name", strings.Repeat("é", 32) + "…"}},
		{Name: "Wide", Rows: 1, Complete: true, FirstRow: []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10"}},
	}
	for _, sheet := range []string{"", "Customers"} {
		if got := sheetsOf(t, path, table.ReadOptions{Sheet: sheet}); !reflect.DeepEqual(got, want) {
			t.Errorf("reading sheet %q, the sheets are\n%+v\nwant\n%+v", sheet, got, want)
		}
	}
}

// TestXLSXSheetsBounded: a workbook of many sheets lists the first
// MaxListedSheets, and a sheet larger than the look's budget is counted as
// far as it was read, not as all of it.
func TestXLSXSheetsBounded(t *testing.T) {
	t.Parallel()
	path := formatstest.Workbook(t, func(f *excelize.File) {
		_ = f.SetCellValue("Sheet1", "A1", "x")
		for i := 2; i <= MaxListedSheets+5; i++ {
			_, _ = f.NewSheet(fmt.Sprintf("S%d", i))
		}
		sw, err := f.NewStreamWriter("S2")
		if err != nil {
			t.Fatal(err)
		}
		for i := 1; i <= 40_000; i++ {
			if err := sw.SetRow(fmt.Sprintf("A%d", i), []any{"row", i, "some text to fill the sheet"}); err != nil {
				t.Fatal(err)
			}
		}
		if err := sw.Flush(); err != nil {
			t.Fatal(err)
		}
	})
	got := sheetsOf(t, path, table.ReadOptions{})
	if len(got) != MaxListedSheets || got[MaxListedSheets-1].Name != fmt.Sprintf("S%d", MaxListedSheets) {
		t.Fatalf("%d sheets listed, the last %q", len(got), got[len(got)-1].Name)
	}
	if s := got[1]; s.Complete || s.Rows < 1000 || s.Rows >= 40_000 || !reflect.DeepEqual(s.FirstRow, []string{"row", "1", "some text to fill the sheet"}) {
		t.Fatalf("a sheet past the look's budget: %d rows, complete %v, first %q", s.Rows, s.Complete, s.FirstRow)
	}
	if s := got[2]; !s.Complete || s.Rows != 0 || s.FirstRow != nil {
		t.Fatalf("an empty sheet: %+v", s)
	}
}

// TestXLSXSheetsDamaged: a sheet whose XML is damaged is listed by name
// only (neither empty nor counted), and the sheet read is read as ever.
func TestXLSXSheetsDamaged(t *testing.T) {
	t.Parallel()
	good := formatstest.Workbook(t, func(f *excelize.File) {
		_ = f.SetSheetRow("Sheet1", "A1", &[]any{"a", "b"})
		_ = f.SetSheetRow("Sheet1", "A2", &[]any{1, 2})
		_, _ = f.NewSheet("Broken")
		_ = f.SetCellValue("Broken", "A1", "x")
	})
	zr, err := zip.OpenReader(good)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "damaged.xlsx")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(out)
	for _, f := range zr.File {
		w, _ := zw.Create(f.Name)
		if f.Name == "xl/worksheets/sheet2.xml" {
			_, _ = w.Write([]byte(`<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row r="1"><c r="A1"><v>1</v></row>`))
			continue
		}
		rc, _ := f.Open()
		_, _ = io.Copy(w, rc)
		_ = rc.Close()
	}
	_ = zw.Close()
	_ = out.Close()
	_ = zr.Close()
	got := sheetsOf(t, path, table.ReadOptions{})
	want := []table.Sheet{{Name: "Sheet1", Rows: 2, Complete: true, FirstRow: []string{"a", "b"}}, {Name: "Broken"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("sheets %+v", got)
	}
}
