package xlsx

import (
	"errors"
	"io"
	"strings"

	"github.com/tabnorm/tabnorm/adapters/formats/detect"
	"github.com/tabnorm/tabnorm/domain/table"
)

// A review shows a person a workbook's sheets to choose from (Sheets):
// how many rows each holds and its first row. Each is read to its end or
// to a budget, whichever comes first, so a sheet of a few thousand rows is
// counted and a large one only begun. A run looks at them only when no
// sheet was named (chooseSheet), with the same budgets.
const (
	// MaxListedSheets is how many of a workbook's sheets Sheets lists.
	MaxListedSheets = 100
	// sheetLookBytes bounds the look at one sheet: the bytes of its XML
	// read to count its rows (about ten thousand rows of a few cells).
	sheetLookBytes = 1 << 20
	// sheetLookTotal bounds the XML read by the looks at all sheets; the
	// sheets past it are listed by name only.
	sheetLookTotal = 16 << 20
	// firstRowCells and firstRowCellBytes cut the first row a sheet shows.
	firstRowCells     = 10
	firstRowCellBytes = 64
)

// Sheets lists the workbook's first MaxListedSheets sheets in order: the
// rows of each that hold a value, counted within the look's budget, and
// its first such row. A sheet that cannot be read is listed by name only:
// choosing it is what would fail.
func (x *Reader) Sheets() ([]table.Sheet, error) {
	if x.wb == nil {
		return nil, nil
	}
	refs := x.wb.sheets[:min(len(x.wb.sheets), MaxListedSheets)]
	out := make([]table.Sheet, len(refs))
	looked := map[string]table.Sheet{} // by part: each is looked at once
	left := int64(sheetLookTotal)
	for i, ref := range refs {
		s, ok := looked[asciiLower(ref.part)]
		if !ok && left > 0 {
			var read int64
			var err error
			if s, read, err = x.look(ref); err != nil {
				return nil, err
			}
			left -= read
			looked[asciiLower(ref.part)] = s
		}
		s.Name = ref.name
		out[i] = s
	}
	return out, nil
}

// look counts a sheet's rows with a value and keeps the first, to the
// sheet's end or the look's budget. Only the job's end (its context) is
// an error.
func (x *Reader) look(ref sheetRef) (table.Sheet, int64, error) {
	var s table.Sheet
	if err := x.ctx.Err(); err != nil {
		return s, 0, err
	}
	f := zipEntry(&x.zr.Reader, ref.part)
	if f == nil {
		return s, 0, nil
	}
	rc, err := f.Open()
	if err != nil {
		return s, 0, nil
	}
	defer func() { _ = rc.Close() }()
	r := &sheetReader{rc: rc, sc: newXMLScanner(detect.ContextReader(x.ctx, rc), 64<<10), sst: x.sst, kinds: x.styles.kinds, looks: x.styles.looks, date1904: x.wb.date1904, limits: x.limits}
	for r.sc.read < sheetLookBytes {
		cells, err := r.nextRow()
		if err == io.EOF {
			s.Complete = true
			break
		}
		if err != nil {
			if cerr := x.ctx.Err(); cerr != nil && errors.Is(err, cerr) {
				return s, r.sc.read, cerr
			}
			return table.Sheet{}, r.sc.read, nil // damaged: by name only
		}
		if detect.Blank(cells) {
			continue
		}
		if s.Rows++; s.FirstRow == nil {
			s.FirstRow = firstRow(cells)
		}
	}
	return s, r.sc.read, nil
}

// firstRow is a row cut to what a list of sheets shows: its first cells,
// each cut short, trailing empty cells left out.
func firstRow(cells []string) []string {
	for len(cells) > 0 && strings.TrimSpace(cells[len(cells)-1]) == "" {
		cells = cells[:len(cells)-1]
	}
	out := make([]string, 0, min(len(cells), firstRowCells))
	for _, c := range cells[:min(len(cells), firstRowCells)] {
		c = strings.TrimSpace(c)
		if len(c) > firstRowCellBytes {
			c = strings.ToValidUTF8(c[:firstRowCellBytes], "") + "…"
		}
		out = append(out, strings.Clone(c))
	}
	return out
}

// maxOtherSheets bounds the other sheets a Detection lists.
const maxOtherSheets = 10

