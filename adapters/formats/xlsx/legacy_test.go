package xlsx

// The reader XLSX files were read with before the streaming sheet reader
// (excelize's row iterator, with date styles marked), kept as the
// reference the new reader is compared with cell by cell.

import (
	"archive/zip"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"

	"github.com/tabnorm/tabnorm/adapters/formats/detect"
	"github.com/tabnorm/tabnorm/domain/table"
)

// legacyXLSX reads one sheet of a workbook with excelize's streaming row
// iterator. Decisions:
//   - Date cells are found by their number format (built-in date formats
//     and custom formats with date or time tokens outside quotes and
//     brackets) and come out as ISO text in the workbook's own epoch (1900
//     or 1904): see dateText. Elapsed-time formats ([h]:mm) are durations,
//     not dates, and keep their number.
//   - Numbers come out with at most 15 significant digits, as Excel shows
//     them: a cached formula result stored as 274.65999999999997 reads
//     274.66, 15.0 reads 15, and a number past 15 digits is written in
//     exponent form (9.22337203685478E+19). Excel keeps no more digits of a
//     typed number, so none of the input is lost.
//   - Text stays text ("001" stays "001"); booleans are TRUE/FALSE.
//   - Error cells (#DIV/0!, #N/A, …) are missing values with a cell_error
//     issue. excelize hands over values without their type, so a text cell
//     holding exactly an error literal is reported the same way.
//   - A sheet has no ragged rows: excelize drops a row's trailing empty
//     cells, so rows are padded to the header's width, and the header is
//     widened (with blank names) to the widest row read while looking for
//     it, so data under an unlabeled column keeps its place.
//   - Rows are numbered like the sheet: record n is the n-th row under the
//     header, empty rows skipped but counted.
//   - BytesRead is an estimate (the zip is not read in order): the share of
//     the sheet's rows read, from its dimension, times the file size; a
//     sheet without a dimension is estimated from the cells read against
//     the largest sheet part's unpacked size. It reaches the file size at the end.
type legacyXLSX struct {
	f        *excelize.File
	rows     *excelize.Rows
	size     int64 // the file's size
	xmlSize  int64 // the sheet part's unpacked size
	total    int   // rows by the sheet's dimension; 0 when unknown
	read     int   // rows read from the sheet
	cells    int64 // cells read from the sheet
	done     bool
	date1904 bool
	header   []string
	pending  [][]string // rows read while looking for the header
	number   int
	limits   table.Limits
}

// legacyPartLimit is how large an unpacked part excelize may hold in memory;
// larger parts (big sheets) spill to a temporary file.
const legacyPartLimit = 16 << 20

func openLegacyXLSX(path string, opts table.ReadOptions) (_ *legacyXLSX, err error) {
	limits := opts.Limits.WithDefaults()
	size, sheetSizes, err := legacyCheckZip(path, limits)
	if err != nil {
		return nil, err
	}
	defer recoverAs(&err, "structure")
	f, err := excelize.OpenFile(path, excelize.Options{UnzipSizeLimit: limits.MaxUnzipBytes, UnzipXMLSizeLimit: min(legacyPartLimit, limits.MaxUnzipBytes)})
	if err != nil {
		return nil, fmt.Errorf("%w: not a readable workbook: %v", table.ErrUnreadable, err)
	}
	x := &legacyXLSX{f: f, size: size, limits: limits}
	if err := x.open(opts, sheetSizes); err != nil {
		f.Close()
		return nil, err
	}
	return x, nil
}

// legacyCheckZip refuses zip bombs before anything is inflated: the declared
// total size and the ratio to the file's size are both bounded. It returns
// the file's size and the unpacked size of each part under xl/.
func legacyCheckZip(path string, limits table.Limits) (int64, map[string]int64, error) {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return 0, nil, fmt.Errorf("%w: not a valid zip file: %v", table.ErrUnreadable, err)
	}
	defer zr.Close()
	fi, err := os.Stat(path)
	if err != nil {
		return 0, nil, fmt.Errorf("%w: %v", table.ErrUnreadable, err)
	}
	var total uint64
	parts := map[string]int64{}
	for _, f := range zr.File {
		total += f.UncompressedSize64
		if strings.HasPrefix(f.Name, "xl/") {
			parts[f.Name] = int64(min(f.UncompressedSize64, math.MaxInt64))
		}
	}
	if _, ok := parts["xl/workbook.xml"]; !ok {
		return 0, nil, fmt.Errorf("%w: a zip file without a workbook is not XLSX", table.ErrUnsupportedFormat)
	}
	if total > uint64(limits.MaxUnzipBytes) {
		return 0, nil, fmt.Errorf("%w: the workbook unpacks to %d bytes; the limit is %d (zip bomb?)", table.ErrUnreadable, total, limits.MaxUnzipBytes)
	}
	if ratio := total / uint64(max(fi.Size(), 1)); ratio > uint64(limits.MaxCompressRatio) {
		return 0, nil, fmt.Errorf("%w: the workbook unpacks to %d times its size; the limit is %d (zip bomb?)", table.ErrUnreadable, ratio, limits.MaxCompressRatio)
	}
	return fi.Size(), parts, nil
}

