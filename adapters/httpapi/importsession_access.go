package httpapi

import (
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/importsession"
)

// The import session credential (Authorization: Bearer imp_secret_…) is
// kept here, apart from the access chain of keys and sessions: it is
// authenticated in authenticate, then importScope narrows it to the
// routes below, and to its own session's jobs.

const importSessionKey = "import_session"

// authenticateImportSession turns a client secret into its narrow
// principal and keeps the session for the handlers.
func (a *API) authenticateImportSession(c *gin.Context, secret string) (identity.Principal, error) {
	p, ses, err := a.deps.ImportSessions.Authenticate(c.Request.Context(), secret)
	if err != nil {
		return identity.Principal{}, err
	}
	c.Set(importSessionKey, ses)
	return p, nil
}

// importSessionRoutes are what a client secret may call, by method and
// route pattern: its session, creating jobs in it, and reading,
// reviewing (choosing a workbook's sheet too), mapping, fixing (values and
// cells), confirming, cancelling and rerunning them.
var importSessionRoutes = map[string]bool{
	"GET /v1/import-sessions/current":         true,
	"POST /v1/import-sessions/current/submit": true,
	"POST /v1/jobs":                           true,
	"GET /v1/jobs/:id":                        true,
	"POST /v1/jobs/:id/cancel":                true,
	"GET /v1/jobs/:id/rows":                   true,
	"GET /v1/jobs/:id/rows.jsonl":             true,
	"GET /v1/jobs/:id/rows.csv":               true,
	"GET /v1/jobs/:id/errors":                 true,
	"GET /v1/jobs/:id/errors.jsonl":           true,
	"GET /v1/jobs/:id/errors.csv":             true,
	"GET /v1/jobs/:id/events":                 true,
	"GET /v1/jobs/:id/review":                 true,
	"PATCH /v1/jobs/:id/review":               true,
	"PATCH /v1/jobs/:id/mapping":              true,
	"POST /v1/jobs/:id/confirm":               true,
	"GET /v1/jobs/:id/invalid-values":         true,
	"POST /v1/jobs/:id/rerun":                 true,
	"GET /v1/jobs/:id/rejected-rows":          true,
}

// importSessionMayUse reports whether a client secret may call a route.
// Per-cell edits of a job (/v1/jobs/:id/edits…) are fixes of its values
// like value_map, so every route under them is allowed.
func importSessionMayUse(method, route string) bool {
	return importSessionRoutes[method+" "+route] || strings.HasPrefix(route, "/v1/jobs/:id/edits")
}

var errForbiddenImportSession = domain.Errorf(domain.ErrForbidden, domain.CodeForbiddenImportSession,
	"An import session's client secret can only use its session and its jobs.")

// importScope refuses a client secret every route but its own, and every
// job but its session's: a job of the same organization outside the
// session is 404, as another organization's is. Other credentials pass.
func (a *API) importScope(c *gin.Context) error {
	p := principal(c)
	if p.Method != identity.ByImportSession {
		return nil
	}
	ses, _ := c.Get(importSessionKey)
	if err := a.importOrigin(c, ses.(importsession.Session)); err != nil { // embed.go
		return err
	}
	route := c.FullPath()
	if !importSessionMayUse(c.Request.Method, route) {
		return errForbiddenImportSession
	}
	// Idempotency keys are the organization's: an end user's could
	// collide with, or replay, the backend's.
	if c.GetHeader("Idempotency-Key") != "" {
		return domain.Invalid("Idempotency-Key is not taken with an import session's client secret.")
	}
	if !strings.HasPrefix(route, "/v1/jobs/:id") {
		return nil
	}
	j, err := a.deps.JobReader.Get(c.Request.Context(), p, c.Param("id"))
	if err != nil {
		return err
	}
	if j.ImportSessionID != p.ImportSessionID {
		return domain.Errorf(domain.ErrNotFound, domain.CodeNotFound, "No job %s.", c.Param("id"))
	}
	if route == "/v1/jobs/:id/rerun" { // a rerun is a new job of the session
		return a.deps.ImportSessions.CheckRoom(c.Request.Context(), p)
	}
	return nil
}
