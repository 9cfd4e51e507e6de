package client

import (
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"net/url"
	"time"
)

// Review is a job's review (API.md §5.6, docs/review.md): how each source
// column maps, what blocks a confirmation, and the sample as it would come
// out. A job created with the option "review": true stops in the status
// awaiting_review until it is confirmed (or canceled, or expires).
type Review struct {
	JobID          string          `json:"job_id"`
	JobStatus      string          `json:"job_status"`
	Status         string          `json:"status"` // pending, confirmed, expired, canceled
	ExpiresAt      *time.Time      `json:"expires_at"`
	ConfirmedAt    *time.Time      `json:"confirmed_at"`
	Sample         ReviewSample    `json:"sample"`
	Columns        []ReviewColumn  `json:"columns"`
	UnmappedFields []string        `json:"unmapped_fields"`
	Blocking       []Blocking      `json:"blocking"`
	IssueCounts    []IssueCount    `json:"issue_counts"`
	Preview        []PreviewRow    `json:"preview"`
	Sheets         []ReviewSheet   `json:"sheets"` // the workbooks' sheets; empty for other formats
	Raw            json.RawMessage `json:"-"`
}

func (r *Review) keep(raw []byte) { r.Raw = raw }

// ReviewSheet is a sheet of a workbook among the job's files, for
// choosing another with ChooseSheet.
type ReviewSheet struct {
	SourceFile *string  `json:"source_file"` // connect jobs; nil for an upload
	Name       string   `json:"name"`
	Rows       int      `json:"rows"`      // rows holding a value (header included): all when Complete, else at least
	Complete   bool     `json:"complete"`  // the sheet was read to its end
	FirstRow   []string `json:"first_row"` // its first row with a value, cut short
	Selected   bool     `json:"selected"`  // the sample was read from it
}

// ReviewSample says how many records the review read and how they came out.
type ReviewSample struct {
	Records      int64 `json:"records"`
	RowsValid    int64 `json:"rows_valid"`
	RowsRejected int64 `json:"rows_rejected"`
	Complete     bool  `json:"complete"` // the sample is the whole of every file
}

// ReviewColumn is one source column of a review: where it goes now, other
// fields it could take, and some of its values.
type ReviewColumn struct {
	SourceFile   *string       `json:"source_file"` // connect jobs; nil for an upload
	SourceColumn string        `json:"source_column"`
	Field        *string       `json:"field"`  // nil: unmapped or ignored
	Method       *string       `json:"method"` // exact, normalized, alias, learned, synonym, fuzzy, content, position, explicit
	Confidence   *float64      `json:"confidence"`
	Evidence     *Evidence     `json:"evidence"` // methods synonym, fuzzy and content; nil otherwise
	Ignored      bool          `json:"ignored"`  // mapped to null on purpose
	Alternatives []Alternative `json:"alternatives"`
	Values       []string      `json:"values"` // up to 5 distinct values of the sample
	// Warnings are what the run would warn of the column's mapping:
	// fuzzy_mapping, content_mapping, synonym_mapping, ambiguous_mapping.
	Warnings []ReviewWarning `json:"warnings"`
}

// ReviewWarning is one warning about a column's mapping.
type ReviewWarning struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Alternative is another field a column could map to, best first.
type Alternative struct {
	Field      string    `json:"field"`
	Method     string    `json:"method"`
	Confidence float64   `json:"confidence"`
	Evidence   *Evidence `json:"evidence"`
}

// Evidence is what a mapping rests on (API.md §5.2): how strongly the
// header names the field (0 to 1), the share of the sample's values that
// fit it, and what they were read as ("email", "date", "enum", …).
type Evidence struct {
	Header  float64 `json:"header"`
	Values  float64 `json:"values"`
	Matched string  `json:"matched"`
}

// Blocking is a problem that makes Confirm fail until the mapping changes.
type Blocking struct {
	Code       string  `json:"code"` // required_field_unmapped, no_columns_mapped
	Field      *string `json:"field"`
	SourceFile *string `json:"source_file"`
	Message    string  `json:"message"`
}

// IssueCount counts the sample's issues of one field, severity and code.
type IssueCount struct {
	Field    *string `json:"field"` // nil: issues of no field
	Severity string  `json:"severity"`
	Code     string  `json:"code"`
	Count    int64   `json:"count"`
}

// PreviewRow is one record of the sample as it would come out, rejected
// ones too (their refused values nil).
type PreviewRow struct {
	Row        int64   `json:"row"`
	SourceFile *string `json:"source_file"`
	Valid      bool    `json:"valid"`
	Values     Row     `json:"values"` // nil for a record that could not be read
	Issues     []Issue `json:"issues"`
}

