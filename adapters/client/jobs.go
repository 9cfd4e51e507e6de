package client

import (
	"context"
	"encoding/json"
	"io"
	"iter"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Job is a job object (API.md §5.2). Raw is the object as the server sent
// it, for printing or fields this version does not name.
type Job struct {
	ID       string          `json:"id"`
	Name     *string         `json:"name"`
	Mode     string          `json:"mode"`
	Status   string          `json:"status"` // queued, running, awaiting_review, succeeded, failed, canceled
	Source   Source          `json:"source"`
	SchemaID *string         `json:"schema_id"`
	Schema   json.RawMessage `json:"schema"`
	Options  json.RawMessage `json:"options"`
	Progress Progress        `json:"progress"`
	// Mapping is where each source column went; while the job awaits its
	// review, the mapping the review proposes.
	Mapping  []ColumnMapping `json:"mapping"`
	Result   *Result         `json:"result"`
	Error    *JobError       `json:"error"`
	Attempts int             `json:"attempts"`
	Created  time.Time       `json:"created_at"`
	Started  *time.Time      `json:"started_at"`
	Finished *time.Time      `json:"finished_at"`
	// Superseded: a later job reruns this one (Rerun) and replaces it; an
	// import session's summary lists it apart and counts the rerun.
	Superseded bool            `json:"superseded"`
	Raw        json.RawMessage `json:"-"`
}

func (j *Job) keep(raw []byte) { j.Raw = raw }

// Terminal reports whether the job has ended.
func (j *Job) Terminal() bool {
	return j.Status == "succeeded" || j.Status == "failed" || j.Status == "canceled"
}

// Source is where a job's table comes from.
type Source struct {
	Type    string  `json:"type"` // upload or connect
	Files   []File  `json:"files"`
	RerunOf *string `json:"rerun_of"` // the job this one reruns (Rerun)
}

// Progress counts a job's work so far.
type Progress struct {
	RowsRead     int64   `json:"rows_read"`
	RowsValid    int64   `json:"rows_valid"`
	RowsRejected int64   `json:"rows_rejected"`
	BytesRead    int64   `json:"bytes_read"`
	BytesTotal   int64   `json:"bytes_total"`
	Percent      float64 `json:"percent"`
}

// Result is a succeeded job's outcome.
type Result struct {
	RowCount        int64           `json:"row_count"`
	RejectedCount   int64           `json:"rejected_count"`
	IssueCount      int64           `json:"issue_count"`
	IssuesTruncated bool            `json:"issues_truncated"`
	InferredSchema  json.RawMessage `json:"inferred_schema"`
	// EditsApplied counts the cells the job's edits set.
	EditsApplied int64 `json:"edits_applied"`
	// FileIssues are the issues about a file rather than a row (what a
	// reader skipped, a decision to check), the first 100.
	FileIssues []FileIssue `json:"file_issues"`
	// Hooks is what each validation hook of the schema did (none when it
	// names none).
	Hooks []HookStats `json:"hooks"`
}

// HookStats is what one validation hook did in a job.
type HookStats struct {
	Hook          string  `json:"hook"`
	Batches       int64   `json:"batches"`
	RowsSent      int64   `json:"rows_sent"`
	Issues        int64   `json:"issues"`
	ValuesChanged int64   `json:"values_changed"`
	Failures      int64   `json:"failures"`
	TimeMS        int64   `json:"time_ms"`
	FirstFailure  *string `json:"first_failure"`
}

// FileIssue is an issue about a file, not a row.
type FileIssue struct {
	SourceFile *string `json:"source_file"`
	Column     *string `json:"column"`
	Field      *string `json:"field"`
	Severity   string  `json:"severity"`
	Code       string  `json:"code"`
	Message    string  `json:"message"`
}

// JobError is why a job failed.
type JobError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// JobParams are a new job's settings. Schema and Options are JSON
// documents (API.md §6 and §7); SchemaID names a saved schema instead.
type JobParams struct {
	Mode     string // normalize (default), validate or infer
	Schema   json.RawMessage
	SchemaID string
	Options  json.RawMessage
	Name     string
}

// Upload is a file to send. Size, when known, lets Sent report a share.
type Upload struct {
	Filename string
	Body     io.Reader
	// Sent, when set, is called as bytes go out (for progress bars).
	Sent func(n int64)
}

// CreateJob uploads a file and starts a job on it. The file streams from
// its reader through a pipe: it is never held in memory. A stream cannot
// be sent twice, so an upload is retried only when Body is an io.Seeker.
func (c *Client) CreateJob(ctx context.Context, file Upload, p JobParams) (*Job, error) {
	fields := map[string]string{"mode": p.Mode, "schema": string(p.Schema), "schema_id": p.SchemaID, "options": string(p.Options), "name": p.Name}
	var j Job
	return &j, c.upload(ctx, "/v1/jobs", file, fields, &j)
}

// CreateConnectJob starts a job on files of the connect library, read in
// order as one table.
func (c *Client) CreateConnectJob(ctx context.Context, fileIDs []string, p JobParams) (*Job, error) {
	body := map[string]any{"file_ids": fileIDs}
	if p.Mode != "" {
		body["mode"] = p.Mode
	}
	if len(p.Schema) > 0 {
		body["schema"] = p.Schema
	}
	if p.SchemaID != "" {
		body["schema_id"] = p.SchemaID
	}
	if len(p.Options) > 0 {
		body["options"] = p.Options
	}
	if p.Name != "" {
		body["name"] = p.Name
	}
	b, err := jsonBody(body)
	if err != nil {
		return nil, err
	}
	var j Job
	return &j, c.call(ctx, request{method: http.MethodPost, path: "/v1/connect/jobs", body: b, contentType: "application/json", replayable: true}, &j)
}

// upload posts a multipart body: fields first (empty ones left out), then
// the file, written by a goroutine into a pipe as the request reads it.
func (c *Client) upload(ctx context.Context, path string, file Upload, fields map[string]string, out any) error {
	seeker, replayable := file.Body.(io.Seeker)
	boundary := multipart.NewWriter(io.Discard).Boundary()
	body := func() (io.Reader, error) {
		if replayable {
			if _, err := seeker.Seek(0, io.SeekStart); err != nil {
				return nil, err
			}
		}
		pr, pw := io.Pipe()
		mw := multipart.NewWriter(pw)
		_ = mw.SetBoundary(boundary)
		go func() {
			pw.CloseWithError(writeMultipart(mw, file, fields))
		}()
		return pr, nil
	}
	ctype := "multipart/form-data; boundary=" + boundary
	return c.call(ctx, request{method: http.MethodPost, path: path, body: body, contentType: ctype, replayable: replayable}, out)
}

func writeMultipart(mw *multipart.Writer, file Upload, fields map[string]string) error {
	for _, k := range []string{"mode", "schema", "schema_id", "options", "name"} {
		if v := fields[k]; v != "" {
			if err := mw.WriteField(k, v); err != nil {
				return err
			}
		}
	}
	name := file.Filename
	if name == "" {
		name = "upload"
	}
	fw, err := mw.CreateFormFile("file", name)
	if err != nil {
		return err
	}
	w := io.Writer(fw)
	if file.Sent != nil {
		w = &countingWriter{w: fw, sent: file.Sent}
	}
	if _, err := io.Copy(w, file.Body); err != nil {
		return err
	}
	return mw.Close()
}

type countingWriter struct {
	w    io.Writer
	n    int64
	sent func(int64)
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	c.sent(c.n)
	return n, err
}

// jobPath is a job's path: jobs of either product are reachable under /v1/jobs.
func jobPath(id string) string { return "/v1/jobs/" + esc(id) }

// GetJob reads a job.
func (c *Client) GetJob(ctx context.Context, id string) (*Job, error) {
	var j Job
	return &j, c.call(ctx, request{method: http.MethodGet, path: jobPath(id)}, &j)
}

// CancelJob cancels a queued or running job (an ended one is the error
// job_not_cancelable).
func (c *Client) CancelJob(ctx context.Context, id string) (*Job, error) {
	var j Job
	return &j, c.call(ctx, request{method: http.MethodPost, path: jobPath(id) + "/cancel"}, &j)
}

// DeleteJob deletes a job, its file and its results.
func (c *Client) DeleteJob(ctx context.Context, id string) error {
	return c.call(ctx, request{method: http.MethodDelete, path: jobPath(id)}, nil)
}

// ListParams filter and size lists. Zero values: every item, pages of 50.
type ListParams struct {
	Status   string // jobs only
	PageSize int
}

// Jobs iterates over the organization's jobs, newest first, fetching
// pages as the loop goes on. It stops at the first error, which it yields.
func (c *Client) Jobs(ctx context.Context, p ListParams) iter.Seq2[*Job, error] {
	q := url.Values{}
	if p.Status != "" {
		q.Set("status", p.Status)
	}
	return pages[*Job](ctx, c, "/v1/jobs", q, p.PageSize)
}

// Row is one output row: field name → value, numbers as json.Number so
// that no digit is lost.
type Row map[string]any

// UnmarshalJSON decodes a row with its numbers as json.Number, wherever
// the row is (a page of rows, a review's preview).
func (r *Row) UnmarshalJSON(raw []byte) error {
	dec := json.NewDecoder(bytesReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return err
	}
	*r = m
	return nil
}

// Rows iterates over a succeeded job's valid rows.
func (c *Client) Rows(ctx context.Context, jobID string) iter.Seq2[Row, error] {
	return pages[Row](ctx, c, jobPath(jobID)+"/rows", url.Values{}, 200)
}

// Issue is one problem found in a job's file.
type Issue struct {
	Row        int64   `json:"row"`
	SourceFile *string `json:"source_file"`
	Column     *string `json:"column"`
	Field      *string `json:"field"`
	Severity   string  `json:"severity"` // error or warning
	Code       string  `json:"code"`
	Message    string  `json:"message"`
	Value      *string `json:"value"`
	Rule       string  `json:"rule,omitempty"` // the rule of a rule_violation or rule_error
}

// Issues iterates over a finished job's issues.
func (c *Client) Issues(ctx context.Context, jobID string) iter.Seq2[Issue, error] {
	return pages[Issue](ctx, c, jobPath(jobID)+"/errors", url.Values{}, 200)
}

// Download streams a job's rows ("rows") or issues ("errors") as "jsonl"
// or "csv", the rows also as "xlsx" or "parquet" and the issues as "xlsx"
// (the annotated workbook of every row read), exactly as the server
// writes them. The caller closes it.
func (c *Client) Download(ctx context.Context, jobID, which, format string) (io.ReadCloser, error) {
	res, err := c.do(ctx, request{method: http.MethodGet, path: jobPath(jobID) + "/" + which + "." + format})
	if err != nil {
		return nil, err
	}
	return res.Body, nil
}

// ErrorsWorkbook streams the annotated workbook of a job's issues: every
// row read, or with rejectedOnly only the rows with an error, the cells at
// fault marked and their messages as comments. Fixed, it uploads as a new
// job's file. The caller closes it.
func (c *Client) ErrorsWorkbook(ctx context.Context, jobID string, rejectedOnly bool) (io.ReadCloser, error) {
	q := url.Values{}
	if rejectedOnly {
		q.Set("rows", "rejected")
	}
	res, err := c.do(ctx, request{method: http.MethodGet, path: jobPath(jobID) + "/errors.xlsx", query: q})
	if err != nil {
		return nil, err
	}
	return res.Body, nil
}

// pages iterates over a list, page after page by cursor.
func pages[T any](ctx context.Context, c *Client, path string, q url.Values, size int) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		if size > 0 {
			q.Set("limit", strconv.Itoa(size))
		}
		for {
			var page struct {
				Data       []json.RawMessage `json:"data"`
				NextCursor *string           `json:"next_cursor"`
			}
			var zero T
			if err := c.call(ctx, request{method: http.MethodGet, path: path, query: q}, &page); err != nil {
				yield(zero, err)
				return
			}
			for _, raw := range page.Data {
				v, err := decodeItem[T](raw)
				if !yield(v, err) || err != nil {
					return
				}
			}
			if page.NextCursor == nil {
				return
			}
			q.Set("cursor", *page.NextCursor)
		}
	}
}

func decodeItem[T any](raw json.RawMessage) (T, error) {
	var v T
	dec := json.NewDecoder(bytesReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return v, err
	}
	if k, ok := any(v).(interface{ keep([]byte) }); ok {
		k.keep(raw)
	}
	return v, nil
}
