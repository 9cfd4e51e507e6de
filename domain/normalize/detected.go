package normalize

import (
	"encoding/json"
	"strconv"

	"github.com/tabnorm/tabnorm/domain/table"
)

// detectedJSON is result.detected (API.md §5.2): what the readers and the
// engine decided, with options that reproduce the run when passed back.
type detectedJSON struct {
	Options map[string]any `json:"options"`
	Files   []detectedFile `json:"files"`
}

type detectedFile struct {
	SourceFile         *string `json:"source_file"`
	Format             string  `json:"format"`
	Encoding           string  `json:"encoding"`
	EncodingConfidence string  `json:"encoding_confidence"`
	Delimiter          string  `json:"delimiter"`
	Quote              string  `json:"quote"`
	Escape             string  `json:"escape"`
	Sheet              string  `json:"sheet"`
	HeaderRow          int     `json:"header_row"`
	SkippedRows        []int   `json:"skipped_rows"`
	SkippedCount       int     `json:"skipped_count"`
}

type detectedColumn struct {
	DateOrder string         `json:"date_order,omitempty"`
	Decimal   string         `json:"decimal,omitempty"`
	Evidence  map[string]int `json:"evidence"`
}

// DetectedJSON is the run's detected document. Its "options" are the
// reader's settings the files agree on and every mapped column's date
// order and decimal mark (with the evidence that decided them, which the
// options accept and ignore): passed back as a job's options, they make
// the readers and the engine decide the same.
func (r Result) DetectedJSON() json.RawMessage {
	d := detectedJSON{Options: map[string]any{}, Files: []detectedFile{}}
	for i, f := range r.Detected {
		df := detectedFile{Format: string(f.Format), Encoding: f.Encoding, EncodingConfidence: f.EncodingConfidence, Delimiter: f.Delimiter,
			Quote: f.Quote, Escape: f.Escape, Sheet: f.Sheet, HeaderRow: f.HeaderRow, SkippedRows: f.SkippedRows, SkippedCount: f.SkippedCount}
		if df.SkippedRows == nil {
			df.SkippedRows = []int{}
		}
		if f.SourceFile != "" {
			df.SourceFile = &r.Detected[i].SourceFile
		}
		d.Files = append(d.Files, df)
	}
	// A reader setting goes into the options when every file it applies to
	// agrees on it: the delimiter, quote and escape of delimited files, the
	// header row of delimited files and workbooks, the sheet of workbooks.
	// An unquoted or header-less reading is said explicitly ("none"), so
	// passing the options back cannot detect something else.
	delimited := func(f FileDetection) bool { return f.Format == table.CSV || f.Format == table.TSV }
	tabular := func(f FileDetection) bool { return delimited(f) || f.Format == table.XLSX }
	workbook := func(f FileDetection) bool { return f.Format == table.XLSX }
	text := func(f FileDetection) bool { return f.Format != table.XLSX }
	agree := func(key string, applies func(FileDetection) bool, v func(FileDetection) string) {
		first, seen := "", false
		for _, f := range r.Detected {
			if !applies(f) {
				continue
			}
			if seen && v(f) != first {
				return
			}
			first, seen = v(f), true
		}
		if first != "" {
			d.Options[key] = first
		}
	}
	orNone := func(s string) string {
		if s == "" {
			return "none"
		}
		return s
	}
	agree("encoding", text, func(f FileDetection) string { return f.Encoding })
	agree("delimiter", delimited, func(f FileDetection) string {
		if f.Delimiter == "\t" {
			return `\t`
		}
		return f.Delimiter
	})
	agree("quote", delimited, func(f FileDetection) string { return orNone(f.Quote) })
	agree("escape", delimited, func(f FileDetection) string { return orNone(f.Escape) })
	agree("sheet", workbook, func(f FileDetection) string { return f.Sheet })
	agree("header_row", tabular, func(f FileDetection) string {
		if f.HeaderRow == 0 {
			return "none"
		}
		return strconv.Itoa(f.HeaderRow)
	})
	if h, ok := d.Options["header_row"].(string); ok && h != "none" {
		d.Options["header_row"], _ = strconv.Atoi(h)
	}
	cols := map[string]detectedColumn{}
	for _, dc := range r.Decisions {
		if dc.Column == "" || dc.DateOrder == "" && dc.Decimal == "" {
			continue
		}
		c := cols[dc.Column]
		if c.Evidence == nil {
			c.Evidence = map[string]int{}
		}
		if dc.DateOrder != "" {
			c.DateOrder = dc.DateOrder
			c.Evidence["day_first"] += dc.DayFirst
			c.Evidence["month_first"] += dc.MonthFirst
			c.Evidence["date_ambiguous"] += dc.DateAmbiguous
		}
		if dc.Decimal != "" {
			c.Decimal = dc.Decimal
			c.Evidence["decimal_point"] += dc.PointVotes
			c.Evidence["decimal_comma"] += dc.CommaVotes
			c.Evidence["decimal_ambiguous"] += dc.DecimalAmbiguous
		}
		cols[dc.Column] = c
	}
	if len(cols) > 0 {
		d.Options["columns"] = cols
	}
	b, err := json.Marshal(d)
	if err != nil {
		panic("detected: " + err.Error())
	}
	return b
}
