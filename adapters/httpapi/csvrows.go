package httpapi

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// writeCSV turns stored JSON lines into CSV with the given columns. A line
// is an object of scalars, as the engine writes them, and is read in place
// without building a map (csvLine); a line it does not read so (a nested
// value, an escape it leaves to encoding/json) is decoded by encoding/json,
// which gives the same cells. A line that is not JSON ends the download
// there, as a decoder's error does.
func writeCSV(w io.Writer, rc io.Reader, columns []string) {
	cw := csv.NewWriter(w)
	_ = cw.Write(columns)
	index := make(map[string]int, len(columns))
	for i, c := range columns {
		index[c] = i
	}
	cl := &csvLine{columns: columns, index: index, rec: make([]string, len(columns))}
	br := bufio.NewReaderSize(rc, 64<<10)
	var long []byte
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) { // a line longer than the buffer
			long = append(long[:0], line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if len(bytes.TrimSpace(line)) > 0 {
			if !cl.read(line) && !cl.decode(line) {
				break
			}
			if cw.Write(cl.rec) != nil {
				return
			}
		}
		if err != nil {
			break
		}
	}
	cw.Flush()
}

// csvLine reads one stored line into rec, by column.
type csvLine struct {
	columns []string
	index   map[string]int
	rec     []string
	buf     []byte    // unescaped strings of the line
	cells   []csvCell // by column: where its text is
}

// csvCell is where a column's text is: line[start:end], or buf[start:end]
// when inBuf; none when end is 0 and start is 0.
type csvCell struct {
	start, end int
	inBuf      bool
}

// read reads a line of an object of scalars; false leaves it to decode.
// The cells share two strings, the line's and its unescaped text's.
func (l *csvLine) read(line []byte) bool {
	if l.cells == nil {
		l.cells = make([]csvCell, len(l.columns))
	}
	clear(l.cells)
	l.buf = l.buf[:0]
	if !l.scan(line) {
		return false
	}
	text, unescaped := string(line), string(l.buf)
	for i, c := range l.cells {
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
func (l *csvLine) scan(line []byte) bool {
	i := skipSpace(line, 0)
	if i >= len(line) || line[i] != '{' {
		return false
	}
	i = skipSpace(line, i+1)
	if i < len(line) && line[i] == '}' {
		return onlySpace(line, i+1)
	}
	for k := 0; ; k++ {
		if i >= len(line) || line[i] != '"' {
			return false
		}
		key, next, ok := l.str(line, i)
		if !ok {
			return false
		}
		var kb []byte
		if key.inBuf {
			kb = l.buf[key.start:key.end]
		} else {
			kb = line[key.start:key.end]
		}
		col := -1
		if k < len(l.columns) && string(kb) == l.columns[k] {
			col = k
		} else if c, found := l.index[string(kb)]; found {
			col = c
		}
		i = skipSpace(line, next)
		if i >= len(line) || line[i] != ':' {
			return false
		}
		i = skipSpace(line, i+1)
		if i >= len(line) {
			return false
		}
		var cell csvCell
		switch c := line[i]; {
		case c == '"':
			v, next, ok := l.str(line, i)
			if !ok {
				return false
			}
			cell, i = v, next
		case c == 't' && bytes.HasPrefix(line[i:], []byte("true")):
			cell, i = csvCell{start: i, end: i + 4}, i+4
		case c == 'f' && bytes.HasPrefix(line[i:], []byte("false")):
			cell, i = csvCell{start: i, end: i + 5}, i+5
		case c == 'n' && bytes.HasPrefix(line[i:], []byte("null")):
			i += 4
		case c == '-' || c >= '0' && c <= '9':
			end := i + 1
			for end < len(line) && isNumberByte(line[end]) {
				end++
			}
			cell, i = csvCell{start: i, end: end}, end
		default:
			return false // an object or an array: encoding/json writes it
		}
		if col >= 0 {
			l.cells[col] = cell
		}
		i = skipSpace(line, i)
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

// str reads the JSON string starting at line[i] (a quote): where its
// text is, in line when it has no escape, else unescaped into buf. Escapes other
// than one character's or a \u of the Basic Multilingual Plane, invalid
// UTF-8 and control characters are left to encoding/json (ok false).
func (l *csvLine) str(line []byte, i int) (s csvCell, next int, ok bool) {
	start := i + 1
	j := start
	for j < len(line) {
		c := line[j]
		switch {
		case c == '"':
			return csvCell{start: start, end: j}, j + 1, true
		case c == '\\':
			return l.escaped(line, start, j)
		case c < 0x20:
			return csvCell{}, 0, false
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(line[j:])
			if r == utf8.RuneError && size == 1 {
				return csvCell{}, 0, false
			}
			j += size
			continue
		}
		j++
	}
	return csvCell{}, 0, false
}

// escaped goes on reading a string at its first escape, line[j].
func (l *csvLine) escaped(line []byte, start, j int) (s csvCell, next int, ok bool) {
	at := len(l.buf)
	l.buf = append(l.buf, line[start:j]...)
	for j < len(line) {
		c := line[j]
		switch {
		case c == '"':
			return csvCell{start: at, end: len(l.buf), inBuf: true}, j + 1, true
		case c == '\\':
			if j+1 >= len(line) {
				return csvCell{}, 0, false
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
					return csvCell{}, 0, false
				}
				v, err := strconv.ParseUint(string(line[j+2:j+6]), 16, 16)
				if err != nil || utf16.IsSurrogate(rune(v)) {
					return csvCell{}, 0, false
				}
				l.buf = utf8.AppendRune(l.buf, rune(v))
				j += 6
				continue
			default:
				return csvCell{}, 0, false
			}
			j += 2
			continue
		case c < 0x20:
			return csvCell{}, 0, false
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(line[j:])
			if r == utf8.RuneError && size == 1 {
				return csvCell{}, 0, false
			}
			l.buf = append(l.buf, line[j:j+size]...)
			j += size
			continue
		}
		l.buf = append(l.buf, c)
		j++
	}
	return csvCell{}, 0, false
}

// decode reads a line with encoding/json; false when it is not JSON.
func (l *csvLine) decode(line []byte) bool {
	clear(l.rec)
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return false
	}
	for i, col := range l.columns {
		l.rec[i] = csvText(obj[col])
	}
	return true
}

func csvText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

func onlySpace(b []byte, i int) bool { return skipSpace(b, i) == len(b) }
