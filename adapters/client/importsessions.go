package client

import (
	"context"
	"encoding/json"
	"net/http"
	"time"
)

// ImportSessionParams are a new import session's settings (API.md §4.7):
// the schema its jobs conform to (SchemaID or Schema), the origins that
// may frame the importer, and the rest optional.
type ImportSessionParams struct {
	SchemaID       string          `json:"schema_id,omitempty"`
	Schema         json.RawMessage `json:"schema,omitempty"`
	Options        json.RawMessage `json:"options,omitempty"`
	AllowedOrigins []string        `json:"allowed_origins"`
	ExpiresIn      int             `json:"expires_in,omitempty"` // seconds; 3600 when 0
	Metadata       map[string]any  `json:"metadata,omitempty"`
	MaxJobs        int             `json:"max_jobs,omitempty"` // 5 when 0
	Locale         string          `json:"locale,omitempty"`   // "en" or "de"
	Theme          *ImportTheme    `json:"theme,omitempty"`
}

// ImportTheme is how the importer looks.
type ImportTheme struct {
	Primary string `json:"primary,omitempty"` // "#0b5cff"
	Radius  string `json:"radius,omitempty"`  // "6px"
	Font    string `json:"font,omitempty"`    // "Inter, sans-serif"
}

// ImportSession is an import session. ClientSecret is set only in
// CreateImportSession's answer: hand it to the end user's browser
// (TabnormImporter.open), never store it.
type ImportSession struct {
	ID             string          `json:"id"`
	Status         string          `json:"status"` // open, submitted, expired, revoked
	URL            string          `json:"url"`
	ClientSecret   string          `json:"client_secret,omitempty"`
	SchemaID       *string         `json:"schema_id"`
	Options        json.RawMessage `json:"options"`
	AllowedOrigins []string        `json:"allowed_origins"`
	Metadata       json.RawMessage `json:"metadata"`
	MaxJobs        int             `json:"max_jobs"`
	JobCount       *int            `json:"job_count,omitempty"`
	Locale         string          `json:"locale"`
	Theme          ImportTheme     `json:"theme"`
	CreatedAt      string          `json:"created_at"`
	ExpiresAt      string          `json:"expires_at"`
	RevokedAt      *string         `json:"revoked_at"`
	SubmittedAt    *string         `json:"submitted_at"`
}

// ImportSessionSummary is what a submitted session reports: the data of
// the import_session.submitted webhook event. Jobs are the final job of
// each file (a rerun replaces the job it fixes), and the rows to read;
// SupersededJobIDs are the jobs reruns replaced, not counted, whose rows
// would repeat the final jobs'.
type ImportSessionSummary struct {
	ImportSessionID  string             `json:"import_session_id"`
	Metadata         json.RawMessage    `json:"metadata"`
	SubmittedAt      time.Time          `json:"submitted_at"`
	Jobs             []ImportSessionJob `json:"jobs"`
	SupersededJobIDs []string           `json:"superseded_job_ids"`
	RowsValid        int64              `json:"rows_valid"`
	RowsRejected     int64              `json:"rows_rejected"`
}

// ImportSessionJob is one final job of a submitted session.
type ImportSessionJob struct {
	ID           string `json:"id"`
	Status       string `json:"status"`
	RowsRead     int64  `json:"rows_read"`
	RowsValid    int64  `json:"rows_valid"`
	RowsRejected int64  `json:"rows_rejected"`
	Superseded   bool   `json:"superseded"` // always false in a summary
}

// CreateImportSession mints an import session for the embedded importer.
// It is sent once, never retried: a retry would mint a second session,
// and the first one's secret would be lost with its answer.
func (c *Client) CreateImportSession(ctx context.Context, p ImportSessionParams) (*ImportSession, error) {
	b, err := jsonBody(p)
	if err != nil {
		return nil, err
	}
	var s ImportSession
	return &s, c.call(ctx, request{method: http.MethodPost, path: "/v1/import-sessions", body: b, contentType: "application/json"}, &s)
}

// GetImportSession reads an import session, with its job count.
func (c *Client) GetImportSession(ctx context.Context, id string) (*ImportSession, error) {
	var s ImportSession
	return &s, c.call(ctx, request{method: http.MethodGet, path: "/v1/import-sessions/" + esc(id)}, &s)
}

// RevokeImportSession ends an import session at once.
func (c *Client) RevokeImportSession(ctx context.Context, id string) (*ImportSession, error) {
	var s ImportSession
	return &s, c.call(ctx, request{method: http.MethodDelete, path: "/v1/import-sessions/" + esc(id)}, &s)
}
