package delimited

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tabnorm/tabnorm/adapters/formats/detect"
	"github.com/tabnorm/tabnorm/domain/table"
)

// What a text table holds under its header that is not its rows, and how
// the delimited reader tells it (each is counted in the Detection, which
// the engine turns into a warning; nothing goes unsaid):
//   - blank records are skipped (BlankRows);
//   - a record equal to the header, cell by cell after trimming, is a
//     header repeated where files were concatenated: skipped
//     (RepeatedHeaderRows);
//   - after a blank record, a header-like record (text in every number
//     column, text only) that shares some but not all of the header's
//     names starts another table: it and the rest of the file are counted,
//     not mixed into this table's rows (StackedRow);
//   - a block at the end of the file, after a blank record, of at most
//     maxNotes records that each hold text and do not fit the table (at
//     most half its cells filled, or text in a number column), is notes
//     below the table ("Source: …", "* provisional"): skipped (FooterRows).
//     Not when records as short as notes are among the table's rows (notes
//     or comments all along the table are read as its rows).
//     ReadOptions.FooterRows turns this off or skips a given count.

// maxNotes is how many records a block of notes below a table may have.
const maxNotes = 20

// tail is the delimited reader's state for what follows the header.
type tail struct {
	eof       bool          // the scanner is at the end: pending holds the rest of the file
	headerKey []string      // the header's cells trimmed, without trailing empty ones; nil without a header row
	kinds     []detect.Kind // each column's kind in the first records (detect.ColumnKinds)
	footer    int           // ReadOptions.FooterRows
	data      int           // data records returned
	short     int           // of them, those with at most half the header's cells
	lastBlank bool          // the previous record was blank
}

// setTail prepares the checks once the header is known: header is the
// header row's cells (nil without one), data the records read ahead.
func (d *Reader) setTail(header []string, data []scanned, footer int) {
	d.tail.footer = footer
	if header != nil {
		k := make([]string, len(header))
		for i, h := range header {
			k[i] = strings.TrimSpace(h)
		}
		for len(k) > 0 && k[len(k)-1] == "" {
			k = k[:len(k)-1]
		}
		if len(k) > 0 {
			d.tail.headerKey = k
		}
	}
	width := len(d.header)
	var wide [][]string
	for _, s := range data {
		if n := detect.NonEmpty(s.cells); n > 0 && (width < 2 || n*2 > width) {
			wide = append(wide, s.cells)
		}
	}
	d.tail.kinds = detect.ColumnKinds(wide)
}

// rowLabels reads the first column as row labels when the header is one
// cell short of (nearly) every record (at least 90 %), and some record
// fills its last cell (else the extra cell is a trailing delimiter).
func (d *Reader) rowLabels(data []scanned) {
	n := len(d.header)
	rows, short, filled := 0, 0, false
	for _, s := range data {
		if detect.Blank(s.cells) {
			continue
		}
		rows++
		if len(s.cells) == n+1 {
			short++
			filled = filled || strings.TrimSpace(s.cells[n]) != ""
		}
	}
	if n == 0 || rows == 0 || !filled || short*10 < rows*9 {
		return
	}
	d.header = append([]string{table.RowLabelColumn}, d.header...)
	d.det.RowLabels = true
}

// read returns the next record, from those read ahead first.
func (d *Reader) read() (rec scanned, owned bool, text string, err error) {
	if len(d.pending) > 0 {
		rec, d.pending = d.pending[0], d.pending[1:]
		return rec, true, "", nil
	}
	if d.tail.eof {
		return rec, false, "", io.EOF
	}
	cells, err := d.sc.next()
	if err != nil {
		if err == io.EOF {
			d.tail.eof = true
		}
		return rec, false, "", err
	}
	return scanned{cells, d.sc.issues, d.sc.line, d.sc.comments}, false, d.sc.text, nil
}

// readAhead reads records into pending until it holds n or the file ends.
func (d *Reader) readAhead(n int) error {
	for len(d.pending) < n && !d.tail.eof {
		cells, err := d.sc.next()
		if err == io.EOF {
			d.tail.eof = true
			break
		}
		if err != nil {
			return err
		}
		d.pending = append(d.pending, scanned{cloneCells(cells), d.sc.issues, d.sc.line, d.sc.comments})
	}
	return nil
}

// footerNext reports whether the records left are the footer: the last
// FooterRows records, or (detected) notes after a blank record. It counts
// them when they are.
func (d *Reader) footerNext(atBlank bool) (bool, error) {
	switch {
	case d.tail.footer > 0:
		if err := d.readAhead(d.tail.footer + 1); err != nil {
			return false, err
		}
		if !d.tail.eof || len(d.pending) > d.tail.footer {
			return false, nil
		}
	case d.tail.footer == 0 && atBlank && d.tail.data > 0:
		if err := d.readAhead(maxNotes + 1); err != nil {
			return false, err
		}
		if d.tail.short > 0 || !d.tail.eof || len(d.pending) > maxNotes || !d.notes(d.pending) {
			return false, nil
		}
	default:
		return false, nil
	}
	for _, s := range d.pending {
		d.number += 1 + s.comments
		if detect.Blank(s.cells) && len(s.issues) == 0 {
			detect.Skip(&d.det.BlankRows, &d.det.BlankCount, d.number)
			continue
		}
		detect.Skip(&d.det.FooterRows, &d.det.FooterCount, d.number)
	}
	d.pending = nil
	return true, nil
}

// notes tells a block of notes below the table: at least one record, each
// non-blank one with some text that does not fit the table.
func (d *Reader) notes(recs []scanned) bool {
	n := 0
	for _, s := range recs {
		if detect.Blank(s.cells) {
			continue
		}
		if !d.noteLike(s.cells) {
			return false
		}
		n++
	}
	return n > 0
}

