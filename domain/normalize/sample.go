package normalize

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/tabnorm/tabnorm/domain/table"
)

// A review reads the first records of each file once, keeps them, and
// computes its proposal and preview from them, again after every change
// of the mapping, without the file.
const (
	// SampleRecords is how many records of each file a review reads.
	SampleRecords = 1000
	// SampleBytes bounds the text of one file's sample: a file of very
	// wide or long records is sampled over fewer records.
	SampleBytes = 8 << 20
	// SampleBytesTotal bounds the text of all the files' samples together
	// (a connect job reads up to 100 files); a file past it is sampled over
	// at least one record.
	SampleBytesTotal = 32 << 20
)

// Sample is the first records of one file as its reader gave them.
type Sample struct {
	FileID    string
	Format    table.Format
	Detection *table.Detection // nil when the reader does not say
	Header    []string
	Records   []table.Record // owned copies
	// Complete says the file has no records beyond these.
	Complete bool
	// Sheets are a workbook's sheets, for choosing another; nil for a
	// file of another format.
	Sheets []table.Sheet
	// FirstRows are the file's (or sheet's) first FirstRowsCount rows as
	// they are, the header and any rows above it included, each cell cut
	// to FirstRowCellBytes: what a person picks the header row from.
	FirstRows [][]string
}

// The bounds of Sample.FirstRows.
const (
	FirstRowsCount    = 10
	FirstRowCellBytes = 64
	firstRowCells     = 100
)

// readFirstRows reads the first rows of a file as they are.
func readFirstRows(src Source) [][]string {
	if src.OpenRaw == nil {
		return nil
	}
	r, err := src.OpenRaw()
	if err != nil {
		return nil // the sample's own read reports a file it cannot read
	}
	defer func() { _ = r.Close() }()
	out := [][]string{}
	for len(out) < FirstRowsCount {
		rec, err := r.Next()
		if err != nil || rec.RowIssue != nil {
			break
		}
		row := make([]string, 0, min(len(rec.Cells), firstRowCells))
		for _, c := range rec.Cells[:min(len(rec.Cells), firstRowCells)] {
			row = append(row, cutUTF8(c, FirstRowCellBytes))
		}
		out = append(out, row)
	}
	return out
}

// cutUTF8 cuts s to at most n bytes, on a character's boundary.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return strings.Clone(s)
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strings.Clone(s[:n])
}

// ReadSamples reads the header and first records of every source. A
// reader's error is the job's failure, as in a run.
func ReadSamples(ctx context.Context, sources []Source) ([]Sample, error) {
	out := make([]Sample, 0, len(sources))
	left := SampleBytesTotal
	for _, src := range sources {
		s, size, err := readSample(ctx, src, min(SampleBytes, left))
		if err != nil {
			return nil, err
		}
		left = max(0, left-size)
		out = append(out, s)
	}
	return out, nil
}

// readSample reads the header and the first records of a file, until
// SampleRecords or, past the first record, budget bytes of text.
func readSample(ctx context.Context, src Source, budget int) (s Sample, size int, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = panicFailure(v)
		}
	}()
	r, err := src.Open()
	if err != nil {
		return s, 0, readerFailure(ctx, err, src.FileID)
	}
	defer func() { _ = r.Close() }()
	s = Sample{FileID: src.FileID, Format: r.Format(), Header: append([]string(nil), r.Header()...), FirstRows: readFirstRows(src)}
	if d, ok := r.(table.Describer); ok {
		det := d.Detection()
		s.Detection = &det
	}
	if l, ok := r.(table.SheetLister); ok {
		if s.Sheets, err = l.Sheets(); err != nil {
			return s, 0, readerFailure(ctx, err, src.FileID)
		}
	}
	for len(s.Records) < SampleRecords && (len(s.Records) == 0 || size < budget) {
		if err := ctx.Err(); err != nil {
			return s, size, err
		}
		rec, err := r.Next()
		if err == io.EOF {
			s.Complete = true
			break
		}
		if err != nil {
			return s, size, readerFailure(ctx, err, src.FileID)
		}
		kept := table.Record{Number: rec.Number, Owned: true, Cells: make([]string, len(rec.Cells))}
		for i, c := range rec.Cells {
			kept.Cells[i] = strings.Clone(c)
			size += len(c)
		}
		if rec.RowIssue != nil {
			ri := *rec.RowIssue
			kept.RowIssue = &ri
		}
		kept.CellIssues = append([]table.CellIssue(nil), rec.CellIssues...)
		s.Records = append(s.Records, kept)
	}
	return s, size, nil
}

