// Package export writes a job's results in the formats people load them
// into: XLSX workbooks (the valid rows, and the annotated workbook of every
// row read with its issues marked) and Parquet files whose column types
// follow the target schema. Both read the rows blob (JSON lines, keys in
// schema order, numbers as their digits) as a stream and write to a file
// the caller serves, so memory stays bounded whatever the row count.
//
// Decisions, kept the same in both formats (docs/API.md §5.4):
//   - A number is written as a number when it has at most 15 significant
//     digits (what a spreadsheet and a double hold exactly); otherwise an
//     XLSX cell holds its digits as text and a Parquet column becomes a
//     DECIMAL (or text beyond 38 digits), so no digit is lost.
//   - Datetimes are written in UTC; times of day are text.
package export

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/tabnorm/tabnorm/domain/schema"
)

// Column is one output column: a schema field's name, type and whether a
// valid row may leave it empty.
type Column struct {
	Name     string
	Type     schema.Type
	Required bool
}

// Columns returns the output columns of a schema, in its order.
func Columns(s *schema.Schema) []Column {
	cols := make([]Column, len(s.Fields))
	for i, f := range s.Fields {
		cols[i] = Column{Name: f.Name, Type: f.Type, Required: f.Constraints.Required}
	}
	return cols
}

// Lines hands out the lines of stored JSON lines that are not blank, a
// line longer than the buffer whole.
type Lines struct {
	br   *bufio.Reader
	long []byte
}

// NewLines reads the lines of r.
func NewLines(r io.Reader) *Lines { return &Lines{br: bufio.NewReaderSize(r, 64<<10)} }

// Next returns the next line that is not blank (nil when none came before
// the reading ended) and the error that ended the reading there: io.EOF
// at the end, with the last line when it has no newline. The line is
// valid until the next call.
func (l *Lines) Next() ([]byte, error) {
	for {
		b, err := l.br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) { // a line longer than the buffer
			l.long = append(l.long[:0], b...)
			for errors.Is(err, bufio.ErrBufferFull) {
				b, err = l.br.ReadSlice('\n')
				l.long = append(l.long, b...)
			}
			b = l.long
		}
		if len(bytes.TrimSpace(b)) > 0 {
			return b, err
		}
		if err != nil {
			return nil, err
		}
	}
}

// DecodeLine reads a stored line with encoding/json into the values of
// the columns (nil, a string, a json.Number, a bool, or a nested value):
// what Line does not read in place.
func DecodeLine(b []byte, columns []string, vals []any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return err
	}
	for i, c := range columns {
		vals[i] = obj[c]
	}
	return nil
}

// rowReader reads the rows blob a line at a time into the values of the
// output columns: nil, a string, a json.Number or a bool, read in place
// (Line); a line with a nested value is decoded by encoding/json
// (DecodeLine), to the same values.
type rowReader struct {
	lines *Lines
	line  *Line
	cols  []string
	vals  []any
}

func newRowReader(r io.Reader, cols []Column) *rowReader {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	return &rowReader{lines: NewLines(r), line: NewLine(names), cols: names, vals: make([]any, len(cols))}
}

// read reads the next row, or answers io.EOF after the last: in place
// (inPlace, its cells in rr.line) when it is a line of scalars, else
// decoded by encoding/json into rr.vals.
func (rr *rowReader) read() (inPlace bool, err error) {
	b, err := rr.lines.Next()
	if b == nil || err != nil && !errors.Is(err, io.EOF) {
		return false, err
	}
	if rr.line.Read(b) {
		return true, nil
	}
	return false, DecodeLine(b, rr.cols, rr.vals)
}

// next returns the next row's values by column, shared until the next
// call, or io.EOF after the last.
func (rr *rowReader) next() ([]any, error) {
	inPlace, err := rr.read()
	if err != nil || !inPlace {
		return rr.vals, err
	}
	for i := range rr.vals {
		switch t := rr.line.Text(i); rr.line.Kind(i) {
		case String:
			rr.vals[i] = t
		case Number:
			rr.vals[i] = json.Number(t)
		case Bool:
			rr.vals[i] = t == "true"
		default:
			rr.vals[i] = nil
		}
	}
	return rr.vals, nil
}

// significantDigits counts the significant digits of a decimal text
// ("-0.00120" has 3: leading and trailing zeros are not significant), and
// returns its digits after the point (scale) and before it.
func significantDigits(s string) (sig, scale, intDigits int) {
	s = strings.TrimLeft(s, "+-")
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		s = s[:i] // the exponent moves the point, not the digit count
	}
	intPart, frac, _ := strings.Cut(s, ".")
	scale = len(frac)
	intPart = strings.TrimLeft(intPart, "0")
	intDigits = len(intPart)
	digits := strings.TrimRight(strings.TrimLeft(intPart+frac, "0"), "0")
	return len(digits), scale, intDigits
}

// exactInDouble says whether a number's text survives a double (and a
// spreadsheet cell) with every digit: 15 significant digits or fewer and no
// exponent beyond a double's range.
func exactInDouble(s string) bool {
	if sig, _, _ := significantDigits(s); sig > 15 {
		return false
	}
	f, err := strconv.ParseFloat(s, 64)
	return err == nil && !math.IsInf(f, 0)
}
