package xlsx

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/tabnorm/tabnorm/adapters/formats/internal/formatstest"
	"github.com/tabnorm/tabnorm/domain/table"
)

func TestXLSXDatesAndValues(t *testing.T) {
	t.Parallel()
	for _, epoch1904 := range []bool{false, true} {
		t.Run(fmt.Sprint("1904=", epoch1904), func(t *testing.T) {
			p := formatstest.Workbook(t, func(f *excelize.File) {
				if err := f.SetWorkbookProps(&excelize.WorkbookPropsOptions{Date1904: &epoch1904}); err != nil {
					t.Fatal(err)
				}
				dateStyle, _ := f.NewStyle(&excelize.Style{NumFmt: 14})
				custom := "dd/mm/yyyy hh:mm"
				dtStyle, _ := f.NewStyle(&excelize.Style{CustomNumFmt: &custom})
				text := "@"
				textStyle, _ := f.NewStyle(&excelize.Style{CustomNumFmt: &text})
				_ = f.SetSheetRow("Sheet1", "A1", &[]any{"date", "when", "zip", "n", "formula"})
				serial := 45322.0 // 2024-01-31 in the 1900 system
				if epoch1904 {
					serial -= 1462
				}
				_ = f.SetCellValue("Sheet1", "A2", serial)
				_ = f.SetCellStyle("Sheet1", "A2", "A2", dateStyle)
				_ = f.SetCellValue("Sheet1", "B2", serial+0.5)
				_ = f.SetCellStyle("Sheet1", "B2", "B2", dtStyle)
				_ = f.SetCellStr("Sheet1", "C2", "00501")
				_ = f.SetCellStyle("Sheet1", "C2", "C2", textStyle)
				_ = f.SetCellValue("Sheet1", "D2", 12.5)
				_ = f.SetCellFormula("Sheet1", "E2", "1/0")
				_ = f.SetCellValue("Sheet1", "E2", "#DIV/0!")
			})
			got := readAll(t, p, table.ReadOptions{})
			if got.err != nil || len(got.recs) != 1 {
				t.Fatalf("%v %v", got.recs, got.err)
			}
			c := got.recs[0].Cells
			if c[0] != "2024-01-31" || c[1] != "2024-01-31T12:00:00" || c[2] != "00501" || c[3] != "12.5" {
				t.Fatalf("cells %q", c)
			}
		})
	}
	p := formatstest.Workbook(t, func(f *excelize.File) {
		_, _ = f.NewSheet("Second")
		_ = f.SetSheetRow("Second", "A1", &[]any{"x"})
		_ = f.SetSheetRow("Second", "A2", &[]any{"y"})
	})
	if got := readAll(t, p, table.ReadOptions{Sheet: "Second"}); got.err != nil || got.header[0] != "x" || got.recs[0].Cells[0] != "y" {
		t.Fatalf("sheet by name: %v %v", got.recs, got.err)
	}
	if got := readAll(t, p, table.ReadOptions{Sheet: "Nope"}); !errors.Is(got.err, table.ErrUnreadable) || !strings.Contains(got.err.Error(), "Second") {
		t.Fatalf("unknown sheet: %v", got.err)
	}
}

func TestXLSXZipBomb(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range []string{"[Content_Types].xml", "xl/workbook.xml"} {
		w, _ := zw.Create(name)
		_, _ = w.Write([]byte("<x/>"))
	}
	w, _ := zw.Create("xl/worksheets/sheet1.xml")
	_, _ = w.Write(bytes.Repeat([]byte("A"), 20<<20)) // 20 MiB of one letter: compresses ~1000:1
	_ = zw.Close()
	got := readAll(t, formatstest.WriteFile(t, "bomb.xlsx", buf.Bytes()), table.ReadOptions{})
	if !errors.Is(got.err, table.ErrUnreadable) || !strings.Contains(got.err.Error(), "zip bomb") {
		t.Fatalf("zip bomb: %v", got.err)
	}
	got = readAll(t, formatstest.WriteFile(t, "small.xlsx", buf.Bytes()), table.ReadOptions{Limits: table.Limits{MaxUnzipBytes: 1 << 20, MaxCompressRatio: 1 << 30}})
	if !errors.Is(got.err, table.ErrUnreadable) || !strings.Contains(got.err.Error(), "unpacks to") {
		t.Fatalf("size limit: %v", got.err)
	}
}

