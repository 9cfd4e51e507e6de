// Package review is the review's model: how the columns of a job's files
// would map to the schema's fields, with the other fields each column
// could take, what keeps the job from running, and what the sample's
// first rows would come out as (docs/review.md). The engine computes it
// (normalize.RunReview) and a job keeps it while it awaits its review;
// the HTTP adapter writes it as the API's review object and the storage
// adapter keeps it in its own encoding, so this package has no JSON of
// its own.
package review

import (
	"encoding/json"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/normalize/match"
)

// Review is a review of a job's mapping.
type Review struct {
	Sample Summary
	// Columns is every source column of every file, in file order.
	Columns []Column
	// UnmappedFields are the schema's fields no column of any file takes.
	UnmappedFields []string
	// Blocking are the problems that keep the job from running: a
	// confirmation is refused while there are any.
	Blocking []Blocker
	// IssueCounts count the sample's issues by field, severity and code.
	IssueCounts []IssueCount
	// Preview is the first rows as they would come out
	// (normalize.PreviewRows of them at most).
	Preview []PreviewRow
	// Sheets are the sheets of the workbooks among the files, for
	// choosing another (options.sheet); empty for other formats.
	Sheets []Sheet
	// HeaderRow is the 1-based row of the first file's header the sample
	// was read with (0: no header row); FirstRows that file's first rows
	// as they are, for choosing another (options.header_row); HeaderUnsure
	// says the detection was not sure of it.
	HeaderRow    int
	FirstRows    [][]string
	HeaderUnsure bool
}

// Sheet is one sheet of a workbook: its rows with a value (all of them
// when Complete, else at least so many), its first such row, and whether
// the sample was read from it.
type Sheet struct {
	SourceFile *string
	Name       string
	Rows       int
	Complete   bool
	FirstRow   []string
	Selected   bool
}

// Summary says what the sample held and how its rows came out.
type Summary struct {
	Records      int64
	RowsValid    int64
	RowsRejected int64
	// Complete says the sample is the whole of every file.
	Complete bool
}

// Column is one source column: where it goes, how sure the mapping is,
// what else it could be, and some of its values.
type Column struct {
	SourceFile   *string
	SourceColumn string
	Field        *string
	Method       *string
	Confidence   *float64
	// Evidence is what the mapping rests on, for a mapping the matcher
	// made (synonym, fuzzy, content); nil otherwise.
	Evidence *match.Evidence
	// Ignored says the mapping maps the column to null: no method takes it.
	Ignored      bool
	Alternatives []match.Candidate
	Values       []string
	// Warnings are what the run would warn of this column's mapping:
	// fuzzy_mapping, content_mapping and synonym_mapping for a mapping a
	// person should check, ambiguous_mapping for a field it names as
	// well as another column does (none was mapped).
	Warnings []Warning
}

// Warning is one warning about a column's mapping, as the run's issue
// of the same code says it.
type Warning struct {
	Code    string
	Message string
}

// Blocker is a problem that keeps the job from running as mapped.
type Blocker struct {
	Code       domain.Code // required_field_unmapped, no_columns_mapped
	Field      *string
	SourceFile *string
	Message    string
}

// IssueCount is how many issues of one code a field had in the sample.
type IssueCount struct {
	Field    *string
	Severity string
	Code     string
	Count    int64
}

// PreviewRow is one record of the sample as it would come out: its row
// (null when the record could not be read at all), whether it would be
// kept, and its issues. A rejected row shows its refused values as null.
type PreviewRow struct {
	Row        int64
	SourceFile *string
	Valid      bool
	// Values is the row's object as the engine writes rows (keys in
	// schema order, numbers as their digits), or null.
	Values json.RawMessage
	Issues []Issue
}

// Issue is an issue of a preview row (API.md §5.4).
type Issue struct {
	Row        *int64
	SourceFile *string
	Column     *string
	Field      *string
	Severity   string
	Code       string
	Message    string
	Value      *string
	Rule       *string // rule_violation and rule_error
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
// every file by header, mapped to its field or to "" (ignored, or left
// unmapped). A header that two files map differently is left out, to be
// mapped again as the review did.
func (r Review) Confirmed() map[string]string {
	out := map[string]string{}
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

// Mapping is the review's mapping as a run reports it: every column, its
// field, method, confidence and evidence.
func (r Review) Mapping() []match.Entry {
	out := make([]match.Entry, len(r.Columns))
	for i, c := range r.Columns {
		e := match.Entry{SourceColumn: c.SourceColumn, Evidence: c.Evidence}
		if c.SourceFile != nil {
			e.SourceFile = *c.SourceFile
		}
		if c.Field != nil {
			e.Field, e.Method = *c.Field, deref(c.Method)
		}
		if c.Confidence != nil {
			e.Confidence = *c.Confidence
		}
		out[i] = e
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
