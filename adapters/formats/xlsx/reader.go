// Package xlsx reads XLSX workbooks a sheet at a time, straight from the
// zip and with a streaming XML scanner of its own (xmlscan.go): memory
// does not grow with the sheet. It finds the header row with what a
// workbook adds to the text's evidence (typed values, merged title bands,
// bold or bordered header cells; header.go), lists a workbook's sheets
// for a review (sheets.go), and fails a damaged file as unreadable rather
// than lose data silently.
package xlsx

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/tabnorm/tabnorm/adapters/formats/detect"
	"github.com/tabnorm/tabnorm/domain/table"
)

// Reader reads one sheet of a workbook. The workbook's parts are read
// straight from the zip: the sheet list and date system from
// xl/workbook.xml, the date styles and shared strings by the streaming
// scanner (see xmlscan.go), and the sheet itself a row at a time.
// Decisions:
//   - Date cells are found by their number format (built-in date formats
//     and custom formats with date or time tokens outside quotes and
//     brackets) and come out as ISO text in the workbook's own epoch (1900
//     or 1904): see serialText. Elapsed-time formats ([h]:mm) are
//     durations, not dates, and keep their number. Style 0 (the default
//     style) shows values as stored, as in Excel's own files.
//   - Numbers come out with at most 15 significant digits, as Excel shows
//     them: a cached formula result stored as 274.65999999999997 reads
//     274.66, 15.0 reads 15, and a number past 15 digits is written in
//     exponent form (9.22337203685478E+19). Excel keeps no more digits of a
//     typed number, so none of the input is lost.
//   - Text stays text ("001" stays "001"); booleans are TRUE/FALSE; a
//     formula's cached value is the cell's value.
//   - Error cells (#DIV/0!, #N/A, …) are missing values with a cell_error
//     issue. A text cell holding exactly an error literal is reported the
//     same way.
//   - A sheet has no ragged rows: rows are padded to the header's width,
//     and the header is widened (with blank names) to the widest row read
//     while looking for it, so data under an unlabeled column keeps its
//     place. A row's trailing empty cells do not count, but a formula cell
//     does even when its cached value is empty.
//   - Rows are numbered like the sheet: record n is the n-th row under the
//     header, empty and absent rows skipped but counted.
//   - Integrity: anything that would lose data silently fails the file as
//     unreadable: an XML syntax error, a truncated part, a CRC mismatch, a
//     shared-string index that does not exist, rows or cells out of order,
//     data outside the range the sheet's <dimension> declares.
//   - The first sheet is the default; when it has no data, the first sheet
//     with data is read (Detection says which). When it holds notes and
//     another visible sheet a table, that one is read (chooseSheet).
//   - BytesRead is an estimate (the zip is not read in order): the share of
//     the sheet's XML read, times the file size. It reaches the file size
//     at the end.
type Reader struct {
	zr        *zip.ReadCloser
	sheet     *sheetReader
	size      int64 // the file's size
	done      bool
	header    []string
	pending   [][]string // rows read while looking for the header
	number    int
	limits    table.Limits
	detection table.Detection
	empty     bool // the sheet has no rows
	// ctx is the job's: every part is read through a detect.ContextReader on it.
	ctx       context.Context
	dropFirst bool // an annotated workbook: its first column numbers the rows
	tail      tail // notes below the table (tail.go)
	// at is the index of the sheet read; notes says its first rows are
	// mostly prose (notesRows), looked at when no sheet was named.
	at    int
	notes bool
	// What Sheets needs to look at the other sheets.
	wb     *workbookParts
	sst    *sharedStrings
	styles cellStyles
}

// annotatedRowHeader heads the first column of the workbook a job's
// errors download as (adapters/export.RowNumberHeader): the row numbers
// it adds are not the table's, so a fixed workbook uploads as the file it
// was. (Its summary sheet comes after the rows, so it is never read.)
const annotatedRowHeader = "tabnorm row"

var errorValues = []string{"#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A", "#GETTING_DATA", "#SPILL!", "#CALC!", "#FIELD!", "#BLOCKED!", "#UNKNOWN!", "#CONNECT!", "#BUSY!", "#PYTHON!"}

// maxSheetRows is the most rows a sheet can have (Excel's limit).
const maxSheetRows = 1 << 20

// maxSheetColumns is the most columns a sheet can have (XFD).
const maxSheetColumns = 16384

// maxRowBytes bounds one row's text, and maxSampleBytes the rows held
// while looking for the header: a sheet's memory stays bounded whatever
// its cells hold (the cell limit alone allows a gigabyte a row).
const (
	maxRowBytes    = 32 << 20
	maxSampleBytes = 64 << 20
)

var (
	_ table.Describer   = (*Reader)(nil)
	_ table.SheetLister = (*Reader)(nil)
)

// Open starts reading the workbook at path: the sheet the options name,
// else the first with data, from its header row.
func Open(ctx context.Context, path string, opts table.ReadOptions) (_ *Reader, err error) {
	limits := opts.Limits.WithDefaults()
	zr, err := zip.OpenReader(path)
	if err != nil {
		return nil, fmt.Errorf("%w: not a valid zip file: %v", table.ErrUnreadable, err)
	}
	x := &Reader{zr: zr, limits: limits, ctx: ctx}
	defer func() {
		if err != nil {
			_ = x.Close()
		}
	}()
	if x.size, err = checkZip(path, &zr.Reader, limits); err != nil {
		return nil, err
	}
	wb, err := readWorkbook(ctx, &zr.Reader)
	if err != nil {
		return nil, err
	}
	if len(wb.sheets) == 0 {
		return nil, fmt.Errorf("%w: the workbook has no sheets", table.ErrUnreadable)
	}
	names := make([]string, len(wb.sheets))
	for i, s := range wb.sheets {
		names[i] = s.name
	}
	at, err := pickSheet(names, opts.Sheet)
	if err != nil {
		return nil, err
	}
	styles, err := readDateStyles(ctx, &zr.Reader, wb.styles)
	if err != nil {
		return nil, err
	}
	sst, err := readSharedStrings(ctx, &zr.Reader, wb.strings, limits)
	if err != nil {
		return nil, err
	}
	if err := x.firstWithData(wb, at, opts, sst, styles); err != nil {
		return nil, err
	}
	x.wb, x.sst, x.styles = wb, sst, styles
	if opts.Sheet == "" {
		if err := x.chooseSheet(opts); err != nil {
			return nil, err
		}
	}
	return x, nil
}

