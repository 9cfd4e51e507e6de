package formats

import (
	"archive/zip"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"

	"github.com/tabnorm/tabnorm/domain/table"
)

// xlsxReader reads one sheet of a workbook with excelize's streaming row
// iterator. Decisions:
//   - Date cells are found by their number format (built-in date formats
//     and custom formats with date or time tokens) and come out as ISO
//     text: 2024-01-31, 2024-01-31T10:22:00, or 10:22:00 for times, in the
//     workbook's own epoch (1900 or 1904). Elapsed-time formats ([h]:mm)
//     are durations, not dates, and keep their number.
//   - Every other cell keeps its stored value: numbers as stored (15
//     significant digits, as Excel shows them), text as text (so "001"
//     stays "001"), booleans as TRUE/FALSE.
//   - Error cells (#DIV/0!, #N/A, …) are missing values with a cell_error issue.
//   - BytesRead is an estimate: the share of the sheet's rows read, times
//     the file size (the zip is not read linearly).
type xlsxReader struct {
	f        *excelize.File
	rows     *excelize.Rows
	size     int64
	total    int
	read     int
	header   []string
	pending  [][]string // rows read while looking for the header
	number   int
	limits   table.Limits
	closeErr error
}

var errorValues = []string{"#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A", "#GETTING_DATA", "#SPILL!", "#CALC!", "#FIELD!", "#BLOCKED!", "#UNKNOWN!", "#CONNECT!", "#BUSY!", "#PYTHON!"}

func openXLSX(path string, opts table.ReadOptions) (*xlsxReader, error) {
	limits := opts.Limits.WithDefaults()
	size, err := checkZip(path, limits)
	if err != nil {
		return nil, err
	}
	f, err := excelize.OpenFile(path, excelize.Options{UnzipSizeLimit: limits.MaxUnzipBytes, UnzipXMLSizeLimit: 16 << 20})
	if err != nil {
		return nil, fmt.Errorf("%w: not a readable workbook: %v", table.ErrUnreadable, err)
	}
	x := &xlsxReader{f: f, size: size, limits: limits}
	if err := x.open(opts); err != nil {
		f.Close()
		return nil, err
	}
	return x, nil
}

// checkZip refuses zip bombs before anything is inflated: the declared
// total size and the ratio to the file's size are both bounded.
func checkZip(path string, limits table.Limits) (int64, error) {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return 0, fmt.Errorf("%w: not a valid zip file: %v", table.ErrUnreadable, err)
	}
	defer zr.Close()
	fi, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	var total uint64
	hasWorkbook := false
	for _, f := range zr.File {
		total += f.UncompressedSize64
		if f.Name == "xl/workbook.xml" {
			hasWorkbook = true
		}
	}
	if !hasWorkbook {
		return 0, fmt.Errorf("%w: a zip file without a workbook is not XLSX", table.ErrUnsupportedFormat)
	}
	if total > uint64(limits.MaxUnzipBytes) {
		return 0, fmt.Errorf("%w: the workbook unpacks to %d bytes; the limit is %d (zip bomb?)", table.ErrUnreadable, total, limits.MaxUnzipBytes)
	}
	if fi.Size() > 0 && total/uint64(fi.Size()) > uint64(limits.MaxCompressRatio) {
		return 0, fmt.Errorf("%w: the workbook unpacks to %d times its size; the limit is %d (zip bomb?)", table.ErrUnreadable, total/uint64(fi.Size()), limits.MaxCompressRatio)
	}
	return fi.Size(), nil
}

func (x *xlsxReader) open(opts table.ReadOptions) error {
	sheets := x.f.GetSheetList()
	sheet, err := pickSheet(sheets, opts.Sheet)
	if err != nil {
		return err
	}
	if err := x.isoDates(); err != nil {
		return err
	}
	if dim, err := x.f.GetSheetDimension(sheet); err == nil {
		x.total = dimensionRows(dim)
	}
	if x.rows, err = x.f.Rows(sheet); err != nil {
		return fmt.Errorf("%w: sheet %q has no cells to read: %v", table.ErrUnreadable, sheet, err)
	}
	for range opts.SkipRows {
		if _, err := x.nextRow(); err != nil {
			return ignoreEOF(err)
		}
	}
	want := sampleRecords
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
	at := opts.HeaderRow - 1
	if opts.HeaderRow == 0 {
		at = DetectHeader(x.pending)
	} else if at >= len(x.pending) {
		return fmt.Errorf("%w: header_row %d is past the end of the sheet", table.ErrUnreadable, opts.HeaderRow)
	}
	x.header = x.pending[at]
	if len(x.header) > x.limits.MaxColumns {
		return fmt.Errorf("%w: the sheet has %d columns; the limit is %d", table.ErrUnreadable, len(x.header), x.limits.MaxColumns)
	}
	x.pending = x.pending[at+1:]
	return nil
}

func ignoreEOF(err error) error {
	if err == io.EOF {
		return nil
	}
	return err
}

