package httpapi

import (
	"encoding/json"
	"time"

	"github.com/tabnorm/tabnorm/application/jobs"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/normalize"
	"github.com/tabnorm/tabnorm/domain/normalize/match"
	"github.com/tabnorm/tabnorm/ports"
)

// The job object of API.md §5.2, its events' data (§5.5), its mapping and
// its result. The API answers them, and the jobs and webhooks use cases
// store some of them as they happen (a job's events, its result, the
// payload of a webhook delivery) through JobRenderer, so that each is
// written here, once.

type jobFileJSON struct {
	ID        string `json:"id"`
	Filename  string `json:"filename"`
	Format    string `json:"format"`
	SizeBytes int64  `json:"size_bytes"`
	SHA256    string `json:"sha256"`
}

type progressJSON struct {
	RowsRead     int64   `json:"rows_read"`
	RowsValid    int64   `json:"rows_valid"`
	RowsRejected int64   `json:"rows_rejected"`
	BytesRead    int64   `json:"bytes_read"`
	BytesTotal   int64   `json:"bytes_total"`
	Percent      float64 `json:"percent"`
}

type jobErrorJSON struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type jobSourceJSON struct {
	Type    string        `json:"type"`
	Files   []jobFileJSON `json:"files"`
	RerunOf *string       `json:"rerun_of"` // the job this one reruns (docs/review.md)
}

// jobJSON is the job object.
type jobJSON struct {
	ID         string          `json:"id"`
	Object     string          `json:"object"`
	Name       *string         `json:"name"`
	Mode       string          `json:"mode"`
	Status     string          `json:"status"`
	Source     jobSourceJSON   `json:"source"`
	SchemaID   *string         `json:"schema_id"`
	Schema     json.RawMessage `json:"schema"`
	Options    json.RawMessage `json:"options"`
	Progress   progressJSON    `json:"progress"`
	Mapping    json.RawMessage `json:"mapping"`
	Result     *resultJSON     `json:"result"`
	Error      *jobErrorJSON   `json:"error"`
	Attempts   int             `json:"attempts"`
	CreatedAt  string          `json:"created_at"`
	StartedAt  *string         `json:"started_at"`
	FinishedAt *string         `json:"finished_at"`
	// Superseded: a later job reruns this one (docs/review.md), which
	// replaces it in its import session's summary.
	Superseded bool `json:"superseded"`
	// The import session the job was made in, and its metadata: only on
	// such jobs.
	ImportSessionID *string         `json:"import_session_id,omitempty"`
	Metadata        json.RawMessage `json:"metadata,omitempty"`
}

// jobTime is a job's optional time: null only when unset.
func jobTime(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := formatTime(*t)
	return &s
}

// rawOrNull is a stored JSON document, or null when there is none.
func rawOrNull(b []byte) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("null")
	}
	return b
}

// jobPath is where a job is served: a connect job under the connect
// product's routes, so an organization with connect alone can follow it;
// every other job under /v1/jobs. Both paths serve any of the
// organization's jobs.
func jobPath(j job.Job) string {
	if j.SourceType == job.SourceConnect {
		return "/v1/connect/jobs/" + j.ID
	}
	return "/v1/jobs/" + j.ID
}

func newJobJSON(j job.Job) jobJSON {
	v := jobJSON{ID: j.ID, Object: "job", Mode: string(j.Mode), Status: string(j.Status), Schema: rawOrNull(j.Schema), Options: rawOrNull(j.Options),
		Mapping: rawOrNull(j.Mapping), Result: newResultJSON(j), Attempts: j.Attempts, CreatedAt: formatTime(j.CreatedAt),
		StartedAt: jobTime(j.StartedAt), FinishedAt: jobTime(j.FinishedAt), Superseded: j.Superseded}
	if j.Mapping == nil {
		v.Mapping = json.RawMessage("[]")
	}
	if j.Name != "" {
		v.Name = &j.Name
	}
	if j.SchemaID != "" {
		v.SchemaID = &j.SchemaID
	}
	v.Source = jobSourceJSON{Type: string(j.SourceType), Files: make([]jobFileJSON, len(j.Files))}
	for i, f := range j.Files {
		v.Source.Files[i] = jobFileJSON(f)
	}
	if j.RerunOf != "" {
		v.Source.RerunOf = &j.RerunOf
	}
	v.Progress = newProgressJSON(j)
	if j.ImportSessionID != "" {
		v.ImportSessionID, v.Metadata = &j.ImportSessionID, j.Metadata
	}
	if j.Failure != nil {
		v.Error = &jobErrorJSON{Code: string(j.Failure.Code), Message: j.Failure.Message}
	}
	return v
}