// firstWithData opens the sheet at index at or, when it is the default
// and empty, the first sheet after it with data. A part is read at most
// once, however many sheet entries name it: one found empty is passed
// over.
func (x *Reader) firstWithData(wb *workbookParts, at int, opts table.ReadOptions, sst *sharedStrings, styles cellStyles) error {
	empty := map[string]bool{}
	for ; at < len(wb.sheets); at++ {
		ref := wb.sheets[at]
		if empty[ref.part] {
			continue
		}
		if err := x.ctx.Err(); err != nil {
			return err
		}
		if err := x.open(ref, opts, sst, styles, wb.date1904); err != nil {
			return err
		}
		if !x.empty || opts.Sheet != "" {
			x.at = at
			return nil
		}
		// The first sheet is empty: the first sheet with data is the table.
		empty[ref.part] = true
		x.sheet.close()
		x.sheet, x.header, x.pending = nil, nil, nil
	}
	names := make([]string, len(wb.sheets))
	for i, s := range wb.sheets {
		names[i] = s.name
	}
	return fmt.Errorf("%w: no sheet of the workbook has data; the sheets are %s", table.ErrUnreadable, sheetList(names))
}

// sheetList lists sheet names for a message: the first ten, each cut to
// 64 bytes (Excel's names have at most 31 characters; a workbook's list
// may hold thousands, of any length).
func sheetList(sheets []string) string {
	names := make([]string, 0, min(len(sheets), 10))
	for _, s := range sheets[:min(len(sheets), 10)] {
		if len(s) > 64 {
			s = strings.ToValidUTF8(s[:64], "") + "…"
		}
		names = append(names, s)
	}
	out := fmt.Sprintf("%q", names)
	if len(sheets) > len(names) {
		out += fmt.Sprintf(" and %d more", len(sheets)-len(names))
	}
	return out
}

// asciiLower lowers the ASCII letters of a part name only, as OPC
// compares part names.
func asciiLower(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'A' && r <= 'Z' {
			return r + ('a' - 'A')
		}
		return r
	}, s)
}

// checkZip refuses zip bombs before anything is inflated: the declared
// total size and the ratio to the file's size are both bounded (each part
// the reader inflates has its own budget too, and archive/zip stops a part
// at its declared size). It returns the file's size.
func checkZip(path string, zr *zip.Reader, limits table.Limits) (int64, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return 0, fmt.Errorf("%w: %v", table.ErrUnreadable, err)
	}
	var total uint64
	seen := make(map[string]bool, len(zr.File))
	for _, f := range zr.File {
		total += f.UncompressedSize64
		// Part names are compared without case (ECMA-376 part 2, 9.1.1.1):
		// two entries of one name make the part ambiguous.
		name := asciiLower(f.Name)
		if seen[name] {
			return 0, fmt.Errorf("%w: the zip holds two entries named %q: the part is ambiguous", table.ErrUnreadable, f.Name)
		}
		seen[name] = true
	}
	if total > uint64(limits.MaxUnzipBytes) {
		return 0, fmt.Errorf("%w: the workbook unpacks to %d bytes; the limit is %d (zip bomb?)", table.ErrUnreadable, total, limits.MaxUnzipBytes)
	}
	if ratio := total / uint64(max(fi.Size(), 1)); ratio > uint64(limits.MaxCompressRatio) {
		return 0, fmt.Errorf("%w: the workbook unpacks to %d times its size; the limit is %d (zip bomb?)", table.ErrUnreadable, ratio, limits.MaxCompressRatio)
	}
	return fi.Size(), nil
}

