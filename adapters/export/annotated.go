package export

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/table"
)

// The annotated workbook's marks, which the XLSX reader recognizes so that
// the fixed workbook uploads as a normal file: the header of the first
// column (the row numbers) and the name of the summary sheet.
const (
	RowNumberHeader  = "tabnorm row"
	SummarySheetName = "tabnorm issues"
)

// Bounds of the annotated workbook: the issues marked on cells (held in
// memory while the rows are written) and the cells given their messages
// as comments (a spreadsheet slows down with many). Issues past them are
// counted in the summary sheet, which says so.
const (
	MaxMarkedIssues = 100_000
	MaxComments     = 5_000
)

// Issue is one line of a job's issues blob.
type Issue struct {
	Row        *int64  `json:"row"`
	SourceFile *string `json:"source_file"`
	Column     *string `json:"column"`
	Field      *string `json:"field"`
	Severity   string  `json:"severity"`
	Code       string  `json:"code"`
	Message    string  `json:"message"`
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// rowKey names a record: its file (as issues name it) and number.
type rowKey struct {
	file string
	row  int64
}

type mark struct {
	column   string // "" for the row as a whole
	severity string
	message  string
}

type countKey struct{ field, code, severity string }

// Annotations are a job's issues arranged by the record they are about.
type Annotations struct {
	marks    map[rowKey][]mark
	rejected map[string][]int64 // a file's rejected record numbers, ascending
	counts   map[countKey]int64
	total    int64
	unmarked int64
}

// ReadIssues reads a job's issues blob: every issue is counted by field
// and code; the first MaxMarkedIssues about a record are kept to mark.
// A record with an error is a rejected one.
func ReadIssues(r io.Reader) (*Annotations, error) {
	a := &Annotations{marks: map[rowKey][]mark{}, rejected: map[string][]int64{}, counts: map[countKey]int64{}}
	dec := json.NewDecoder(r)
	kept := 0
	for {
		var is Issue
		if err := dec.Decode(&is); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, fmt.Errorf("read issues: %w", err)
		}
		a.total++
		a.counts[countKey{deref(is.Field), is.Code, is.Severity}]++
		if is.Row == nil {
			continue // about a file: counted only
		}
		k := rowKey{deref(is.SourceFile), *is.Row}
		if is.Severity == "error" {
			if list := a.rejected[k.file]; len(list) == 0 || list[len(list)-1] != k.row {
				a.rejected[k.file] = append(list, k.row)
			}
		}
		if kept == MaxMarkedIssues {
			a.unmarked++
			continue
		}
		kept++
		a.marks[k] = append(a.marks[k], mark{column: deref(is.Column), severity: is.Severity, message: is.Message})
	}
	for f, rows := range a.rejected {
		slices.Sort(rows)
		a.rejected[f] = slices.Compact(rows)
	}
	return a, nil
}

// Annotated writes the annotated workbook: every record read (or only the
// rejected ones), with its original values, a first column of record
// numbers, each cell with an issue filled red (an error) or amber (a
// warning) with the issues' messages as a comment, one sheet per file,
// and a summary sheet counting the issues by field and code. Feed it with
// File and Row as the job's files are read, then call Write.
type Annotated struct {
	f            *excelize.File
	ann          *Annotations
	rejectedOnly bool
	st           annotatedStyles
	sw           *excelize.StreamWriter
	sheets       int
	file         string
	columns      map[string]int // a source column's position, 1-based in the sheet after the row numbers
	width        int
	rank         map[int64]int // rejected-only: a record's sheet row
	comments     int
	sheetRows    int
}

type annotatedStyles struct {
	header, rowNumber, errFill, warnFill int
}

// NewAnnotated starts an annotated workbook.
func NewAnnotated(ann *Annotations, rejectedOnly bool, opt XLSXOptions) (*Annotated, error) {
	f := excelize.NewFile(excelize.Options{TmpDir: opt.TmpDir})
	w := &Annotated{f: f, ann: ann, rejectedOnly: rejectedOnly, sheetRows: opt.sheetRows()}
	var err error
	fill := func(color string) (int, error) {
		return f.NewStyle(&excelize.Style{Fill: excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{color}}})
	}
	if w.st.header, err = f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}}); err != nil {
		return nil, errors.Join(err, f.Close())
	}
	if w.st.rowNumber, err = f.NewStyle(&excelize.Style{Font: &excelize.Font{Color: "808080"}}); err != nil {
		return nil, errors.Join(err, f.Close())
	}
	if w.st.errFill, err = fill("FFC7CE"); err != nil {
		return nil, errors.Join(err, f.Close())
	}
	if w.st.warnFill, err = fill("FFE699"); err != nil {
		return nil, errors.Join(err, f.Close())
	}
	return w, nil
}

