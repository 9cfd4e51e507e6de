package client

import (
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"net/url"
	"strconv"
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
	Locale         string          `json:"locale,omitempty"`   // en, de, fr, es, it, pt, nl, or auto (the browser's)
	Theme          *ImportTheme    `json:"theme,omitempty"`
	// Texts replace the importer's messages by key (its locales/en.json).
	Texts map[string]string `json:"texts,omitempty"`
}

// ImportPalette is a theme's colors, each "#rgb" or "#rrggbb"; the API
// refuses a pair the end user reads below WCAG AA contrast.
type ImportPalette struct {
	Background  string `json:"background,omitempty"`
	Surface     string `json:"surface,omitempty"`
	Text        string `json:"text,omitempty"`
	Muted       string `json:"muted,omitempty"`
	Border      string `json:"border,omitempty"`
	Primary     string `json:"primary,omitempty"` // "#0b5cff"
	PrimaryText string `json:"primary_text,omitempty"`
	Success     string `json:"success,omitempty"`
	Warning     string `json:"warning,omitempty"`
	Error       string `json:"error,omitempty"`
}

// ImportTheme is how the importer looks (docs/embed.md, "Theme").
type ImportTheme struct {
	ImportPalette
	Dark        *ImportPalette `json:"dark,omitempty"`
	Radius      string         `json:"radius,omitempty"`       // "6px"
	Font        string         `json:"font,omitempty"`         // "Inter, sans-serif"
	FontSize    string         `json:"font_size,omitempty"`    // "15px"
	Density     string         `json:"density,omitempty"`      // compact or comfortable
	ButtonStyle string         `json:"button_style,omitempty"` // solid or outline
	Mode        string         `json:"mode,omitempty"`         // light, dark or auto
	LogoURL     string         `json:"logo_url,omitempty"`     // https on an allowed origin, or data:image/… under 64 KB
	Title       string         `json:"title,omitempty"`
}

// ImportSession is an import session. ClientSecret is set only in
// CreateImportSession's answer: hand it to the end user's browser
// (TabnormImporter.open), never store it.
type ImportSession struct {
	ID             string            `json:"id"`
	Status         string            `json:"status"` // open, submitted, expired, revoked
	URL            string            `json:"url"`
	ClientSecret   string            `json:"client_secret,omitempty"`
	SchemaID       *string           `json:"schema_id"`
	Options        json.RawMessage   `json:"options"`
	AllowedOrigins []string          `json:"allowed_origins"`
	Metadata       json.RawMessage   `json:"metadata"`
	MaxJobs        int               `json:"max_jobs"`
	JobCount       *int              `json:"job_count,omitempty"`
	Locale         string            `json:"locale"`
	Theme          ImportTheme       `json:"theme"`
	Texts          map[string]string `json:"texts"`
	CreatedAt      string            `json:"created_at"`
	ExpiresAt      string            `json:"expires_at"`
	RevokedAt      *string           `json:"revoked_at"`
	SubmittedAt    *string           `json:"submitted_at"`
	// Jobs (every job, oldest first) and Summary (what a submit would
	// report now) are set by GetImportSession only.
	Jobs    []ImportSessionJob    `json:"jobs,omitempty"`
	Summary *ImportSessionSummary `json:"summary,omitempty"`
	Raw     json.RawMessage       `json:"-"`
}

func (s *ImportSession) keep(raw []byte) { s.Raw = raw }

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

// ImportSessionJob is a job of a session: in a summary, a final one.
type ImportSessionJob struct {
	ID           string `json:"id"`
	Status       string `json:"status"`
	RowsRead     int64  `json:"rows_read"`
	RowsValid    int64  `json:"rows_valid"`
	RowsRejected int64  `json:"rows_rejected"`
	Superseded   bool   `json:"superseded"` // a rerun replaced it; always false in a summary
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

// ImportSessions iterates over the organization's import sessions,
// newest first, never with a secret; pageSize 0 is the server's default.
func (c *Client) ImportSessions(ctx context.Context, pageSize int) iter.Seq2[*ImportSession, error] {
	return pages[*ImportSession](ctx, c, "/v1/import-sessions", url.Values{}, pageSize)
}

// FunnelSteps counts the sessions that reached each step of the funnel.
type FunnelSteps struct {
	Day                   string   `json:"day,omitempty"` // YYYY-MM-DD; "" in the total
	Created               int      `json:"created"`
	Opened                int      `json:"opened"`
	Uploaded              int      `json:"uploaded"`
	ColumnsConfirmed      int      `json:"columns_confirmed"`
	FixesApplied          int      `json:"fixes_applied"`
	Submitted             int      `json:"submitted"`
	ExpiredUnused         int      `json:"expired_unused"`
	MedianSecondsToSubmit *float64 `json:"median_seconds_to_submit"`
}

// ImportSessionFunnel is the organization's funnel: a day each, oldest
// first, and the total.
type ImportSessionFunnel struct {
	Days  []FunnelSteps `json:"days"`
	Total FunnelSteps   `json:"total"`
}

// ImportSessionFunnel reads the funnel of the sessions created on each
// of the last days days (1 to 90; 0 for 30).
func (c *Client) ImportSessionFunnel(ctx context.Context, days int) (*ImportSessionFunnel, error) {
	path := "/v1/import-sessions/funnel"
	if days != 0 {
		path += "?days=" + strconv.Itoa(days)
	}
	var f ImportSessionFunnel
	return &f, c.call(ctx, request{method: http.MethodGet, path: path}, &f)
}
