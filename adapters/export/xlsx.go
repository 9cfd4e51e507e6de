package export

import (
	"archive/zip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/klauspost/compress/flate"
	"github.com/xuri/excelize/v2"

	"github.com/tabnorm/tabnorm/domain"
)

// Excel's limits: rows on a sheet, characters (UTF-16 units) in a cell.
const (
	MaxSheetRows = 1_048_576
	MaxCellChars = 32_767
)

// widthSample is how many rows the column widths are measured on: the
// widths must be set before the first row is written, so the first rows
// are held (a bounded number) and then written.
const widthSample = 1000

// XLSXOptions tune a workbook; the zero value is Excel's limits.
type XLSXOptions struct {
	// SheetRows is the number of rows, header included, on one sheet
	// (0: MaxSheetRows). Rows past it continue on a sheet "Rows 2" and so
	// on, each with the header.
	SheetRows int
	// TmpDir is where excelize spills sheets that outgrow memory ("": the
	// system's).
	TmpDir string
}

func (o XLSXOptions) sheetRows() int {
	if o.SheetRows <= 1 || o.SheetRows > MaxSheetRows {
		return MaxSheetRows
	}
	return o.SheetRows
}

// CellTooLong is the error of a value a spreadsheet cannot hold.
func CellTooLong(row int64, field string, n int) error {
	return domain.Errorf(domain.ErrInvalid, domain.CodeCellTooLong,
		"Row %d's %q holds %d characters; a spreadsheet cell holds at most %d. Download the rows as CSV, JSON lines or Parquet instead.",
		row, field, n, MaxCellChars)
}

// cellChars counts a text as a spreadsheet does: in UTF-16 units.
func cellChars(s string) int {
	if len(s) <= MaxCellChars {
		return len(s) // UTF-8 never has fewer bytes than UTF-16 units
	}
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// styles are the workbook's cell styles.
type styles struct {
	header, date, dateTime int
}

func newStyles(f *excelize.File) (styles, error) {
	var s styles
	var err error
	if s.header, err = f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}}); err != nil {
		return s, err
	}
	dateFmt, dateTimeFmt := "yyyy-mm-dd", "yyyy-mm-dd hh:mm:ss"
	if s.date, err = f.NewStyle(&excelize.Style{CustomNumFmt: &dateFmt}); err != nil {
		return s, err
	}
	s.dateTime, err = f.NewStyle(&excelize.Style{CustomNumFmt: &dateTimeFmt})
	return s, err
}

// excelEpoch is the first day a spreadsheet's date cells hold.
var excelEpoch = time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)

// textLen is the length a value shows with, for the column widths.
func textLen(kind Kind, text string) int {
	switch kind {
	case String:
		return utf8.RuneCountInString(text)
	case Number:
		return len(text)
	case Bool:
		return 5
	}
	return 0
}

func sheetName(n int) string {
	if n == 1 {
		return "Rows"
	}
	return "Rows " + strconv.Itoa(n)
}

// addSheet adds sheet n of the frame: the header row, the column widths,
// the frozen header, and a table (an autofilter) over its rows.
func addSheet(f *excelize.File, n, rows int, header []any, widths []float64) error {
	name := sheetName(n)
	if n == 1 {
		if err := f.SetSheetName("Sheet1", name); err != nil {
			return err
		}
	} else if _, err := f.NewSheet(name); err != nil {
		return err
	}
	sw, err := f.NewStreamWriter(name)
	if err != nil {
		return err
	}
	for i, width := range widths {
		if err := sw.SetColWidth(i+1, i+1, width); err != nil {
			return err
		}
	}
	if err := sw.SetPanes(&excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft"}); err != nil {
		return err
	}
	if err := sw.SetRow("A1", header); err != nil {
		return err
	}
	last, err := excelize.CoordinatesToCellName(len(header), max(rows+1, 2))
	if err != nil {
		return err
	}
	if err := sw.AddTable(&excelize.Table{Range: "A1:" + last, StyleName: "TableStyleLight1"}); err != nil {
		return err
	}
	return sw.Flush()
}

