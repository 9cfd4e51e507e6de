package formats

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/tabnorm/tabnorm/domain/table"
)

// scanner splits delimited text into records. It follows RFC 4180 and is
// lenient where real files are not: a quote inside an unquoted field is a
// literal character; a quote inside a quoted field that is neither doubled
// nor followed by the delimiter or a line end is kept literally; records
// end at LF, CRLF or a lone CR (classic Mac files), and line breaks inside
// quotes are kept as they are. Unlike encoding/csv it bounds memory: a
// cell over the limit (for example everything after an unterminated quote)
// stops the file with a clear error instead of being buffered whole.
type scanner struct {
	r       *bufio.Reader
	delim   byte
	stops   [256]bool // bytes that end an unquoted field
	maxCell int
	maxCols int

	buf   []byte // the current record's field bytes, back to back
	ends  []int  // end offset of each field in buf
	line  int    // physical line where the current record started (1-based)
	lines int    // physical lines consumed so far
}

func newScanner(r io.Reader, delim byte, limits table.Limits) *scanner {
	s := &scanner{r: bufio.NewReaderSize(r, 256<<10), delim: delim, maxCell: limits.MaxCellBytes, maxCols: limits.MaxColumns}
	s.stops[delim], s.stops['\n'], s.stops['\r'] = true, true, true
	return s
}

// next returns the next record's fields (a new slice the caller may
// keep), or io.EOF. A blank line is a record with one empty field.
func (s *scanner) next() ([]string, error) {
	s.buf, s.ends = s.buf[:0], s.ends[:0]
	s.line = s.lines + 1
	if _, err := s.r.Peek(1); err != nil {
		return nil, err
	}
	for {
		start := len(s.buf)
		var stop byte
		var err error
		if p, _ := s.r.Peek(1); len(p) == 1 && p[0] == '"' {
			_, _ = s.r.Discard(1)
			stop, err = s.quoted(start)
		} else {
			stop, err = s.unquoted(start)
		}
		s.ends = append(s.ends, len(s.buf))
		if len(s.ends) > s.maxCols {
			return nil, fmt.Errorf("%w: line %d has more than %d cells; the limit is %d columns", table.ErrUnreadable, s.line, s.maxCols, s.maxCols)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if stop == '\n' {
			break
		}
		// stop is the delimiter: another field follows, empty at end of file.
		if _, err := s.r.Peek(1); err != nil {
			s.ends = append(s.ends, len(s.buf))
			break
		}
	}
	s.lines++
	// Two allocations per record, both handed to the caller: the text, and
	// the fields slicing it.
	rec := string(s.buf)
	fields := make([]string, len(s.ends))
	from := 0
	for i, end := range s.ends {
		fields[i] = rec[from:end]
		from = end
	}
	return fields, nil
}

// unquoted reads to the delimiter or a line end and reports which ('\n'
// for any line end), consuming it.
func (s *scanner) unquoted(start int) (byte, error) {
	for {
		b, err := s.peekAll()
		if err != nil {
			return 0, err
		}
		for i, c := range b {
			if s.stops[c] {
				s.buf = append(s.buf, b[:i]...)
				_, _ = s.r.Discard(i + 1)
				return s.lineEnd(c), nil
			}
		}
		s.buf = append(s.buf, b...)
		_, _ = s.r.Discard(len(b))
		if len(s.buf)-start > s.maxCell {
			return 0, s.cellTooBig()
		}
	}
}

// lineEnd folds CRLF and a lone CR into '\n'.
func (s *scanner) lineEnd(c byte) byte {
	if c != '\r' {
		return c
	}
	if p, err := s.r.Peek(1); err == nil && p[0] == '\n' {
		_, _ = s.r.Discard(1)
	}
	return '\n'
}

// peekAll returns what the buffer holds, filling it when empty.
func (s *scanner) peekAll() ([]byte, error) {
	if s.r.Buffered() == 0 {
		if _, err := s.r.Peek(1); err != nil {
			return nil, err
		}
	}
	return s.r.Peek(s.r.Buffered())
}

// quoted reads a quoted field after its opening quote and reports what
// follows the closing quote (delimiter or '\n').
func (s *scanner) quoted(start int) (byte, error) {
	for {
		b, err := s.peekAll()
		if err != nil {
			return 0, err // EOF inside quotes: the field ends with the file
		}
		i := bytes.IndexByte(b, '"')
		if i < 0 {
			s.lines += bytes.Count(b, []byte{'\n'})
			s.buf = append(s.buf, b...)
			_, _ = s.r.Discard(len(b))
		} else {
			s.lines += bytes.Count(b[:i], []byte{'\n'})
			s.buf = append(s.buf, b[:i]...)
			_, _ = s.r.Discard(i + 1)
			next, err := s.r.ReadByte()
			if err != nil {
				return 0, err
			}
			switch {
			case next == '"':
				s.buf = append(s.buf, '"')
			case next == s.delim:
				return next, nil
			case next == '\n' || next == '\r':
				return s.lineEnd(next), nil
			default:
				// A stray quote: keep it and go on inside the field, as
				// spreadsheet programs do.
				s.buf = append(s.buf, '"', next)
			}
		}
		if len(s.buf)-start > s.maxCell {
			return 0, s.cellTooBig()
		}
	}
}

func (s *scanner) cellTooBig() error {
	return fmt.Errorf("%w: a cell starting on line %d is over %d bytes (an unterminated quote?)", table.ErrUnreadable, s.line, s.maxCell)
}
