package httpapi

import (
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/tabnorm/tabnorm/domain/apikey"
)

// routeScopes is the scope an API key needs for each /v1 route, by method
// and route pattern (HEAD is its GET). Reads need jobs:read, except where
// reading is part of managing something (webhook endpoints, import
// sessions, keys); writes need the scope of what they change. A route
// missing here is refused to every key but an admin one, and
// TestKeyScopes_everyRouteHasOne fails: a new route cannot be added
// without its scope.
var routeScopes = map[string]apikey.Scope{
	"GET /v1/admin/keys":             apikey.AdminScope,
	"POST /v1/admin/keys":            apikey.AdminScope,
	"DELETE /v1/admin/keys/:id":      apikey.AdminScope,
	"GET /v1/admin/organizations":    apikey.AdminScope,
	"GET /v1/audit-events":           apikey.AdminScope,
	"GET /v1/audit-events.jsonl":     apikey.AdminScope,
	"GET /v1/sso":                    apikey.AdminScope,
	"PUT /v1/sso":                    apikey.AdminScope,
	"DELETE /v1/sso":                 apikey.AdminScope,
	"GET /v1/usage":                  apikey.JobsRead,
	"GET /v1/connect/files":          apikey.JobsRead,
	"POST /v1/connect/files":         apikey.JobsWrite,
	"GET /v1/connect/files/:id":      apikey.JobsRead,
	"DELETE /v1/connect/files/:id":   apikey.JobsWrite,
	"GET /v1/connect/jobs":           apikey.JobsRead,
	"POST /v1/connect/jobs":          apikey.JobsWrite,
	"GET /v1/jobs":                   apikey.JobsRead,
	"POST /v1/jobs":                  apikey.JobsWrite,
	"GET /v1/import-sessions":        apikey.ImportSessionsWrite,
	"POST /v1/import-sessions":       apikey.ImportSessionsWrite,
	"GET /v1/import-sessions/:id":    apikey.ImportSessionsWrite,
	"DELETE /v1/import-sessions/:id": apikey.ImportSessionsWrite,
	// current and submit are a client secret's; a key is answered 404.
	"GET /v1/import-sessions/current":                     apikey.ImportSessionsWrite,
	"POST /v1/import-sessions/current/submit":             apikey.ImportSessionsWrite,
	"GET /v1/schemas":                                     apikey.JobsRead,
	"POST /v1/schemas":                                    apikey.SchemasWrite,
	"GET /v1/schemas/:id":                                 apikey.JobsRead,
	"DELETE /v1/schemas/:id":                              apikey.SchemasWrite,
	"GET /v1/lists":                                       apikey.JobsRead,
	"POST /v1/lists":                                      apikey.SchemasWrite,
	"GET /v1/lists/:id":                                   apikey.JobsRead,
	"DELETE /v1/lists/:id":                                apikey.SchemasWrite,
	"GET /v1/webhooks":                                    apikey.WebhooksWrite,
	"POST /v1/webhooks":                                   apikey.WebhooksWrite,
	"GET /v1/webhooks/:id":                                apikey.WebhooksWrite,
	"PATCH /v1/webhooks/:id":                              apikey.WebhooksWrite,
	"DELETE /v1/webhooks/:id":                             apikey.WebhooksWrite,
	"POST /v1/webhooks/:id/rotate-secret":                 apikey.WebhooksWrite,
	"POST /v1/webhooks/:id/test":                          apikey.WebhooksWrite,
	"GET /v1/webhooks/:id/deliveries":                     apikey.WebhooksWrite,
	"POST /v1/webhooks/:id/deliveries/:delivery_id/retry": apikey.WebhooksWrite,
	// Validation hooks are endpoints of the organization's, as webhooks are.
	"GET /v1/hooks":                       apikey.WebhooksWrite,
	"POST /v1/hooks":                      apikey.WebhooksWrite,
	"GET /v1/hooks/:id":                   apikey.WebhooksWrite,
	"PATCH /v1/hooks/:id":                 apikey.WebhooksWrite,
	"DELETE /v1/hooks/:id":                apikey.WebhooksWrite,
	"POST /v1/hooks/:id/rotate-secret":    apikey.WebhooksWrite,
	"POST /v1/hooks/:id/test":             apikey.WebhooksWrite,
	"GET /v1/import-sessions/funnel":      apikey.ImportSessionsWrite,
	"GET /v1/destinations":                apikey.DestinationsWrite,
	"POST /v1/destinations":               apikey.DestinationsWrite,
	"GET /v1/destinations/:id":            apikey.DestinationsWrite,
	"PATCH /v1/destinations/:id":          apikey.DestinationsWrite,
	"DELETE /v1/destinations/:id":         apikey.DestinationsWrite,
	"POST /v1/destinations/:id/test":      apikey.DestinationsWrite,
	"GET /v1/destinations/:id/deliveries": apikey.DestinationsWrite,
	// A job's deliveries are read with the job; sending its rows again is
	// a destination's business.
	"GET /v1/jobs/:id/deliveries":                        apikey.JobsRead,
	"POST /v1/jobs/:id/deliveries/:destination_id/retry": apikey.DestinationsWrite,
}