// open starts reading a sheet and finds its header.
func (x *Reader) open(ref sheetRef, opts table.ReadOptions, sst *sharedStrings, styles cellStyles, date1904 bool) error {
	f := zipEntry(&x.zr.Reader, ref.part)
	if f == nil {
		return fmt.Errorf("%w: sheet %q has no part %s in the zip", table.ErrUnreadable, ref.name, ref.part)
	}
	rc, err := f.Open()
	if err != nil {
		return fmt.Errorf("%w: sheet %q cannot be read: %v", table.ErrUnreadable, ref.name, err)
	}
	ahead := newReadAhead(rc)
	x.sheet = &sheetReader{rc: ahead, sc: newXMLScanner(detect.ContextReader(x.ctx, ahead), 256<<10), sst: sst, kinds: styles.kinds, looks: styles.looks, date1904: date1904,
		limits: x.limits, partSize: int64(min(f.UncompressedSize64, math.MaxInt64))}
	x.detection = table.Detection{Format: table.XLSX, Sheet: ref.name}
	skipped, ended, err := x.skipRows(opts.SkipRows)
	if ended {
		return err
	}
	want := detect.SampleRecords
	if opts.HeaderRow > 0 {
		want = opts.HeaderRow
	}
	find := opts.HeaderRow == 0 && !opts.NoHeader
	x.sheet.hints, x.sheet.mergeRows = find, opts.SkipRows+want
	hints, err := x.readSample(want)
	lead := 0 // blank rows above a sample that would hold nothing else
	if err == nil && find && !x.done && !slices.ContainsFunc(x.pending, func(r []string) bool { return !detect.Blank(r) }) {
		lead, hints, err = x.pastBlankRows(opts.SkipRows, want)
	}
	x.sheet.hints = false
	if err != nil {
		return err
	}
	skip := opts.SkipRows + lead
	// A sheet with rows that hold nothing (styled or sized only) is empty
	// too; header detection would make an empty header of it.
	if x.empty = !slices.ContainsFunc(x.pending, func(r []string) bool { return !detect.Blank(r) }) && x.done; x.empty {
		x.pending = nil
		return nil
	}
	x.notes = opts.Sheet == "" && notesRows(x.pending)
	at, header := opts.HeaderRow-1, !opts.NoHeader
	if find {
		var merges []mergeRange
		if x.done { // the merged ranges follow the rows: known when every row was read
			merges = x.sheet.merges
		}
		at, header = sheetHeader(x.pending, hints, merges, skip)
	} else if at >= len(x.pending) {
		return fmt.Errorf("%w: header_row %d is past the end of the sheet (%d rows)", table.ErrUnreadable, opts.HeaderRow, len(x.pending)+opts.SkipRows)
	}
	if !header {
		// header_row "none", or a sheet whose first rows are data: every
		// row is a record, columns are named by position, as in a
		// delimited file.
		x.number = lead // records keep the sheet's row numbers
		if err := x.positional(skipped, skip+1); err != nil {
			return err
		}
		x.setTail(opts.FooterRows)
		return nil
	}
	width := 0
	for _, row := range x.pending[at:] {
		width = max(width, len(row))
	}
	x.header = pad(x.pending[at], width)
	if x.dropFirst = len(x.header) > 0 && x.header[0] == annotatedRowHeader; x.dropFirst {
		x.header = x.header[1:]
	}
	if err := x.checkWidth(); err != nil {
		return err
	}
	x.detection.HeaderRow = skip + at + 1
	x.sheet.dataStartsAt(x.detection.HeaderRow+1, x.done)
	for i, row := range x.pending[:at] {
		if !detect.Blank(row) {
			skipped = append(skipped, skip+i+1)
		}
	}
	x.detection.SkippedCount = len(skipped)
	x.detection.SkippedRows = skipped[:min(len(skipped), 100)]
	x.pending = x.pending[at+1:]
	x.setTail(opts.FooterRows)
	return nil
}

// pastBlankRows passes over the blank rows of a sheet whose first
// sample (after skip rows) held nothing else, so that a table further
// down is found: it reads on to the first non-blank row, then samples
// want rows from there. It returns how many blank rows it passed over
// (the sample's included) and the new sample's hints.
func (x *Reader) pastBlankRows(skip, want int) (lead int, hints [][]cellHint, err error) {
	lead, x.pending = len(x.pending), nil
	for {
		cells, err := x.sheet.nextRow()
		if err == io.EOF {
			x.done = true
			return lead, nil, nil
		}
		if err != nil {
			return 0, nil, err
		}
		if !detect.Blank(cells) {
			break
		}
		lead++
	}
	x.pending = [][]string{slices.Clone(x.sheet.cells)}
	for i, c := range x.pending[0] {
		x.pending[0][i] = strings.Clone(c)
	}
	hints = [][]cellHint{slices.Clone(x.sheet.rowHints)}
	x.sheet.mergeRows = skip + lead + want
	more, err := x.readSample(want)
	return lead, append(hints, more...), err
}

// positional reads the sheet without a header row: every row from
// firstRow is a record, and the columns are named by position.
func (x *Reader) positional(skipped []int, firstRow int) error {
	width := 0
	for _, row := range x.pending {
		width = max(width, len(row))
	}
	x.header = make([]string, width)
	for i := range x.header {
		x.header[i] = table.PositionalName(i)
	}
	x.detection.SkippedCount = len(skipped)
	x.detection.SkippedRows = skipped[:min(len(skipped), 100)]
	x.sheet.dataStartsAt(firstRow, x.done)
	return x.checkWidth()
}

// skipRows passes over the skip_rows option's rows, and returns the
// non-blank ones among them. ended says the sheet ended (or failed, with
// err) among them; one that ends at once is empty.
func (x *Reader) skipRows(n int) (skipped []int, ended bool, err error) {
	for i := range n {
		cells, err := x.sheet.nextRow()
		if err != nil {
			x.empty = err == io.EOF && i == 0
			return nil, true, ignoreEOF(err)
		}
		if !detect.Blank(cells) {
			skipped = append(skipped, i+1)
		}
	}
	return skipped, false, nil
}

// readSample holds up to want rows (within maxSampleBytes) for header
// detection, and the hints of their cells when the sheet reader notes
// them.
func (x *Reader) readSample(want int) (hints [][]cellHint, err error) {
	held := 0
	for len(x.pending) < want {
		cells, err := x.nextRow()
		if err == io.EOF {
			return hints, nil
		}
		if err != nil {
			return nil, err
		}
		if x.sheet.hints {
			hints = append(hints, slices.Clone(x.sheet.rowHints))
		}
		for _, c := range cells {
			held += len(c)
		}
		if held > maxSampleBytes {
			return nil, fmt.Errorf("%w: the sheet's first %d rows hold over %d bytes", table.ErrUnreadable, len(x.pending)+1, maxSampleBytes)
		}
		x.pending = append(x.pending, cells)
	}
	return hints, nil
}

