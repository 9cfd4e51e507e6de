package httpapi

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/tabnorm/tabnorm/application/importsessions"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/importsession"
)

// importSessionRoutes are the customer backend's routes of import
// sessions (an API key or an admin's session).
func (a *API) importSessionRoutes(g *gin.RouterGroup) {
	g.POST("", a.createImportSession)
	get(g, "", a.listImportSessions)
	get(g, "/funnel", a.importSessionFunnel)
	get(g, "/:id", a.getImportSession)
	get(g, "/current", a.currentImportSession)
	g.POST("/current/submit", a.submitImportSession)
	g.DELETE("/:id", a.revokeImportSession)
}

// PaletteJSON is a theme's colors.
type PaletteJSON struct {
	Background  string `json:"background,omitempty"`
	Surface     string `json:"surface,omitempty"`
	Text        string `json:"text,omitempty"`
	Muted       string `json:"muted,omitempty"`
	Border      string `json:"border,omitempty"`
	Primary     string `json:"primary,omitempty"`
	PrimaryText string `json:"primary_text,omitempty"`
	Success     string `json:"success,omitempty"`
	Warning     string `json:"warning,omitempty"`
	Error       string `json:"error,omitempty"`
}

// ThemeJSON is an import session's theme: its light colors, its dark
// ones, and the rest.
type ThemeJSON struct {
	PaletteJSON
	Dark        *PaletteJSON `json:"dark,omitempty"`
	Radius      string       `json:"radius,omitempty"`
	Font        string       `json:"font,omitempty"`
	FontSize    string       `json:"font_size,omitempty"`
	Density     string       `json:"density,omitempty"`
	ButtonStyle string       `json:"button_style,omitempty"`
	Mode        string       `json:"mode,omitempty"`
	LogoURL     string       `json:"logo_url,omitempty"`
	Title       string       `json:"title,omitempty"`
}

func newThemeJSON(t importsession.Theme) ThemeJSON {
	out := ThemeJSON{PaletteJSON: PaletteJSON(t.Palette), Radius: t.Radius, Font: t.Font, FontSize: t.FontSize, Density: t.Density,
		ButtonStyle: t.ButtonStyle, Mode: t.Mode, LogoURL: t.LogoURL, Title: t.Title}
	if t.Dark != (importsession.Palette{}) {
		d := PaletteJSON(t.Dark)
		out.Dark = &d
	}
	return out
}

func (t ThemeJSON) domain() importsession.Theme {
	out := importsession.Theme{Palette: importsession.Palette(t.PaletteJSON), Radius: t.Radius, Font: t.Font, FontSize: t.FontSize,
		Density: t.Density, ButtonStyle: t.ButtonStyle, Mode: t.Mode, LogoURL: t.LogoURL, Title: t.Title}
	if t.Dark != nil {
		out.Dark = importsession.Palette(*t.Dark)
	}
	return out
}

// ImportSessionJSON is an import session as the API shows it; the client
// secret appears only in the creation response.
type ImportSessionJSON struct {
	ID             string            `json:"id"`
	Object         string            `json:"object"`
	Status         string            `json:"status"`
	URL            string            `json:"url"`
	SchemaID       *string           `json:"schema_id"`
	Schema         json.RawMessage   `json:"schema"`
	Options        json.RawMessage   `json:"options"`
	AllowedOrigins []string          `json:"allowed_origins"`
	Metadata       json.RawMessage   `json:"metadata"`
	MaxJobs        int               `json:"max_jobs"`
	JobCount       *int              `json:"job_count,omitempty"`
	Locale         string            `json:"locale"`
	Theme          ThemeJSON         `json:"theme"`
	Texts          map[string]string `json:"texts"`
	SubmitPolicy   submitPolicyJSON  `json:"submit_policy"`
	CreatedAt      string            `json:"created_at"`
	ExpiresAt      string            `json:"expires_at"`
	RevokedAt      *string           `json:"revoked_at"`
	SubmittedAt    *string           `json:"submitted_at"`
	ClientSecret   string            `json:"client_secret,omitempty"`
}

// embedURL is the page that frames the importer: on the service's
// public origin when it is configured, else on the origin asked.
func (a *API) embedURL(c *gin.Context, sessionID string) string {
	base := a.cfg.BaseOrigin
	if base == "" {
		scheme := "http"
		if c.Request.TLS != nil {
			scheme = "https"
		}
		base = scheme + "://" + c.Request.Host
	}
	return base + "/embed/" + sessionID
}

