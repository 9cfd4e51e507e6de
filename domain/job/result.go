package job

import "encoding/json"

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
	// Hooks is what each validation hook of the schema did (nil: the
	// schema has none).
	Hooks []HookStats
}

// HookStats is what one validation hook did in a run.
type HookStats struct {
	Name          string
	Batches       int64
	RowsSent      int64
	Issues        int64
	ValuesChanged int64
	Failures      int64
	TimeMS        int64
	// FirstFailure says why its first failed batch failed ("" when none did).
	FirstFailure string
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