func (x *legacyXLSX) open(opts table.ReadOptions, parts map[string]int64) error {
	sheets := x.f.GetSheetList()
	sheet, err := legacyPickSheet(sheets, opts.Sheet)
	if err != nil {
		return err
	}
	if props, err := x.f.GetWorkbookProps(); err == nil && props.Date1904 != nil {
		x.date1904 = *props.Date1904
	}
	if err := x.markDates(); err != nil {
		return err
	}
	if dim, err := x.f.GetSheetDimension(sheet); err == nil {
		x.total = dimensionRows(dim)
	}
	x.xmlSize = largestSheetPart(parts)
	if x.rows, err = x.f.Rows(sheet); err != nil {
		return fmt.Errorf("%w: sheet %q cannot be read: %v", table.ErrUnreadable, sheet, err)
	}
	for range opts.SkipRows {
		if _, err := x.nextRow(); err != nil {
			return ignoreEOF(err)
		}
	}
	want := detect.SampleRecords
	if opts.HeaderRow > 0 {
		want = opts.HeaderRow
	}
	for len(x.pending) < want {
		cells, err := x.nextRow()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		x.pending = append(x.pending, cells)
	}
	if len(x.pending) == 0 {
		return nil
	}
	if opts.NoHeader {
		width := 0
		for _, row := range x.pending {
			width = max(width, len(row))
		}
		x.header = make([]string, width)
		for i := range x.header {
			x.header[i] = table.PositionalName(i)
		}
		return nil
	}
	at := opts.HeaderRow - 1
	if opts.HeaderRow == 0 {
		at, _ = detect.Header(x.pending)
	} else if at >= len(x.pending) {
		return fmt.Errorf("%w: header_row %d is past the end of the sheet (%d rows)", table.ErrUnreadable, opts.HeaderRow, len(x.pending)+opts.SkipRows)
	}
	width := 0
	for _, row := range x.pending[at:] {
		width = max(width, len(row))
	}
	x.header = pad(x.pending[at], width)
	if len(x.header) > x.limits.MaxColumns {
		return fmt.Errorf("%w: the sheet has %d columns; the limit is %d", table.ErrUnreadable, len(x.header), x.limits.MaxColumns)
	}
	x.pending = x.pending[at+1:]
	return nil
}

// largestSheetPart is the unpacked size of the largest worksheet part:
// the data sheet, most likely, which is all progress needs (excelize does
// not say which part holds which sheet).
func largestSheetPart(parts map[string]int64) int64 {
	var size int64
	for name, n := range parts {
		if strings.HasPrefix(name, "xl/worksheets/") {
			size = max(size, n)
		}
	}
	return size
}

// pickSheet resolves the sheet option: a name, a 1-based index, or the
// first sheet.
func legacyPickSheet(sheets []string, want string) (string, error) {
	if len(sheets) == 0 {
		return "", fmt.Errorf("%w: the workbook has no sheets", table.ErrUnreadable)
	}
	if want == "" {
		return sheets[0], nil
	}
	if slices.Contains(sheets, want) {
		return want, nil
	}
	if n, err := strconv.Atoi(want); err == nil && n >= 1 && n <= len(sheets) {
		return sheets[n-1], nil
	}
	return "", fmt.Errorf("%w: no sheet %q; the sheets are %q", table.ErrUnreadable, want, sheets)
}

func dimensionRows(dim string) int {
	_, last, ok := strings.Cut(dim, ":")
	if !ok {
		return 0
	}
	_, row, err := excelize.CellNameToCoordinates(last)
	if err != nil {
		return 0
	}
	return row
}

// recoverAs turns a panic inside excelize on a malformed workbook into an
// unreadable-file error instead of a crashed worker.
func recoverAs(err *error, what string) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%w: the workbook's %s cannot be read (%v)", table.ErrUnreadable, what, r)
	}
}

// nextRow returns the next row's cells, dates converted, error values
// still in place.
func (x *legacyXLSX) nextRow() (_ []string, err error) {
	defer recoverAs(&err, "rows")
	if !x.rows.Next() {
		x.done = true
		if err := x.rows.Error(); err != nil {
			return nil, fmt.Errorf("%w: %v", table.ErrUnreadable, err)
		}
		return nil, io.EOF
	}
	x.read++
	cells, err := x.rows.Columns()
	if err != nil {
		return nil, fmt.Errorf("%w: row %d: %v", table.ErrUnreadable, x.read, err)
	}
	x.cells += int64(len(cells))
	if len(cells) > x.limits.MaxColumns {
		return nil, fmt.Errorf("%w: row %d has %d cells; the limit is %d columns", table.ErrUnreadable, x.read, len(cells), x.limits.MaxColumns)
	}
	for i, c := range cells {
		if len(c) > x.limits.MaxCellBytes {
			return nil, fmt.Errorf("%w: a cell in row %d is over %d bytes", table.ErrUnreadable, x.read, x.limits.MaxCellBytes)
		}
		if strings.HasPrefix(c, dateMarker) || strings.HasPrefix(c, "-"+dateMarker) {
			cells[i] = dateText(c, x.date1904)
		}
	}
	return cells, nil
}

