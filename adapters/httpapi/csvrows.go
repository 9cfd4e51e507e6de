package httpapi

import (
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tabnorm/tabnorm/adapters/export"
)

// writeCSV turns stored JSON lines into CSV with the given columns. A line
// is an object of scalars, as the engine writes them, and is read in place
// without building a map (export.Line); a line it does not read so (a
// nested value, an escape it leaves to encoding/json) is decoded by
// encoding/json (export.DecodeLine), which gives the same cells. A line
// that is not JSON ends the download there, as a decoder's error does.
func writeCSV(w io.Writer, rc io.Reader, columns []string) {
	cw := newCSVWriter(w)
	if cw.write(columns) != nil {
		return
	}
	lines, line := export.NewLines(rc), export.NewLine(columns)
	rec, vals := make([]string, len(columns)), make([]any, len(columns))
	for {
		b, err := lines.Next()
		if b != nil {
			out := rec
			if line.Read(b) {
				out = line.Texts()
			} else {
				if export.DecodeLine(b, columns, vals) != nil {
					break
				}
				for i, v := range vals {
					rec[i] = csvText(v)
				}
			}
			if cw.write(out) != nil {
				return
			}
		}
		if err != nil {
			break
		}
	}
	_ = cw.flush() // the client went away, or the download is whole
}

// csvWriter writes records as encoding/csv's Writer does with its
// defaults (comma, LF, a field quoted when it holds a comma, a quote, a
// CR or LF, starts with a space, or is `\.`), byte for byte, into a
// 64 KiB buffer: the download's writes are few and large, and a field is
// looked at once, by a table, instead of a rune at a time.
type csvWriter struct {
	w   io.Writer
	buf []byte
}

const csvBuffer = 64 << 10

func newCSVWriter(w io.Writer) *csvWriter {
	return &csvWriter{w: w, buf: make([]byte, 0, csvBuffer+4<<10)}
}

// csvSpecial are the bytes that make a field quoted wherever they are.
var csvSpecial = [256]bool{',': true, '"': true, '\r': true, '\n': true}

func (cw *csvWriter) write(rec []string) error {
	for i, f := range rec {
		if i > 0 {
			cw.buf = append(cw.buf, ',')
		}
		if !csvNeedsQuotes(f) {
			cw.buf = append(cw.buf, f...)
			continue
		}
		cw.buf = append(cw.buf, '"')
		for {
			q := strings.IndexByte(f, '"')
			if q < 0 {
				break
			}
			cw.buf = append(cw.buf, f[:q+1]...)
			cw.buf = append(cw.buf, '"')
			f = f[q+1:]
		}
		cw.buf = append(cw.buf, f...)
		cw.buf = append(cw.buf, '"')
	}
	cw.buf = append(cw.buf, '\n')
	if len(cw.buf) >= csvBuffer {
		return cw.flush()
	}
	return nil
}

func (cw *csvWriter) flush() error {
	_, err := cw.w.Write(cw.buf)
	cw.buf = cw.buf[:0]
	return err
}

// csvNeedsQuotes is encoding/csv's fieldNeedsQuotes for a comma.
func csvNeedsQuotes(f string) bool {
	if f == "" {
		return false
	}
	if f == `\.` {
		return true
	}
	for i := 0; i < len(f); i++ {
		if csvSpecial[f[i]] {
			return true
		}
	}
	r, _ := utf8.DecodeRuneInString(f)
	return unicode.IsSpace(r)
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