func (a *API) importSessionJSON(c *gin.Context, s importsession.Session, jobs *int) ImportSessionJSON {
	out := ImportSessionJSON{ID: s.ID, Object: "import_session", Status: string(s.Status(a.deps.Clock.Now())), URL: a.embedURL(c, s.ID),
		Schema: json.RawMessage("null"), Options: s.Options, AllowedOrigins: s.AllowedOrigins, Metadata: s.Metadata, MaxJobs: s.MaxJobs,
		JobCount: jobs, Locale: s.Locale, Theme: newThemeJSON(s.Theme), Texts: s.Texts, CreatedAt: formatTime(s.CreatedAt), ExpiresAt: formatTime(s.ExpiresAt),
		RevokedAt: formatTimePtr(s.RevokedAt), SubmittedAt: formatTimePtr(s.SubmittedAt)}
	if out.Texts == nil {
		out.Texts = map[string]string{}
	}
	out.SubmitPolicy = submitPolicyJSON{InvalidRows: s.SubmitPolicy.InvalidRows, MinValidRows: s.SubmitPolicy.MinValidRows}
	if out.SubmitPolicy.InvalidRows == "" {
		out.SubmitPolicy.InvalidRows = importsession.DropInvalid
	}
	if s.SchemaID != "" {
		out.SchemaID = &s.SchemaID
	}
	if s.Schema != nil {
		out.Schema = s.Schema
	}
	return out
}

type createImportSessionRequest struct {
	SchemaID       string            `json:"schema_id"`
	Schema         json.RawMessage   `json:"schema"`
	Options        json.RawMessage   `json:"options"`
	AllowedOrigins []string          `json:"allowed_origins"`
	ExpiresIn      int64             `json:"expires_in"`
	Metadata       json.RawMessage   `json:"metadata"`
	MaxJobs        int               `json:"max_jobs"`
	Locale         string            `json:"locale"`
	Theme          ThemeJSON         `json:"theme"`
	Texts          map[string]string `json:"texts"`
	SubmitPolicy   submitPolicyJSON  `json:"submit_policy"`
}

// submitPolicyJSON is a session's submit_policy: what its submit asks of
// its final jobs.
type submitPolicyJSON struct {
	InvalidRows  string `json:"invalid_rows"`
	MinValidRows int64  `json:"min_valid_rows"`
}

// createImportSession mints a session. It takes no Idempotency-Key: a
// replay could not show the secret again, and a second session costs
// nothing but its row.
func (a *API) createImportSession(c *gin.Context) {
	var req createImportSessionRequest
	if err := decodeJSON(c, &req); err != nil {
		fail(c, err)
		return
	}
	ses, secret, err := a.deps.ImportSessions.Create(c.Request.Context(), principal(c), importsessions.Input{
		SchemaID: req.SchemaID, Schema: req.Schema, Options: req.Options, AllowedOrigins: req.AllowedOrigins, ExpiresIn: req.ExpiresIn,
		Metadata: req.Metadata, MaxJobs: req.MaxJobs, Locale: req.Locale, Theme: req.Theme.domain(), Texts: req.Texts,
		SubmitPolicy: importsession.SubmitPolicy{InvalidRows: req.SubmitPolicy.InvalidRows, MinValidRows: req.SubmitPolicy.MinValidRows}})
	if err != nil {
		fail(c, err)
		return
	}
	out := a.importSessionJSON(c, ses, nil)
	out.ClientSecret = secret
	c.Header("Cache-Control", "no-store")
	c.Header("Location", "/v1/import-sessions/"+ses.ID)
	c.JSON(http.StatusCreated, out)
}

func (a *API) listImportSessions(c *gin.Context) {
	page, err := pageOf(c)
	if err != nil {
		fail(c, err)
		return
	}
	list, next, err := a.deps.ImportSessions.List(c.Request.Context(), principal(c), page)
	if err != nil {
		fail(c, err)
		return
	}
	out := make([]ImportSessionJSON, len(list))
	for i, s := range list {
		out[i] = a.importSessionJSON(c, s, nil)
	}
	c.JSON(http.StatusOK, newList(out, next))
}

// FunnelStepsJSON counts the sessions that reached each step.
type FunnelStepsJSON struct {
	Created               int      `json:"created"`
	Opened                int      `json:"opened"`
	Uploaded              int      `json:"uploaded"`
	ColumnsConfirmed      int      `json:"columns_confirmed"`
	FixesApplied          int      `json:"fixes_applied"`
	Submitted             int      `json:"submitted"`
	ExpiredUnused         int      `json:"expired_unused"`
	MedianSecondsToSubmit *float64 `json:"median_seconds_to_submit"`
}

