package normalize

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"unicode/utf8"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/normalize/match"
	"github.com/tabnorm/tabnorm/domain/schema"
	"github.com/tabnorm/tabnorm/domain/table"
)

// A review (options.review) shows a person how the columns of a job's
// files would map to the schema's fields, with other fields each column
// could take, and what the first rows would come out as with the mapping
// at hand, before the job reads its files in full. It is computed from
// the files' samples, so it can be computed again, quickly and without
// the files, after every change of the mapping.

// PreviewRows is how many output rows a review shows.
const PreviewRows = 50

// maxAlternatives bounds the alternatives offered per column.
const maxAlternatives = 3

// maxSampleValues is how many distinct values of each column a review
// shows, each at most maxSampleValueLen bytes.
const (
	maxSampleValues   = 5
	maxSampleValueLen = 100
)

// ReviewInput is what a review reads: the job's settings and the samples
// of its files. Options.Mapping holds the mapping chosen so far.
type ReviewInput struct {
	Mode    Mode
	Schema  *schema.Schema
	Options Options
	Learned map[string]string
	Samples []Sample
	// Lists are the reference lists the schema checks, by id.
	Lists map[string]ListLookup
}

// Review is a review's document, as the API shows it.
type Review struct {
	Sample SampleSummary `json:"sample"`
	// Columns is every source column of every file, in file order.
	Columns []ReviewColumn `json:"columns"`
	// UnmappedFields are the schema's fields no column of any file takes.
	UnmappedFields []string `json:"unmapped_fields"`
	// Blocking are the problems that keep the job from running: a
	// confirmation is refused while there are any.
	Blocking []Blocker `json:"blocking"`
	// IssueCounts count the sample's issues by field, severity and code.
	IssueCounts []IssueCount `json:"issue_counts"`
	// Preview is the first PreviewRows rows as they would come out.
	Preview []PreviewRow `json:"preview"`
	// Sheets are the sheets of the workbooks among the files, for
	// choosing another (options.sheet); empty for other formats.
	Sheets []ReviewSheet `json:"sheets"`
}

// ReviewSheet is one sheet of a workbook: its rows with a value (all of
// them when Complete, else at least so many), its first such row, and
// whether the sample was read from it.
type ReviewSheet struct {
	SourceFile *string  `json:"source_file"`
	Name       string   `json:"name"`
	Rows       int      `json:"rows"`
	Complete   bool     `json:"complete"`
	FirstRow   []string `json:"first_row"`
	Selected   bool     `json:"selected"`
}

// SampleSummary says what the sample held and how its rows came out.
type SampleSummary struct {
	Records      int64 `json:"records"`
	RowsValid    int64 `json:"rows_valid"`
	RowsRejected int64 `json:"rows_rejected"`
	// Complete says the sample is the whole of every file.
	Complete bool `json:"complete"`
}

// ReviewColumn is one source column: where it goes, how sure the
// mapping is, what else it could be, and some of its values.
type ReviewColumn struct {
	SourceFile   *string  `json:"source_file"`
	SourceColumn string   `json:"source_column"`
	Field        *string  `json:"field"`
	Method       *string  `json:"method"`
	Confidence   *float64 `json:"confidence"`
	// Evidence is what the mapping rests on, for a mapping the matcher
	// made (synonym, fuzzy, content); nil otherwise.
	Evidence *match.Evidence `json:"evidence"`
	// Ignored says the mapping maps the column to null: no method takes it.
	Ignored      bool              `json:"ignored"`
	Alternatives []match.Candidate `json:"alternatives"`
	Values       []string          `json:"values"`
}

// Blocker is a problem that keeps the job from running as mapped.
type Blocker struct {
	Code       domain.Code `json:"code"` // required_field_unmapped, no_columns_mapped
	Field      *string     `json:"field"`
	SourceFile *string     `json:"source_file"`
	Message    string      `json:"message"`
}

// IssueCount is how many issues of one code a field had in the sample.
type IssueCount struct {
	Field    *string `json:"field"`
	Severity string  `json:"severity"`
	Code     string  `json:"code"`
	Count    int64   `json:"count"`
}

// PreviewRow is one record of the sample as it would come out: its row
// (null when the record could not be read at all), whether it would be
// kept, and its issues. A rejected row shows its refused values as null.
type PreviewRow struct {
	Row        int64           `json:"row"`
	SourceFile *string         `json:"source_file"`
	Valid      bool            `json:"valid"`
	Values     json.RawMessage `json:"values"`
	Issues     []IssueJSON     `json:"issues"`
}

