package export

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Line reads stored JSON lines of rows or issues, an object of scalars
// each as the engine writes them, in place: no map is built and a line's
// cells share two strings. Read tells a line it does not read so (a nested
// value, an escape it leaves to encoding/json), which the caller then
// decodes with encoding/json, to the same values.
type Line struct {
	columns []string
	index   map[string]int
	rec     []string   // by column: the cell's text ("" for null or absent)
	kinds   []Kind     // by column: what the cell holds
	buf     []byte     // unescaped strings of the line
	cells   []lineCell // by column: where its text is
}

// Kind is what a cell of a line holds.
type Kind uint8

// The kinds of cells.
const (
	Null   Kind = iota // null, or no such key
	String             // a JSON string, unescaped
	Number             // a JSON number, as written
	Bool               // true or false
)

// NewLine returns a reader of lines into the given columns (keys).
func NewLine(columns []string) *Line {
	index := make(map[string]int, len(columns))
	for i, c := range columns {
		index[c] = i
	}
	return &Line{columns: columns, index: index, rec: make([]string, len(columns)), kinds: make([]Kind, len(columns)),
		cells: make([]lineCell, len(columns))}
}

// Text is column i's text after Read: a string unescaped, a number as
// written, true or false; "" for null or absent.
func (l *Line) Text(i int) string { return l.rec[i] }

// Kind is what column i holds after Read.
func (l *Line) Kind(i int) Kind { return l.kinds[i] }

// Texts are the columns' texts after Read, shared until the next Read.
func (l *Line) Texts() []string { return l.rec }

// lineCell is where a column's text is: line[start:end], or buf[start:end]
// when inBuf.
type lineCell struct {
	start, end int
	inBuf      bool
	kind       Kind
}

// Read reads a line of an object of scalars into the columns; false
// when it is not such a line (the caller decodes it with encoding/json).
func (l *Line) Read(line []byte) bool {
	clear(l.cells)
	l.buf = l.buf[:0]
	if !l.scan(line) {
		return false
	}
	text, unescaped := string(line), string(l.buf)
	for i, c := range l.cells {
		l.kinds[i] = c.kind
		switch {
		case c.inBuf:
			l.rec[i] = unescaped[c.start:c.end]
		default:
			l.rec[i] = text[c.start:c.end]
		}
	}
	return true
}

// scan finds each column's cell in line.
func (l *Line) scan(line []byte) bool {
	i := skipSpace(line, 0)
	if i >= len(line) || line[i] != '{' {
		return false
	}
	i = skipSpace(line, i+1)
	if i < len(line) && line[i] == '}' {
		return onlySpace(line, i+1)
	}
	for k := 0; ; k++ {
		col, next, ok := l.key(line, i, k)
		if !ok {
			return false
		}
		cell, next, ok := l.value(line, next)
		if !ok {
			return false
		}
		if col >= 0 {
			l.cells[col] = cell
		}
		i = skipSpace(line, next)
		if i >= len(line) {
			return false
		}
		switch line[i] {
		case ',':
			i = skipSpace(line, i+1)
		case '}':
			return onlySpace(line, i+1)
		default:
			return false
		}
	}
}

// key reads the k-th key of an object at line[i] and its colon: the
// column it names (-1 for none) and where its value starts.
func (l *Line) key(line []byte, i, k int) (col, next int, ok bool) {
	if i >= len(line) || line[i] != '"' {
		return 0, 0, false
	}
	key, next, ok := l.str(line, i)
	if !ok {
		return 0, 0, false
	}
	var kb []byte
	if key.inBuf {
		kb = l.buf[key.start:key.end]
	} else {
		kb = line[key.start:key.end]
	}
	col = -1
	if k < len(l.columns) && string(kb) == l.columns[k] {
		col = k
	} else if c, found := l.index[string(kb)]; found {
		col = c
	}
	i = skipSpace(line, next)
	if i >= len(line) || line[i] != ':' {
		return 0, 0, false
	}
	return col, skipSpace(line, i+1), true
}

// value reads the scalar at line[i]: its cell and where it ends; false
// for an object or an array (encoding/json writes them) or a broken line.
func (l *Line) value(line []byte, i int) (cell lineCell, next int, ok bool) {
	if i >= len(line) {
		return lineCell{}, 0, false
	}
	switch c := line[i]; {
	case c == '"':
		v, next, ok := l.str(line, i)
		v.kind = String
		return v, next, ok
	case c == 't' && bytes.HasPrefix(line[i:], []byte("true")):
		return lineCell{start: i, end: i + 4, kind: Bool}, i + 4, true
	case c == 'f' && bytes.HasPrefix(line[i:], []byte("false")):
		return lineCell{start: i, end: i + 5, kind: Bool}, i + 5, true
	case c == 'n' && bytes.HasPrefix(line[i:], []byte("null")):
		return lineCell{}, i + 4, true
	case c == '-' || c >= '0' && c <= '9':
		end := i + 1
		for end < len(line) && isNumberByte(line[end]) {
			end++
		}
		return lineCell{start: i, end: end, kind: Number}, end, true
	}
	return lineCell{}, 0, false
}