// checkWidth refuses a header wider than the column limit.
func (x *Reader) checkWidth() error {
	if len(x.header) > x.limits.MaxColumns {
		return fmt.Errorf("%w: the sheet has %d columns; the limit is %d", table.ErrUnreadable, len(x.header), x.limits.MaxColumns)
	}
	return nil
}

func ignoreEOF(err error) error {
	if err == io.EOF {
		return nil
	}
	return err
}

// pad returns cells widened to n with empty cells (never narrowed).
func pad(cells []string, n int) []string {
	for len(cells) < n {
		cells = append(cells, "")
	}
	return cells
}

// pickSheet resolves the sheet option: a name, a 1-based index, or the
// first sheet. It returns the sheet's index.
func pickSheet(sheets []string, want string) (int, error) {
	if len(sheets) == 0 {
		return 0, fmt.Errorf("%w: the workbook has no sheets", table.ErrUnreadable)
	}
	if want == "" {
		return 0, nil
	}
	if i := slices.Index(sheets, want); i >= 0 {
		return i, nil
	}
	if n, err := strconv.Atoi(want); err == nil && n >= 1 && n <= len(sheets) {
		return n - 1, nil
	}
	return 0, fmt.Errorf("%w: no sheet %q; the sheets are %s", table.ErrUnreadable, want, sheetList(sheets))
}

// nextRow returns the next sheet row's cells as fresh strings (the rows
// looked at for the header are kept).
func (x *Reader) nextRow() ([]string, error) {
	cells, err := x.sheet.nextRow()
	if err != nil {
		if err == io.EOF {
			x.done = true
		}
		return nil, err
	}
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = strings.Clone(c)
	}
	return out, nil
}

// errorCells blanks spreadsheet error values in a data row and reports them.
func errorCells(cells []string) []table.CellIssue {
	var issues []table.CellIssue
	for i, c := range cells {
		if len(c) > 1 && c[0] == '#' && slices.Contains(errorValues, c) {
			issues = append(issues, table.CellIssue{Column: i, Code: "cell_error", Message: "The spreadsheet cell holds the error " + c + ".", Value: c})
			cells[i] = ""
		}
	}
	return issues
}

// Format is XLSX.
func (x *Reader) Format() table.Format { return table.XLSX }

// Header is the header row's names (widened to the widest row read while
// looking for it), or positional names without one.
func (x *Reader) Header() []string { return x.header }

// Detection says which sheet was read and where its header was.
func (x *Reader) Detection() table.Detection {
	d := x.detection
	d.SkippedRows = slices.Clone(d.SkippedRows)
	return d
}

// BytesRead is an estimate: the share of the sheet's XML read, times the
// file's size.
func (x *Reader) BytesRead() int64 {
	switch {
	case x.done:
		return x.size
	case x.sheet == nil || x.sheet.partSize <= 0:
		return 0
	}
	return min(x.size-1, int64(float64(x.size)*float64(x.sheet.sc.read)/float64(x.sheet.partSize)))
}

// Close stops reading the sheet and closes the file.
func (x *Reader) Close() error {
	if x.sheet != nil {
		x.sheet.close()
	}
	return x.zr.Close()
}

// Next returns the next non-blank data row. Its cells lie in the reader's
// row buffer (Record.Text), reused by the next call.
func (x *Reader) Next() (table.Record, error) {
	atBlank := false
	for {
		if x.tail.footer > 0 || atBlank {
			if end, err := x.footerNext(atBlank); err != nil {
				return table.Record{}, err
			} else if end {
				x.tail.footer = footerDone
				atBlank = false
				continue // on to the sheet's end
			}
		}
		var cells []string
		owned := false
		if len(x.pending) > 0 {
			cells, x.pending, owned = x.pending[0], x.pending[1:], true
		} else {
			var err error
			if cells, err = x.sheet.nextRow(); err != nil {
				if err == io.EOF {
					x.done = true
					x.detection.MergedCount, x.detection.MergedRanges = x.sheet.dataMerges, x.sheet.dataMergeRefs
				}
				return table.Record{}, err
			}
		}
		x.number++
		if x.dropFirst && len(cells) > 0 {
			cells = cells[1:]
		}
		issues := errorCells(cells)
		if atBlank = detect.Blank(cells) && len(issues) == 0; atBlank {
			detect.Skip(&x.detection.BlankRows, &x.detection.BlankCount, x.number)
			continue
		}
		if x.headerAgain(cells) {
			detect.Skip(&x.detection.RepeatedHeaderRows, &x.detection.RepeatedHeaderCount, x.number)
			continue
		}
		x.tail.data++
		if len(cells)*2 <= len(x.header) {
			x.tail.short++
		}
		rec := table.Record{Number: x.number, Cells: pad(cells, len(x.header)), CellIssues: issues, Owned: owned}
		if !owned {
			rec.Text = x.sheet.rowText()
		}
		return rec, nil
	}
}

// headerAgain tells a row equal to the header row (trimmed, trailing empty
// cells aside): tables pasted one under another with their headers.
func (x *Reader) headerAgain(cells []string) bool {
	if x.detection.HeaderRow == 0 || len(cells) == 0 || len(x.header) == 0 {
		return false
	}
	first := strings.TrimSpace(cells[0])
	return first != "" && first == strings.TrimSpace(x.header[0]) && detect.SameCells(cells, x.header)
}

