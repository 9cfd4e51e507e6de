package xlsx

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/formats/internal/formatstest"
	"github.com/tabnorm/tabnorm/domain/table"
)

// timeScale stretches the time bounds of these tests on a slow or loaded
// machine: TABNORM_TEST_TIME_SCALE, a factor, 1 when unset.
func timeScale(d time.Duration) time.Duration {
	if f, err := strconv.ParseFloat(os.Getenv("TABNORM_TEST_TIME_SCALE"), 64); err == nil && f > 0 {
		return time.Duration(float64(d) * f)
	}
	return d
}

// compressed are read options that let a workbook unpack to any ratio:
// the files here are small and repetitive where an attacker's would be
// padded to pass the ratio check.
var compressed = table.ReadOptions{Limits: table.Limits{MaxCompressRatio: 1 << 20}}

// withPart replaces the named part of a workbook's parts.
func withPart(parts []string, name, text string) []string {
	out := append([]string(nil), parts...)
	for i := 0; i+1 < len(out); i += 2 {
		if out[i] == name {
			out[i+1] = text
			return out
		}
	}
	return append(out, name, text)
}

// TestXLSXClassifiesEachFormatOnce: however many cell formats use a number
// format, it is classified once.
func TestXLSXClassifiesEachFormatOnce(t *testing.T) {
	t.Parallel()
	ids := make([]int32, 1<<20)
	for i := range ids {
		ids[i] = int32(164 + i%3) // three custom formats
	}
	ids[7] = 14 // and a built-in one
	custom := map[int]string{164: "yyyy-mm-dd", 165: "0.00", 166: "h:mm"}
	calls := map[int]int{}
	kinds := classifyCellFormats(ids, custom, func(id int, custom map[int]string) string {
		calls[id]++
		return dateKind(id, custom)
	})
	if len(calls) != 4 {
		t.Fatalf("classified %v, want the 4 formats once each", calls)
	}
	for id, n := range calls {
		if n != 1 {
			t.Errorf("format %d classified %d times", id, n)
		}
	}
	if kinds[0] != fmtNumber || kinds[3] != fmtDate || kinds[4] != fmtNumber || kinds[5] != fmtTime || kinds[7] != fmtDate {
		t.Fatalf("kinds %v", kinds[:8])
	}
}

// TestXLSXLongFormatUsedEverywhere: a long custom number format (under
// the budget) used by a million cell formats reads in time proportional
// to the part, not to the format's length times its uses.
func TestXLSXLongFormatUsedEverywhere(t *testing.T) {
	t.Parallel()
	code := strings.Repeat("0", maxFormatCodeBytes-8) + `\d` // "d" as a literal: not a date
	styles := `<numFmts count="1"><numFmt numFmtId="200" formatCode="` + code + `"/></numFmts><cellXfs count="1048576"><xf numFmtId="0"/>` +
		strings.Repeat(`<xf numFmtId="200"/>`, 1<<20-1) + `</cellXfs>`
	p := formatstest.WriteFile(t, "long.xlsx", formatstest.RawWorkbook(`<sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>n</t></is></c></row><row r="2"><c r="A2" s="5"><v>12</v></c></row></sheetData>`, "", styles, false))
	start := time.Now()
	got := readAll(t, p, compressed)
	took := time.Since(start)
	if got.err != nil || len(got.recs) != 1 || got.recs[0].Cells[0] != "12" {
		t.Fatalf("%v %v", got.recs, got.err)
	}
	// Once per use, the format's 64 KiB times a million is 64 GB to scan.
	if limit := timeScale(10 * time.Second); took > limit {
		t.Fatalf("reading took %s, over %s", took, limit)
	}
}