func newProgressJSON(j job.Job) progressJSON {
	p := j.Progress
	out := progressJSON{RowsRead: p.RowsRead, RowsValid: p.RowsValid, RowsRejected: p.RowsRejected, BytesRead: p.BytesRead, BytesTotal: p.BytesTotal, Percent: p.Percent()}
	if j.Status == job.Succeeded {
		out.Percent = 100
	}
	return out
}

// jobEventJSON is the data of a job event.
type jobEventJSON struct {
	JobID    string       `json:"job_id"`
	Status   string       `json:"status"`
	Progress progressJSON `json:"progress"`
	At       string       `json:"at"`
	Job      *jobJSON     `json:"job,omitempty"`
}

// mappingJSON is one entry of a job's mapping; an unmapped column has a
// null field, method and confidence.
type mappingJSON struct {
	SourceFile   *string       `json:"source_file,omitempty"`
	SourceColumn string        `json:"source_column"`
	Field        *string       `json:"field"`
	Method       *string       `json:"method"`
	Confidence   *float64      `json:"confidence"`
	Evidence     *evidenceJSON `json:"evidence"`
}

// resultJSON is a succeeded job's result object.
type resultJSON struct {
	RowCount        int64               `json:"row_count"`
	RejectedCount   int64               `json:"rejected_count"`
	IssueCount      int64               `json:"issue_count"`
	IssuesTruncated bool                `json:"issues_truncated"`
	RowsURL         string              `json:"rows_url"`
	ErrorsURL       string              `json:"errors_url"`
	InferredSchema  json.RawMessage     `json:"inferred_schema"`
	Profile         []ColumnProfileJSON `json:"profile"`
	Detected        json.RawMessage     `json:"detected"`
	// EditsApplied counts the cells the job's edits set.
	EditsApplied int64 `json:"edits_applied"`
	// FileIssues are the issues about a file, not a row (row null in the
	// issues), the first 100, for a person to read before the rows.
	FileIssues []fileIssueJSON `json:"file_issues"`
	// Hooks is what each validation hook did; absent when the schema
	// names none.
	Hooks []hookStatsJSON `json:"hooks,omitempty"`
}

// hookStatsJSON is what one validation hook did in the run.
type hookStatsJSON struct {
	Hook          string  `json:"hook"`
	Batches       int64   `json:"batches"`
	RowsSent      int64   `json:"rows_sent"`
	Issues        int64   `json:"issues"`
	ValuesChanged int64   `json:"values_changed"`
	Failures      int64   `json:"failures"`
	TimeMS        int64   `json:"time_ms"`
	FirstFailure  *string `json:"first_failure"`
}

// fileIssueJSON is an issue about a file: as in the issues, without row
// and value.
type fileIssueJSON struct {
	SourceFile *string `json:"source_file"`
	Column     *string `json:"column"`
	Field      *string `json:"field"`
	Severity   string  `json:"severity"`
	Code       string  `json:"code"`
	Message    string  `json:"message"`
}

func newFileIssuesJSON(in []job.FileIssue) []fileIssueJSON {
	out := make([]fileIssueJSON, len(in))
	for i, is := range in {
		out[i] = fileIssueJSON{SourceFile: optionalString(is.SourceFile), Column: optionalString(is.Column), Field: optionalString(is.Field),
			Severity: is.Severity, Code: is.Code, Message: is.Message}
	}
	return out
}