// sheetReader reads the rows of a sheet's XML.
type sheetReader struct {
	rc       io.ReadCloser
	sc       *xmlScanner
	sst      *sharedStrings
	kinds    []byte // by cell format: fmtDate, fmtTime, … (readDateStyles)
	looks    []byte // by cell format: lookBold, lookBorder
	date1904 bool
	limits   table.Limits
	partSize int64

	ended   bool // </sheetData> was read
	row     int  // number of the last row handed out
	next    int  // number of the row read ahead, 0 when none
	dimRows int  // the size the sheet declares; 0 when it does not
	dimCols int

	// The row read ahead: its cells' text and where each cell lies in it.
	text  []byte
	spans []cellSpan
	cells []string
	// Scratch for one cell.
	v, is []byte

	// While hints is set (the rows header detection looks at), each cell
	// of the row read ahead has its hint, by column as spans, and rowHints
	// are the hints of the row last handed out (none for an absent row).
	hints     bool
	cellHints []cellHint
	rowHints  []cellHint
	// The merged ranges met after the rows (the XML keeps them there),
	// those starting in the first mergeRows rows, at most maxMerges.
	mergeRows int
	merges    []mergeRange
	// dataFrom is the first row of data (0 until the header is known);
	// dataMerges counts the merged ranges that cover cells of data rows,
	// the first maxListed of them in dataMergeRefs.
	dataFrom      int
	dataMerges    int
	dataMergeRefs []string
}

// maxListed bounds the merged ranges over data a reader names.
const maxListed = 10

// coverData counts m if it covers cells of the data rows: its cells
// other than the first read as empty, whatever the merged cell shows.
func (r *sheetReader) coverData(m mergeRange) {
	// The ranges follow the rows in the XML, so r.row is the last row: a
	// range below it covers no record.
	if r.dataFrom == 0 || m.bottom < r.dataFrom || m.top > r.row || (m.top == m.bottom && m.left == m.right) {
		return
	}
	r.dataMerges++
	if len(r.dataMergeRefs) < maxListed {
		r.dataMergeRefs = append(r.dataMergeRefs, cellName(m.left, m.top)+":"+cellName(m.right, m.bottom))
	}
}

// dataStartsAt sets the first row of data, once the header is known, and
// counts the merged ranges over data already read (a sheet read whole in
// the sample: every range that covers its rows starts in it, so is kept).
func (r *sheetReader) dataStartsAt(row int, done bool) {
	r.dataFrom = row
	if done {
		for _, m := range r.merges {
			r.coverData(m)
		}
	}
}

// cellHint is what a cell's markup says beside its text: whether it holds
// a typed value (a number, a date, a boolean or an error: never a
// header's name) and its cell format, with how that looks.
type cellHint struct {
	style int32
	typed bool
	look  byte
}

// mergeRange is a merged range of cells, 1-based and inclusive.
type mergeRange struct{ top, left, bottom, right int }

// maxMerges bounds the merged ranges kept for header detection.
const maxMerges = 1024

type cellSpan struct{ from, to int }

func (r *sheetReader) close() { _ = r.rc.Close() }

// rowText is the text all cells of the last row returned lie in.
func (r *sheetReader) rowText() string {
	if len(r.text) == 0 {
		return ""
	}
	return unsafe.String(&r.text[0], len(r.text))
}

// nextRow returns the cells of the next sheet row: empty for a row the
// sheet leaves out, io.EOF after the last row. The cells are valid until
// the next call.
func (r *sheetReader) nextRow() ([]string, error) {
	if r.next == 0 && !r.ended {
		if err := r.readRow(); err != nil {
			return nil, fmt.Errorf("%w: %w", table.ErrUnreadable, err)
		}
	}
	if r.next == 0 {
		return nil, io.EOF
	}
	r.row++
	if r.row < r.next {
		r.rowHints = r.rowHints[:0]
		return r.cells[:0], nil
	}
	r.next = 0
	r.cells = r.cells[:0]
	if r.hints {
		r.rowHints = append(r.rowHints[:0], r.cellHints...)
	}
	s := r.rowText()
	for _, sp := range r.spans {
		r.cells = append(r.cells, s[sp.from:sp.to])
	}
	return r.cells, nil
}

// readRow reads up to the next <row> and the whole row, or to the end of
// the part.
func (r *sheetReader) readRow() error {
	for {
		tok, err := r.sc.next()
		if err != nil {
			return r.partError(err)
		}
		switch {
		case tok == tokEOF:
			// The scanner has checked that every element was closed: a
			// sheet without <sheetData> is empty, not cut short.
			r.ended = true
			return nil
		case r.ended:
			// After the data: the rest of the part is still read, so that
			// a syntax error, a truncation or a bad CRC is seen.
			if tok == tokStart && string(r.sc.name) == "mergeCell" {
				r.addMerge()
			}
		case tok == tokStart && string(r.sc.name) == "dimension":
			ref, _, err := r.sc.attr("ref")
			if err != nil {
				return err
			}
			r.dimCols, r.dimRows = dimensionSize(string(ref))
		case tok == tokStart && string(r.sc.name) == "row":
			return r.readCells()
		case tok == tokEnd && string(r.sc.name) == "sheetData",
			tok == tokStart && string(r.sc.name) == "sheetData" && r.sc.selfClosing:
			r.ended = true
		}
	}
}

// partError tells a damaged zip entry (a CRC mismatch, a part cut short)
// from an XML syntax error.
func (r *sheetReader) partError(err error) error {
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err // the job stopped: the file is fine
	case errors.Is(err, zip.ErrChecksum):
		return errors.New("the sheet's zip checksum (CRC) does not match: the file is damaged")
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, zip.ErrFormat):
		return fmt.Errorf("the sheet's compressed data is damaged or cut short: %v", err)
	}
	return fmt.Errorf("the sheet's XML: %v", err)
}