// pickSheet resolves the sheet option: a name, a 1-based index, or the
// first sheet.
func pickSheet(sheets []string, want string) (string, error) {
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

// nextRow returns the next row's cells as stored (error values included).
func (x *xlsxReader) nextRow() (_ []string, err error) {
	defer recoverAs(&err, "rows")
	if !x.rows.Next() {
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
	for _, c := range cells {
		if len(c) > x.limits.MaxCellBytes {
			return nil, fmt.Errorf("%w: a cell in row %d is over %d bytes", table.ErrUnreadable, x.read, x.limits.MaxCellBytes)
		}
	}
	if len(cells) > x.limits.MaxColumns {
		return nil, fmt.Errorf("%w: row %d has %d cells; the limit is %d columns", table.ErrUnreadable, x.read, len(cells), x.limits.MaxColumns)
	}
	return cells, nil
}

// errorCells blanks spreadsheet error values in a data row and reports them.
func errorCells(cells []string) []table.CellIssue {
	var issues []table.CellIssue
	for i, c := range cells {
		if len(c) > 0 && c[0] == '#' && slices.Contains(errorValues, c) {
			issues = append(issues, table.CellIssue{Column: i, Code: "cell_error", Message: "The spreadsheet cell holds the error " + c + ".", Value: c})
			cells[i] = ""
		}
	}
	return issues
}

func (x *xlsxReader) Format() table.Format { return table.XLSX }
func (x *xlsxReader) Header() []string     { return x.header }

func (x *xlsxReader) BytesRead() int64 {
	if x.total <= 0 {
		return 0
	}
	return min(x.size, x.size*int64(x.read)/int64(x.total))
}

func (x *xlsxReader) Close() error {
	if x.rows != nil {
		_ = x.rows.Close()
	}
	return x.f.Close()
}

// Next returns the next non-blank data row.
func (x *xlsxReader) Next() (table.Record, error) {
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
		issues := errorCells(cells)
		if blank(cells) && len(issues) == 0 {
			continue
		}
		x.number++
		return table.Record{Number: x.number, Cells: cells, CellIssues: issues}, nil
	}
}

// Sentinel number-format id that neither excelize's built-in table nor the
// workbook defines: cells styled with it come out exactly as stored.
const asStored = 1 << 20

// isoDates rewrites the workbook's cell styles in memory so that excelize
// renders date cells as ISO text and every other cell as stored.
func (x *xlsxReader) isoDates() (err error) {
	defer recoverAs(&err, "styles")
	_, _ = x.f.GetStyle(0) // loads the style sheet
	if x.f.Styles == nil || x.f.Styles.CellXfs == nil || len(x.f.Styles.CellXfs.Xf) == 0 {
		return nil // no styles: no date cells
	}
	ids := map[string]int{}
	for kind, code := range map[string]string{"date": "yyyy-mm-dd", "datetime": `yyyy-mm-dd"T"hh:mm:ss`, "time": "hh:mm:ss"} {
		code := code
		style, err := x.f.NewStyle(&excelize.Style{CustomNumFmt: &code})
		if err != nil {
			return fmt.Errorf("%w: styles: %v", table.ErrUnreadable, err)
		}
		ids[kind] = *x.f.Styles.CellXfs.Xf[style].NumFmtID
	}
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
		kind := dateKind(id, custom)
		to := asStored
		if kind != "" {
			to = ids[kind]
		}
		xf.NumFmtID = &to
	}
	return nil
}

// dateKind classifies a number format: "date", "datetime", "time", or ""
// for everything that is not a point in time.
func dateKind(id int, custom map[int]string) string {
	switch {
	case id >= 14 && id <= 17, id >= 27 && id <= 31, id >= 34 && id <= 36, id >= 50 && id <= 58:
		return "date"
	case id == 22:
		return "datetime"
	case id >= 18 && id <= 21, id == 32 || id == 33, id == 45 || id == 47:
		return "time"
	case id == 46: // [h]:mm:ss, a duration
		return ""
	}
	code, ok := custom[id]
	if !ok {
		return ""
	}
	return kindOfCode(code)
}

// kindOfCode looks for date and time tokens outside quotes, escapes and
// brackets (colours, conditions and locales live in brackets; an elapsed
// [h] makes the format a duration).
func kindOfCode(code string) string {
	if i := strings.IndexByte(code, ';'); i >= 0 {
		code = code[:i] // the positive-number section decides
	}
	var hasDate, hasTime, elapsed bool
	for i := 0; i < len(code); i++ {
		switch c := code[i]; c {
		case '"':
			if j := strings.IndexByte(code[i+1:], '"'); j >= 0 {
				i += j + 1
			}
		case '\\', '_', '*':
			i++
		case '[':
			j := strings.IndexByte(code[i:], ']')
			if j < 0 {
				return ""
			}
			inner := strings.ToLower(code[i+1 : i+j])
			if inner != "" && strings.Trim(inner, "hms") == "" {
				elapsed = true
			}
			i += j
		default:
			switch c | 0x20 {
			case 'y', 'd':
				hasDate = true
			case 'h', 's':
				hasTime = true
			}
		}
	}
	if !hasDate && !hasTime && strings.ContainsAny(strings.ToLower(stripLiterals(code)), "m") && !strings.ContainsAny(code, "0#?") {
		hasDate = true // "mmm" or "mmmm" alone: a month name
	}
	switch {
	case elapsed:
		return ""
	case hasDate && hasTime:
		return "datetime"
	case hasDate:
		return "date"
	case hasTime:
		return "time"
	}
	return ""
}

func stripLiterals(code string) string {
	var b strings.Builder
	in := false
	for _, r := range code {
		if r == '"' {
			in = !in
			continue
		}
		if !in {
			b.WriteRune(r)
		}
	}
	return b.String()
}