// ColumnProfileJSON is one source column as infer mode saw it, as the
// result object and the offline normalize command print it.
type ColumnProfileJSON struct {
	Column         string   `json:"column"`
	Field          string   `json:"field"`
	Type           string   `json:"type"`
	Format         string   `json:"format"`
	NullRate       float64  `json:"null_rate"`
	DistinctCount  int64    `json:"distinct_count"`
	DistinctCapped bool     `json:"distinct_capped"`
	Examples       []string `json:"examples"`
	// Currency is the one currency a number column's values carried
	// beside their amounts (EUR 12), absent when none or several;
	// Currencies lists every one, absent when none.
	Currency   string   `json:"currency,omitempty"`
	Currencies []string `json:"currencies,omitempty"`
}

// NewProfileJSON converts infer mode's column profiles for output.
func NewProfileJSON(ps []normalize.ColumnProfile) []ColumnProfileJSON {
	out := make([]ColumnProfileJSON, len(ps))
	for i, p := range ps {
		out[i] = ColumnProfileJSON{Column: p.Column, Field: p.Field, Type: string(p.Type), Format: string(p.Format), NullRate: p.NullRate(),
			DistinctCount: p.DistinctCount, DistinctCapped: p.DistinctCapped, Examples: p.Examples,
			Currency: p.Currency, Currencies: p.Currencies}
	}
	return out
}

// JobRenderer writes the job documents that the use cases store on the
// API's behalf.
type JobRenderer struct{}

var _ ports.JobRenderer = JobRenderer{}

// NewJobRenderer returns the renderer.
func NewJobRenderer() JobRenderer { return JobRenderer{} }

// Job implements ports.JobRenderer.
func (JobRenderer) Job(j job.Job) ([]byte, error) { return json.Marshal(newJobJSON(j)) }

// Event implements ports.JobRenderer.
func (JobRenderer) Event(j job.Job, at time.Time, withJob bool) ([]byte, error) {
	d := jobEventJSON{JobID: j.ID, Status: string(j.Status), Progress: newProgressJSON(j), At: formatTime(at)}
	if withJob {
		v := newJobJSON(j)
		d.Job = &v
	}
	return json.Marshal(d)
}

// Mapping implements ports.JobRenderer.
func (JobRenderer) Mapping(entries []match.Entry) ([]byte, error) {
	out := make([]mappingJSON, len(entries))
	for i, m := range entries {
		e := mappingJSON{SourceColumn: m.SourceColumn}
		if m.SourceFile != "" {
			e.SourceFile = &m.SourceFile
		}
		if m.Field != "" {
			field, method, conf := m.Field, m.Method, m.Confidence
			e.Field, e.Method, e.Confidence, e.Evidence = &field, &method, &conf, (*evidenceJSON)(m.Evidence)
		}
		out[i] = e
	}
	return json.Marshal(out)
}

// Result is the result object of the job, which succeeded with r (as the
// job object carries it once the job keeps r as its result).
func (JobRenderer) Result(j job.Job, r normalize.Result) ([]byte, error) {
	res := jobs.NewResult(r)
	j.Result = &res
	return json.Marshal(newResultJSON(j))
}

// newResultJSON is a job's result object, rendered from its typed result
// when the job is read; nil (null) until the job succeeded. The profile
// and the inferred schema are null outside infer mode.
func newResultJSON(j job.Job) *resultJSON {
	r := j.Result
	if r == nil {
		return nil
	}
	path := jobPath(j)
	out := &resultJSON{RowCount: r.RowCount, RejectedCount: r.RejectedCount, IssueCount: r.IssueCount, IssuesTruncated: r.IssuesTruncated,
		RowsURL: path + "/rows", ErrorsURL: path + "/errors", InferredSchema: rawOrNull(r.InferredSchema), Detected: rawOrNull(r.Detected),
		EditsApplied: r.EditsApplied, FileIssues: newFileIssuesJSON(r.FileIssues)}
	for _, h := range r.Hooks {
		out.Hooks = append(out.Hooks, hookStatsJSON{Hook: h.Name, Batches: h.Batches, RowsSent: h.RowsSent, Issues: h.Issues,
			ValuesChanged: h.ValuesChanged, Failures: h.Failures, TimeMS: h.TimeMS, FirstFailure: optionalString(h.FirstFailure)})
	}
	if r.Profile != nil {
		out.Profile = make([]ColumnProfileJSON, len(r.Profile))
		for i, p := range r.Profile {
			out.Profile[i] = ColumnProfileJSON(p)
		}
	}
	return out
}