// WriteRowsXLSX writes the valid rows as a workbook: one sheet (more past
// the sheet row limit), a bold frozen header, typed cells, column widths
// from the first rows, an autofilter. Every row is checked before the
// workbook is written to out, so a cell too long for a spreadsheet is an
// error (CellTooLong) before the first byte, never a truncated value.
//
// The rows' XML is written by sheetRows (the cells excelize's stream
// writer wrote, without a value boxed and a struct built per cell),
// deflated into a spill file as it is read; excelize builds the rest of
// the workbook (styles, the sheets' frames, tables), and the sheets' rows
// are spliced into its sheets as the workbook is zipped (spliceZip).
func WriteRowsXLSX(out io.Writer, rows io.Reader, cols []Column, opt XLSXOptions) error {
	f := excelize.NewFile(excelize.Options{TmpDir: opt.TmpDir})
	defer func() { _ = f.Close() }() // the frame is in memory; nothing to lose
	st, err := newStyles(f)
	if err != nil {
		return err
	}
	spill, err := os.CreateTemp(opt.TmpDir, "tabnorm-xlsx-*")
	if err != nil {
		return err
	}
	defer func() {
		_ = spill.Close()           // written and read here only
		_ = os.Remove(spill.Name()) // the system's clean-up takes what a crash leaves
	}()
	header, widths := make([]any, len(cols)), make([]float64, len(cols))
	for i, c := range cols {
		header[i] = excelize.Cell{StyleID: st.header, Value: c.Name}
		widths[i] = float64(utf8.RuneCountInString(c.Name))
	}
	sr := newSheetRows(spill, cols, st, opt.sheetRows()-1)
	rr := newRowReader(rows, cols)
	kinds, texts := make([]Kind, len(cols)), make([]string, len(cols))
	var n int64
	for {
		inPlace, err := rr.read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("read rows: %w", err)
		}
		n++
		if err := rr.xlsxCells(inPlace, n, cols, kinds, texts, widths); err != nil {
			return err
		}
		if err := sr.row(kinds, texts); err != nil {
			return err
		}
	}
	parts, err := sr.finish()
	if err != nil {
		return err
	}
	for i, width := range widths {
		widths[i] = min(max(width+2, 8), 60) // a little air; no column wider than a screen's third
	}
	for i, p := range parts {
		if err := addSheet(f, i+1, p.rows, header, widths); err != nil {
			return err
		}
	}
	return writeSpliced(f, out, spill, parts)
}

// xlsxCells reads row n's cells into kinds and texts, checks that each
// fits a cell, and measures the widths on the first rows.
func (rr *rowReader) xlsxCells(inPlace bool, n int64, cols []Column, kinds []Kind, texts []string, widths []float64) error {
	for i, c := range cols {
		if inPlace {
			kinds[i], texts[i] = rr.line.Kind(i), rr.line.Text(i)
		} else {
			kinds[i], texts[i] = kindOf(rr.vals[i])
		}
		if kinds[i] == String {
			if k := cellChars(texts[i]); k > MaxCellChars && (inPlace || isString(rr.vals[i])) {
				return CellTooLong(n, c.Name, k)
			}
		}
		if n <= widthSample {
			w := textLen(kinds[i], texts[i])
			if !inPlace && !isScalar(rr.vals[i]) {
				w = 10 // objects and lists (none today) as their JSON
			}
			widths[i] = max(widths[i], float64(w))
		}
	}
	return nil
}

// kindOf is a decoded value as a cell read in place: its kind and text
// (an object or a list as its JSON, a string).
func kindOf(v any) (Kind, string) {
	switch x := v.(type) {
	case nil:
		return Null, ""
	case string:
		return String, x
	case json.Number:
		return Number, string(x)
	case bool:
		return Bool, strconv.FormatBool(x)
	}
	b, _ := json.Marshal(v) // objects and lists (none today) as their JSON
	return String, string(b)
}

func isString(v any) bool { _, ok := v.(string); return ok }

func isScalar(v any) bool {
	switch v.(type) {
	case nil, string, json.Number, bool:
		return true
	}
	return false
}

// writeWorkbook zips the workbook straight to out: excelize's Write builds
// the whole zip in memory first, while its zip writer, given out, streams
// the parts. (excelize's patch of zip64 local headers for a part over 4 GiB
// works on that memory copy only; archive/zip's zip64 records stay.)
//
// The parts are deflated by klauspost/compress's flate at level 2: on a
// sheet of contacts a third of the time of level 6 (the standard library's
// default) for a file 12 % larger (11.1 % of the XML against 9.9 %), the
// trade a download wants.
func writeWorkbook(f *excelize.File, out io.Writer) error {
	f.SetZipWriter(func(io.Writer) excelize.ZipWriter { return newZip(out) })
	return f.Write(io.Discard)
}

func newZip(out io.Writer) *zip.Writer {
	zw := zip.NewWriter(out)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(w, xlsxLevel)
	})
	return zw
}

// writeSpliced is writeWorkbook with the sheets' rows spliced in from the
// spill file (spliceZip).
func writeSpliced(f *excelize.File, out io.Writer, spill *os.File, parts []sheetPart) error {
	var sz *spliceZip
	f.SetZipWriter(func(io.Writer) excelize.ZipWriter {
		sz = &spliceZip{zw: newZip(out), spill: spill, parts: parts}
		return sz
	})
	if err := f.Write(io.Discard); err != nil {
		return err
	}
	if sz == nil || sz.spliced != len(parts) {
		return errors.New("write workbook: a sheet's rows were not spliced in")
	}
	return nil
}