func TestDateKind(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"yyyy-mm-dd": "date", "dd/mm/yyyy hh:mm": "datetime", "h:mm AM/PM": "time", "[h]:mm:ss": "",
		"0.00": "", "#,##0": "", `"Date: "0`: "", "mmm": "date", "[Red]0.00": "", "General": "", "0.00E+00": "",
		`[$-409]mmmm d, yyyy;@`: "date",
	}
	for code, want := range cases {
		if got := kindOfCode(code); got != want {
			t.Errorf("%q: %q, want %q", code, got, want)
		}
	}
	if dateKind(14, nil) != "date" || dateKind(22, nil) != "datetime" || dateKind(20, nil) != "time" || dateKind(46, nil) != "" || dateKind(2, nil) != "" {
		t.Fatal("built-in formats")
	}
}

func TestDateText(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		serial string
		d1904  bool
		want   string
	}{
		{"45322", false, "2024-01-31"},
		{"45322.431944444444", false, "2024-01-31T10:22:00"},
		{"45322.5000057870", false, "2024-01-31T12:00:00.500"},
		{"43860", true, "2024-01-31"},
		{"43860.25", true, "2024-01-31T06:00:00"},
		{"0.431944444444", false, "10:22:00"},
		{"0.75", true, "18:00:00"},
		{"1", false, "1900-01-01"},
		{"59", false, "1900-02-28"},
		{"60", false, "1900-02-29"}, {"60.5", false, "1900-02-29T12:00:00"}, // Excel's 1900-02-29 does not exist: shown as Excel shows it, a date field reports it
		{"61", false, "1900-03-01"},
		{"45322.999999999", false, "2024-02-01"}, {"45322.99999999", false, "2024-01-31T23:59:59.999"},
		{"-1", false, "-1"},
		{"3000000", false, "3000000"},
	} {
		if got := dateText(dateMarker+c.serial, c.d1904); got != c.want {
			t.Errorf("%s (1904=%v): %q, want %q", c.serial, c.d1904, got, c.want)
		}
	}
}

func TestXLSXRows(t *testing.T) {
	t.Parallel()
	p := formatstest.Workbook(t, func(f *excelize.File) {
		timeStyle, _ := f.NewStyle(&excelize.Style{NumFmt: 21}) // h:mm:ss
		_ = f.SetCellValue("Sheet1", "A1", "Monthly export")    // a title above the table
		_ = f.SetSheetRow("Sheet1", "A3", &[]any{"name", "at", "n"})
		_ = f.SetSheetRow("Sheet1", "A4", &[]any{"x", 0.25, 15.0})
		_ = f.SetCellStyle("Sheet1", "B4", "B4", timeStyle)
		_ = f.SetCellValue("Sheet1", "A5", "only a name") // trailing empty cells
		_ = f.SetSheetRow("Sheet1", "A7", &[]any{"z", nil, 1e21, "beyond"})
		_ = f.SetCellFormula("Sheet1", "B7", "NA()")
		_ = f.SetCellValue("Sheet1", "B7", "#N/A")
	})
	got := readAll(t, p, table.ReadOptions{})
	if got.err != nil {
		t.Fatal(got.err)
	}
	if strings.Join(got.header, "|") != "name|at|n|" {
		t.Fatalf("header %q", got.header)
	}
	want := []struct {
		number int
		cells  string
	}{{1, "x|06:00:00|15|"}, {2, "only a name|||"}, {4, "z||1E+21|beyond"}}
	if len(got.recs) != len(want) {
		t.Fatalf("records %v", got.recs)
	}
	for i, w := range want {
		if r := got.recs[i]; r.Number != w.number || strings.Join(r.Cells, "|") != w.cells {
			t.Errorf("record %d: %d %q, want %d %q", i, r.Number, r.Cells, w.number, w.cells)
		}
	}
	if is := got.recs[2].CellIssues; len(is) != 1 || is[0].Code != "cell_error" || is[0].Value != "#N/A" || is[0].Column != 1 {
		t.Errorf("error cell: %+v", is)
	}
	if got := readAll(t, p, table.ReadOptions{HeaderRow: 9}); !errors.Is(got.err, table.ErrUnreadable) {
		t.Errorf("header_row past the end: %v", got.err)
	}
	if got := readAll(t, p, table.ReadOptions{HeaderRow: 1}); got.header[0] != "Monthly export" || len(got.recs) != 4 {
		t.Errorf("header_row 1: %q %d", got.header, len(got.recs))
	}
}
