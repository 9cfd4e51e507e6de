package httpapi

import (
	"encoding/json"
	"net/http"

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
	get(g, "/:id", a.getImportSession)
	get(g, "/current", a.currentImportSession)
	g.POST("/current/submit", a.submitImportSession)
	g.DELETE("/:id", a.revokeImportSession)
}

// ThemeJSON is an import session's theme.
type ThemeJSON struct {
	Primary string `json:"primary,omitempty"`
	Radius  string `json:"radius,omitempty"`
	Font    string `json:"font,omitempty"`
}

// ImportSessionJSON is an import session as the API shows it; the client
// secret appears only in the creation response.
type ImportSessionJSON struct {
	ID             string          `json:"id"`
	Object         string          `json:"object"`
	Status         string          `json:"status"`
	URL            string          `json:"url"`
	SchemaID       *string         `json:"schema_id"`
	Schema         json.RawMessage `json:"schema"`
	Options        json.RawMessage `json:"options"`
	AllowedOrigins []string        `json:"allowed_origins"`
	Metadata       json.RawMessage `json:"metadata"`
	MaxJobs        int             `json:"max_jobs"`
	JobCount       *int            `json:"job_count,omitempty"`
	Locale         string          `json:"locale"`
	Theme          ThemeJSON       `json:"theme"`
	CreatedAt      string          `json:"created_at"`
	ExpiresAt      string          `json:"expires_at"`
	RevokedAt      *string         `json:"revoked_at"`
	SubmittedAt    *string         `json:"submitted_at"`
	ClientSecret   string          `json:"client_secret,omitempty"`
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
		JobCount: jobs, Locale: s.Locale, Theme: ThemeJSON(s.Theme), CreatedAt: formatTime(s.CreatedAt), ExpiresAt: formatTime(s.ExpiresAt),
		RevokedAt: formatTimePtr(s.RevokedAt), SubmittedAt: formatTimePtr(s.SubmittedAt)}
	if s.SchemaID != "" {
		out.SchemaID = &s.SchemaID
	}
	if s.Schema != nil {
		out.Schema = s.Schema
	}
	return out
}

type createImportSessionRequest struct {
	SchemaID       string          `json:"schema_id"`
	Schema         json.RawMessage `json:"schema"`
	Options        json.RawMessage `json:"options"`
	AllowedOrigins []string        `json:"allowed_origins"`
	ExpiresIn      int64           `json:"expires_in"`
	Metadata       json.RawMessage `json:"metadata"`
	MaxJobs        int             `json:"max_jobs"`
	Locale         string          `json:"locale"`
	Theme          ThemeJSON       `json:"theme"`
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
		Metadata: req.Metadata, MaxJobs: req.MaxJobs, Locale: req.Locale, Theme: importsession.Theme(req.Theme)})
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

func (a *API) getImportSession(c *gin.Context) {
	ses, n, err := a.deps.ImportSessions.Get(c.Request.Context(), principal(c), c.Param("id"))
	if err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusOK, a.importSessionJSON(c, ses, &n))
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