// IssueJSON is an issue as the API shows it (API.md §5.4).
type IssueJSON struct {
	Row        *int64  `json:"row"`
	SourceFile *string `json:"source_file"`
	Column     *string `json:"column"`
	Field      *string `json:"field"`
	Severity   string  `json:"severity"`
	Code       string  `json:"code"`
	Message    string  `json:"message"`
	Value      *string `json:"value"`
	Rule       *string `json:"rule,omitempty"` // rule_violation and rule_error
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// RunReview computes a review of the samples with the mapping chosen so
// far. A *Failure error is a problem of the job's settings, as in a run.
func RunReview(ctx context.Context, in ReviewInput) (rev Review, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = panicFailure(v)
		}
	}()
	if in.Schema == nil {
		return rev, fail(domain.CodeInvalidSchema, "a review needs a target schema")
	}
	s := in.Schema
	rev = Review{Columns: []ReviewColumn{}, UnmappedFields: []string{}, Blocking: []Blocker{}, IssueCounts: []IssueCount{}, Preview: []PreviewRow{}, Sheets: sheetsOf(in.Samples)}
	mappedAnywhere := make([]bool, len(s.Fields))
	relax := map[string]bool{} // required fields some file leaves unmapped
	skip := make([]bool, len(in.Samples))
	for i := range in.Samples {
		skip[i] = !rev.addSample(&in.Samples[i], in, mappedAnywhere, relax)
	}
	for j, f := range s.Fields {
		if !mappedAnywhere[j] && f.Compute == "" {
			rev.UnmappedFields = append(rev.UnmappedFields, f.Name)
		}
	}
	// The preview runs the engine over the samples. Required fields left
	// unmapped are blocking already; they are relaxed here so the preview
	// still shows what the other columns come out as.
	sch := relaxRequired(s, relax)
	var issues bytes.Buffer
	w := newWriter(Input{Mode: in.Mode, Schema: sch, Options: in.Options, Learned: in.Learned, MaxRows: 1 << 62, MaxIssues: 1 << 62, Lists: in.Lists}, Output{Rows: io.Discard, Issues: &issues})
	defer w.closeIndexes()
	complete := true
	for i := range in.Samples {
		complete = complete && in.Samples[i].Complete
		if skip[i] {
			continue
		}
		if err := w.previewSource(ctx, in.Samples[i].Source(), &rev.Preview); err != nil {
			return rev, err
		}
	}
	if err := w.flush(); err != nil {
		return rev, err
	}
	rev.Sample = SampleSummary{Records: w.res.Progress.RowsRead, RowsValid: w.res.Progress.RowsValid, RowsRejected: w.res.Progress.RowsRejected, Complete: complete}
	rev.IssueCounts = countIssues(&issues, s)
	return rev, nil
}

// sheetsOf lists the sheets of the samples' workbooks, each marked when
// its sample was read from it.
func sheetsOf(samples []Sample) []ReviewSheet {
	out := []ReviewSheet{}
	for i := range samples {
		smp := &samples[i]
		read := ""
		if smp.Detection != nil {
			read = smp.Detection.Sheet
		}
		for _, sh := range smp.Sheets {
			first := sh.FirstRow
			if first == nil {
				first = []string{}
			}
			out = append(out, ReviewSheet{SourceFile: optional(smp.FileID), Name: sh.Name, Rows: sh.Rows, Complete: sh.Complete,
				FirstRow: first, Selected: read != "" && sh.Name == read})
		}
	}
	return out
}

// addSample adds the review of one sample's columns, and the problems
// that block its run: required fields no column maps, and a file none of
// whose columns map. It notes the fields mapped and those to relax, and
// reports whether some column maps.
func (r *Review) addSample(smp *Sample, in ReviewInput, mappedAnywhere []bool, relax map[string]bool) (some bool) {
	s := in.Schema
	cols := smp.columnValues(s.MissingValues)
	to, entries, mt := match.Columns(match.Input{Header: smp.Header, Schema: s, Explicit: in.Options.Mapping, Learned: in.Learned,
		Values: func() [][]string { return cols }, Lists: in.Lists})
	if mt == nil {
		mt = match.NewMatcher(smp.Header, cols, s, in.Lists)
	}
	values := sampleValues(smp)
	mapped := make([]bool, len(s.Fields))
	for c, e := range entries {
		col := ReviewColumn{SourceFile: optional(smp.FileID), SourceColumn: e.SourceColumn, Values: values[c], Alternatives: []match.Candidate{}}
		if f, ok := in.Options.Mapping[e.SourceColumn]; ok && f == "" {
			col.Ignored = true
		}
		if to[c] >= 0 {
			field, method, conf := e.Field, e.Method, e.Confidence
			col.Field, col.Method, col.Confidence, col.Evidence = &field, &method, &conf, e.Evidence
			mapped[to[c]], mappedAnywhere[to[c]], some = true, true, true
		}
		for _, cand := range mt.Candidates(c, in.Learned) {
			if cand.Field != e.Field && len(col.Alternatives) < maxAlternatives {
				col.Alternatives = append(col.Alternatives, cand)
			}
		}
		r.Columns = append(r.Columns, col)
	}
	for j, f := range s.Fields {
		if f.Constraints.Required && !mapped[j] && f.Compute == "" {
			name := f.Name
			relax[name] = true
			r.Blocking = append(r.Blocking, Blocker{Code: domain.CodeRequiredFieldUnmapped, Field: &name, SourceFile: optional(smp.FileID),
				Message: fmt.Sprintf("Required field %q matches no column of %s; map a column to it.", f.Name, where(smp.FileID))})
		}
	}
	if !some {
		r.Blocking = append(r.Blocking, Blocker{Code: domain.CodeNoColumnsMapped, SourceFile: optional(smp.FileID),
			Message: fmt.Sprintf("No column of %s maps to a field: every row would be empty.", where(smp.FileID))})
	}
	return some
}