func (x *legacyXLSX) Format() table.Format { return table.XLSX }
func (x *legacyXLSX) Header() []string     { return x.header }

func (x *legacyXLSX) BytesRead() int64 {
	switch {
	case x.done:
		return x.size
	case x.total > 0:
		return min(x.size-1, x.size*int64(x.read)/int64(x.total))
	case x.xmlSize > 0:
		// About 40 bytes of XML a cell (<c r="B7" s="3" t="s"><v>12</v></c>).
		return min(x.size-1, x.size*(x.cells*40)/x.xmlSize)
	}
	return 0
}

func (x *legacyXLSX) Close() error {
	if x.rows != nil {
		_ = x.rows.Close()
	}
	return x.f.Close()
}

// Next returns the next non-blank data row.
func (x *legacyXLSX) Next() (table.Record, error) {
	for {
		var cells []string
		if len(x.pending) > 0 {
			cells, x.pending = x.pending[0], x.pending[1:]
		} else {
			var err error
			if cells, err = x.nextRow(); err != nil {
				return table.Record{}, err
			}
		}
		x.number++
		issues := errorCells(cells)
		if detect.Blank(cells) && len(issues) == 0 {
			continue
		}
		return table.Record{Number: x.number, Cells: pad(cells, len(x.header)), CellIssues: issues, Owned: true}, nil
	}
}

// dateMarker starts the text excelize renders for a date cell. XML 1.0
// cannot hold the byte, so no stored value can begin with it: a cell that
// does is a date serial, never text.
const dateMarker = "\x01"

// Number-format id that neither excelize's built-in table nor the workbook
// defines: cells styled with it come out exactly as stored.
const asStored = 1 << 20

// markDates rewrites the workbook's cell styles in memory (the file is
// never saved) so that excelize renders no number format at all: date
// cells come out as dateMarker + their serial, every other cell as stored.
//
// Why not RawCellValue: Rows.Columns returns values only, so in raw mode
// a date serial cannot be told from a number. With every style pointing
// at asStored, excelize skips number-format rendering for all cells but
// dates, and for dates it only prints the serial behind a literal, which
// costs a seventh of rendering yyyy-mm-dd (measured: 4 µs against 29 µs a
// cell). The serial is then converted by dateText in the workbook's epoch.
func (x *legacyXLSX) markDates() (err error) {
	defer recoverAs(&err, "styles")
	_, _ = x.f.GetStyle(0) // loads the style sheet
	if x.f.Styles == nil || x.f.Styles.CellXfs == nil || len(x.f.Styles.CellXfs.Xf) == 0 {
		return nil // no styles: no date cells
	}
	code := `"` + dateMarker + `"0.###############`
	style, err := x.f.NewStyle(&excelize.Style{CustomNumFmt: &code})
	if err != nil {
		return fmt.Errorf("%w: styles: %v", table.ErrUnreadable, err)
	}
	marked := *x.f.Styles.CellXfs.Xf[style].NumFmtID
	custom := map[int]string{}
	if x.f.Styles.NumFmts != nil {
		for _, nf := range x.f.Styles.NumFmts.NumFmt {
			custom[nf.NumFmtID] = nf.FormatCode
		}
	}
	for i := range x.f.Styles.CellXfs.Xf {
		xf := &x.f.Styles.CellXfs.Xf[i]
		id := 0
		if xf.NumFmtID != nil {
			id = *xf.NumFmtID
		}
		to := asStored
		if dateKind(id, custom) != "" {
			to = marked
		}
		xf.NumFmtID = &to
	}
	return nil
}

// dateText turns a rendered date cell (dateMarker + serial) into ISO text:
// 2024-01-31 for a whole day, 2024-01-31T10:22:00 with a time of day, and
// 10:22:00 for a pure time (a serial under 1). Times are rounded to the
// millisecond, which the 15 significant digits of a serial still carry;
// milliseconds are printed only when present. A serial that is no date
// (negative, past year 9999, Excel's phantom 1900-02-29) keeps its number.
func dateText(cell string, date1904 bool) string {
	num := strings.Replace(cell, dateMarker, "", 1)
	serial, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return num
	}
	return serialText(num, serial, date1904) // the conversion the streaming reader makes: both readers share it
}