// ColumnMapping is where a job's source column went (the job's mapping).
type ColumnMapping struct {
	SourceFile   string    `json:"source_file,omitempty"` // connect jobs
	SourceColumn string    `json:"source_column"`
	Field        *string   `json:"field"`
	Method       *string   `json:"method"`
	Confidence   *float64  `json:"confidence"`
	Evidence     *Evidence `json:"evidence"` // methods synonym, fuzzy and content; nil otherwise
}

// Review reads a job's review (a job never reviewed is not_found).
func (c *Client) Review(ctx context.Context, jobID string) (*Review, error) {
	var r Review
	return &r, c.call(ctx, request{method: http.MethodGet, path: jobPath(jobID) + "/review"}, &r)
}

// PatchMapping changes the mapping of a job awaiting review: source column
// → field, or nil to ignore the column. Columns not named keep theirs. It
// answers the review computed again.
func (c *Client) PatchMapping(ctx context.Context, jobID string, mapping map[string]*string) (*Review, error) {
	if mapping == nil {
		mapping = map[string]*string{}
	}
	b, err := jsonBody(map[string]any{"mapping": mapping})
	if err != nil {
		return nil, err
	}
	var r Review
	return &r, c.call(ctx, request{method: http.MethodPatch, path: jobPath(jobID) + "/mapping", body: b, contentType: "application/json", replayable: true}, &r)
}

// ChooseSheet reads the sample of a job awaiting review again from
// another sheet of its workbooks (by name, as Review.Sheets lists it) and
// answers the review of it; the sheet becomes the job's options.sheet. A
// sheet the workbook lacks, or a job without workbooks, is
// invalid_request.
func (c *Client) ChooseSheet(ctx context.Context, jobID, sheet string) (*Review, error) {
	b, err := jsonBody(map[string]any{"sheet": sheet})
	if err != nil {
		return nil, err
	}
	var r Review
	return &r, c.call(ctx, request{method: http.MethodPatch, path: jobPath(jobID) + "/review", body: b, contentType: "application/json", replayable: true}, &r)
}

// Confirm confirms a job's review: the reviewed mapping becomes the job's
// options.mapping and the job is queued to run. A review with blocking
// problems is the error of the first one's code.
func (c *Client) Confirm(ctx context.Context, jobID string) (*Job, error) {
	var j Job
	return &j, c.call(ctx, request{method: http.MethodPost, path: jobPath(jobID) + "/confirm"}, &j)
}

// InvalidValue is a distinct value of a field that made a succeeded job
// reject rows.
type InvalidValue struct {
	Value string          `json:"value"` // as the file had it
	Count int64           `json:"count"` // cells with this value whose error rejected their row
	Code  string          `json:"code"`  // the code of its first issue, e.g. invalid_boolean
	Raw   json.RawMessage `json:"-"`
}

func (v *InvalidValue) keep(raw []byte) { v.Raw = raw }

// InvalidValues iterates over the distinct values of a field that made a
// succeeded job reject rows, most frequent first (at most 1,000), for
// a value_map of a Rerun. A field the schema lacks is invalid_request; a
// job that has not succeeded, job_not_finished.
func (c *Client) InvalidValues(ctx context.Context, jobID, field string) iter.Seq2[*InvalidValue, error] {
	return pages[*InvalidValue](ctx, c, jobPath(jobID)+"/invalid-values", url.Values{"field": {field}}, 200)
}

// RerunRequest changes a rerun: Options (a JSON document, API.md §7) over
// the original's key by key, Mapping (source column → field, or nil to
// ignore it) over the original's column by column, Edits over the
// original's edits cell by cell (the rerun applies them all). Each may be
// empty. Review takes the rerun back to matching: it awaits its review
// with the original's mapping proposed.
type RerunRequest struct {
	Options json.RawMessage    `json:"options,omitempty"`
	Mapping map[string]*string `json:"mapping,omitempty"`
	Edits   []Edit             `json:"edits,omitempty"`
	Review  bool               `json:"review,omitempty"`
}

// Rerun starts a new job on an ended job's file(s), without uploading
// again: same mode, name and schema, with the request's changes. The new
// job's Source.RerunOf names the original.
func (c *Client) Rerun(ctx context.Context, jobID string, r RerunRequest) (*Job, error) {
	b, err := jsonBody(r)
	if err != nil {
		return nil, err
	}
	var j Job
	return &j, c.call(ctx, request{method: http.MethodPost, path: jobPath(jobID) + "/rerun", body: b, contentType: "application/json", replayable: true}, &j)
}