// dimensionSize reads the last cell of a dimension range ("A1:L100001");
// a single cell ("A1", written by tools that do not know the size) or
// anything unreadable is no declaration.
func dimensionSize(ref string) (cols, rows int) {
	_, last, ok := strings.Cut(ref, ":")
	if !ok {
		return 0, 0
	}
	col, row, ok := cellRef([]byte(strings.ReplaceAll(last, "$", "")))
	if !ok {
		return 0, 0
	}
	return col, row
}

// cellName is the A1 name of a 1-based column and row, as cellRef reads
// it.
func cellName(col, row int) string { return columnName(col) + strconv.Itoa(row) }

// columnName is the letters of a 1-based column: A to Z, AA, … XFD.
func columnName(col int) string {
	var letters []byte
	for ; col > 0; col = (col - 1) / 26 {
		letters = append([]byte{byte('A' + (col-1)%26)}, letters...)
	}
	return string(letters)
}

// cellRef parses a cell reference ("D7") into its 1-based column and row.
func cellRef(ref []byte) (col, row int, ok bool) {
	i := 0
	for ; i < len(ref) && i < 3; i++ {
		c := ref[i] | 0x20
		if c < 'a' || c > 'z' {
			break
		}
		col = col*26 + int(c-'a'+1)
	}
	if i == 0 || col > maxSheetColumns || i == len(ref) {
		return 0, 0, false
	}
	for _, c := range ref[i:] {
		if c < '0' || c > '9' {
			return 0, 0, false
		}
		row = row*10 + int(c-'0')
		if row > maxSheetRows {
			return 0, 0, false
		}
	}
	return col, row, row > 0
}

// readCells reads a <row> (its start tag just read) to its end.
func (r *sheetReader) readCells() error {
	num := r.row + 1
	if r.next > 0 { // never: a row is read only when none is ahead
		num = r.next + 1
	}
	if v, ok, err := r.sc.attr("r"); err != nil {
		return err
	} else if ok {
		n, err := strconv.Atoi(string(v))
		if err != nil || n < 1 {
			return fmt.Errorf("a row numbered %q", v)
		}
		if n <= r.row {
			return fmt.Errorf("row %d comes after row %d: rows out of order", n, r.row)
		}
		num = n
	}
	if num > maxSheetRows {
		return fmt.Errorf("row %d is past the last row a sheet can have (%d)", num, maxSheetRows)
	}
	r.next = num
	r.text, r.spans = r.text[:0], r.spans[:0]
	r.cellHints = r.cellHints[:0]
	if r.sc.selfClosing {
		return nil
	}
	col := 0
	for {
		tok, err := r.sc.next()
		if err != nil {
			return r.partError(err)
		}
		switch tok {
		case tokEOF:
			return errors.New("the sheet ends inside a row (truncated?)")
		case tokEnd:
			if string(r.sc.name) == "row" {
				return nil
			}
		case tokStart:
			if string(r.sc.name) == "c" {
				if col, err = r.readCell(num, col); err != nil {
					return fmt.Errorf("row %d: %w", num, err)
				}
			}
		}
	}
}

// readCell reads a <c> (its start tag just read) and appends its value to
// the row. prev is the previous cell's column; it returns this one's.
func (r *sheetReader) readCell(row, prev int) (int, error) {
	col := prev + 1
	ref, hasRef, err := r.sc.attr("r")
	if err != nil {
		return 0, err
	}
	if hasRef {
		var ok bool
		if col, _, ok = cellRef(ref); !ok {
			return 0, fmt.Errorf("a cell named %q", ref)
		}
		if col <= prev {
			return 0, fmt.Errorf("cell %s comes after column %d: cells out of order", ref, prev)
		}
	}
	if col > maxSheetColumns {
		return 0, fmt.Errorf("a cell past the last column a sheet can have")
	}
	typ, _, err := r.sc.attr("t")
	if err != nil {
		return 0, err
	}
	kind := cellKind(typ)
	style := 0
	if s, ok, err := r.sc.attr("s"); err != nil {
		return 0, err
	} else if ok {
		style, _ = strconv.Atoi(string(s))
	}
	r.v, r.is = r.v[:0], r.is[:0]
	hasF, hasIS := false, false
	if !r.sc.selfClosing {
		if hasF, hasIS, err = r.readCellContent(); err != nil {
			return 0, err
		}
	}
	from := len(r.text)
	if r.text, err = r.value(r.text, kind, style, hasIS); err != nil {
		return 0, err
	}
	if len(r.text) == from && !hasF {
		return col, nil // an empty cell is no cell
	}
	if len(r.text) > maxRowBytes {
		return 0, fmt.Errorf("the row's cells hold over %d bytes", maxRowBytes)
	}
	if len(r.text)-from > r.limits.MaxCellBytes {
		return 0, fmt.Errorf("a cell is over %d bytes", r.limits.MaxCellBytes)
	}
	if col > r.limits.MaxColumns {
		return 0, fmt.Errorf("a cell in column %d; the limit is %d columns", col, r.limits.MaxColumns)
	}
	if r.dimRows > 0 && (row > r.dimRows || col > r.dimCols) {
		return 0, fmt.Errorf("a cell at column %d lies outside the size the sheet declares (%d rows, %d columns): the sheet is damaged", col, r.dimRows, r.dimCols)
	}
	for len(r.spans) < col-1 {
		r.spans = append(r.spans, cellSpan{from, from})
	}
	r.spans = append(r.spans, cellSpan{from, len(r.text)})
	if r.hints {
		r.hint(col, kind, style)
	}
	return col, nil
}

