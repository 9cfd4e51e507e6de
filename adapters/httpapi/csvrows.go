package httpapi

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"strconv"

	"github.com/tabnorm/tabnorm/adapters/export"
)

// writeCSV turns stored JSON lines into CSV with the given columns. A line
// is an object of scalars, as the engine writes them, and is read in place
// without building a map (export.Line); a line it does not read so (a
// nested value, an escape it leaves to encoding/json) is decoded by
// encoding/json, which gives the same cells. A line that is not JSON ends
// the download there, as a decoder's error does.
func writeCSV(w io.Writer, rc io.Reader, columns []string) {
	cw := csv.NewWriter(w)
	_ = cw.Write(columns)
	line := export.NewLine(columns)
	rec := make([]string, len(columns))
	br := bufio.NewReaderSize(rc, 64<<10)
	var long []byte
	for {
		b, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) { // a line longer than the buffer
			long = append(long[:0], b...)
			for errors.Is(err, bufio.ErrBufferFull) {
				b, err = br.ReadSlice('\n')
				long = append(long, b...)
			}
			b = long
		}
		if len(bytes.TrimSpace(b)) > 0 {
			out := rec
			switch {
			case line.Read(b):
				out = line.Texts()
			case !decodeCSV(b, columns, rec):
				cw.Flush()
				return
			}
			if cw.Write(out) != nil {
				return
			}
		}
		if err != nil {
			break
		}
	}
	cw.Flush()
}

// decodeCSV reads a line with encoding/json into rec; false when it is not
// JSON.
func decodeCSV(line []byte, columns, rec []string) bool {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return false
	}
	for i, col := range columns {
		rec[i] = csvText(obj[col])
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