// Source replays the sample as a file, so the engine reads it as it read
// the file.
func (s *Sample) Source() Source {
	return Source{FileID: s.FileID, Open: func() (table.Reader, error) {
		if s.Detection == nil {
			return &sampleReader{s: s}, nil
		}
		return &describedSample{sampleReader{s: s}}, nil
	}}
}

type sampleReader struct {
	s    *Sample
	next int
	read int64
}

func (r *sampleReader) Format() table.Format { return r.s.Format }
func (r *sampleReader) Header() []string     { return r.s.Header }
func (r *sampleReader) BytesRead() int64     { return r.read }
func (r *sampleReader) Close() error         { return nil }

func (r *sampleReader) Next() (table.Record, error) {
	if r.next >= len(r.s.Records) {
		return table.Record{}, io.EOF
	}
	rec := r.s.Records[r.next]
	r.next++
	for _, c := range rec.Cells {
		r.read += int64(len(c)) + 1
	}
	return rec, nil
}

// describedSample is the sample of a file whose reader reported its
// decisions: it reports them too, so the warnings about them are the same.
type describedSample struct{ sampleReader }

func (r *describedSample) Detection() table.Detection { return *r.s.Detection }

// sampleJSON is how a sample is stored between a review's changes.
type sampleJSON struct {
	FileID    string          `json:"file_id"`
	Format    table.Format    `json:"format"`
	Detection *detectionJSON  `json:"detection"`
	Header    []string        `json:"header"`
	Records   []sampleRecJSON `json:"records"`
	Complete  bool            `json:"complete"`
	Sheets    []sheetJSON     `json:"sheets,omitempty"`
	FirstRows [][]string      `json:"first_rows,omitempty"`
}

type sheetJSON struct {
	Name     string   `json:"name"`
	Rows     int      `json:"rows"`
	Complete bool     `json:"complete"`
	FirstRow []string `json:"first_row"`
}

type detectionJSON struct {
	Format             table.Format `json:"format"`
	Encoding           string       `json:"encoding"`
	EncodingConfidence string       `json:"encoding_confidence"`
	Delimiter          string       `json:"delimiter"`
	Quote              string       `json:"quote"`
	Escape             string       `json:"escape"`
	Sheet              string       `json:"sheet"`
	HeaderRow          int          `json:"header_row"`
	SkippedRows        []int        `json:"skipped_rows"`
	SkippedCount       int          `json:"skipped_count"`
}

type sampleRecJSON struct {
	Number     int             `json:"n"`
	Cells      []string        `json:"c"`
	RowIssue   *cellIssueJSON  `json:"ri,omitempty"`
	CellIssues []cellIssueJSON `json:"ci,omitempty"`
}

type cellIssueJSON struct {
	Column  int    `json:"col"`
	Code    string `json:"code"`
	Message string `json:"message"`
	Value   string `json:"value"`
}

// MarshalSamples encodes samples for storage.
func MarshalSamples(samples []Sample) ([]byte, error) {
	out := make([]sampleJSON, len(samples))
	for i, s := range samples {
		sj := sampleJSON{FileID: s.FileID, Format: s.Format, Header: s.Header, Complete: s.Complete, Records: make([]sampleRecJSON, len(s.Records)), FirstRows: s.FirstRows}
		for _, sh := range s.Sheets {
			sj.Sheets = append(sj.Sheets, sheetJSON(sh))
		}
		if d := s.Detection; d != nil {
			sj.Detection = &detectionJSON{Format: d.Format, Encoding: d.Encoding, EncodingConfidence: d.EncodingConfidence, Delimiter: d.Delimiter,
				Quote: d.Quote, Escape: d.Escape, Sheet: d.Sheet, HeaderRow: d.HeaderRow, SkippedRows: d.SkippedRows, SkippedCount: d.SkippedCount}
		}
		for k, r := range s.Records {
			rj := sampleRecJSON{Number: r.Number, Cells: r.Cells}
			if r.RowIssue != nil {
				rj.RowIssue = &cellIssueJSON{Column: r.RowIssue.Column, Code: r.RowIssue.Code, Message: r.RowIssue.Message, Value: r.RowIssue.Value}
			}
			for _, ci := range r.CellIssues {
				rj.CellIssues = append(rj.CellIssues, cellIssueJSON(ci))
			}
			sj.Records[k] = rj
		}
		out[i] = sj
	}
	return json.Marshal(out)
}

