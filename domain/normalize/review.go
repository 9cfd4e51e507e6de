package normalize

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/normalize/match"
	"github.com/tabnorm/tabnorm/domain/normalize/review"
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
	Hook       *string `json:"hook,omitempty"` // a validation hook's issues
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// RunReview computes a review of the samples with the mapping chosen so
// far. A *Failure error is a problem of the job's settings, as in a run.
func RunReview(ctx context.Context, in ReviewInput) (rev review.Review, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = panicFailure(v)
		}
	}()
	if in.Schema == nil {
		return rev, fail(domain.CodeInvalidSchema, "a review needs a target schema")
	}
	s := in.Schema
	rev = review.Review{Columns: []review.Column{}, UnmappedFields: []string{}, Blocking: []review.Blocker{}, IssueCounts: []review.IssueCount{}, Preview: []review.PreviewRow{}, Sheets: sheetsOf(in.Samples)}
	rev.HeaderRow, rev.FirstRows, rev.HeaderUnsure = headerOf(in.Samples, in.Options)
	mappedAnywhere := make([]bool, len(s.Fields))
	relax := map[string]bool{} // required fields some file leaves unmapped
	skip := make([]bool, len(in.Samples))
	for i := range in.Samples {
		skip[i] = !addSample(&rev, &in.Samples[i], in, mappedAnywhere, relax)
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
	rev.Sample = review.Summary{Records: w.res.Progress.RowsRead, RowsValid: w.res.Progress.RowsValid, RowsRejected: w.res.Progress.RowsRejected, Complete: complete}
	rev.IssueCounts = countIssues(&issues, s)
	return rev, nil
}

// sheetsOf lists the sheets of the samples' workbooks, each marked when
// its sample was read from it.
func sheetsOf(samples []Sample) []review.Sheet {
	out := []review.Sheet{}
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
			out = append(out, review.Sheet{SourceFile: optional(smp.FileID), Name: sh.Name, Rows: sh.Rows, Complete: sh.Complete,
				FirstRow: first, Selected: read != "" && sh.Name == read})
		}
	}
	return out
}

// addSample adds the review of one sample's columns, and the problems
// that block its run: required fields no column maps, and a file none of
// whose columns map. It notes the fields mapped and those to relax, and
// reports whether some column maps.
func addSample(r *review.Review, smp *Sample, in ReviewInput, mappedAnywhere []bool, relax map[string]bool) (some bool) {
	s := in.Schema
	cols := smp.columnValues(s.MissingValues)
	to, entries, mt := match.Columns(match.Input{Header: smp.Header, Schema: s, Explicit: in.Options.Mapping, Learned: in.Learned,
		Values: func() [][]string { return cols }, Lists: in.Lists})
	if mt == nil {
		mt = match.NewMatcher(smp.Header, cols, s, in.Lists)
	}
	values := sampleValues(smp)
	mapped := make([]bool, len(s.Fields))
	ambiguities := mt.Ambiguities()
	for c, e := range entries {
		col := review.Column{SourceFile: optional(smp.FileID), SourceColumn: e.SourceColumn, Values: values[c], Alternatives: []match.Candidate{},
			Warnings: columnWarnings(smp.FileID, e, to[c] >= 0, ambiguities)}
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
			r.Blocking = append(r.Blocking, review.Blocker{Code: domain.CodeRequiredFieldUnmapped, Field: &name, SourceFile: optional(smp.FileID),
				Message: fmt.Sprintf("Required field %q matches no column of %s; map a column to it.", f.Name, where(smp.FileID))})
		}
	}
	if !some {
		r.Blocking = append(r.Blocking, review.Blocker{Code: domain.CodeNoColumnsMapped, SourceFile: optional(smp.FileID),
			Message: fmt.Sprintf("No column of %s maps to a field: every row would be empty.", where(smp.FileID))})
	}
	return some
}

// columnWarnings are the warnings the run would give of one column's
// mapping (mapped says the column maps to e.Field): a mapping by likeness
// or values, a synonym mapping another column contests, and a field it
// names as well as other columns do.
func columnWarnings(fileID string, e match.Entry, mapped bool, ambiguities []match.Ambiguity) []review.Warning {
	out := []review.Warning{}
	if mapped {
		if is, ok := mappingWarningIssue(fileID, e); ok {
			out = append(out, review.Warning{Code: is.Code, Message: is.Message})
		}
	}
	for _, a := range ambiguities {
		if a.Mapped && (!mapped || a.Columns[0] != e.SourceColumn || a.Field != e.Field) || !a.Mapped && !slices.Contains(a.Columns, e.SourceColumn) {
			continue
		}
		is := ambiguityIssue(fileID, a)
		out = append(out, review.Warning{Code: is.Code, Message: is.Message})
	}
	return out
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
func (w *writer) previewSource(ctx context.Context, src Source, preview *[]review.PreviewRow) error {
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
func (w *writer) previewRow(p *plan, b *batch, ro *rowOut, preview *[]review.PreviewRow) {
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
	row := review.PreviewRow{Row: ro.number, SourceFile: optional(p.fileID), Valid: ro.ok, Values: json.RawMessage("null"), Issues: make([]review.Issue, 0, len(ro.issues))}
	if ro.end > ro.start {
		row.Values = append(json.RawMessage(nil), bytes.TrimRight(b.json[ro.start:ro.end], "\n")...)
	}
	for _, is := range ro.issues {
		j := issueJSON(is) // a review's sample goes through no hook
		row.Issues = append(row.Issues, review.Issue{Row: j.Row, SourceFile: j.SourceFile, Column: j.Column, Field: j.Field, Severity: j.Severity,
			Code: j.Code, Message: j.Message, Value: j.Value, Rule: j.Rule})
	}
	*preview = append(*preview, row)
}

func issueJSON(is Issue) IssueJSON {
	out := IssueJSON{SourceFile: optional(is.SourceFile), Column: optional(is.Column), Field: optional(is.Field), Severity: is.Severity, Code: is.Code,
		Message: is.Message, Rule: optional(is.Rule), Hook: optional(is.Hook)}
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
func countIssues(issues io.Reader, s *schema.Schema) []review.IssueCount {
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
	out := make([]review.IssueCount, 0, len(counts))
	for k, n := range counts {
		out = append(out, review.IssueCount{Field: optional(k.field), Severity: k.severity, Code: k.code, Count: n})
	}
	order := func(c review.IssueCount) int {
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

// headerOf is the header row the first sample was read with (0: none),
// the file's first rows, and whether the header is unsure: detected (not
// chosen in options.header_row) and below the first row, or with a cell
// that is empty, repeated or a number, as a data row's would be.
func headerOf(samples []Sample, o Options) (int, [][]string, bool) {
	if len(samples) == 0 {
		return 0, [][]string{}, false
	}
	smp := samples[0]
	rows := smp.FirstRows
	if rows == nil {
		rows = [][]string{}
	}
	row := 1
	switch {
	case o.HeaderRow == HeaderNone:
		return 0, rows, false
	case o.HeaderRow > 0:
		return int(o.HeaderRow) + o.SkipRows, rows, false
	case smp.Detection != nil:
		row = smp.Detection.HeaderRow
	}
	if row == 0 {
		return 0, rows, true // detected as having no header: a person should check
	}
	unsure := row != 1+o.SkipRows
	seen := map[string]bool{}
	for _, h := range smp.Header {
		k := strings.ToLower(strings.TrimSpace(h))
		if _, err := strconv.ParseFloat(k, 64); k == "" || seen[k] || err == nil {
			unsure = true
		}
		seen[k] = true
	}
	return row, rows, unsure
}