// hint notes the cell just read (in column col) for header detection.
func (r *sheetReader) hint(col int, kind cellType, style int) {
	h := cellHint{style: int32(min(style, 1<<30))}
	switch kind {
	case cellBool, cellDate:
		h.typed = true
	case cellNumber: // also t="e": an error value
		_, number := parseNumber(r.v)
		h.typed = number || (len(r.v) > 1 && r.v[0] == '#')
	}
	if style >= 0 && style < len(r.looks) {
		h.look = r.looks[style]
	}
	for len(r.cellHints) < col-1 {
		r.cellHints = append(r.cellHints, cellHint{})
	}
	r.cellHints = append(r.cellHints, h)
}

// addMerge keeps a <mergeCell>'s range when it starts in the rows header
// detection looks at, and counts it when it covers data.
func (r *sheetReader) addMerge() {
	ref, _, err := r.sc.attr("ref")
	if err != nil {
		return
	}
	from, to, ok := strings.Cut(strings.ReplaceAll(string(ref), "$", ""), ":")
	if !ok {
		return
	}
	left, top, ok1 := cellRef([]byte(from))
	right, bottom, ok2 := cellRef([]byte(to))
	if !ok1 || !ok2 || top > bottom || left > right {
		return
	}
	m := mergeRange{top, left, bottom, right}
	r.coverData(m)
	if top <= r.mergeRows && len(r.merges) < maxMerges {
		r.merges = append(r.merges, m)
	}
}

// readCellContent reads a cell's children: the value <v>, the formula
// <f> (only its presence matters: the cached value is the cell's) and
// the inline string <is>.
//
//nolint:gocognit // per cell of a sheet (BenchmarkXLSXReader): one pass over the cell's tokens
func (r *sheetReader) readCellContent() (hasF, hasIS bool, err error) {
	base := r.sc.depth()
	inV := 0
	for {
		tok, err := r.sc.next()
		if err != nil {
			return false, false, r.partError(err)
		}
		switch tok {
		case tokEOF:
			return false, false, errors.New("the sheet ends inside a cell (truncated?)")
		case tokStart:
			switch string(r.sc.name) {
			case "v":
				if !r.sc.selfClosing {
					inV = r.sc.depth()
				}
			case "f":
				hasF = true
			case "is":
				hasIS = true
				if !r.sc.selfClosing {
					if r.is, err = readStringItem(r.sc, r.is[:0], r.limits.MaxCellBytes); err != nil {
						return false, false, err
					}
				}
			}
		case tokEnd:
			d := r.sc.depth()
			if d < base {
				return hasF, hasIS, nil
			}
			if d < inV {
				inV = 0
			}
		case tokText:
			if inV > 0 {
				if r.v, err = appendText(r.v, r.sc.text, r.sc.cdata); err != nil {
					return false, false, err
				}
				if len(r.v) > r.limits.MaxCellBytes {
					return false, false, fmt.Errorf("a cell is over %d bytes", r.limits.MaxCellBytes)
				}
			}
		}
	}
}

type cellType int

const (
	cellNumber cellType = iota // n, e, absent or unknown
	cellShared
	cellFormulaString
	cellInline
	cellBool
	cellDate
)

func cellKind(t []byte) cellType {
	switch string(t) {
	case "s":
		return cellShared
	case "str":
		return cellFormulaString
	case "inlineStr":
		return cellInline
	case "b":
		return cellBool
	case "d":
		return cellDate
	}
	return cellNumber
}

// value appends the cell's value (in r.v, r.is) as the reader hands it out.
func (r *sheetReader) value(dst []byte, kind cellType, style int, hasIS bool) ([]byte, error) {
	v := r.v
	shown := fmtNumber
	if style > 0 && style < len(r.kinds) {
		shown = r.kinds[style]
	}
	isDate := shown != fmtNumber
	switch kind {
	case cellShared:
		if len(v) == 0 {
			return dst, nil
		}
		i, err := strconv.Atoi(strings.TrimSpace(string(v)))
		if err != nil {
			return dst, fmt.Errorf("a shared-string cell holds %q", v)
		}
		s, ok := r.sst.get(i)
		if !ok {
			return dst, fmt.Errorf("shared string %d does not exist (the workbook is damaged)", i)
		}
		return append(dst, s...), nil
	case cellFormulaString:
		return append(dst, v...), nil
	case cellInline:
		if hasIS {
			return append(dst, bstrUnmarshal(r.is)...), nil
		}
		return append(dst, v...), nil
	case cellBool:
		switch string(v) {
		case "1":
			return append(dst, "TRUE"...), nil
		case "0":
			return append(dst, "FALSE"...), nil
		}
		return append(dst, v...), nil
	case cellDate:
		if t, ok := isoCellTime(string(v)); ok {
			serial := excelSerial(t)
			if isDate {
				return append(dst, r.dateText(strconv.FormatFloat(serial, 'G', 15, 64), serial, shown)...), nil
			}
			return strconv.AppendFloat(dst, serial, 'G', 15, 64), nil
		}
		if f, ok := parseNumber(v); ok && isDate {
			return append(dst, r.dateText(string(v), f, shown)...), nil
		}
		return append(dst, v...), nil
	}
	f, ok := parseNumber(v)
	if !ok {
		return append(dst, v...), nil
	}
	from := len(dst)
	dst = appendNumber(dst, v, f)
	if isDate {
		text := r.dateText(string(dst[from:]), f, shown)
		dst = append(dst[:from], text...)
	}
	return dst, nil
}

