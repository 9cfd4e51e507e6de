package delimited

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/text/encoding/charmap"

	"github.com/tabnorm/tabnorm/adapters/formats/detect"
	"github.com/tabnorm/tabnorm/domain/table"
)

// scanner splits delimited text into records. It follows RFC 4180 and is
// lenient where real files are not:
//   - a quote inside an unquoted field is a literal character (37.8"N);
//   - a closing quote may be followed by blanks before the delimiter or the
//     line end (" i " , …): the blanks are dropped;
//   - a quote inside a quoted field that is neither doubled nor followed by
//     the delimiter or a line end is kept literally, with a stray_quote
//     warning; once a field has such a quote, a doubled quote right before
//     the delimiter or a line end is read as a literal quote that closes
//     the field ("he said:"wonderful."", as fread repairs it);
//   - a quote still open at the end of the file does not swallow the rest
//     of the file: the field is read again from its opening quote, taken
//     literally, and the record gets an unterminated_quote warning;
//   - records end at LF, CRLF, a lone CR (classic Mac files) or a run of
//     CRs before an LF (\r\r\r\n); line breaks inside quotes are kept as
//     they are.
//
// Unlike encoding/csv it bounds memory: a cell over the limit stops the
// file with a clear error instead of being buffered whole, and a record
// over the column limit is counted, not stored. Speed: a record that lies
// whole in the buffer is read by a fast path (see fast) that does the work
// of the general, byte-at-a-time one in a few IndexByte calls, and a
// record's cells share the buffer's memory until the next record is read,
// as encoding/csv's do with ReuseRecord (BenchmarkCSVReader against
// BenchmarkEncodingCSVFloor/reused measures it).
type scanner struct {
	r      *bufio.Reader
	delim  byte
	quote  byte // 0: quoting off
	escape byte // 0: a quote inside quotes is doubled; else it may follow this byte
	// blankQuote: blanks between a delimiter and an opening quote are
	// dropped (`a, "b, c"`); off, such a quote is a character, as RFC
	// 4180 has it. Sniffed: on when it splits the records more evenly.
	blankQuote bool
	stops      [256]bool // bytes that end an unquoted field
	maxCell    int
	maxCols    int
	// fixUTF8 decodes bytes that are not UTF-8 as Windows-1252, for files
	// whose sample was UTF-8 but whose later lines are not.
	fixUTF8 bool

	buf    []byte // the current record's field bytes, back to back
	ends   []int  // end offset of each field in buf
	raw    []byte // the current quoted field as it stands in the file
	over   int    // fields past the column limit in the current record
	issues []table.CellIssue
	line   int // physical line where the current record started (1-based)
	// quotedCells counts the current record's cells read as quoted (for
	// dialect sniffing).
	quotedCells int
	lines       int // physical lines consumed so far

	// fields is the record handed out, reused by the next call: its
	// cells share the buffer's bytes (or buf's, for a record read the
	// general way), so reading a record copies nothing; the engine copies
	// what it keeps into its batches, whose memory it reuses.
	fields []string
	text   string // the text every field of the record is a slice of

	// comment, when not 0, starts a comment line: a line starting with it
	// is skipped, not a record. comments counts those skipped right before
	// the current record; commentCount all of them, commentLines the first
	// detect.MaxSkippedRows of their physical lines.
	comment      byte
	comments     int
	commentCount int
	commentLines []int

	fastOK bool  // the delimiter allows the fast path (it is not a quote or a line end)
	spans  []int // the fast path's field bounds in the buffer: start, end, start, end, …
}