// Close removes what the workbook spilled to disk.
func (w *Annotated) Close() error { return w.f.Close() }

// File starts the sheet of one file of the job, with its header.
func (w *Annotated) File(sourceFile, _ string, header []string) error {
	if err := w.finishSheet(); err != nil {
		return err
	}
	w.sheets++
	name := "Rows"
	if w.sheets > 1 {
		name = "Rows " + strconv.Itoa(w.sheets)
	}
	if w.sheets == 1 {
		if err := w.f.SetSheetName("Sheet1", name); err != nil {
			return err
		}
	} else if _, err := w.f.NewSheet(name); err != nil {
		return err
	}
	w.file, w.width = sourceFile, len(header)+1
	w.columns = make(map[string]int, len(header))
	for i := len(header) - 1; i >= 0; i-- { // the first of two same-named columns wins
		w.columns[header[i]] = i + 2
	}
	w.rank = nil
	if w.rejectedOnly {
		rows := w.ann.rejected[sourceFile]
		w.rank = make(map[int64]int, len(rows))
		for i, r := range rows {
			w.rank[r] = i + 2
		}
	}
	// Comments go in before the sheet is streamed: a stream writer keeps
	// the sheet's drawing part as it was when it started.
	if err := w.addComments(name); err != nil {
		return err
	}
	sw, err := w.f.NewStreamWriter(name)
	if err != nil {
		return err
	}
	w.sw = sw
	if err := sw.SetPanes(&excelize.Panes{Freeze: true, XSplit: 1, YSplit: 1, TopLeftCell: "B2", ActivePane: "bottomRight"}); err != nil {
		return err
	}
	cells := make([]any, w.width)
	cells[0] = excelize.Cell{StyleID: w.st.header, Value: RowNumberHeader}
	for i, h := range header {
		cells[i+1] = excelize.Cell{StyleID: w.st.header, Value: h}
	}
	return sw.SetRow("A1", cells)
}

// sheetRow is where record n goes on the sheet, 0 when it is left out.
func (w *Annotated) sheetRow(n int64) int {
	if w.rank != nil {
		return w.rank[n]
	}
	return int(n) + 1
}

// cellOfMark is the column a mark is on: its source column, or the row
// number when it is about the row or a column the header lacks.
func (w *Annotated) cellOfMark(m mark) int {
	if c, ok := w.columns[m.column]; ok && m.column != "" {
		return c
	}
	return 1
}

// addComments gives the marked cells of the file's records their messages.
func (w *Annotated) addComments(sheet string) error {
	keys := make([]int64, 0)
	for k := range w.ann.marks {
		if k.file == w.file {
			keys = append(keys, k.row)
		}
	}
	slices.Sort(keys)
	for _, n := range keys {
		row := w.sheetRow(n)
		if row == 0 || row > w.sheetRows {
			continue
		}
		byCell := map[int][]string{}
		var order []int
		for _, m := range w.ann.marks[rowKey{w.file, n}] {
			c := w.cellOfMark(m)
			if _, ok := byCell[c]; !ok {
				order = append(order, c)
			}
			byCell[c] = append(byCell[c], m.message)
		}
		for _, c := range order {
			if w.comments == MaxComments {
				return nil
			}
			w.comments++
			ref, err := excelize.CoordinatesToCellName(c, row)
			if err != nil {
				return err
			}
			text := strings.Join(byCell[c], "\n")
			if cellChars(text) > MaxCellChars {
				text = string([]rune(text)[:MaxCellChars/2])
			}
			if err := w.f.AddComment(sheet, excelize.Comment{Cell: ref, Author: "tabnorm", Text: text}); err != nil {
				return err
			}
		}
	}
	return nil
}