// chooseSheet, when no sheet was named, checks the sheet read against
// the workbook's other visible sheets. A sheet of notes (notesRows) is
// passed over for the first of them that holds a regular table
// (regularTable), which is read instead; otherwise the other visible
// sheets with data are listed in the Detection, so that a table on
// another sheet is never missed silently.
func (x *Reader) chooseSheet(opts table.ReadOptions) error {
	read := x.wb.sheets[x.at]
	var others []sheetRef
	seen := map[string]bool{asciiLower(read.part): true}
	for _, ref := range x.wb.sheets {
		if ref.hidden || seen[asciiLower(ref.part)] {
			continue
		}
		seen[asciiLower(ref.part)] = true
		others = append(others, ref)
	}
	if len(others) == 0 {
		return nil
	}
	if x.notes {
		for _, ref := range others {
			rows, err := x.firstRows(ref)
			if err != nil {
				return err
			}
			if !regularTable(rows) {
				continue
			}
			x.sheet.close()
			x.sheet, x.header, x.pending, x.done = nil, nil, nil, false
			if err := x.open(ref, opts, x.sst, x.styles, x.wb.date1904); err != nil {
				return err
			}
			x.detection.SheetPassedOver = read.name
			return nil
		}
	}
	left := int64(sheetLookTotal)
	for _, ref := range others {
		if left <= 0 || len(x.detection.OtherSheets) == maxOtherSheets {
			break
		}
		s, used, err := x.look(ref)
		if err != nil {
			return err
		}
		left -= used
		if s.Rows > 0 {
			x.detection.OtherSheets = append(x.detection.OtherSheets, table.Sheet{Name: ref.name, Rows: s.Rows, Complete: s.Complete})
		}
	}
	return nil
}

// firstRows reads a sheet's first non-blank rows, as many as header
// detection looks at, within the look's budget; a sheet that cannot be
// read has none (choosing it is what would fail).
func (x *Reader) firstRows(ref sheetRef) ([][]string, error) {
	if err := x.ctx.Err(); err != nil {
		return nil, err
	}
	f := zipEntry(&x.zr.Reader, ref.part)
	if f == nil {
		return nil, nil
	}
	rc, err := f.Open()
	if err != nil {
		return nil, nil
	}
	defer func() { _ = rc.Close() }()
	r := &sheetReader{rc: rc, sc: newXMLScanner(detect.ContextReader(x.ctx, rc), 64<<10), sst: x.sst, kinds: x.styles.kinds, looks: x.styles.looks, date1904: x.wb.date1904, limits: x.limits}
	var rows [][]string
	for len(rows) < detect.SampleRecords && r.sc.read < sheetLookBytes {
		cells, err := r.nextRow()
		if err == io.EOF {
			break
		}
		if err != nil {
			if cerr := x.ctx.Err(); cerr != nil && errors.Is(err, cerr) {
				return nil, cerr
			}
			return nil, nil
		}
		if !detect.Blank(cells) {
			rows = append(rows, firstRow(cells))
		}
	}
	return rows, nil
}

// proseBytes and proseSpaces make a cell prose: a sentence or more, not
// a name or a value.
const (
	proseBytes  = 40
	proseSpaces = 5
)

// notesRows tells rows that are mostly notes: at least 60 % of the
// non-blank ones are one cell of prose (a title line aside, a notes
// sheet is paragraphs, one a row).
func notesRows(rows [][]string) bool {
	n, prose := 0, 0
	for _, r := range rows {
		if detect.NonEmpty(r) == 0 {
			continue
		}
		n++
		if detect.NonEmpty(r) != 1 {
			continue
		}
		for _, c := range r {
			if c = strings.TrimSpace(c); len(c) >= proseBytes && strings.Count(c, " ") >= proseSpaces {
				prose++
			}
		}
	}
	return n > 0 && prose*10 >= n*6
}

// regularTable tells rows that hold a table: at least three of them, at
// least two columns wide, most (60 %) as wide as the widest common width,
// and not notes.
func regularTable(rows [][]string) bool {
	if len(rows) < 3 || notesRows(rows) {
		return false
	}
	widths, typical := detect.RecordWidths(rows)
	if typical < 2 {
		return false
	}
	n := 0
	for _, w := range widths {
		if w == typical {
			n++
		}
	}
	return n*10 >= len(rows)*6
}
