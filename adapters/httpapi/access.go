package httpapi

import (
	"mime"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/importsession"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/session"
)

// SessionCookie is the dashboard's session cookie.
const SessionCookie = "svc_session"

const (
	principalKey    = "principal"
	sessionTokenKey = "session_token"
)

// principal returns the authenticated caller; only routes behind
// authenticate call it.
func principal(c *gin.Context) identity.Principal {
	p, _ := c.Get(principalKey)
	return p.(identity.Principal)
}

func principalOrg(v any) string { return v.(identity.Principal).OrgID }

func client(c *gin.Context) identity.Client {
	return identity.Client{IP: clientIP(c), UserAgent: c.Request.UserAgent(), RequestID: requestID(c)}
}

// check is one step of the access chain; mw turns it into middleware.
type check func(c *gin.Context) error

func mw(steps ...check) gin.HandlerFunc {
	return func(c *gin.Context) {
		for _, step := range steps {
			if err := step(c); err != nil {
				fail(c, err)
				return
			}
		}
		c.Next()
	}
}

// licenseGate runs before everything else on /v1 and /auth (API.md §4.6).
func (a *API) licenseGate(*gin.Context) error {
	return a.deps.License.Check(a.deps.Clock.Now())
}

// authenticate accepts exactly one method: an API key in Authorization or
// the session cookie. Both at once is refused, so a request's authority
// is never ambiguous.
func (a *API) authenticate(c *gin.Context) error {
	authz := c.GetHeader("Authorization")
	cookie, cookieErr := c.Cookie(SessionCookie)
	hasCookie := cookieErr == nil && cookie != ""
	var p identity.Principal
	var err error
	switch {
	case authz != "" && hasCookie:
		err = domain.Errorf(domain.ErrInvalid, domain.CodeMixedAuthentication, "Send either an API key or a session cookie, not both.")
	case authz != "":
		scheme, key, ok := strings.Cut(authz, " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") {
			err = domain.Errorf(domain.ErrUnauthenticated, domain.CodeUnauthenticated, "Authorization must be \"Bearer svc_live_…\".")
			break
		}
		if key = strings.TrimSpace(key); importsession.IsSecret(key) {
			// Throttled per address with the API keys: each unknown
			// secret costs a database read.
			err = a.deps.Auth.GuardSecret(clientIP(c), key, importsession.ErrInvalidSecret, func() (err error) {
				p, err = a.authenticateImportSession(c, key) // importsession_access.go
				return err
			})
			break
		}
		p, err = a.deps.Auth.AuthenticateKey(c.Request.Context(), key, clientIP(c))
	case hasCookie:
		p, err = a.deps.Auth.AuthenticateSession(c.Request.Context(), cookie)
		c.Set(sessionTokenKey, cookie)
	default:
		err = domain.Errorf(domain.ErrUnauthenticated, domain.CodeUnauthenticated, "Authenticate with an API key (Authorization: Bearer svc_live_…) or sign in.")
	}
	if err != nil {
		return err
	}
	c.Set(principalKey, p)
	return nil
}

// requireSession refuses API keys on routes only the dashboard uses.
func requireSession(c *gin.Context) error {
	if principal(c).Method == identity.ByImportSession {
		return errForbiddenImportSession
	}
	if principal(c).Method != identity.BySession {
		return domain.Errorf(domain.ErrUnauthenticated, domain.CodeUnauthenticated, "This route needs a dashboard session.")
	}
	return nil
}

// csrf checks X-CSRF-Token on cookie-authenticated unsafe requests. Safe
// methods never change state, and API keys are not sent by browsers on
// their own, so neither needs the token.
func csrf(c *gin.Context) error {
	if principal(c).Method != identity.BySession {
		return nil
	}
	switch c.Request.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return nil
	}
	if !session.CheckCSRF(c.GetString(sessionTokenKey), c.GetHeader("X-CSRF-Token")) {
		return domain.Errorf(domain.ErrForbidden, domain.CodeCSRFTokenInvalid, "The X-CSRF-Token header is missing or wrong; read it from GET /auth/me.")
	}
	return nil
}

// entitled gates a route group by product with the entitlements gate:
// the license must cover it and the caller's organization must hold a
// working grant (staff bypass applies).
func (a *API) entitled(product identity.Product) check {
	return func(c *gin.Context) error {
		return a.deps.Gate.Check(principal(c), product)
	}
}

// connectJob keeps /v1/connect/jobs/{id} to connect jobs. An upload job
// belongs to normalize: served here, it would stay readable, cancellable
// and deletable after its organization lost normalize. Elsewhere it is
// 404, like any job the caller may not see here.
func (a *API) connectJob(c *gin.Context) error {
	// A body of another media type is refused before the job is looked
	// up, as on the routes without this check (they read no other body).
	if c.Request.Method != http.MethodGet && c.Request.Method != http.MethodDelete && c.GetHeader("Content-Type") != "" {
		if mt, _, err := mime.ParseMediaType(c.GetHeader("Content-Type")); err != nil || mt != "application/json" {
			return domain.Errorf(domain.ErrInvalid, domain.CodeUnsupportedMediaType, "Send the body as application/json.")
		}
	}
	j, err := a.deps.JobReader.Get(c.Request.Context(), principal(c), c.Param("id"))
	if err != nil {
		return err
	}
	if j.SourceType != job.SourceConnect {
		return domain.Errorf(domain.ErrNotFound, domain.CodeNotFound, "No connect job %s.", j.ID)
	}
	return nil
}

// productOf tells which product an unrouted /v1 path belongs to, so that a
// path of a product is gated the same whether or not the route exists.
func productOf(path string) (identity.Product, bool) {
	for prefix, p := range map[string]identity.Product{
		"/v1/jobs": identity.Normalize, "/v1/schemas": identity.Normalize, "/v1/import-sessions": identity.Normalize, "/v1/connect": identity.Connect,
	} {
		if path == prefix || strings.HasPrefix(path, prefix+"/") {
			return p, true
		}
	}
	return "", false
}

// v1Chain is the order of checks on /v1 (API.md §4.5), before the
// product and role checks of each route group.
func (a *API) v1Chain() []check {
	return []check{a.licenseGate, a.authenticate, a.rateLimit, a.importScope, a.keyScope, csrf}
}

// guardUnrouted runs the /v1 checks before the 404 for an unknown /v1
// path: callers learn nothing about which routes exist before they
// authenticate, and a product's paths are gated whether or not the route
// exists yet.
func (a *API) guardUnrouted(c *gin.Context) {
	if !strings.HasPrefix(c.Request.URL.Path, "/v1/") {
		return
	}
	steps := a.v1Chain()
	if p, ok := productOf(c.Request.URL.Path); ok {
		steps = append(steps, a.entitled(p))
	}
	for _, step := range steps {
		if err := step(c); err != nil {
			fail(c, err)
			return
		}
	}
}
