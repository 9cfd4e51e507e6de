package client

import (
	"context"
	"encoding/json"
	"net/http"
)

// ReplacementRequest is a find-and-replace over one field's cells of a
// succeeded job (docs/API.md §5.6).
type ReplacementRequest struct {
	Field   string `json:"field"`
	Find    string `json:"find"`
	Replace string `json:"replace"`
	// Match is exact (the default: the whole cell, case-sensitive),
	// contains (each occurrence, case-insensitive) or regex (RE2; Replace
	// may name groups, $1).
	Match string `json:"match,omitempty"`
	// Status is all (the default) or rejected: only the rows rejected now.
	Status string `json:"status,omitempty"`
	// Preview counts the matches and stores nothing.
	Preview bool `json:"preview,omitempty"`
}

// Replacement is a stored (or previewed) replacement.
type Replacement struct {
	// ID is rpl_…; nil for a preview.
	ID      *string `json:"id"`
	Field   string  `json:"field"`
	Find    string  `json:"find"`
	Replace string  `json:"replace"`
	Match   string  `json:"match"`
	Status  string  `json:"status"`
	// Matched counts the cells Find matches in the records as they stand.
	Matched   int64           `json:"matched"`
	CreatedAt string          `json:"created_at"`
	Raw       json.RawMessage `json:"-"`
}

func (r *Replacement) keep(raw []byte) { r.Raw = raw }

// Replace stores a replacement as one step of the job's history (its
// records and reruns apply it), or with Preview only counts its matches.
// invalid_request names the member at fault; job_not_finished before the
// job succeeded.
func (c *Client) Replace(ctx context.Context, jobID string, req ReplacementRequest) (*Replacement, error) {
	b, err := jsonBody(req)
	if err != nil {
		return nil, err
	}
	var r Replacement
	return &r, c.call(ctx, request{method: http.MethodPost, path: jobPath(jobID) + "/replacements", body: b, contentType: "application/json", replayable: req.Preview}, &r)
}

// HistoryStep is one step of a job's history: an edit request or a
// replacement.
type HistoryStep struct {
	Step      int64           `json:"step"`
	Kind      string          `json:"kind"` // edits or replacement
	CreatedAt string          `json:"created_at"`
	Cells     int64           `json:"cells"`
	Summary   string          `json:"summary"`
	Undone    bool            `json:"undone"`
	Raw       json.RawMessage `json:"-"`
}

func (s *HistoryStep) keep(raw []byte) { s.Raw = raw }

// History is a job's steps, oldest first, and whether undo and redo have
// a step to take.
type History struct {
	Data    []HistoryStep   `json:"data"`
	CanUndo bool            `json:"can_undo"`
	CanRedo bool            `json:"can_redo"`
	Raw     json.RawMessage `json:"-"`
}

func (h *History) keep(raw []byte) { h.Raw = raw }

// History reads a job's history of edits and replacements.
func (c *Client) History(ctx context.Context, jobID string) (*History, error) {
	var h History
	return &h, c.call(ctx, request{method: http.MethodGet, path: jobPath(jobID) + "/history", replayable: true}, &h)
}

// Undo reverts the newest step of the job's history not undone and
// returns it; nothing_to_undo when there is none.
func (c *Client) Undo(ctx context.Context, jobID string) (*HistoryStep, error) {
	var s HistoryStep
	return &s, c.call(ctx, request{method: http.MethodPost, path: jobPath(jobID) + "/undo"}, &s)
}

// Redo applies again the oldest undone step and returns it;
// nothing_to_redo when there is none.
func (c *Client) Redo(ctx context.Context, jobID string) (*HistoryStep, error) {
	var s HistoryStep
	return &s, c.call(ctx, request{method: http.MethodPost, path: jobPath(jobID) + "/redo"}, &s)
}
