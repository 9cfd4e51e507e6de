package httpapi

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"strconv"

	"github.com/tabnorm/tabnorm/adapters/export"
)

// writeCSV turns stored JSON lines into CSV with the given columns. A line
// is an object of scalars, as the engine writes them, and is read in place
// without building a map (export.Line); a line it does not read so (a
// nested value, an escape it leaves to encoding/json) is decoded by
// encoding/json (export.DecodeLine), which gives the same cells. A line
// that is not JSON ends the download there, as a decoder's error does.
func writeCSV(w io.Writer, rc io.Reader, columns []string) {
	cw := csv.NewWriter(w)
	_ = cw.Write(columns)
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