// text returns b as a string sharing its memory: valid until the scanner
// reads on.
func text(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

func newScanner(r io.Reader, delim byte, limits table.Limits) *scanner {
	s := &scanner{r: bufio.NewReaderSize(r, 256<<10), delim: delim, maxCell: limits.MaxCellBytes, maxCols: limits.MaxColumns}
	s.stops[delim], s.stops['\n'], s.stops['\r'] = true, true, true
	s.setQuoting('"', 0)
	return s
}

// setQuoting sets the quote character (0: none) and the escape character
// inside quotes (0: none, quotes are doubled). The fast path handles
// doubled quotes only.
func (s *scanner) setQuoting(quote, escape byte) {
	s.quote, s.escape = quote, escape
	s.fastOK = s.delim != quote && s.delim != '\n' && s.delim != '\r' && escape == 0
}

// quotedAhead tells whether the field starting here is blanks then an
// opening quote (`a, "b, c"`): the blanks are dropped and the field is
// read as quoted. Not when the delimiter is a blank itself.
func (s *scanner) quotedAhead() bool {
	if !s.blankQuote || s.quote == 0 || s.delim == ' ' {
		return false
	}
	p, _ := s.r.Peek(s.r.Buffered())
	i := 0
	for i < len(p) && p[i] == ' ' {
		i++
	}
	if i == 0 || i == len(p) || p[i] != s.quote {
		return false
	}
	_, _ = s.r.Discard(i + 1)
	return true
}

// next returns the next record's fields, valid until the next call, or
// io.EOF. A blank line is a record with one empty field. Issues
// found in the record are in s.issues until the next call.
func (s *scanner) next() ([]string, error) {
	s.buf, s.ends, s.issues, s.over, s.quotedCells, s.comments = s.buf[:0], s.ends[:0], nil, 0, 0, 0
	if s.comment != 0 {
		s.skipComments()
	}
	s.line = s.lines + 1
	if s.fastOK {
		if fields, ok := s.fast(); ok {
			return fields, nil
		}
	}
	if _, err := s.r.Peek(1); err != nil {
		return nil, err
	}
	for {
		start := len(s.buf)
		var stop byte
		var err error
		if p, _ := s.r.Peek(1); len(p) == 1 && s.quote != 0 && p[0] == s.quote {
			_, _ = s.r.Discard(1)
			s.quotedCells++
			stop, err = s.quoted(start)
		} else if len(p) == 1 && p[0] == ' ' && s.quotedAhead() {
			s.quotedCells++
			stop, err = s.quoted(start)
		} else {
			stop, err = s.unquoted(start)
		}
		if len(s.ends) < s.maxCols {
			s.ends = append(s.ends, len(s.buf))
		} else {
			s.over++ // counted for the error message, not kept
			s.buf = s.buf[:start]
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
	if s.over > 0 {
		return nil, fmt.Errorf("%w: the file has %d columns (on line %d); the limit is %d", table.ErrUnreadable, len(s.ends)+s.over, s.line, s.maxCols)
	}
	if s.fixUTF8 && !utf8.Valid(s.buf) {
		s.decodeInvalid()
	}
	fields := s.fields[:0]
	from := 0
	for _, end := range s.ends {
		fields = append(fields, text(s.buf[from:end]))
		from = end
	}
	s.fields, s.text = fields, text(s.buf)
	return fields, nil
}

// skipComments skips the comment lines at the reader's position, each
// to its line end (LF, CRLF or CR), counting them.
func (s *scanner) skipComments() {
	for {
		if p, _ := s.r.Peek(1); len(p) == 0 || p[0] != s.comment {
			return
		}
		s.comments++
		s.commentCount++
		if len(s.commentLines) < detect.MaxSkippedRows {
			s.commentLines = append(s.commentLines, s.lines+1)
		}
		s.lines++
		for {
			b, err := s.r.ReadByte()
			if err != nil {
				return
			}
			if b == '\n' {
				break
			}
			if b == '\r' {
				if p, _ := s.r.Peek(1); len(p) == 1 && p[0] == '\n' {
					_, _ = s.r.Discard(1)
				}
				break
			}
		}
	}
}

// fast reads the next record when it lies whole in the buffer and needs
// nothing but plain and quoted cells with doubled quotes: nearly every
// record of nearly every file. It consumes nothing and returns false for
// anything else — a record cut by the buffer's end or by the end of the
// file, a stray quote, blanks after a closing quote, a run of CRs, a cell
// over the size limit, too many cells, text that is not UTF-8 — and next
// then reads the record the general way, so both give the same records
// (FuzzScannerFastPath checks it). It scans the buffer once with no
// per-cell calls into bufio and, unless a cell has doubled quotes, copies
// nothing: the cells are slices of the buffer (BenchmarkCSVReader: 40 %
// fewer instructions than the general path).
//
//nolint:gocognit // per byte of a CSV file (BenchmarkCSVReader): one pass over the buffer, each byte's cases inline
func (s *scanner) fast() ([]string, bool) {
	if s.r.Buffered() == 0 {
		return nil, false
	}
	b, _ := s.r.Peek(s.r.Buffered())
	spans := s.spans[:0]
	i, lines, unescape, quoted := 0, 0, false, 0
	// eol is the first line end (LF or CR) at or after i, found by
	// IndexByte once a line rather than byte by byte; it is moved on when
	// a quoted cell holds line ends.
	eol := lineEndFrom(b, 0)
	if eol < 0 {
		return nil, false
	}
	for {
		if len(spans) >= 2*s.maxCols {
			return nil, false
		}
		var stop byte
		if i < len(b) && s.quote != 0 && b[i] == s.quote {
			quoted++
			start := i + 1
			i = start
			for {
				j := bytes.IndexByte(b[i:], s.quote)
				if j < 0 || i+j+1 >= len(b) {
					return nil, false
				}
				i += j + 1
				if c := b[i]; c == s.quote {
					unescape = true
					i++
					continue
				}
				break
			}
			spans = append(spans, start, i-1)
			if i > eol {
				lines += bytes.Count(b[start:i-1], []byte{'\n'})
				if eol = lineEndFrom(b, i); eol < 0 {
					return nil, false
				}
			}
			stop = b[i]
			if stop != s.delim && stop != '\n' && stop != '\r' {
				return nil, false // blanks after the quote, or a stray quote
			}
			i++
		} else {
			j := eol
			if k := bytes.IndexByte(b[i:eol], s.delim); k >= 0 {
				j = i + k
			}
			if b[i] == ' ' && s.blankQuote {
				// Blanks then a quote: a quoted cell, read the general way.
				k := i
				for k < j && b[k] == ' ' {
					k++
				}
				if k < j && b[k] == s.quote {
					return nil, false
				}
			}
			spans = append(spans, i, j)
			stop = b[j]
			i = j + 1
		}
		if n := len(spans); spans[n-1]-spans[n-2] > s.maxCell {
			return nil, false
		}
		if stop == s.delim {
			if i == len(b) {
				return nil, false // perhaps the end of the file: an empty last cell
			}
			continue
		}
		if stop == '\r' { // CRLF, or a lone CR before anything but another CR
			if i == len(b) || b[i] == '\r' {
				return nil, false
			}
			if b[i] == '\n' {
				i++
			}
		}
		break
	}
	if s.fixUTF8 && !utf8.Valid(b[spans[0]:spans[len(spans)-1]]) {
		return nil, false // nothing of the record is kept: next reads it the general way
	}
	s.spans, s.quotedCells = spans, quoted
	fields := s.fields[:0]
	if unescape {
		// The cells are copied to buf, each quote pair in a quoted cell as
		// one quote. (A quoted cell is one after a quote: an unquoted cell
		// starts the record or follows the delimiter.)
		for k := 0; k < len(spans); k += 2 {
			cell := b[spans[k]:spans[k+1]]
			for spans[k] > 0 && b[spans[k]-1] == s.quote {
				q := bytes.IndexByte(cell, s.quote)
				if q < 0 {
					break
				}
				s.buf = append(s.buf, cell[:q+1]...)
				cell = cell[q+2:]
			}
			s.buf = append(s.buf, cell...)
			s.ends = append(s.ends, len(s.buf))
		}
		from := 0
		for _, end := range s.ends {
			fields = append(fields, text(s.buf[from:end]))
			from = end
		}
		s.text = text(s.buf)
	} else {
		// The cells are where they stand in the buffer.
		for k := 0; k < len(spans); k += 2 {
			fields = append(fields, text(b[spans[k]:spans[k+1]]))
		}
		s.text = text(b[spans[0]:spans[len(spans)-1]])
	}
	s.fields = fields
	_, _ = s.r.Discard(i)
	s.lines += lines + 1
	return fields, true
}

// lineEndFrom returns the index of the first LF or CR in b[from:], or -1.
func lineEndFrom(b []byte, from int) int {
	nl := bytes.IndexByte(b[from:], '\n')
	if nl < 0 {
		return -1
	}
	if cr := bytes.IndexByte(b[from:from+nl], '\r'); cr >= 0 {
		nl = cr
	}
	return from + nl
}

// decodeInvalid rewrites the record's bytes that are not UTF-8 as
// Windows-1252 characters, keeping the field ends in step.
func (s *scanner) decodeInvalid() {
	out := make([]byte, 0, len(s.buf)+16)
	from := 0
	for i, end := range s.ends {
		field := s.buf[from:end]
		for len(field) > 0 {
			r, n := utf8.DecodeRune(field)
			if r == utf8.RuneError && n == 1 {
				r = charmap.Windows1252.DecodeByte(field[0])
			}
			out = utf8.AppendRune(out, r)
			field = field[n:]
		}
		from = end
		s.ends[i] = len(out)
	}
	s.buf = out
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
				if len(s.buf)-start > s.maxCell {
					return 0, s.cellTooBig()
				}
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

// lineEnd folds CRLF, a lone CR and \r\r…\n into '\n'.
func (s *scanner) lineEnd(c byte) byte {
	if c != '\r' {
		return c
	}
	for {
		p, err := s.r.Peek(1)
		if err != nil {
			return '\n'
		}
		switch p[0] {
		case '\n':
			_, _ = s.r.Discard(1)
			return '\n'
		case '\r':
			// Only a run that ends in LF is one line end; a CR-only
			// file's blank line (\r\r then text) is kept.
			q, _ := s.r.Peek(s.r.Buffered())
			i := bytes.IndexFunc(q, func(r rune) bool { return r != '\r' })
			if i < 0 || q[i] != '\n' {
				return '\n'
			}
			_, _ = s.r.Discard(i + 1)
			return '\n'
		default:
			return '\n'
		}
	}
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
// follows the closing quote (delimiter or '\n'). The size limit holds for
// every cell, not only for those longer than the buffer.
func (s *scanner) quoted(start int) (byte, error) {
	stop, err := s.quotedField(start)
	if (err == nil || errors.Is(err, io.EOF)) && len(s.buf)-start > s.maxCell {
		return 0, s.cellTooBig()
	}
	return stop, err
}

// quotedField is quoted's reading of the cell's text, through escapes,
// doubled and stray quotes and blanks after the closing quote, to what
// follows that quote.
//
//nolint:gocognit // per byte of a quoted CSV cell (BenchmarkCSVReader): one pass over the buffer, each byte's cases inline
func (s *scanner) quotedField(start int) (byte, error) {
	s.raw = s.raw[:0]
	lines := s.lines
	stray := false
	for {
		b, err := s.peekAll()
		if err != nil {
			return s.unterminated(start, lines)
		}
		i := bytes.IndexByte(b, s.quote)
		if s.escape != 0 {
			if e := bytes.IndexByte(b, s.escape); e >= 0 && (i < 0 || e < i) {
				// An escape: the byte after it is taken as it is.
				s.lines += bytes.Count(b[:e], []byte{'\n'})
				s.buf = append(s.buf, b[:e]...)
				s.raw = append(s.raw, b[:e+1]...)
				_, _ = s.r.Discard(e + 1)
				c, err := s.r.ReadByte()
				if err != nil {
					return s.unterminated(start, lines)
				}
				if c == '\n' {
					s.lines++
				}
				s.raw = append(s.raw, c)
				if c != s.quote && c != s.escape {
					s.buf = append(s.buf, s.escape) // \n, \t …: not an escape of ours, kept as written
				}
				s.buf = append(s.buf, c)
				if len(s.buf)-start > s.maxCell {
					return 0, s.cellTooBig()
				}
				continue
			}
		}
		if i < 0 {
			s.lines += bytes.Count(b, []byte{'\n'})
			s.buf = append(s.buf, b...)
			s.raw = append(s.raw, b...)
			_, _ = s.r.Discard(len(b))
		} else {
			s.lines += bytes.Count(b[:i], []byte{'\n'})
			s.buf = append(s.buf, b[:i]...)
			s.raw = append(s.raw, b[:i+1]...)
			_, _ = s.r.Discard(i + 1)
			next, err := s.r.ReadByte()
			if err != nil {
				return 0, err // the closing quote ends the file
			}
			s.raw = append(s.raw, next)
			switch {
			case next == s.quote:
				if stray && s.endsField() {
					s.buf = append(s.buf, s.quote)
					c, err := s.r.ReadByte()
					if err != nil {
						return 0, err
					}
					return s.lineEnd(c), nil
				}
				s.buf = append(s.buf, s.quote)
			case next == s.delim:
				return next, nil
			case next == '\n' || next == '\r':
				return s.lineEnd(next), nil
			case (next == ' ' || next == '\t') && s.spacesThenEnd():
				// "x" followed by blanks, then the delimiter or a line
				// end: a closing quote with padding, which is dropped.
				c, err := s.r.ReadByte()
				if err != nil {
					return 0, err
				}
				return s.lineEnd(c), nil
			default:
				// A stray quote: keep it and go on inside the field, as
				// spreadsheet programs do.
				if !stray {
					s.warn("stray_quote", fmt.Sprintf("A quote inside a quoted cell on line %d is neither doubled nor closing; it is kept as a character.", s.lines+1))
				}
				stray = true
				s.buf = append(s.buf, s.quote, next)
			}
		}
		if len(s.buf)-start > s.maxCell {
			return 0, s.cellTooBig()
		}
	}
}

// spacesThenEnd skips blanks when the delimiter, a line end or the end of
// the file follows them within the buffered bytes.
func (s *scanner) spacesThenEnd() bool {
	p, _ := s.r.Peek(s.r.Buffered())
	i := 0
	for i < len(p) && (p[i] == ' ' || p[i] == '\t') && p[i] != s.delim {
		i++
	}
	if i < len(p) && p[i] != s.delim && p[i] != '\n' && p[i] != '\r' {
		return false
	}
	if i == len(p) {
		if _, err := s.r.Peek(i + 1); err == nil {
			return false // more blanks than buffered: not padding
		}
		_, _ = s.r.Discard(i)
		return true // blanks to the end of the file
	}
	_, _ = s.r.Discard(i)
	return true
}

// endsField tells whether the next byte ends a field (or the file is over).
func (s *scanner) endsField() bool {
	p, err := s.r.Peek(1)
	return err != nil || p[0] == s.delim || p[0] == '\n' || p[0] == '\r'
}

// unterminated handles a quote still open at the end of the file: the
// field's bytes are read again with the opening quote as a character.
func (s *scanner) unterminated(start, lines int) (byte, error) {
	s.warn("unterminated_quote", fmt.Sprintf("A quote opened on line %d is never closed; it is read as a character.", lines+1))
	s.lines = lines
	s.buf = append(s.buf[:start], s.quote)
	s.r = bufio.NewReaderSize(bytes.NewReader(append([]byte(nil), s.raw...)), 64<<10)
	return s.unquoted(start)
}

func (s *scanner) warn(code, msg string) {
	s.issues = append(s.issues, table.CellIssue{Column: len(s.ends), Code: code, Message: msg})
}

func (s *scanner) cellTooBig() error {
	return fmt.Errorf("%w: a cell starting on line %d is over %d bytes (an unterminated quote?)", table.ErrUnreadable, s.line, s.maxCell)
}
