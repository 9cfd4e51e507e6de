package xlsx

import (
	"github.com/tabnorm/tabnorm/adapters/formats/detect"
	"github.com/tabnorm/tabnorm/domain/table"
)

// Notes below a sheet's table are told as the delimited reader tells them
// in a text file (adapters/formats/delimited/tail.go, whose methods work
// on its own records; the rule is the same): a block at the end of the
// sheet, after a blank row, of at most maxNotes rows that each hold text
// and do not fit the table (at most half its cells filled, or text in a
// number column), is skipped and counted (Detection.FooterRows), unless
// rows as short as notes are among the table's rows.
// ReadOptions.FooterRows turns this off (FooterNone) or skips the last n
// rows.

// maxNotes is how many rows a block of notes below a table may have.
const maxNotes = 20

// footerDone is tail.footer once the footer was let go of: nothing
// more is looked for.
const footerDone = table.FooterNone

// tail is what the reader keeps to tell the notes below the table.
type tail struct {
	footer int           // ReadOptions.FooterRows
	kinds  []detect.Kind // each column's kind in the rows sampled under the header
	data   int           // data rows returned
	short  int           // of them, those with at most half the header's cells
}

// setTail notes the footer option and the columns' kinds in the rows
// sampled under the header (x.pending), those filling over half of it.
func (x *Reader) setTail(footer int) {
	x.tail.footer = footer
	width := len(x.header)
	var wide [][]string
	for _, r := range x.pending {
		if n := detect.NonEmpty(r); n > 0 && (width < 2 || n*2 > width) {
			wide = append(wide, x.cut(r))
		}
	}
	x.tail.kinds = detect.ColumnKinds(wide)
}

// cut is a row as the table has it: without an annotated workbook's row
// numbers.
func (x *Reader) cut(cells []string) []string {
	if x.dropFirst && len(cells) > 0 {
		return cells[1:]
	}
	return cells
}

// readAhead holds rows in pending until it has n or the sheet ends.
func (x *Reader) readAhead(n int) error {
	for len(x.pending) < n && !x.done {
		cells, err := x.nextRow()
		if err != nil {
			return ignoreEOF(err)
		}
		x.pending = append(x.pending, cells)
	}
	return nil
}

// footerNext tells whether the rows left are the footer: the last
// FooterRows rows, or (detected) notes after a blank row; it counts them
// when they are, and lets go of them.
func (x *Reader) footerNext(atBlank bool) (bool, error) {
	switch {
	case x.tail.footer > 0:
		if err := x.readAhead(x.tail.footer + 1); err != nil {
			return false, err
		}
		if !x.done || len(x.pending) > x.tail.footer {
			return false, nil
		}
	case x.tail.footer == 0 && atBlank && x.tail.data > 0:
		if err := x.readAhead(maxNotes + 1); err != nil {
			return false, err
		}
		if x.tail.short > 0 || !x.done || len(x.pending) > maxNotes || !x.notesBelow(x.pending) {
			return false, nil
		}
	default:
		return false, nil
	}
	for _, cells := range x.pending {
		x.number++
		if detect.Blank(cells) {
			detect.Skip(&x.detection.BlankRows, &x.detection.BlankCount, x.number)
			continue
		}
		detect.Skip(&x.detection.FooterRows, &x.detection.FooterCount, x.number)
	}
	x.pending = nil
	return true, nil
}

// notesBelow tells a block of notes: at least one row, each non-blank one
// holding text that does not fit the table.
func (x *Reader) notesBelow(rows [][]string) bool {
	n := 0
	for _, r := range rows {
		if detect.Blank(r) {
			continue
		}
		if !x.noteLike(x.cut(r)) {
			return false
		}
		n++
	}
	return n > 0
}

func (x *Reader) noteLike(cells []string) bool {
	if !hasText(cells) {
		return false // numbers: data, or a total
	}
	width := len(x.header)
	return width >= 2 && detect.NonEmpty(cells)*2 <= width || detect.Mismatches(cells, x.tail.kinds) > 0
}
