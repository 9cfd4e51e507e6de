package client

import (
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"net/url"
)

// Edit is one cell of a job's file given a value by a person: the field
// of a row (1-based, as issues number rows) of a file (a connect job's
// file id; nil for an uploaded file). A nil Value clears the cell.
type Edit struct {
	Row        int64   `json:"row"`
	SourceFile *string `json:"source_file"`
	Field      string  `json:"field"`
	Value      *string `json:"value"`
	// UpdatedAt is when the edit was stored (RFC 3339); empty in requests.
	UpdatedAt string `json:"updated_at,omitempty"`
	// Raw is a listed edit as the server sent it.
	Raw json.RawMessage `json:"-"`
}

func (e *Edit) keep(raw []byte) { e.Raw = raw }

// MarshalJSON writes the edit as a request gives it (the stored time is
// the server's).
func (e Edit) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Row        int64   `json:"row"`
		SourceFile *string `json:"source_file"`
		Field      string  `json:"field"`
		Value      *string `json:"value"`
	}{e.Row, e.SourceFile, e.Field, e.Value})
}

// UnmarshalJSON reads a stored edit.
func (e *Edit) UnmarshalJSON(b []byte) error {
	type plain Edit
	return json.Unmarshal(b, (*plain)(e))
}

// EditCheck is a stored edit with its row checked again with every edit
// of the job: whether the row would now be kept, and its remaining issues.
type EditCheck struct {
	Edit
	RowValid  bool    `json:"row_valid"`
	RowIssues []Issue `json:"row_issues"`
}

// UnmarshalJSON reads the edit and its check.
func (c *EditCheck) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &c.Edit); err != nil {
		return err
	}
	var check struct {
		RowValid  bool    `json:"row_valid"`
		RowIssues []Issue `json:"row_issues"`
	}
	if err := json.Unmarshal(b, &check); err != nil {
		return err
	}
	c.RowValid, c.RowIssues = check.RowValid, check.RowIssues
	return nil
}

// EditsAdded is the answer to AddEdits.
type EditsAdded struct {
	JobID string `json:"job_id"`
	// EditCount is how many edits the job holds now.
	EditCount int `json:"edit_count"`
	// Data are the request's edits as stored, one a cell (the last value
	// given for a cell wins), each with its row checked again.
	Data []EditCheck     `json:"data"`
	Raw  json.RawMessage `json:"-"`
}

func (a *EditsAdded) keep(raw []byte) { a.Raw = raw }

// AddEdits edits single cells of a succeeded job's file, each edited row
// checked again at once. Nothing is stored when an edit is refused
// (invalid_request naming it, e.g. a row the file does not have); past
// 100,000 edits a job, edit_limit_reached. A cell edited again takes the
// new value, so a retried call changes nothing.
func (c *Client) AddEdits(ctx context.Context, jobID string, edits []Edit) (*EditsAdded, error) {
	if edits == nil {
		edits = []Edit{}
	}
	b, err := jsonBody(map[string]any{"edits": edits})
	if err != nil {
		return nil, err
	}
	var a EditsAdded
	return &a, c.call(ctx, request{method: http.MethodPost, path: jobPath(jobID) + "/edits", body: b, contentType: "application/json", replayable: true}, &a)
}

// Edits iterates over a job's edits, by file, row and field. A rerun has
// the edits it ran with: its original's and its own.
func (c *Client) Edits(ctx context.Context, jobID string) iter.Seq2[*Edit, error] {
	return pages[*Edit](ctx, c, jobPath(jobID)+"/edits", url.Values{}, 200)
}

// RejectedRow is a row a succeeded job rejected, read from its file again
// and checked with the job's edits.
type RejectedRow struct {
	Row        int64   `json:"row"`
	SourceFile *string `json:"source_file"`
	// Valid says that, with the job's edits, the row would now be kept.
	Valid bool `json:"valid"`
	// Values is the row as it would come out (refused values null).
	Values json.RawMessage `json:"values"`
	// Cells are the text read for each mapped field: the file's or the
	// edit's; nil when missing or cleared.
	Cells  map[string]*string `json:"cells"`
	Edited []string           `json:"edited"` // the fields edits set
	Issues []Issue            `json:"issues"`
	Raw    json.RawMessage    `json:"-"`
}

func (r *RejectedRow) keep(raw []byte) { r.Raw = raw }

// RejectedRows iterates over the rows a succeeded job rejected, in the
// files' order, each as a run with the job's edits would now make it.
func (c *Client) RejectedRows(ctx context.Context, jobID string) iter.Seq2[*RejectedRow, error] {
	return pages[*RejectedRow](ctx, c, jobPath(jobID)+"/rejected-rows", url.Values{}, 100)
}
