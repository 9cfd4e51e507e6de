package sqlstore

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/tabnorm/tabnorm/domain/job"
)

// resultRow is how the jobs table's result column keeps a job.Result: a
// JSON object whose keys are those of the API's result object. Until the
// result was typed, the column held that object itself, as the API
// rendered it when the job ended (with rows_url and errors_url); those
// rows read as they are, the URLs ignored (they follow from the job and
// are rendered when it is read), so they need no migration and the API
// answers them byte for byte as before.
type resultRow struct {
	RowCount        int64           `json:"row_count"`
	RejectedCount   int64           `json:"rejected_count"`
	IssueCount      int64           `json:"issue_count"`
	IssuesTruncated bool            `json:"issues_truncated"`
	EditsApplied    int64           `json:"edits_applied,omitempty"`
	InferredSchema  json.RawMessage `json:"inferred_schema"`
	Profile         []profileRow    `json:"profile"`
	Detected        json.RawMessage `json:"detected"`
	FileIssues      []fileIssueRow  `json:"file_issues,omitempty"`
	Hooks           []hookStatsRow  `json:"hooks,omitempty"`
}

type hookStatsRow struct {
	Name          string `json:"name"`
	Batches       int64  `json:"batches"`
	RowsSent      int64  `json:"rows_sent"`
	Issues        int64  `json:"issues"`
	ValuesChanged int64  `json:"values_changed"`
	Failures      int64  `json:"failures"`
	TimeMS        int64  `json:"time_ms"`
	FirstFailure  string `json:"first_failure,omitempty"`
}

type fileIssueRow struct {
	SourceFile string `json:"source_file,omitempty"`
	Column     string `json:"column,omitempty"`
	Field      string `json:"field,omitempty"`
	Severity   string `json:"severity"`
	Code       string `json:"code"`
	Message    string `json:"message"`
}

type profileRow struct {
	Column         string   `json:"column"`
	Field          string   `json:"field"`
	Type           string   `json:"type"`
	Format         string   `json:"format"`
	NullRate       float64  `json:"null_rate"`
	DistinctCount  int64    `json:"distinct_count"`
	DistinctCapped bool     `json:"distinct_capped"`
	Examples       []string `json:"examples"`
	Currency       string   `json:"currency,omitempty"`
	Currencies     []string `json:"currencies,omitempty"`
}

func encodeResult(r *job.Result) (*string, error) {
	if r == nil {
		return nil, nil
	}
	row := resultRow{RowCount: r.RowCount, RejectedCount: r.RejectedCount, IssueCount: r.IssueCount, IssuesTruncated: r.IssuesTruncated,
		EditsApplied: r.EditsApplied, InferredSchema: r.InferredSchema, Detected: r.Detected}
	if r.Profile != nil {
		row.Profile = make([]profileRow, len(r.Profile))
		for i, p := range r.Profile {
			row.Profile[i] = profileRow(p)
		}
	}
	for _, is := range r.FileIssues {
		row.FileIssues = append(row.FileIssues, fileIssueRow(is))
	}
	for _, h := range r.Hooks {
		row.Hooks = append(row.Hooks, hookStatsRow(h))
	}
	b, err := json.Marshal(row)
	if err != nil {
		return nil, fmt.Errorf("encode the result: %w", err)
	}
	s := string(b)
	return &s, nil
}

func decodeResult(s *string) (*job.Result, error) {
	if s == nil {
		return nil, nil
	}
	var row resultRow
	if err := json.Unmarshal([]byte(*s), &row); err != nil {
		return nil, fmt.Errorf("read its result column: %w", err)
	}
	r := &job.Result{RowCount: row.RowCount, RejectedCount: row.RejectedCount, IssueCount: row.IssueCount, IssuesTruncated: row.IssuesTruncated,
		EditsApplied: row.EditsApplied, InferredSchema: orNil(row.InferredSchema), Detected: orNil(row.Detected)}
	if row.Profile != nil {
		r.Profile = make([]job.ColumnProfile, len(row.Profile))
		for i, p := range row.Profile {
			r.Profile[i] = job.ColumnProfile(p)
		}
	}
	for _, is := range row.FileIssues {
		r.FileIssues = append(r.FileIssues, job.FileIssue(is))
	}
	for _, h := range row.Hooks {
		r.Hooks = append(r.Hooks, job.HookStats(h))
	}
	return r, nil
}

// orNil is a JSON value, or nil for null or nothing.
func orNil(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	return raw
}
