package httpapi

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/gin-gonic/gin"
)

// Origin is the origin of a URL as browsers send it in the Origin header:
// scheme://host[:port], lower-case, without a default port. "" when raw is
// not an absolute http(s) URL.
func Origin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	scheme, host := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname())
	if strings.Contains(host, ":") {
		host = "[" + host + "]" // IPv6
	}
	if p := u.Port(); p != "" && !(scheme == "http" && p == "80") && !(scheme == "https" && p == "443") {
		host += ":" + p
	}
	return scheme + "://" + host
}

// corsHeaders a dashboard on another origin may send (the rest are
// CORS-safelisted), and answer headers its modules may read.
const (
	corsAllowHeaders  = "Content-Type, X-CSRF-Token, Idempotency-Key, Last-Event-ID, X-Request-Id"
	corsExposeHeaders = "X-Request-Id, Location, Idempotent-Replayed, Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Content-Disposition"
	corsAllowMethods  = "GET, POST, PUT, PATCH, DELETE"
)

// crossOrigin lets a dashboard served from another origin call /v1 and
// /auth with its session cookie: exactly that origin, with credentials,
// never "*". Other origins get no CORS headers, so browsers keep their
// pages from reading answers. It answers preflight requests itself,
// before routing, since no route has an OPTIONS handler.
func crossOrigin(dashboardOrigin string) gin.HandlerFunc {
	return func(c *gin.Context) {
		path := c.Request.URL.Path
		if !strings.HasPrefix(path, "/v1/") && !strings.HasPrefix(path, "/auth/") {
			c.Next()
			return
		}
		h := c.Writer.Header()
		h.Add("Vary", "Origin") // answers differ by Origin: caches must know
		if c.GetHeader("Origin") != dashboardOrigin {
			c.Next()
			return
		}
		h.Set("Access-Control-Allow-Origin", dashboardOrigin)
		h.Set("Access-Control-Allow-Credentials", "true")
		if c.Request.Method == http.MethodOptions && c.GetHeader("Access-Control-Request-Method") != "" {
			h.Set("Access-Control-Allow-Methods", corsAllowMethods)
			h.Set("Access-Control-Allow-Headers", corsAllowHeaders)
			h.Set("Access-Control-Max-Age", "600")
			c.AbortWithStatus(http.StatusNoContent)
			return
		}
		h.Set("Access-Control-Expose-Headers", corsExposeHeaders)
		c.Next()
	}
}