// UnmarshalSamples decodes what MarshalSamples stored.
func UnmarshalSamples(b []byte) ([]Sample, error) {
	var in []sampleJSON
	if err := json.Unmarshal(b, &in); err != nil {
		return nil, fmt.Errorf("review sample: %w", err)
	}
	out := make([]Sample, len(in))
	for i, sj := range in {
		s := Sample{FileID: sj.FileID, Format: sj.Format, Header: sj.Header, Complete: sj.Complete, Records: make([]table.Record, len(sj.Records)), FirstRows: sj.FirstRows}
		for _, sh := range sj.Sheets {
			s.Sheets = append(s.Sheets, table.Sheet(sh))
		}
		if d := sj.Detection; d != nil {
			s.Detection = &table.Detection{Format: d.Format, Encoding: d.Encoding, EncodingConfidence: d.EncodingConfidence, Delimiter: d.Delimiter,
				Quote: d.Quote, Escape: d.Escape, Sheet: d.Sheet, HeaderRow: d.HeaderRow, SkippedRows: d.SkippedRows, SkippedCount: d.SkippedCount}
		}
		for k, rj := range sj.Records {
			r := table.Record{Number: rj.Number, Cells: rj.Cells, Owned: true}
			if r.Cells == nil {
				r.Cells = []string{}
			}
			if rj.RowIssue != nil {
				r.RowIssue = &table.CellIssue{Column: rj.RowIssue.Column, Code: rj.RowIssue.Code, Message: rj.RowIssue.Message, Value: rj.RowIssue.Value}
				r.Cells = nil
			}
			for _, ci := range rj.CellIssues {
				r.CellIssues = append(r.CellIssues, table.CellIssue(ci))
			}
			s.Records[k] = r
		}
		out[i] = s
	}
	return out, nil
}

// columnValues returns each column's values in the sample that are not
// missing, trimmed: what the matcher profiles.
func (s *Sample) columnValues(missing []string) [][]string {
	cv := newColumnValues(len(s.Header), missing)
	for _, rec := range s.Records {
		cv.add(rec.Cells)
	}
	return cv.cols
}

// columnValuesOf reads a source's first SampleRecords records for the
// matcher, as a review's sample holds them. A reader's error ends the
// reading: the run reports it when it reads the file in full.
func columnValuesOf(ctx context.Context, src Source, ncols int, missing []string) [][]string {
	cv := newColumnValues(ncols, missing)
	r, err := src.Open()
	if err != nil {
		return cv.cols
	}
	defer func() { _ = r.Close() }()
	for range SampleRecords {
		if ctx.Err() != nil {
			return cv.cols
		}
		rec, err := r.Next()
		if err != nil {
			return cv.cols
		}
		cv.add(rec.Cells)
	}
	return cv.cols
}

// valueCollector gathers each column's non-missing values, cloned from
// the reader's memory.
type valueCollector struct {
	cols    [][]string
	missing map[string]bool
}

func newColumnValues(ncols int, missing []string) *valueCollector {
	cv := &valueCollector{cols: make([][]string, ncols), missing: map[string]bool{}}
	for _, m := range missing {
		cv.missing[m] = true
	}
	if len(missing) == 0 {
		cv.missing[""] = true
	}
	return cv
}

func (cv *valueCollector) add(cells []string) {
	for c, v := range cells {
		if c >= len(cv.cols) {
			break
		}
		v = trimSpace(v)
		if v == "" || cv.missing[v] {
			continue
		}
		cv.cols[c] = append(cv.cols[c], strings.Clone(v))
	}
}
