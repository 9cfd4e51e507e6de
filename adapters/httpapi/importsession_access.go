package httpapi

import (
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

// importSessionActions name the action of each route a client secret
// may call, by method and route pattern; every other route is
// importsession.Manage. Which actions a secret may take, and that a job
// must be its session's, is the domain's rule (importsession.CanPrincipalDo),
// which the use cases enforce; the access chain asks it first so that
// nothing else runs for a route the secret may not use.
var importSessionActions = map[string]importsession.Action{
	"GET /v1/import-sessions/current":         importsession.ReadSession,
	"POST /v1/import-sessions/current/submit": importsession.SubmitSession,
	"POST /v1/jobs":                           importsession.CreateJob,
	"GET /v1/jobs/:id":                        importsession.ReadJob,
	"POST /v1/jobs/:id/cancel":                importsession.CancelJob,
	"GET /v1/jobs/:id/rows":                   importsession.ReadJob,
	"GET /v1/jobs/:id/rows.jsonl":             importsession.ReadJob,
	"GET /v1/jobs/:id/rows.csv":               importsession.ReadJob,
	"GET /v1/jobs/:id/errors":                 importsession.ReadJob,
	"GET /v1/jobs/:id/errors.jsonl":           importsession.ReadJob,
	"GET /v1/jobs/:id/errors.csv":             importsession.ReadJob,
	"GET /v1/jobs/:id/events":                 importsession.ReadJob,
	"GET /v1/jobs/:id/review":                 importsession.ReadJob,
	"PATCH /v1/jobs/:id/review":               importsession.ReviewJob,
	"PATCH /v1/jobs/:id/mapping":              importsession.ReviewJob,
	"POST /v1/jobs/:id/confirm":               importsession.ConfirmJob,
	"GET /v1/jobs/:id/invalid-values":         importsession.ReadJob,
	"POST /v1/jobs/:id/rerun":                 importsession.RerunJob,
	"GET /v1/jobs/:id/rejected-rows":          importsession.ReadJob,
	"GET /v1/jobs/:id/edits":                  importsession.ReadJob,
	"GET /v1/jobs/:id/records":                importsession.ReadJob,
	"POST /v1/jobs/:id/edits":                 importsession.ReviewJob,
	"POST /v1/jobs/:id/replacements":          importsession.ReviewJob,
	"GET /v1/jobs/:id/history":                importsession.ReadJob,
	"POST /v1/jobs/:id/undo":                  importsession.ReviewJob,
	"POST /v1/jobs/:id/redo":                  importsession.ReviewJob,
}

// routeAction is the action of a route, as the rule of a client secret
// sees it.
func routeAction(method, route string) importsession.Action {
	if a, ok := importSessionActions[method+" "+route]; ok {
		return a
	}
	return importsession.Manage
}

// importScope holds a client secret to its session's origins and asks
// the domain whether it may take the route's action; the job's use case
// checks that the job is the session's when it reads it. Other
// credentials pass.
func (a *API) importScope(c *gin.Context) error {
	p := principal(c)
	if p.Method != identity.ByImportSession {
		return nil
	}
	ses, _ := c.Get(importSessionKey)
	if err := a.importOrigin(c, ses.(importsession.Session)); err != nil { // embed.go
		return err
	}
	if err := importsession.CanPrincipalDo(p, routeAction(c.Request.Method, c.FullPath())); err != nil {
		return err
	}
	// Idempotency keys are the organization's: an end user's could
	// collide with, or replay, the backend's.
	if c.GetHeader("Idempotency-Key") != "" {
		return domain.Invalid("Idempotency-Key is not taken with an import session's client secret.")
	}
	return nil
}

// importSession is the session a client secret authenticated as.
func importSession(c *gin.Context) importsession.Session {
	ses, _ := c.Get(importSessionKey)
	s, _ := ses.(importsession.Session)
	return s
}

// errForbiddenImportSession refuses a client secret outside its session.
var errForbiddenImportSession = importsession.ErrForbidden