// relaxRequired is s with the fields in relax no longer required, or s
// itself when there are none.
func relaxRequired(s *schema.Schema, relax map[string]bool) *schema.Schema {
	if len(relax) == 0 {
		return s
	}
	relaxed := *s
	relaxed.Fields = append([]schema.Field(nil), s.Fields...)
	for j := range relaxed.Fields {
		if relax[relaxed.Fields[j].Name] {
			relaxed.Fields[j].Constraints.Required = false
		}
	}
	return &relaxed
}

// previewSource maps one sample and processes its records as a run does,
// keeping the first rows, rejected ones too, with their issues.
func (w *writer) previewSource(ctx context.Context, src Source, preview *[]PreviewRow) error {
	r, err := src.Open()
	if err != nil {
		return readerFailure(ctx, err, src.FileID)
	}
	defer func() { _ = r.Close() }()
	p, err := w.plan(ctx, src, r)
	if err != nil {
		return err
	}
	p.keepRejected = true
	b := &batch{}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		b.recs = b.recs[:0]
		if err := readRecords(r, b); err != nil {
			return readerFailure(ctx, err, src.FileID)
		}
		if len(b.recs) == 0 {
			return nil
		}
		p.process(b, w.seed)
		for i := range b.rows {
			w.previewRow(p, b, &b.rows[i], preview)
		}
		if len(b.recs) < batchSize {
			return nil
		}
	}
}

// readRecords reads up to batchSize records into the batch as the reader
// hands them out; nil at the end of the file.
func readRecords(r table.Reader, b *batch) error {
	for len(b.recs) < batchSize {
		rec, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		b.recs = append(b.recs, rec)
	}
	return nil
}

// previewRow counts a processed row as a run does, and keeps it in the
// preview while there is room.
func (w *writer) previewRow(p *plan, b *batch, ro *rowOut, preview *[]PreviewRow) {
	w.res.Progress.RowsRead++
	if ro.ok {
		w.checkUnique(p, ro)
	}
	for _, is := range ro.issues {
		w.issue(is)
	}
	if ro.ok {
		w.res.Progress.RowsValid++
	} else {
		w.res.Progress.RowsRejected++
	}
	if len(*preview) >= PreviewRows {
		return
	}
	row := PreviewRow{Row: ro.number, SourceFile: optional(p.fileID), Valid: ro.ok, Values: json.RawMessage("null"), Issues: make([]IssueJSON, 0, len(ro.issues))}
	if ro.end > ro.start {
		row.Values = append(json.RawMessage(nil), bytes.TrimRight(b.json[ro.start:ro.end], "\n")...)
	}
	for _, is := range ro.issues {
		row.Issues = append(row.Issues, issueJSON(is))
	}
	*preview = append(*preview, row)
}

func issueJSON(is Issue) IssueJSON {
	out := IssueJSON{SourceFile: optional(is.SourceFile), Column: optional(is.Column), Field: optional(is.Field), Severity: is.Severity, Code: is.Code,
		Message: is.Message, Rule: optional(is.Rule)}
	if is.Row > 0 {
		row := is.Row
		out.Row = &row
	}
	if is.Value != nil {
		v := *is.Value
		out.Value = &v
	}
	return out
}