// dateText is serialText for a cell shown with the given date kind. In the 1904
// system a serial under 1 is a moment of 1904-01-01, which a date or
// date-time format shows as such (only a time format shows the time
// alone); in the 1900 system it has no date (1900-01-00) and reads as a
// time of day.
func (r *sheetReader) dateText(num string, serial float64, shown byte) string {
	if !r.date1904 || shown == fmtTime || serial < 0 || serial >= 1 {
		return serialText(num, serial, r.date1904)
	}
	ms := int64(math.Round(serial * 86_400_000))
	if ms == 86_400_000 {
		return "1904-01-02"
	}
	t := time.Date(1904, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(ms) * time.Millisecond)
	switch {
	case ms == 0:
		return t.Format("2006-01-02")
	case ms%1000 != 0:
		return t.Format("2006-01-02T15:04:05.000")
	}
	return t.Format("2006-01-02T15:04:05")
}

// parseNumber parses a stored number as excelize does (Go's float syntax,
// without underscores).
func parseNumber(v []byte) (float64, bool) {
	if len(v) == 0 {
		return 0, false
	}
	if plainInteger(v) {
		n := 0
		for _, c := range v {
			n = n*10 + int(c-'0')
		}
		return float64(n), true
	}
	for _, c := range v {
		if c == '_' {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(string(v), 64)
	return f, err == nil
}

// plainInteger: digits only, no leading zero, at most 15 of them: such a
// number reads as written.
func plainInteger(v []byte) bool {
	if len(v) == 0 || len(v) > 15 || (v[0] == '0' && len(v) > 1) {
		return false
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// appendNumber writes a number with at most 15 significant digits: the
// shortest text of the float when that has 15 digits or fewer (the sign
// counted, as excelize counts it), else 15 digits in exponent form.
func appendNumber(dst, v []byte, f float64) []byte {
	if plainInteger(v) {
		return append(dst, v...)
	}
	from := len(dst)
	dst = strconv.AppendFloat(dst, f, 'f', -1, 64)
	digits := len(dst) - from
	for _, c := range dst[from:] {
		if c == '.' {
			digits--
		}
	}
	if digits > 15 {
		dst = strconv.AppendFloat(dst[:from], f, 'G', 15, 64)
	}
	return dst
}

// isoCellTime parses the value of a date cell (t="d") with the layouts
// excelize accepts.
func isoCellTime(v string) (time.Time, bool) {
	layout := "20060102T150405.999"
	if strings.HasSuffix(v, "Z") {
		layout = "20060102T150405Z"
		if strings.Contains(v, "-") {
			layout = "2006-01-02T15:04:05Z"
		}
	} else if strings.Contains(v, "-") {
		layout = "2006-01-02 15:04:05Z"
	}
	t, err := time.Parse(layout, strings.ReplaceAll(v, ",", "."))
	return t, err == nil
}

// excelSerial is a time's serial in the 1900 system, as excelize computes
// it for date cells (which hold ISO text whatever the workbook's system).
func excelSerial(t time.Time) float64 {
	const day = 24 * time.Hour
	const maxDuration = 290 * 364 * day
	epoch := time.Date(1899, time.December, 31, 0, 0, 0, 0, time.UTC)
	if t.Before(epoch) {
		return 0
	}
	tt, diff, result := t, t.Sub(epoch), 0.0
	for diff >= maxDuration {
		result += float64(maxDuration / day)
		tt = tt.Add(-maxDuration)
		diff = tt.Sub(epoch)
	}
	rem := diff % day
	result += float64(diff-rem)/float64(day) + float64(rem)/float64(day)
	if t.After(time.Date(1900, time.March, 1, 0, 0, 0, 0, time.UTC).Add(-time.Nanosecond)) {
		result++ // Excel's phantom 1900-02-29
	}
	return result
}

// serialText turns a date cell's serial into ISO text: 2024-01-31 for a
// whole day, 2024-01-31T10:22:00 with a time of day, and 10:22:00 for a
// pure time (a serial under 1). Times are rounded to the millisecond,
// which the 15 significant digits of a serial still carry; milliseconds
// are printed only when present. A serial that is no date (negative, past
// year 9999, Excel's phantom 1900-02-29) keeps its number, num.
func serialText(num string, serial float64, date1904 bool) string {
	if serial < 0 || serial >= 2958466 || math.IsNaN(serial) {
		return num
	}
	days := math.Floor(serial)
	ms := int64(math.Round((serial - days) * 86_400_000))
	if ms == 86_400_000 {
		days, ms = days+1, 0
	}
	clock := time.Duration(ms) * time.Millisecond
	var t time.Time
	switch {
	case date1904:
		t = time.Date(1904, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, int(days))
	case days == 60:
		// 1900-02-29, as the spreadsheet shows it: Lotus's leap-year bug,
		// kept by Excel. No such day: the text says the day shown (a date
		// field reports it invalid_date), never a raw number.
		return phantomLeapDay(serial, clock)
	case days < 60:
		t = time.Date(1899, 12, 31, 0, 0, 0, 0, time.UTC).AddDate(0, 0, int(days))
	default:
		t = time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC).AddDate(0, 0, int(days))
	}
	return serialClock(t.Add(clock), serial, clock)
}

// serialClock writes the point in time t a serial stands for: a time of
// day, a date, or both.
func serialClock(t time.Time, serial float64, clock time.Duration) string {
	layout := "15:04:05"
	if clock%time.Second != 0 {
		layout = "15:04:05.000"
	}
	switch {
	case serial < 1:
		return t.Format(layout)
	case clock == 0:
		return t.Format("2006-01-02")
	}
	return t.Format("2006-01-02T" + layout)
}

// phantomLeapDay is serial 60 (and a time on it) as the spreadsheet shows
// it: 1900-02-29, a day that does not exist.
func phantomLeapDay(serial float64, clock time.Duration) string {
	t := time.Date(1900, 2, 28, 0, 0, 0, 0, time.UTC).Add(clock)
	out := serialClock(t, serial, clock)
	return strings.Replace(out, "1900-02-28", "1900-02-29", 1)
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