// TestXLSXWorkBudgets: a workbook over a work budget is refused as
// unreadable at once, the message naming the budget.
func TestXLSXWorkBudgets(t *testing.T) {
	t.Parallel()
	sheet := `<sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>n</t></is></c></row><row r="2"><c r="A2"><v>1</v></c></row></sheetData>`
	manySheets := func(n int) string {
		var b strings.Builder
		b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><workbook ` + formatstest.NSMain + `><sheets>`)
		for i := range n {
			fmt.Fprintf(&b, `<sheet name="S%d" sheetId="%d" r:id="rId1"/>`, i, i+1)
		}
		b.WriteString(`</sheets></workbook>`)
		return b.String()
	}
	for _, c := range []struct {
		name  string
		parts []string
		want  string
	}{
		{"a number format over 64 KiB", formatstest.SheetWorkbookParts(sheet, "", `<numFmts count="1"><numFmt numFmtId="200" formatCode="`+strings.Repeat("0", 8<<20-100)+`"/></numFmts><cellXfs count="2"><xf numFmtId="0"/><xf numFmtId="200"/></cellXfs>`, false),
			"number format budget"},
		{"more number formats than the budget", formatstest.SheetWorkbookParts(sheet, "", `<numFmts>`+numFmts(maxNumberFormats+1)+`</numFmts>`, false),
			"number formats budget"},
		{"65,536 sheet entries", withPart(formatstest.SheetWorkbookParts(sheet, "", "", false), "xl/workbook.xml", manySheets(1<<16)),
			"sheet entries budget"},
		{"more fonts than the budget", formatstest.SheetWorkbookParts(sheet, "", `<fonts>`+strings.Repeat(`<font><b/></font>`, maxCellFormats+1)+`</fonts>`, false),
			"over 1048576 fonts"},
		{"more borders than the budget", formatstest.SheetWorkbookParts(sheet, "", `<borders>`+strings.Repeat(`<border/>`, maxCellFormats+1)+`</borders>`, false),
			"over 1048576 borders"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := formatstest.WriteFile(t, "w.xlsx", formatstest.ZipParts(c.parts...))
			start := time.Now()
			_, err := openFile(t.Context(), p, compressed)
			if !errors.Is(err, table.ErrUnreadable) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Open: %v, want unreadable naming the %s", err, c.want)
			}
			if limit := timeScale(5 * time.Second); time.Since(start) > limit {
				t.Fatalf("refused after %s, over %s", time.Since(start), limit)
			}
		})
	}
}

func numFmts(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `<numFmt numFmtId="%d" formatCode="0.0"/>`, 164+i)
	}
	return b.String()
}

// TestXLSXSheetReadOnce: sheet entries that all name one empty part have
// it read once, not once an entry: the reader looks for the first sheet
// with data and passes over a part it found empty.
func TestXLSXSheetReadOnce(t *testing.T) {
	t.Parallel()
	// A sheet without data, whose part is long: 4 MB after the data.
	empty := `<?xml version="1.0" encoding="UTF-8"?><worksheet ` + formatstest.NSMain + `><sheetData/><extLst>` + strings.Repeat(`<ext uri="x"/>`, 300_000) + `</extLst></worksheet>`
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><workbook ` + formatstest.NSMain + `><sheets>`)
	for i := range maxSheets {
		fmt.Fprintf(&b, `<sheet name="S%d" sheetId="%d" r:id="rId1"/>`, i, i+1)
	}
	b.WriteString(`</sheets></workbook>`)
	parts := withPart(formatstest.SheetWorkbookParts(empty, "", "", false), "xl/workbook.xml", b.String())
	p := formatstest.WriteFile(t, "sheets.xlsx", formatstest.ZipParts(parts...))
	start := time.Now()
	_, err := openFile(t.Context(), p, compressed)
	took := time.Since(start)
	if !errors.Is(err, table.ErrUnreadable) || !strings.Contains(err.Error(), "no sheet of the workbook has data") || !strings.Contains(err.Error(), "and 4086 more") {
		t.Fatalf("Open: %v", err)
	}
	// Once an entry, 4,096 reads of 4 MB.
	if limit := timeScale(5 * time.Second); took > limit {
		t.Fatalf("refused after %s, over %s", took, limit)
	}
	// Messages list the first ten sheets, not thousands.
	opts := compressed
	opts.Sheet = "nope"
	if _, err := openFile(t.Context(), p, opts); err == nil || !strings.Contains(err.Error(), `"S9"] and 4086 more`) {
		t.Fatalf("unknown sheet: %.300v", err)
	}
}