// str reads the JSON string starting at line[i] (a quote): where its
// text is, in line when it has no escape, else unescaped into buf.
// Escapes other than one character's or a \u of the Basic Multilingual
// Plane, invalid UTF-8 and control characters are left to encoding/json
// (ok false).
func (l *Line) str(line []byte, i int) (s lineCell, next int, ok bool) {
	start := i + 1
	j, ok := plainRun(line, start)
	switch {
	case !ok:
		return lineCell{}, 0, false
	case line[j] == '"':
		return lineCell{start: start, end: j}, j + 1, true
	}
	at := len(l.buf)
	l.buf = append(l.buf, line[start:j]...)
	for {
		if j, ok = l.unescape(line, j); !ok {
			return lineCell{}, 0, false
		}
		end, ok := plainRun(line, j)
		if !ok {
			return lineCell{}, 0, false
		}
		l.buf = append(l.buf, line[j:end]...)
		if j = end; line[j] == '"' {
			return lineCell{start: at, end: len(l.buf), inBuf: true}, j + 1, true
		}
	}
}

// plainRun reads a string's text from line[j] up to its closing quote or
// its next escape, and returns where that is; false at a control
// character, invalid UTF-8 or the line's end.
//
// Eight bytes are looked at a time while they are plain ASCII (the bulk
// of a stored row's text): notPlain flags the first that is not, and
// the byte-at-a-time switch below reads it.
func plainRun(line []byte, j int) (end int, ok bool) {
	for j < len(line) {
		if j+8 <= len(line) {
			s := notPlain(binary.LittleEndian.Uint64(line[j:]))
			if s == 0 {
				j += 8
				continue
			}
			j += bits.TrailingZeros64(s) >> 3
		}
		switch c := line[j]; {
		case c == '"' || c == '\\':
			return j, true
		case c < 0x20:
			return 0, false
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(line[j:])
			if r == utf8.RuneError && size == 1 {
				return 0, false
			}
			j += size
		default:
			j++
		}
	}
	return 0, false
}

// unescape writes the escape at line[j] (a backslash) into buf and
// returns where the text goes on; false for one it leaves to
// encoding/json.
func (l *Line) unescape(line []byte, j int) (next int, ok bool) {
	if j+1 >= len(line) {
		return 0, false
	}
	switch e := line[j+1]; e {
	case '"', '\\', '/':
		l.buf = append(l.buf, e)
	case 'b':
		l.buf = append(l.buf, '\b')
	case 'f':
		l.buf = append(l.buf, '\f')
	case 'n':
		l.buf = append(l.buf, '\n')
	case 'r':
		l.buf = append(l.buf, '\r')
	case 't':
		l.buf = append(l.buf, '\t')
	case 'u':
		if j+6 > len(line) {
			return 0, false
		}
		v, err := strconv.ParseUint(string(line[j+2:j+6]), 16, 16)
		if err != nil || utf16.IsSurrogate(rune(v)) {
			return 0, false
		}
		l.buf = utf8.AppendRune(l.buf, rune(v))
		return j + 6, true
	default:
		return 0, false
	}
	return j + 2, true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

func onlySpace(b []byte, i int) bool { return skipSpace(b, i) == len(b) }

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'
}

// Eight bytes at once, one a lane (SWAR).
const (
	lanes1    = 0x0101010101010101
	lanesHigh = 0x8080808080808080
)

// notPlain flags, by the high bit of its lane, each byte of x (eight
// bytes of a line, the first in the low lane) that ends a plain run: a
// control character, a quote, a backslash, or one past ASCII. Only the
// lowest flag is exact (a subtraction's borrow runs up from a flagged
// lane), which is the one plainRun reads: zero when all eight are plain.
func notPlain(x uint64) uint64 {
	control := x - lanes1*0x20              // a lane under 0x20 borrows into its high bit
	quote := (x ^ lanes1*'"') - lanes1      // a lane equal to '"' becomes 0xff
	backslash := (x ^ lanes1*'\\') - lanes1 // the same for '\\'
	return (control | quote | backslash | x) & lanesHigh
}