// FunnelDayJSON is the funnel of the sessions created on one day.
type FunnelDayJSON struct {
	Day string `json:"day"`
	FunnelStepsJSON
}

func newFunnelSteps(s importsession.Steps) FunnelStepsJSON {
	out := FunnelStepsJSON{Created: s.Created, Opened: s.Opened, Uploaded: s.Uploaded, ColumnsConfirmed: s.Confirmed, FixesApplied: s.Fixed,
		Submitted: s.Submitted, ExpiredUnused: s.ExpiredUnused}
	if s.Submitted > 0 {
		secs := s.MedianToSubmit.Seconds()
		out.MedianSecondsToSubmit = &secs
	}
	return out
}

// importSessionFunnel is the organization's funnel of the last days
// (?days=1…90, 30 by default), a day each and in total.
func (a *API) importSessionFunnel(c *gin.Context) {
	days := 0
	if v := c.Query("days"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 { // 0 would be the default
			fail(c, domain.Errorf(domain.ErrInvalid, domain.CodeInvalidRequest, "days must be a whole number from 1 to 90."))
			return
		}
		days = n
	}
	byDay, total, err := a.deps.ImportSessions.Funnel(c.Request.Context(), principal(c), days)
	if err != nil {
		fail(c, err)
		return
	}
	out := struct {
		Object string          `json:"object"`
		Days   []FunnelDayJSON `json:"days"`
		Total  FunnelStepsJSON `json:"total"`
	}{Object: "import_session_funnel", Days: make([]FunnelDayJSON, len(byDay)), Total: newFunnelSteps(total)}
	for i, d := range byDay {
		out.Days[i] = FunnelDayJSON{Day: d.Day, FunnelStepsJSON: newFunnelSteps(d.Steps)}
	}
	c.JSON(http.StatusOK, out)
}

// getImportSession shows a session with its jobs (oldest first, those
// reruns replaced marked superseded) and the summary a submit would
// report of them now.
func (a *API) getImportSession(c *gin.Context) {
	d, err := a.deps.ImportSessions.Details(c.Request.Context(), principal(c), c.Param("id"))
	if err != nil {
		fail(c, err)
		return
	}
	n := len(d.Jobs)
	c.JSON(http.StatusOK, struct {
		ImportSessionJSON
		Jobs    []importsessions.JobSummary `json:"jobs"`
		Summary importsessions.Summary      `json:"summary"`
	}{a.importSessionJSON(c, d.Session, &n), d.Jobs, d.Summary})
}

func (a *API) revokeImportSession(c *gin.Context) {
	ses, err := a.deps.ImportSessions.Revoke(c.Request.Context(), principal(c), c.Param("id"))
	if err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusOK, a.importSessionJSON(c, ses, nil))
}

// CurrentImportSessionJSON is what the importer reads of its session:
// the settings it shows and obeys, its jobs, and the upload limit. It
// never shows the secret or the session's other credentials.
type CurrentImportSessionJSON struct {
	ImportSessionJSON
	Jobs           []jobJSON `json:"jobs"`
	MaxUploadBytes int64     `json:"max_upload_bytes"`
}

// noCurrentSession answers a credential other than a client secret: it
// has no current import session.
var noCurrentSession = domain.Errorf(domain.ErrNotFound, domain.CodeNotFound, "No current import session: authenticate with its client secret.")

func (a *API) currentImportSession(c *gin.Context) {
	p := principal(c)
	if p.Method != identity.ByImportSession {
		fail(c, noCurrentSession)
		return
	}
	ses, js, err := a.deps.ImportSessions.Current(c.Request.Context(), p)
	if err != nil {
		fail(c, err)
		return
	}
	n := len(js)
	out := CurrentImportSessionJSON{ImportSessionJSON: a.importSessionJSON(c, ses, &n), Jobs: make([]jobJSON, len(js)), MaxUploadBytes: a.cfg.MaxUploadBytes}
	for i, j := range js {
		out.Jobs[i] = newJobJSON(j)
	}
	c.JSON(http.StatusOK, out)
}

func (a *API) submitImportSession(c *gin.Context) {
	p := principal(c)
	if p.Method != identity.ByImportSession {
		fail(c, noCurrentSession)
		return
	}
	ses, sum, err := a.deps.ImportSessions.Submit(c.Request.Context(), p)
	if err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusOK, struct {
		ImportSessionJSON
		Summary importsessions.Summary `json:"summary"`
	}{a.importSessionJSON(c, ses, nil), sum})
}
