package httpapi

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"runtime/debug"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/id"
	"github.com/tabnorm/tabnorm/domain/identity"
)

const requestIDKey = "request_id"

// A client's request id is echoed only when it is short and plain, so it
// cannot inject into logs or headers.
var saneRequestID = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

// withRequestID gives every request an id, echoed in X-Request-Id.
func withRequestID(c *gin.Context) {
	rid := c.GetHeader("X-Request-Id")
	if !saneRequestID.MatchString(rid) {
		rid = id.New(id.Request)
	}
	c.Set(requestIDKey, rid)
	c.Header("X-Request-Id", rid)
	c.Next()
}

func requestID(c *gin.Context) string { return c.GetString(requestIDKey) }

// carryClient puts the request's client (address, user agent, request id)
// in its context, where the use cases read it for the audit log.
func carryClient(c *gin.Context) {
	c.Request = c.Request.WithContext(identity.WithClient(c.Request.Context(), client(c)))
	c.Next()
}

// accessLog writes one structured line per request. It logs the path
// without the query (which may hold cursors and names) and no headers.
// probes are the routes a load balancer or an orchestrator polls: their
// answered requests are logged at debug level, their failures as others.
var probes = map[string]bool{"/healthz": true, "/readyz": true}

func accessLog(log *slog.Logger, observer Observer) gin.HandlerFunc {
	return func(c *gin.Context) {
		start := time.Now()
		c.Next()
		observer.Request(c.FullPath(), c.Request.Method, c.Writer.Status(), time.Since(start))
		level := slog.LevelInfo
		switch status := c.Writer.Status(); {
		case status >= 500:
			level = slog.LevelError
		case status < 400 && probes[c.FullPath()]:
			level = slog.LevelDebug // a load balancer's answered probes would drown the log
		}
		if !log.Enabled(c.Request.Context(), level) {
			return
		}
		attrs := []slog.Attr{
			slog.String("request_id", requestID(c)),
			slog.String("method", c.Request.Method),
			slog.String("path", c.Request.URL.Path),
			slog.Int("status", c.Writer.Status()),
			slog.Int("bytes", c.Writer.Size()),
			slog.Duration("duration", time.Since(start)),
			slog.String("remote", clientIP(c)),
		}
		// Who asked, by ids only: the key's id, never the key or the
		// session token, so an operator can follow one caller's requests.
		if v, ok := c.Get(principalKey); ok {
			p := v.(identity.Principal)
			attrs = append(attrs, slog.String("org_id", p.OrgID))
			if p.KeyID != "" {
				attrs = append(attrs, slog.String("key_id", p.KeyID))
			}
			if p.UserID != "" && p.Method == identity.BySession {
				attrs = append(attrs, slog.String("user_id", p.UserID))
			}
		}
		log.LogAttrs(c.Request.Context(), level, "request", attrs...)
	}
}

// renderErrors turns the errors handlers recorded with fail, and panics,
// into exactly one problem+json response.
func (a *API) renderErrors(c *gin.Context) {
	defer func() {
		if r := recover(); r != nil {
			if r == http.ErrAbortHandler {
				panic(r)
			}
			a.log.ErrorContext(c.Request.Context(), "panic", "request_id", requestID(c),
				"panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			if !c.Writer.Written() {
				a.writeProblem(c, errPanic)
			}
			c.Abort()
		}
	}()
	c.Next()
	if len(c.Errors) > 0 && !c.Writer.Written() {
		a.writeProblem(c, c.Errors.Last().Err)
	}
}

// errPanic stands for a recovered panic, already logged with its stack.
var errPanic = errors.New("panic recovered")

func notFound(c *gin.Context) {
	fail(c, domain.Errorf(domain.ErrNotFound, domain.CodeNotFound, "No route %s %s.", c.Request.Method, c.Request.URL.Path))
}

func methodNotAllowed(c *gin.Context) {
	fail(c, &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeMethodNotAllowed,
		Message: fmt.Sprintf("%s is not allowed here; allowed: %s.", c.Request.Method, c.Writer.Header().Get("Allow"))})
}