// Row writes one record of the current file, if it is one to show.
func (w *Annotated) Row(rec table.Record) error {
	row := w.sheetRow(int64(rec.Number))
	if row == 0 {
		return nil
	}
	if row > w.sheetRows {
		return domain.Errorf(domain.ErrInvalid, domain.CodeInvalidRequest,
			"The file has more records than a sheet's %d rows; ask for the rejected rows only (rows=rejected) or download the errors as CSV.", w.sheetRows-1)
	}
	cells := make([]any, max(w.width, len(rec.Cells)+1))
	cells[0] = excelize.Cell{StyleID: w.st.rowNumber, Value: rec.Number}
	for i, v := range rec.Cells {
		if k := cellChars(v); k > MaxCellChars {
			return CellTooLong(int64(rec.Number), columnName(w.columns, i+2), k)
		}
		cells[i+1] = v
	}
	for _, m := range w.ann.marks[rowKey{w.file, int64(rec.Number)}] {
		c := w.cellOfMark(m) - 1
		style := w.st.warnFill
		if m.severity == "error" {
			style = w.st.errFill
		}
		if prev, ok := cells[c].(excelize.Cell); ok && prev.StyleID == w.st.errFill {
			continue // an error's red outranks a warning's amber
		}
		cells[c] = excelize.Cell{StyleID: style, Value: plain(cells[c])}
	}
	return w.sw.SetRow("A"+strconv.Itoa(row), cells)
}

func plain(v any) any {
	if c, ok := v.(excelize.Cell); ok {
		return c.Value
	}
	return v
}

func columnName(columns map[string]int, pos int) string {
	for name, p := range columns {
		if p == pos {
			return name
		}
	}
	return "column " + strconv.Itoa(pos-1)
}

func (w *Annotated) finishSheet() error {
	if w.sw == nil {
		return nil
	}
	err := w.sw.Flush()
	w.sw = nil
	return err
}

// Write ends the rows, adds the summary sheet and writes the workbook.
func (w *Annotated) Write(out io.Writer) error {
	if err := w.finishSheet(); err != nil {
		return err
	}
	if w.sheets == 0 {
		if err := w.f.SetSheetName("Sheet1", "Rows"); err != nil {
			return err
		}
	}
	if err := w.summary(); err != nil {
		return err
	}
	return writeWorkbook(w.f, out)
}

// summary is the sheet counting the issues by field, code and severity.
func (w *Annotated) summary() error {
	if _, err := w.f.NewSheet(SummarySheetName); err != nil {
		return err
	}
	keys := make([]countKey, 0, len(w.ann.counts))
	for k := range w.ann.counts {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b countKey) int {
		return strings.Compare(a.field+"\x00"+a.code+"\x00"+a.severity, b.field+"\x00"+b.code+"\x00"+b.severity)
	})
	set := func(cell string, v any) error { return w.f.SetCellValue(SummarySheetName, cell, v) }
	for i, h := range []string{"field", "code", "severity", "issues"} {
		ref, _ := excelize.CoordinatesToCellName(i+1, 1)
		if err := set(ref, h); err != nil {
			return err
		}
	}
	if err := w.f.SetCellStyle(SummarySheetName, "A1", "D1", w.st.header); err != nil {
		return err
	}
	row := 2
	for _, k := range keys {
		for i, v := range []any{k.field, k.code, k.severity, w.ann.counts[k]} {
			ref, _ := excelize.CoordinatesToCellName(i+1, row)
			if err := set(ref, v); err != nil {
				return err
			}
		}
		row++
	}
	notes := []string{fmt.Sprintf("%d issues in all. Fix the marked cells on the sheet of rows and upload this workbook again: the %q column and this sheet are ignored.", w.ann.total, RowNumberHeader)}
	if w.ann.unmarked > 0 {
		notes = append(notes, fmt.Sprintf("%d issues past the first %d are counted here but not marked on the rows; the job's errors.csv lists them all.", w.ann.unmarked, MaxMarkedIssues))
	}
	if w.comments == MaxComments {
		notes = append(notes, fmt.Sprintf("Only the first %d marked cells carry their message as a comment; the job's errors.csv lists every message.", MaxComments))
	}
	for _, n := range notes {
		row++
		if err := set("A"+strconv.Itoa(row), n); err != nil {
			return err
		}
	}
	return w.f.SetColWidth(SummarySheetName, "A", "B", 24)
}