func (d *Reader) noteLike(cells []string) bool {
	text := false
	for _, c := range cells {
		if detect.KindOf(c) == detect.KindText {
			text = true
			break
		}
	}
	if !text {
		return false // numbers: data, or a total
	}
	width := len(d.header)
	return width >= 2 && detect.NonEmpty(cells)*2 <= width || detect.Mismatches(cells, d.tail.kinds) > 0
}

// headerAgain tells a record equal to the header (trimmed, trailing empty
// cells aside).
func (d *Reader) headerAgain(cells []string) bool {
	k := d.tail.headerKey
	if k == nil || len(cells) < len(k) || strings.TrimSpace(cells[0]) != k[0] {
		return false
	}
	for i, c := range cells {
		c = strings.TrimSpace(c)
		if i < len(k) && c != k[i] || i >= len(k) && c != "" {
			return false
		}
	}
	return true
}

// otherTable tells the header of another table: after a blank record,
// text only, text in every number column, and some of this table's
// column names but not all.
func (d *Reader) otherTable(cells []string) bool {
	if !d.tail.lastBlank || d.tail.headerKey == nil || !detect.Strong(cells, d.tail.kinds) {
		return false
	}
	shared := false
	for _, c := range cells {
		switch detect.KindOf(c) {
		case detect.KindNumber:
			return false
		case detect.KindText:
			shared = shared || slices.Contains(d.tail.headerKey, strings.TrimSpace(c))
		}
	}
	return shared
}

// stack counts the other table that starts at this record, and the rest
// of the file.
func (d *Reader) stack(cells []string) error {
	d.det.StackedRow, d.det.StackedCount = d.number, 1
	d.det.StackedHeader = make([]string, len(cells))
	for i, c := range cells {
		d.det.StackedHeader[i] = strings.TrimSpace(c)
	}
	for {
		rec, _, _, err := d.read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return detect.Unreadable(err)
		}
		d.number++
		if !detect.Blank(rec.cells) {
			d.det.StackedCount++
		}
	}
}

// suspiciousQuoting warns of a record that looks like it lost the
// delimiter or the opening quote before a quoted value, so that a stray
// quote was kept in a cell: the value was split on the delimiter inside
// the quotes and the cell count may still match, so nothing else would
// say so. Two shapes:
//   - an opener and a closer (1"Smith, John",Leeds; Cotton "Oxford, Plaid" XL):
//     a cell with an odd number of quotes, then the next cell with a quote
//     holding an odd number of them, not at its start and not after a
//     digit; the cells between hold none;
//   - a closer alone (…,Oxford Shirt, Plaid",…): a cell with an odd number
//     of quotes that ends with one, after a letter.
//
// A quote after a digit is an inch or a second (12" long, 37.8"N), and a
// quote followed by a blank opens nothing unless a closer follows.
func (d *Reader) suspiciousQuoting(cells []string, issues []table.CellIssue) []table.CellIssue {
	q := d.quote
	for j := 0; j < len(cells); j++ {
		c := cells[j]
		if strings.IndexByte(c, q) < 0 || strings.Count(c, string(q))%2 == 0 {
			continue
		}
		if k := closerAfter(cells, j+1, q); k > 0 {
			and := "and"
			if k > j+1 {
				and = "to"
			}
			return append(issues, d.quotingIssue(cells, j, k,
				fmt.Sprintf("Columns %d %s %d look like one quoted value without the delimiter before its opening quote: it was split at the delimiter inside the quotes. Check the record.", j+1, and, k+1)))
		}
		if endsWithStrayQuote(c, q) {
			return append(issues, d.quotingIssue(cells, j, j,
				fmt.Sprintf("Column %d ends with a quote that no quote opens: the record probably lost the opening quote of a value with the delimiter inside, and was split there. Check the record.", j+1)))
		}
	}
	return issues
}

// closerAfter is the index of the cell from `from` on that closes a quote
// opened before it, or 0: the first cell holding a quote, if it holds an
// odd number of them, the last not at its start nor after a digit.
func closerAfter(cells []string, from int, q byte) int {
	k := nextWithQuote(cells, from, q)
	if k < 0 {
		return 0
	}
	c := strings.TrimSpace(cells[k])
	last := strings.LastIndexByte(c, q)
	if strings.Count(c, string(q))%2 == 0 || last <= 0 || c[0] == q || isDigit(c[last-1]) {
		return 0
	}
	return k
}

// nextWithQuote is the index of the first cell from `from` on that holds
// the quote, or -1.
func nextWithQuote(cells []string, from int, q byte) int {
	for k := from; k < len(cells); k++ {
		if strings.IndexByte(cells[k], q) >= 0 {
			return k
		}
	}
	return -1
}

// endsWithStrayQuote tells a cell that ends with a quote after a letter
// (Plaid", Plaid""), the quotes it holds odd in number.
func endsWithStrayQuote(cell string, q byte) bool {
	c := strings.TrimRight(cell, " ")
	t := strings.TrimRight(c, string(q))
	if t == c || t == "" || strings.Count(cell, string(q))%2 == 0 {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(t)
	return unicode.IsLetter(r)
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// quotingIssue is the suspicious_quoting warning on cells from to to.
func (d *Reader) quotingIssue(cells []string, from, to int, message string) table.CellIssue {
	return table.CellIssue{Column: from, Code: "suspicious_quoting", Value: strings.Join(cells[from:to+1], d.det.Delimiter), Message: message}
}
