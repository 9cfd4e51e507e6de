package xlsx

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/tabnorm/tabnorm/adapters/formats/internal/formatstest"
	"github.com/tabnorm/tabnorm/domain/table"
	"github.com/tabnorm/tabnorm/test/corpus"
)

// xlsxCorpus lists the workbooks of the shared corpus (beside the
// repository, or at TABNORM_TEST_CORPUS) and of the test data.
func xlsxCorpus(t *testing.T) []string {
	t.Helper()
	dirs := []string{"testdata"}
	shared, ok := corpus.Find()
	switch {
	case ok:
		dirs = append(dirs, shared)
	case os.Getenv("CI") == "true":
		t.Fatalf("corpus missing at %s: CI must have it", shared)
	default:
		t.Logf("*** the shared corpus is not at %s (set TABNORM_TEST_CORPUS): comparing on generated workbooks only ***", shared)
	}
	var files []string
	for _, dir := range dirs {
		_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.EqualFold(filepath.Ext(p), ".xlsx") {
				files = append(files, p)
			}
			return nil
		})
	}
	return files
}

// readerOutput is everything a reader hands out, as text to compare.
func readerOutput(r table.Reader, err error) string {
	if err != nil {
		return "open error"
	}
	defer r.Close()
	var b strings.Builder
	fmt.Fprintf(&b, "header %q\n", r.Header())
	for range 2_000_000 {
		rec, err := r.Next()
		if err == io.EOF {
			return b.String()
		}
		if err != nil {
			fmt.Fprintf(&b, "error\n")
			return b.String()
		}
		fmt.Fprintf(&b, "%d %q %v\n", rec.Number, rec.Cells, rec.CellIssues)
	}
	return b.String()
}

// compareReaders reads every sheet of a workbook with the streaming reader
// and with the excelize-based reader it replaced, and wants the same
// header, records, cells and issues. strict also wants the same errors;
// otherwise the streaming reader may refuse what the old one read (it
// refuses damage the old one passed over). The old reader is given the
// header row the new one found: the new one weighs what the cells' markup
// says (typed values, styles, merges), which the old one never saw. Both
// read every row to the end (footer_rows none): the old one never told
// notes below a table.
func compareReaders(t *testing.T, path string, sheets int, strict bool) {
	t.Helper()
	limits := table.Limits{MaxColumns: 2000, MaxCellBytes: 64 << 10, MaxUnzipBytes: 256 << 20}
	for sheet := 1; sheet <= max(sheets, 1); sheet++ {
		opts := table.ReadOptions{Sheet: strconv.Itoa(sheet), Limits: limits, FooterRows: table.FooterNone}
		if found, err := Open(t.Context(), path, opts); err == nil {
			opts.HeaderRow, opts.NoHeader = found.Detection().HeaderRow, found.Detection().HeaderRow == 0
			_ = found.Close()
		}
		nr, nerr := Open(t.Context(), path, opts)
		got := readerOutput(nr, nerr)
		or, oerr := openLegacyXLSX(path, opts)
		want := readerOutput(or, oerr)
		if got == want {
			continue
		}
		if !strict && (nerr != nil || strings.HasSuffix(got, "error\n")) {
			continue
		}
		t.Errorf("%s sheet %d: the streaming reader (%v) differs from the excelize reader (%v):\n%s", path, sheet, nerr, oerr, firstDiff(got, want))
	}
}

func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		var a, b string
		if i < len(g) {
			a = g[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b {
			return fmt.Sprintf("line %d:\n new: %s\n old: %s", i+1, a, b)
		}
	}
	return ""
}

func sheetCount(path string) int {
	f, err := excelize.OpenFile(path)
	if err != nil {
		return 1
	}
	defer f.Close()
	return len(f.GetSheetList())
}

// TestXLSXReaderMatchesExcelize: on every workbook of the corpus and the
// test data, every sheet reads as it did with excelize's row iterator.
func TestXLSXReaderMatchesExcelize(t *testing.T) {
	t.Parallel()
	files := append(xlsxCorpus(t), excelizeWorkbooks(t)...)
	for _, p := range files {
		compareReaders(t, p, sheetCount(p), true)
	}
	t.Logf("%d workbooks compared", len(files))
}

// TestXLSXReaderMatchesExcelizeOnKinds compares the readers on workbooks
// with each kind of cell and markup the streaming reader must read as
// before.
func TestXLSXReaderMatchesExcelizeOnKinds(t *testing.T) {
	t.Parallel()
	for name, sheet := range xlsxKinds {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			compareReaders(t, formatstest.WriteFile(t, "k.xlsx", formatstest.RawWorkbook(sheet, xlsxKindsStrings, xlsxKindsStyles, false)), 1, true)
			compareReaders(t, formatstest.WriteFile(t, "k1904.xlsx", formatstest.RawWorkbook(sheet, xlsxKindsStrings, xlsxKindsStyles, true)), 1, true)
		})
	}
}

// excelizeWorkbooks writes workbooks the way excelize writes them (shared
// strings, styles of its own, formulas), as the tests elsewhere do.
func excelizeWorkbooks(t *testing.T) []string {
	dates := formatstest.Workbook(t, func(f *excelize.File) {
		date, _ := f.NewStyle(&excelize.Style{NumFmt: 14})
		clock, _ := f.NewStyle(&excelize.Style{NumFmt: 21})
		code := "dd/mm/yyyy hh:mm"
		custom, _ := f.NewStyle(&excelize.Style{CustomNumFmt: &code})
		_ = f.SetCellValue("Sheet1", "A1", "Monthly export")
		_ = f.SetSheetRow("Sheet1", "A3", &[]any{"name", "day", "at", "when", "n", "ok"})
		for i := 4; i < 40; i++ {
			_ = f.SetSheetRow("Sheet1", fmt.Sprintf("A%d", i), &[]any{fmt.Sprintf("r%d", i), 45000 + i, float64(i) / 48, 45000.25 + float64(i), float64(i) * 1.1, i%2 == 0})
			_ = f.SetCellStyle("Sheet1", fmt.Sprintf("B%d", i), fmt.Sprintf("B%d", i), date)
			_ = f.SetCellStyle("Sheet1", fmt.Sprintf("C%d", i), fmt.Sprintf("C%d", i), clock)
			_ = f.SetCellStyle("Sheet1", fmt.Sprintf("D%d", i), fmt.Sprintf("D%d", i), custom)
		}
		_ = f.SetCellFormula("Sheet1", "E40", "SUM(E4:E39)")
		_ = f.SetCellValue("Sheet1", "G41", "beyond")
		_, _ = f.NewSheet("Second")
		_ = f.SetSheetRow("Second", "B2", &[]any{"x", 1.5, "#N/A"})
		_ = f.SetCellRichText("Second", "A5", []excelize.RichTextRun{{Text: "rich "}, {Text: "text", Font: &excelize.Font{Bold: true}}})
	})
	return []string{dates}
}