// jobRouteScopes are the scopes of one job's routes, the same under
// /v1/jobs and /v1/connect/jobs (router.go's jobRoutes).
var jobRouteScopes = map[string]apikey.Scope{
	"GET /:id":                apikey.JobsRead,
	"DELETE /:id":             apikey.JobsWrite,
	"POST /:id/cancel":        apikey.JobsWrite,
	"GET /:id/rows":           apikey.JobsRead,
	"GET /:id/rows.jsonl":     apikey.JobsRead,
	"GET /:id/rows.csv":       apikey.JobsRead,
	"GET /:id/rows.xlsx":      apikey.JobsRead,
	"GET /:id/rows.parquet":   apikey.JobsRead,
	"GET /:id/errors":         apikey.JobsRead,
	"GET /:id/errors.jsonl":   apikey.JobsRead,
	"GET /:id/errors.csv":     apikey.JobsRead,
	"GET /:id/errors.xlsx":    apikey.JobsRead,
	"GET /:id/events":         apikey.JobsRead,
	"GET /:id/review":         apikey.JobsRead,
	"PATCH /:id/review":       apikey.JobsWrite,
	"PATCH /:id/mapping":      apikey.JobsWrite,
	"POST /:id/confirm":       apikey.JobsWrite,
	"GET /:id/invalid-values": apikey.JobsRead,
	"POST /:id/rerun":         apikey.JobsWrite,
	"GET /:id/rejected-rows":  apikey.JobsRead,
	"GET /:id/edits":          apikey.JobsRead,
	"GET /:id/records":        apikey.JobsRead,
	"POST /:id/edits":         apikey.JobsWrite,
	"POST /:id/replacements":  apikey.JobsWrite,
	"GET /:id/history":        apikey.JobsRead,
	"POST /:id/undo":          apikey.JobsWrite,
	"POST /:id/redo":          apikey.JobsWrite,
}

func init() {
	for route, scope := range jobRouteScopes {
		method, path, _ := strings.Cut(route, " ")
		routeScopes[method+" /v1/jobs"+path] = scope
		routeScopes[method+" /v1/connect/jobs"+path] = scope
	}
}

// scopeOf is the scope a route needs; a route missing from the table
// needs admin, so that forgetting one fails closed.
func scopeOf(method, route string) apikey.Scope {
	if method == http.MethodHead {
		method = http.MethodGet
	}
	if s, ok := routeScopes[method+" "+route]; ok {
		return s
	}
	return apikey.AdminScope
}

// keyScope refuses an API key a route outside its scopes, before the
// route's product and role checks: 403 insufficient_scope naming the
// scope. Sessions and import sessions' secrets pass (their own rules
// apply), and so does an unrouted path, which is a 404 for everyone.
func (a *API) keyScope(c *gin.Context) error {
	if c.FullPath() == "" {
		return nil
	}
	return principal(c).HasScope(scopeOf(c.Request.Method, c.FullPath()))
}
