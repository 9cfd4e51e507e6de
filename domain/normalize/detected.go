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
	d := detectedJSON{Options: agreedOptions(r.Detected), Files: []detectedFile{}}
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
	if cols := detectedColumns(r.Decisions); len(cols) > 0 {
		d.Options["columns"] = cols
	}
	b, err := json.Marshal(d)
	if err != nil {
		panic("detected: " + err.Error())
	}
	return b
}

// readerSettings are the reader settings detected options may carry: each
// applies to some formats, and goes into the options when every file it
// applies to agrees on it. An unquoted, header-less or comment-less
// reading is said explicitly ("none"), so passing the options back cannot
// detect something else (a file starting with # read with comment none
// would be read with comments).
var readerSettings = []struct {
	key     string
	applies func(FileDetection) bool
	value   func(FileDetection) string
}{
	{"encoding", isText, func(f FileDetection) string { return f.Encoding }},
	{"delimiter", isDelimited, func(f FileDetection) string {
		if f.Delimiter == "\t" {
			return `\t`
		}
		return f.Delimiter
	}},
	{"quote", isDelimited, func(f FileDetection) string { return orNone(f.Quote) }},
	{"escape", isDelimited, func(f FileDetection) string { return orNone(f.Escape) }},
	{"comment", isDelimited, func(f FileDetection) string { return orNone(f.Comment) }},
	{"sheet", isWorkbook, func(f FileDetection) string { return f.Sheet }},
	{"header_row", isTabular, func(f FileDetection) string {
		if f.HeaderRow == 0 {
			return "none"
		}
		return strconv.Itoa(f.HeaderRow)
	}},
}

func isDelimited(f FileDetection) bool { return f.Format == table.CSV || f.Format == table.TSV }
func isTabular(f FileDetection) bool   { return isDelimited(f) || f.Format == table.XLSX }
func isWorkbook(f FileDetection) bool  { return f.Format == table.XLSX }
func isText(f FileDetection) bool      { return f.Format != table.XLSX }

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// agreedOptions are the reader settings the files agree on; a header row
// other than "none" is a number, as the header_row option takes it.
func agreedOptions(files []FileDetection) map[string]any {
	opts := map[string]any{}
	for _, rs := range readerSettings {
		if v, ok := agreed(files, rs.applies, rs.value); ok && v != "" {
			opts[rs.key] = v
		}
	}
	if h, ok := opts["header_row"].(string); ok && h != "none" {
		opts["header_row"], _ = strconv.Atoi(h)
	}
	return opts
}

// agreed returns the value every file the setting applies to has; false
// when two of them differ.
func agreed(files []FileDetection, applies func(FileDetection) bool, value func(FileDetection) string) (string, bool) {
	first, seen := "", false
	for _, f := range files {
		if !applies(f) {
			continue
		}
		if seen && value(f) != first {
			return "", false
		}
		first, seen = value(f), true
	}
	return first, true
}

// detectedColumns are the date order and decimal mark decided for each
// mapped source column, with the evidence summed over the files.
func detectedColumns(decisions []Decision) map[string]detectedColumn {
	cols := map[string]detectedColumn{}
	for _, dc := range decisions {
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
	return cols
}
