package httpapi

import (
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/tabnorm/tabnorm/adapters/dashboard"
	"github.com/tabnorm/tabnorm/adapters/importer"
)

// dashboardHeaders are set on every dashboard response. The policy allows
// only the dashboard's own files: no inline script or style, no plugins,
// no framing, and API calls to this origin (and the API's, when apart).
func dashboardHeaders(apiOrigin string) map[string]string {
	connect := "'self'"
	if apiOrigin != "" {
		connect += " " + apiOrigin
	}
	return map[string]string{
		"Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
			"connect-src " + connect + "; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'",
		"X-Frame-Options":        "DENY",
		"Referrer-Policy":        "same-origin",
		"X-Content-Type-Options": "nosniff",
	}
}

// mountDashboard serves the dashboard's files under /assets and returns
// the handler of its pages. Pages are served where no API route matches
// (after the /v1 checks of guardUnrouted), because they are not part of
// the API: the OpenAPI document lists the routes, and only those.
func (a *API) mountDashboard(r *gin.Engine) gin.HandlerFunc {
	// The API is on another origin only when the dashboard is served from
	// one of its own (TABNORM_DASHBOARD_URL); the modules then call it there.
	apiOrigin := ""
	if a.cfg.DashboardOrigin != "" && a.cfg.DashboardOrigin != a.cfg.BaseOrigin {
		apiOrigin = a.cfg.BaseOrigin
	}
	headers := dashboardHeaders(apiOrigin)
	shell, err := dashboard.Shell(apiOrigin)
	if err != nil {
		panic("dashboard shell: " + err.Error()) // an embedded template: a test renders it
	}
	secure := func(c *gin.Context) {
		for k, v := range headers {
			c.Header(k, v)
		}
	}

	asset := func(c *gin.Context) {
		f, ok := dashboardAsset(strings.TrimPrefix(c.Param("file"), "/"))
		if !ok {
			notFound(c)
			return
		}
		secure(c)
		// Files are not fingerprinted (no build step), so browsers keep
		// them but ask each time; an unchanged file costs a 304.
		c.Header("Cache-Control", "no-cache")
		c.Header("ETag", f.ETag)
		if etagMatches(c.GetHeader("If-None-Match"), f.ETag) {
			c.Status(http.StatusNotModified)
			return
		}
		c.Data(http.StatusOK, f.ContentType, f.Body)
	}
	r.GET("/assets/*file", asset)
	r.HEAD("/assets/*file", asset)

	return func(c *gin.Context) {
		if c.Request.Method != http.MethodGet && c.Request.Method != http.MethodHead || !dashboard.IsPage(c.Request.URL.Path) {
			return
		}
		secure(c)
		// no-store also keeps pages out of the back/forward cache, where a
		// page that showed a new API key would show it again.
		c.Header("Cache-Control", "no-store")
		c.Data(http.StatusOK, "text/html; charset=utf-8", shell)
		c.Abort()
	}
}

// dashboardAsset is a file under the dashboard's /assets/: its own, or
// the importer's it shares.
func dashboardAsset(name string) (dashboard.File, bool) {
	if theirs, ok := dashboard.FromImporter[name]; ok {
		f, ok := importer.Asset(theirs)
		return dashboard.File(f), ok
	}
	return dashboard.Asset(name)
}