// TestXLSXDuplicateEntries: a zip with two entries of one name (or names
// that differ only in case, which OPC forbids) is refused: the part is
// ambiguous.
func TestXLSXDuplicateEntries(t *testing.T) {
	t.Parallel()
	sheet := `<sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>n</t></is></c></row><row r="2"><c r="A2"><v>1</v></c></row></sheetData>`
	other := `<?xml version="1.0" encoding="UTF-8"?><worksheet ` + formatstest.NSMain + `><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>n</t></is></c></row><row r="2"><c r="A2"><v>2</v></c></row></sheetData></worksheet>`
	for _, name := range []string{"xl/worksheets/sheet1.xml", "XL/Worksheets/Sheet1.xml"} {
		p := formatstest.WriteFile(t, "dup.xlsx", formatstest.ZipParts(formatstest.SheetWorkbookParts(sheet, "", "", false, name, other)...))
		got := readAll(t, p, table.ReadOptions{})
		if !errors.Is(got.err, table.ErrUnreadable) || !strings.Contains(got.err.Error(), "two entries named") {
			t.Fatalf("%s twice: %v %v", name, got.recs, got.err)
		}
	}
}

// TestXLSXDate1904SerialsUnderOne: in the 1904 system, serial 0 is
// 1904-01-01, which a date format shows; a time format shows the time.
// In the 1900 system a serial under 1 has no date and is a time.
func TestXLSXDate1904SerialsUnderOne(t *testing.T) {
	t.Parallel()
	styles := `<cellXfs count="4"><xf numFmtId="0"/><xf numFmtId="14"/><xf numFmtId="22"/><xf numFmtId="21"/></cellXfs>`
	sheet := `<sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>d</t></is></c><c r="B1" t="inlineStr"><is><t>dt</t></is></c><c r="C1" t="inlineStr"><is><t>t</t></is></c></row>` +
		`<row r="2"><c r="A2" s="1"><v>0</v></c><c r="B2" s="2"><v>0</v></c><c r="C2" s="3"><v>0</v></c></row>` +
		`<row r="3"><c r="A3" s="1"><v>0.5</v></c><c r="B3" s="2"><v>0.25</v></c><c r="C3" s="3"><v>0.5</v></c></row>` +
		`<row r="4"><c r="A4" s="1"><v>1</v></c><c r="B4" s="2"><v>0.0000116</v></c><c r="C4" s="3"><v>0.9999999999</v></c></row></sheetData>`
	for _, c := range []struct {
		date1904 bool
		want     [][]string
	}{
		{true, [][]string{{"1904-01-01", "1904-01-01", "00:00:00"}, {"1904-01-01T12:00:00", "1904-01-01T06:00:00", "12:00:00"}, {"1904-01-02", "1904-01-01T00:00:01.002", "00:00:00"}}},
		{false, [][]string{{"00:00:00", "00:00:00", "00:00:00"}, {"12:00:00", "06:00:00", "12:00:00"}, {"1900-01-01", "00:00:01.002", "00:00:00"}}},
	} {
		p := formatstest.WriteFile(t, "d.xlsx", formatstest.RawWorkbook(sheet, "", styles, c.date1904))
		got := readAll(t, p, table.ReadOptions{HeaderRow: 1})
		if got.err != nil || len(got.recs) != 3 {
			t.Fatalf("1904=%v: %v %v", c.date1904, got.recs, got.err)
		}
		for i, want := range c.want {
			if g := got.recs[i].Cells; strings.Join(g, "|") != strings.Join(want, "|") {
				t.Errorf("1904=%v row %d: %q, want %q", c.date1904, i+2, g, want)
			}
		}
	}
}