// countIssues counts the issues the engine wrote, by field, severity and
// code: fields in schema order, then issues of no field; errors first.
func countIssues(issues io.Reader, s *schema.Schema) []IssueCount {
	type key struct{ field, severity, code string }
	counts := map[key]int64{}
	sc := bufio.NewScanner(issues)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	for sc.Scan() {
		var is struct {
			Field    *string `json:"field"`
			Severity string  `json:"severity"`
			Code     string  `json:"code"`
		}
		if json.Unmarshal(sc.Bytes(), &is) != nil {
			continue
		}
		k := key{severity: is.Severity, code: is.Code}
		if is.Field != nil {
			k.field = *is.Field
		}
		counts[k]++
	}
	out := make([]IssueCount, 0, len(counts))
	for k, n := range counts {
		out = append(out, IssueCount{Field: optional(k.field), Severity: k.severity, Code: k.code, Count: n})
	}
	order := func(c IssueCount) int {
		if c.Field == nil {
			return len(s.Fields)
		}
		return s.Index(*c.Field)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if order(a) != order(b) {
			return order(a) < order(b)
		}
		if a.Severity != b.Severity {
			return a.Severity == "error"
		}
		return a.Code < b.Code
	})
	return out
}

// sampleValues returns, per column, the first distinct values of the
// sample that are not empty, shortened to maxSampleValueLen bytes.
func sampleValues(smp *Sample) [][]string {
	out := make([][]string, len(smp.Header))
	seen := make([]map[string]bool, len(smp.Header))
	for c := range out {
		out[c], seen[c] = []string{}, map[string]bool{}
	}
	for _, rec := range smp.Records {
		for c, v := range rec.Cells {
			if c >= len(out) || len(out[c]) >= maxSampleValues {
				continue
			}
			v = trimSpace(v)
			if len(v) > maxSampleValueLen {
				v = v[:maxSampleValueLen]
				for len(v) > 0 && !utf8.ValidString(v) {
					v = v[:len(v)-1]
				}
				v += "…"
			}
			if v == "" || seen[c][v] {
				continue
			}
			seen[c][v] = true
			out[c] = append(out[c], v)
		}
	}
	return out
}

// MappingJSON is the review's mapping as the job object shows it
// (API.md §5.2): every column, its field, method, confidence and
// evidence.
func (r Review) MappingJSON() []byte {
	type entry struct {
		SourceFile   *string         `json:"source_file,omitempty"`
		SourceColumn string          `json:"source_column"`
		Field        *string         `json:"field"`
		Method       *string         `json:"method"`
		Confidence   *float64        `json:"confidence"`
		Evidence     *match.Evidence `json:"evidence"`
	}
	out := make([]entry, len(r.Columns))
	for i, c := range r.Columns {
		out[i] = entry{SourceFile: c.SourceFile, SourceColumn: c.SourceColumn, Field: c.Field, Method: c.Method, Confidence: c.Confidence, Evidence: c.Evidence}
	}
	b, err := json.Marshal(out)
	if err != nil {
		panic("review mapping: " + err.Error())
	}
	return b
}

// JSON is the review's document.
func (r Review) JSON() []byte {
	b, err := json.Marshal(r)
	if err != nil {
		panic("review: " + err.Error())
	}
	return b
}

// ParseReview reads a review's document.
func ParseReview(b []byte) (Review, error) {
	var r Review
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("review: %w", err)
	}
	if r.Sheets == nil { // a review stored before sheets were listed
		r.Sheets = []ReviewSheet{}
	}
	return r, nil
}

// Blocked is the error of a confirmation the review's blocking problems
// refuse (422, the first problem's code, each problem in errors), or nil.
func (r Review) Blocked() error {
	if len(r.Blocking) == 0 {
		return nil
	}
	e := &domain.Error{Kind: domain.ErrInvalid, Code: r.Blocking[0].Code, Message: "The mapping leaves problems that keep the job from running; see errors."}
	for _, b := range r.Blocking {
		field := "mapping"
		if b.Field != nil {
			field = "mapping." + *b.Field
		}
		e.Fields = append(e.Fields, domain.FieldError{Field: field, Message: b.Message})
	}
	return e
}

// Confirmed is the review's mapping as options.mapping: every column of
// every file by header, mapped to its field or to null (ignored, or left
// unmapped). A header that two files map differently is left out, to be
// mapped again as the review did.
func (r Review) Confirmed() Mapping {
	out := Mapping{}
	conflict := map[string]bool{}
	for _, c := range r.Columns {
		f := ""
		if c.Field != nil {
			f = *c.Field
		}
		if prev, ok := out[c.SourceColumn]; ok && prev != f {
			conflict[c.SourceColumn] = true
		}
		out[c.SourceColumn] = f
	}
	for h := range conflict {
		delete(out, h)
	}
	return out
}

// Headers returns the headers of the samples' files, each once, and for
// each header the files it belongs to.
func Headers(samples []Sample) map[string][]int {
	out := map[string][]int{}
	for i, s := range samples {
		for _, h := range s.Header {
			if n := len(out[h]); n == 0 || out[h][n-1] != i {
				out[h] = append(out[h], i)
			}
		}
	}
	return out
}

// ensure the sample reader satisfies the interfaces the engine checks.
var (
	_ table.Reader    = (*sampleReader)(nil)
	_ table.Describer = (*describedSample)(nil)
)
