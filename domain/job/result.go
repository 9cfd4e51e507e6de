package job

import (
	"encoding/json"

	"github.com/tabnorm/tabnorm/domain/normalize"
)

// Result is what a succeeded job found: the counts of its valid rows, its
// rejected rows and its issues, what its readers detected and the engine
// decided, and in infer mode the schema it proposes and each column's
// profile. It is the job's own record, not a document: the HTTP adapter
// renders the API's result object from it when the job is read (with the
// URLs of the rows and issues, which are the API's), as it renders the
// job's events.
type Result struct {
	RowCount        int64
	RejectedCount   int64
	IssueCount      int64
	IssuesTruncated bool // the issues file stopped at its limit
	// EditsApplied counts the cells the job's edits set (a rerun's fixes).
	EditsApplied int64
	// Detected is what each file's reader detected and the options, date
	// orders and decimal marks the engine decided, as the engine writes
	// it (normalize.Result.DetectedJSON): passed back as a job's options,
	// its "options" reproduce the run.
	Detected json.RawMessage
	// InferredSchema is the proposed schema's document
	// (schema.Schema.JSON); nil outside infer mode.
	InferredSchema json.RawMessage
	// Profile is each source column as infer mode saw it; nil outside
	// infer mode.
	Profile []ColumnProfile
	// FileIssues are the run's issues about a file rather than a row
	// (normalize.Result.FileIssues), for a person to read first.
	FileIssues []FileIssue
}

// FileIssue is an issue about a file, not a row: what a reader skipped,
// a decision to check, a mapping to confirm.
type FileIssue struct {
	SourceFile string
	Column     string
	Field      string
	Severity   string
	Code       string
	Message    string
}

// ColumnProfile is one source column as infer mode saw it.
type ColumnProfile struct {
	Column         string
	Field          string
	Type           string
	Format         string
	NullRate       float64 // share of missing values, 0–1
	DistinctCount  int64
	DistinctCapped bool // DistinctCount is a lower bound
	Examples       []string
	Currency       string   // the one currency a number column's values carried
	Currencies     []string // every currency they carried
}

// NewResult is the result of a run that ended with r.
func NewResult(r normalize.Result) Result {
	out := Result{RowCount: r.RowCount, RejectedCount: r.RejectedCount, IssueCount: r.IssueCount, IssuesTruncated: r.IssuesTruncated,
		EditsApplied: r.EditsApplied, Detected: r.DetectedJSON()}
	for _, is := range r.FileIssues {
		out.FileIssues = append(out.FileIssues, FileIssue{SourceFile: is.SourceFile, Column: is.Column, Field: is.Field, Severity: is.Severity,
			Code: is.Code, Message: is.Message})
	}
	if r.InferredSchema != nil {
		out.InferredSchema = r.InferredSchema.JSON()
		out.Profile = make([]ColumnProfile, len(r.Profile))
		for i, p := range r.Profile {
			out.Profile[i] = ColumnProfile{Column: p.Column, Field: p.Field, Type: string(p.Type), Format: string(p.Format), NullRate: p.NullRate(),
				DistinctCount: p.DistinctCount, DistinctCapped: p.DistinctCapped, Examples: p.Examples,
				Currency: p.Currency, Currencies: p.Currencies}
		}
	}
	return out
}
