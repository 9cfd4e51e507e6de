package httpapi

import (
	"net/http"
	"slices"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/tabnorm/tabnorm/adapters/importer"
	"github.com/tabnorm/tabnorm/domain/importsession"
)

// embedPolicy is the importer's Content-Security-Policy: its own files
// only, no inline script or style, API calls to this origin, images (a
// theme's logo) from the framing origins too, and framing by the given
// ancestors alone ('none' for a page no session backs).
func embedPolicy(ancestors string) string {
	images := ""
	if ancestors != "'none'" {
		images = " " + ancestors
	}
	return "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:" + images + "; connect-src 'self'; " +
		"frame-ancestors " + ancestors + "; base-uri 'none'; form-action 'none'; object-src 'none'"
}

// mountEmbed serves the embeddable importer: /embed/v1/… are its files
// (importer.js for host pages), /embed/{id} the page a session's allowed
// origins may frame. Neither is part of the API document.
func (a *API) mountEmbed(r *gin.Engine) {
	r.GET("/embed/*path", a.embed)
	r.HEAD("/embed/*path", a.embed)
}

func (a *API) embed(c *gin.Context) {
	h := c.Writer.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	path := strings.TrimPrefix(c.Param("path"), "/")
	if file, ok := strings.CutPrefix(path, "v1/"); ok {
		a.embedAsset(c, file)
		return
	}
	h.Set("Cache-Control", "no-store")
	h.Set("Vary", "Accept-Language")
	if strings.Contains(path, "/") || !strings.HasPrefix(path, "imp_") {
		h.Set("Content-Security-Policy", embedPolicy("'none'"))
		notFound(c)
		return
	}
	ses, err := a.deps.ImportSessions.Framing(c.Request.Context(), path)
	if err != nil {
		h.Set("Content-Security-Policy", embedPolicy("'none'"))
		fail(c, err)
		return
	}
	page, err := importer.Page(ses, ses.Resolve(c.GetHeader("Accept-Language")))
	if err != nil {
		fail(c, err)
		return
	}
	h.Set("Content-Security-Policy", embedPolicy(strings.Join(ses.AllowedOrigins, " ")))
	c.Data(http.StatusOK, "text/html; charset=utf-8", page)
}

func (a *API) embedAsset(c *gin.Context, name string) {
	f, ok := importer.Asset(name)
	if !ok {
		notFound(c)
		return
	}
	h := c.Writer.Header()
	h.Set("Content-Security-Policy", embedPolicy("'none'"))
	h.Set("Cache-Control", "no-cache")
	h.Set("ETag", f.ETag)
	if name == "importer.js" || name == "importer.d.ts" { // loaded by host pages and their tools on other origins
		h.Set("Cross-Origin-Resource-Policy", "cross-origin")
	}
	if etagMatches(c.GetHeader("If-None-Match"), f.ETag) {
		c.Status(http.StatusNotModified)
		return
	}
	c.Data(http.StatusOK, f.ContentType, f.Body)
}

// ownOrigin reports whether origin is this service's: its public
// origin, or the one the request was sent to.
func (a *API) ownOrigin(c *gin.Context, origin string) bool {
	if a.cfg.BaseOrigin != "" && origin == a.cfg.BaseOrigin {
		return true
	}
	scheme := "http"
	if c.Request.TLS != nil {
		scheme = "https"
	}
	return origin == scheme+"://"+strings.ToLower(c.Request.Host)
}

// importCORSHeaders are what a host page may send with a client secret.
const importCORSHeaders = "Authorization, Content-Type, X-Request-Id"

// importPreflight answers a browser's preflight for the routes a client
// secret may use, from an origin an open session allows; any other
// origin is answered as before (no CORS headers), so the browser sends
// nothing. The request itself is checked against its own session's
// origins (importOrigin).
func (a *API) importPreflight(c *gin.Context) {
	origin := c.GetHeader("Origin")
	if c.Request.Method != http.MethodOptions || c.GetHeader("Access-Control-Request-Method") == "" || origin == "" ||
		!secretPath(c.Request.URL.Path) || origin == a.cfg.DashboardOrigin {
		c.Next()
		return
	}
	if ok, err := a.deps.ImportSessions.OriginInUse(c.Request.Context(), origin); err != nil || !ok {
		c.Next() // answered as any preflight is: without CORS headers
		return
	}
	h := c.Writer.Header()
	h.Add("Vary", "Origin")
	h.Set("Access-Control-Allow-Origin", origin)
	h.Set("Access-Control-Allow-Methods", "GET, POST, PATCH")
	h.Set("Access-Control-Allow-Headers", importCORSHeaders)
	h.Set("Access-Control-Max-Age", "600")
	c.AbortWithStatus(http.StatusNoContent)
}

// secretPath is a path a client secret may call (the method and the job
// are checked on the request itself).
func secretPath(path string) bool {
	return path == "/v1/import-sessions/current" || path == "/v1/import-sessions/current/submit" || path == "/v1/jobs" || strings.HasPrefix(path, "/v1/jobs/")
}

// importOrigin holds a client secret's request to its session's origins:
// from another origin (not this service's own, where the importer's page
// runs) it is refused, and from an allowed one it may read the answer.
func (a *API) importOrigin(c *gin.Context, ses importsession.Session) error {
	origin := c.GetHeader("Origin")
	if origin == "" || a.ownOrigin(c, origin) {
		return nil
	}
	c.Writer.Header().Add("Vary", "Origin")
	if !slices.Contains(ses.AllowedOrigins, origin) {
		return errForbiddenImportSession
	}
	h := c.Writer.Header()
	h.Set("Access-Control-Allow-Origin", origin)
	h.Set("Access-Control-Expose-Headers", corsExposeHeaders)
	return nil
}
