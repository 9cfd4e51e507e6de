package httpapi

import (
	"net/http"
	"net/url"

	"github.com/gin-gonic/gin"

	"github.com/tabnorm/tabnorm/application/sso"
	"github.com/tabnorm/tabnorm/domain/session"
	domainsso "github.com/tabnorm/tabnorm/domain/sso"
)

// SSOCookie ties a sign-in at the organization's provider to the browser
// that started it: the callback is refused without it (a link to a
// finished sign-in, sent to someone else, signs nobody in).
const SSOCookie = "svc_sso"

// SSOJSON is an organization's single sign-on settings as the API shows
// them: the client secret never.
type SSOJSON struct {
	Object         string   `json:"object"`
	Issuer         string   `json:"issuer"`
	ClientID       string   `json:"client_id"`
	ClientSecret   string   `json:"client_secret"` // always "set": a secret is never read back
	AllowedDomains []string `json:"allowed_domains"`
	DefaultRole    string   `json:"default_role"`
	Required       bool     `json:"required"`
	BreakGlassUser *string  `json:"break_glass_user"`
	RedirectURI    string   `json:"redirect_uri"`
	CreatedAt      string   `json:"created_at"`
	UpdatedAt      string   `json:"updated_at"`
}

func (a *API) ssoJSON(c *gin.Context, s domainsso.Config) SSOJSON {
	return SSOJSON{Object: "sso", Issuer: s.Issuer, ClientID: s.ClientID, ClientSecret: "set", AllowedDomains: s.AllowedDomains,
		DefaultRole: string(s.DefaultRole), Required: s.Required, BreakGlassUser: optional(s.BreakGlass), RedirectURI: a.ssoRedirectURI(c),
		CreatedAt: formatTime(s.CreatedAt), UpdatedAt: formatTime(s.UpdatedAt)}
}

type ssoRequest struct {
	Issuer         string   `json:"issuer"`
	ClientID       string   `json:"client_id"`
	ClientSecret   string   `json:"client_secret"`
	AllowedDomains []string `json:"allowed_domains"`
	DefaultRole    string   `json:"default_role"`
	Required       bool     `json:"required"`
	BreakGlassUser string   `json:"break_glass_user"`
}

func (a *API) getSSO(c *gin.Context) {
	s, err := a.deps.SSO.Get(c.Request.Context(), principal(c))
	if err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusOK, a.ssoJSON(c, s))
}

func (a *API) putSSO(c *gin.Context) {
	var req ssoRequest
	if err := decodeJSON(c, &req); err != nil {
		fail(c, err)
		return
	}
	s, err := a.deps.SSO.Put(c.Request.Context(), principal(c), domainsso.Input{Issuer: req.Issuer, ClientID: req.ClientID, ClientSecret: req.ClientSecret,
		AllowedDomains: req.AllowedDomains, DefaultRole: req.DefaultRole, Required: req.Required, BreakGlass: req.BreakGlassUser})
	if err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusOK, a.ssoJSON(c, s))
}

func (a *API) deleteSSO(c *gin.Context) {
	if err := a.deps.SSO.Delete(c.Request.Context(), principal(c)); err != nil {
		fail(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}

// ssoRedirectURI is where providers send the browser back: on the
// service's public origin (register it at the provider).
func (a *API) ssoRedirectURI(c *gin.Context) string {
	base := a.cfg.BaseOrigin
	if base == "" {
		scheme := "http"
		if c.Request.TLS != nil {
			scheme = "https"
		}
		base = scheme + "://" + c.Request.Host
	}
	return base + "/auth/sso/callback"
}

// ssoStart sends the browser to the provider of the organization named
// by ?org= (a work e-mail address, its domain, or the organization's id).
func (a *API) ssoStart(c *gin.Context) {
	if c.Request.Method == http.MethodHead {
		a.ssoProbe(c)
		return
	}
	st, err := a.deps.SSO.Start(c.Request.Context(), c.Query("org"), a.ssoRedirectURI(c))
	if err != nil {
		a.ssoFailure(c, err)
		return
	}
	http.SetCookie(c.Writer, &http.Cookie{Name: SSOCookie, Value: st.Browser, Path: "/auth/sso", MaxAge: int(domainsso.FlowLifetime.Seconds()),
		HttpOnly: true, Secure: a.cfg.CookieSecure, SameSite: http.SameSiteLaxMode})
	c.Header("Cache-Control", "no-store")
	c.Redirect(http.StatusFound, st.URL)
}

// ssoCallback finishes a sign-in: the session cookie is the one a
// password sets, and the browser goes on to the dashboard.
func (a *API) ssoCallback(c *gin.Context) {
	if c.Request.Method == http.MethodHead {
		a.ssoProbe(c)
		return
	}
	browser, _ := c.Cookie(SSOCookie)
	http.SetCookie(c.Writer, &http.Cookie{Name: SSOCookie, Value: "", Path: "/auth/sso", MaxAge: -1, HttpOnly: true, Secure: a.cfg.CookieSecure, SameSite: http.SameSiteLaxMode})
	_, token, err := a.deps.SSO.Finish(c.Request.Context(), sso.Answer{State: c.Query("state"), Code: c.Query("code"), Error: c.Query("error"),
		ErrorText: c.Query("error_description"), Browser: browser})
	if err != nil {
		a.ssoFailure(c, err)
		return
	}
	a.setSessionCookie(c, token, int(session.MaxLifetime.Seconds()))
	c.Header("Cache-Control", "no-store")
	c.Redirect(http.StatusFound, a.dashboardLink("/"))
}

// ssoProbe answers a HEAD of the sign-in routes: a redirect to the
// sign-in page, and nothing started or spent (a link checker or a
// prefetch must not use up a state).
func (a *API) ssoProbe(c *gin.Context) {
	c.Header("Cache-Control", "no-store")
	c.Redirect(http.StatusFound, a.dashboardLink("/login"))
}

// dashboardLink is a dashboard path: relative when the dashboard is
// served on the API's origin, absolute on its own origin otherwise.
func (a *API) dashboardLink(path string) string {
	if a.cfg.DashboardOrigin != "" && a.cfg.DashboardOrigin != a.cfg.BaseOrigin {
		return a.cfg.DashboardOrigin + path
	}
	return path
}

// ssoFailure sends the browser to the dashboard's sign-in page, which
// reads the code and reason from the query and says what happened; a
// client that asks for JSON gets the problem itself.
func (a *API) ssoFailure(c *gin.Context, err error) {
	p, internal := toProblem(err)
	if internal {
		a.log.ErrorContext(c.Request.Context(), "sso sign-in", "request_id", requestID(c), "error", err.Error())
	}
	if c.NegotiateFormat("text/html", "application/json", "application/problem+json") != "text/html" {
		fail(c, err)
		return
	}
	q := url.Values{"sso_error": {string(p.Code)}}
	if p.Reason != "" {
		q.Set("sso_reason", p.Reason)
	}
	c.Header("Cache-Control", "no-store")
	c.Redirect(http.StatusFound, a.dashboardLink("/login?"+q.Encode()))
}
