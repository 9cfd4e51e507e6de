package httpapi_test

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/httpapi"
	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
	"github.com/tabnorm/tabnorm/test/oidctest"
)

// ssoWorld is the service on a known loopback port (the provider must
// know where to send the browser back), an organization Acme with an
// admin, and a provider that knows Acme's people and one outsider.
type ssoWorld struct {
	app      *apptest.App
	provider *oidctest.Provider
	acme     identity.Organization
	admin    apptest.Caller
	adminID  string
}

func startSSO(t *testing.T, target sqltest.Target, opts ...apptest.Option) *ssoWorld {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	base := "http://" + addr
	opts = append([]apptest.Option{func(c *bootstrap.Config) {
		c.HTTP.Addr, c.BaseURL, c.DashboardURL, c.HTTP.BaseOrigin, c.HTTP.DashboardOrigin = addr, base, base, base, base
		c.SSOAllowHTTPIssuer, c.SecretKeys, c.HTTP.RateLimit.Burst = true, [][]byte{bytes.Repeat([]byte{7}, 32)}, 1000
	}}, opts...)
	app := apptest.Start(t, target, opts...)
	w := &ssoWorld{app: app, acme: app.Org("Acme", identity.Normalize)}
	u := app.User(w.acme, identity.Admin, false)
	w.adminID, w.admin = u.ID, app.Login(u.Email)
	w.provider = oidctest.Start(t, base+"/auth/sso/callback",
		oidctest.User{Email: "alice@acme.test", Verified: true, Name: "Alice Acme"},
		oidctest.User{Email: "bob@outside.test", Verified: true, Name: "Bob"},
		oidctest.User{Email: "una@acme.test", Verified: false, Name: "Una"})
	return w
}

func (w *ssoWorld) configure(t *testing.T, extra map[string]any) {
	t.Helper()
	body := map[string]any{"issuer": w.provider.Issuer, "client_id": w.provider.ClientID, "client_secret": w.provider.ClientSecret,
		"allowed_domains": []string{"acme.test"}, "default_role": "member"}
	for k, v := range extra {
		body[k] = v
	}
	expect(t, w.app.Do("PUT", "/v1/sso", w.admin, body), 200, "")
}

// browser is an HTTP client with a cookie jar that follows redirects one
// hop at a time, so that each of the service's answers is recorded.
type browser struct {
	t      *testing.T
	app    *apptest.App
	client *http.Client
}

func newBrowser(t *testing.T, app *apptest.App) *browser {
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	app.Client = c
	return &browser{t: t, app: app, client: c}
}

// walk requests u (a form post when form is set) and follows redirects;
// it returns the last URL and its body.
func (b *browser) walk(method, u string, form url.Values) (*url.URL, int, string) {
	b.t.Helper()
	for range 20 {
		var body io.Reader
		if form != nil {
			body = strings.NewReader(form.Encode())
		}
		req, err := http.NewRequest(method, u, body)
		if err != nil {
			b.t.Fatal(err)
		}
		req.Header.Set("Accept", "text/html")
		if form != nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		var status int
		var location, text string
		if strings.HasPrefix(u, b.app.URL) {
			res := b.app.Request(req, apptest.Caller{})
			status, location, text = res.StatusCode, res.Header.Get("Location"), res.Body
		} else {
			res, err := b.client.Do(req)
			if err != nil {
				b.t.Fatalf("%s %s: %v", method, u, err)
			}
			raw, _ := io.ReadAll(res.Body)
			_ = res.Body.Close()
			status, location, text = res.StatusCode, res.Header.Get("Location"), string(raw)
		}
		here, _ := url.Parse(u)
		if status != http.StatusFound && status != http.StatusSeeOther {
			return here, status, text
		}
		next, err := here.Parse(location)
		if err != nil {
			b.t.Fatal(err)
		}
		u, method, form = next.String(), "GET", nil
	}
	b.t.Fatalf("more than 20 redirects from %s", u)
	return nil, 0, ""
}

// signIn starts at the service with org, signs in at the provider's own
// login page as email, and returns where the browser ends.
func (b *browser) signIn(org, email string) (*url.URL, string) {
	b.t.Helper()
	at, status, page := b.walk("GET", b.app.URL+"/auth/sso/start?org="+url.QueryEscape(org), nil)
	if strings.HasPrefix(at.String(), b.app.URL) {
		return at, page // refused before the provider
	}
	id := at.Query().Get("authRequestID")
	if status != 200 || id == "" || !strings.Contains(page, `name="password"`) {
		b.t.Fatalf("the provider's login page: %d %s %s", status, at, page)
	}
	at, _, page = b.walk("POST", at.Scheme+"://"+at.Host+"/login/username", url.Values{"id": {id}, "username": {email}, "password": {oidctest.Password}})
	return at, page
}

func (b *browser) session() apptest.Caller {
	u, _ := url.Parse(b.app.URL)
	for _, c := range b.client.Jar.Cookies(u) {
		if c.Name == httpapi.SessionCookie {
			return apptest.Caller{Session: c.Value}
		}
	}
	return apptest.Caller{}
}

func ssoAudit(t *testing.T, app *apptest.App, admin apptest.Caller) string {
	t.Helper()
	res := app.Do("GET", "/v1/audit-events?limit=100", admin, nil)
	expect(t, res, 200, "")
	return res.Body
}

func failedWith(t *testing.T, at *url.URL, code, reason string) {
	t.Helper()
	if at.Path != "/login" || at.Query().Get("sso_error") != code || at.Query().Get("sso_reason") != reason {
		t.Fatalf("ended at %s, want /login?sso_error=%s&sso_reason=%s", at, code, reason)
	}
}

// TestSSO_signInEndToEnd: an admin sets the provider (the secret is
// never shown again); a person of an allowed domain signs in at the real
// provider, is created as a member on first sign-in, lands on the
// dashboard with the cookie session and CSRF token a password gives, and
// signs in again into the same account; all of it is audited.
func TestSSO_signInEndToEnd(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			w := startSSO(t, target)
			expect(t, w.app.Do("GET", "/v1/sso", w.admin, nil), 404, "sso_not_configured")
			w.configure(t, nil)
			res := w.app.Do("GET", "/v1/sso", w.admin, nil)
			expect(t, res, 200, "")
			if strings.Contains(res.Body, w.provider.ClientSecret) || !strings.Contains(res.Body, `"client_secret":"set"`) ||
				!strings.Contains(res.Body, w.app.URL+"/auth/sso/callback") {
				t.Fatalf("GET /v1/sso: %s", res.Body)
			}

			b := newBrowser(t, w.app)
			at, page := b.signIn("alice@acme.test", "alice@acme.test")
			if at.String() != w.app.URL+"/" || !strings.Contains(page, "tabnorm") {
				t.Fatalf("after the provider: %s %.200s", at, page)
			}
			ses := b.session()
			me := w.app.Do("GET", "/auth/me", ses, nil)
			expect(t, me, 200, "")
			if !strings.Contains(me.Body, `"email":"alice@acme.test"`) || !strings.Contains(me.Body, `"role":"member"`) ||
				!strings.Contains(me.Body, `"name":"Alice Acme"`) || !strings.Contains(me.Body, w.acme.ID) {
				t.Fatalf("/auth/me after sso: %s", me.Body)
			}
			var who struct {
				CSRF string `json:"csrf_token"`
				User struct {
					ID string `json:"id"`
				} `json:"user"`
			}
			me.JSON(t, &who)
			ses.CSRF = who.CSRF
			expect(t, w.app.Do("POST", "/auth/logout", ses, nil), 204, "")

			// The second sign-in finds the account; by the organization's id this time.
			b = newBrowser(t, w.app)
			if at, _ := b.signIn(w.acme.ID, "alice@acme.test"); at.String() != w.app.URL+"/" {
				t.Fatalf("second sign-in ended at %s", at)
			}
			again := w.app.Do("GET", "/auth/me", b.session(), nil)
			if !strings.Contains(again.Body, who.User.ID) {
				t.Fatalf("the second sign-in is another account: %s", again.Body)
			}
			log := ssoAudit(t, w.app, w.admin)
			for _, want := range []string{`"action":"sso.configured"`, `"action":"user.create_sso"`, `"action":"login.sso"`} {
				if !strings.Contains(log, want) {
					t.Errorf("the audit log lacks %s", want)
				}
			}
			if strings.Count(log, `"action":"user.create_sso"`) != 1 {
				t.Errorf("the account was created more than once: %s", log)
			}
		})
	}
}

// TestSSO_refusals: each way a sign-in can go wrong ends on the sign-in
// page with a stable code and reason (never a 500), and is audited.
func TestSSO_refusals(t *testing.T) {
	t.Parallel()
	w := startSSO(t, sqltest.SQLite(t))
	w.configure(t, nil)

	t.Run("wrong_audience", func(t *testing.T) {
		w := startSSO(t, sqltest.SQLite(t))
		w.configure(t, nil)
		w.provider.WrongAudience()
		at, _ := newBrowser(t, w.app).signIn("acme.test", "alice@acme.test")
		failedWith(t, at, "sso_failed", "token_invalid")
	})
	t.Run("expired_token", func(t *testing.T) {
		w := startSSO(t, sqltest.SQLite(t))
		w.configure(t, nil)
		w.provider.Expired()
		at, _ := newBrowser(t, w.app).signIn("acme.test", "alice@acme.test")
		failedWith(t, at, "sso_failed", "token_invalid")
		if log := ssoAudit(t, w.app, w.admin); !strings.Contains(log, `"action":"login.sso_failed"`) || !strings.Contains(log, `"target_id":"token_invalid"`) {
			t.Errorf("the failure is not audited with its reason: %s", log)
		}
	})
	t.Run("replayed_state", func(t *testing.T) {
		b := newBrowser(t, w.app)
		// Stop at the service's callback, take it once, then again.
		at, status, _ := b.walk("GET", w.app.URL+"/auth/sso/start?org=acme.test", nil)
		id := at.Query().Get("authRequestID")
		if status != 200 || id == "" {
			t.Fatalf("login page: %d %s", status, at)
		}
		res, err := b.client.PostForm(at.Scheme+"://"+at.Host+"/login/username", url.Values{"id": {id}, "username": {"alice@acme.test"}, "password": {oidctest.Password}})
		if err != nil {
			t.Fatal(err)
		}
		_ = res.Body.Close()
		next, _ := res.Request.URL.Parse(res.Header.Get("Location"))
		res, err = b.client.Get(next.String()) // the provider's own callback, which sends the code to ours
		if err != nil {
			t.Fatal(err)
		}
		_ = res.Body.Close()
		callback := res.Header.Get("Location")
		if !strings.HasPrefix(callback, w.app.URL+"/auth/sso/callback?") {
			t.Fatalf("the provider sent the browser to %q", callback)
		}
		if at, _, _ := b.walk("GET", callback, nil); at.String() != w.app.URL+"/" {
			t.Fatalf("first use of the callback ended at %s", at)
		}
		at, _, _ = b.walk("GET", callback, nil)
		failedWith(t, at, "sso_failed", "state_invalid")
		// Another browser, without the cookie, gets nothing from a fresh state either.
		res2 := w.app.Do("GET", strings.TrimPrefix(callback, w.app.URL), apptest.Caller{}, nil, "Accept", "application/json")
		expect(t, res2, 400, "sso_failed")
	})
	t.Run("unknown_domain", func(t *testing.T) {
		at, _ := newBrowser(t, w.app).signIn("someone@nowhere.test", "")
		failedWith(t, at, "sso_not_configured", "")
		expect(t, w.app.Do("GET", "/auth/sso/start?org=nowhere.test", apptest.Caller{}, nil, "Accept", "application/json"), 404, "sso_not_configured")
		expect(t, w.app.Do("GET", "/auth/sso/start", apptest.Caller{}, nil, "Accept", "application/json"), 400, "invalid_request")
	})
	t.Run("domain_not_allowed", func(t *testing.T) {
		at, _ := newBrowser(t, w.app).signIn("acme.test", "bob@outside.test")
		failedWith(t, at, "sso_domain_not_allowed", "")
	})
	t.Run("email_not_verified", func(t *testing.T) {
		at, _ := newBrowser(t, w.app).signIn("acme.test", "una@acme.test")
		failedWith(t, at, "sso_failed", "email_unverified")
	})
	t.Run("provider_error", func(t *testing.T) {
		at, _, _ := newBrowser(t, w.app).walk("GET", w.app.URL+"/auth/sso/callback?error=access_denied&state=x", nil)
		failedWith(t, at, "sso_failed", "state_invalid")
	})
	t.Run("provider_down", func(t *testing.T) {
		w := startSSO(t, sqltest.SQLite(t))
		w.configure(t, map[string]any{"issuer": oidctest.Down(t)})
		at, _ := newBrowser(t, w.app).signIn("acme.test", "")
		failedWith(t, at, "sso_failed", "provider_unreachable")
		res := w.app.Do("GET", "/auth/sso/start?org=acme.test", apptest.Caller{}, nil, "Accept", "application/json")
		expect(t, res, 503, "sso_failed")
		if !strings.Contains(res.Body, `"reason":"provider_unreachable"`) {
			t.Fatalf("the problem has no reason: %s", res.Body)
		}
	})
}

// TestSSO_required: when the organization requires SSO, a member's
// password is refused (and an unknown address of its domain alike), the
// break-glass admin's is accepted and audited as such.
func TestSSO_required(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			w := startSSO(t, target)
			member := w.app.User(w.acme, identity.Member, false)
			root := w.app.User(w.acme, identity.Admin, false)
			expect(t, w.app.Do("PUT", "/v1/sso", w.admin, map[string]any{"issuer": w.provider.Issuer, "client_id": "x", "allowed_domains": []string{"acme.test"},
				"required": true, "break_glass_user": member.Email}), 400, "invalid_request") // a member cannot be the break-glass user
			w.configure(t, map[string]any{"required": true, "break_glass_user": root.Email})

			res := w.app.Do("POST", "/auth/login", apptest.Caller{}, map[string]string{"email": member.Email, "password": apptest.Password})
			expect(t, res, 403, "sso_required")
			expect(t, w.app.Do("POST", "/auth/login", apptest.Caller{}, map[string]string{"email": "nobody@acme.test", "password": "whatever-password"}), 403, "sso_required")
			w.app.Login(root.Email)
			log := ssoAudit(t, w.app, w.admin)
			for _, want := range []string{`"action":"sso.configured"`, `"action":"login.password_refused"`, `"action":"login.break_glass"`} {
				if !strings.Contains(log, want) {
					t.Errorf("the audit log lacks %s", want)
				}
			}
			// Not required any more: the member's password works again.
			w.configure(t, map[string]any{"required": false})
			w.app.Login(member.Email)
			expect(t, w.app.Do("DELETE", "/v1/sso", w.admin, nil), 204, "")
			expect(t, w.app.Do("DELETE", "/v1/sso", w.admin, nil), 404, "sso_not_configured")
			if log := ssoAudit(t, w.app, w.admin); !strings.Contains(log, `"action":"sso.deleted"`) || !strings.Contains(log, `"action":"sso.changed"`) {
				t.Errorf("the change or the deletion is not audited")
			}
		})
	}
}

// TestSSO_settingsRefusals: members may not read or change the settings;
// the first settings need a secret; a domain belongs to one organization;
// without a secret key on a shared database the secret is not stored.
func TestSSO_settingsRefusals(t *testing.T) {
	t.Parallel()
	w := startSSO(t, sqltest.SQLite(t))
	member := w.app.Login(w.app.User(w.acme, identity.Member, false).Email)
	expect(t, w.app.Do("GET", "/v1/sso", member, nil), 403, "insufficient_permissions")
	body := map[string]any{"issuer": w.provider.Issuer, "client_id": "c", "allowed_domains": []string{"acme.test"}}
	expect(t, w.app.Do("PUT", "/v1/sso", w.admin, body), 400, "invalid_request")
	expect(t, w.app.Do("PUT", "/v1/sso", w.admin, map[string]any{"issuer": "http://idp.example.com", "client_id": "c", "client_secret": "s",
		"allowed_domains": []string{"acme.test"}}), 400, "invalid_request")
	w.configure(t, nil)
	other := w.app.Org("Other")
	otherAdmin := w.app.Login(w.app.User(other, identity.Admin, false).Email)
	body["client_secret"] = "s"
	expect(t, w.app.Do("PUT", "/v1/sso", otherAdmin, body), 409, "conflict")
	expect(t, w.app.Do("GET", "/v1/sso", apptest.Caller{}, nil), 401, "unauthenticated")
	expect(t, w.app.Do("GET", "/v1/sso", apptest.Caller{Key: w.app.Key(w.acme)}, nil), 200, "")

	// Starting sign-ins is limited per address like password sign-ins,
	// in the same bucket: the admin's sign-in spent this one.
	limited := startSSO(t, sqltest.SQLite(t), func(c *bootstrap.Config) { c.HTTP.LoginPerMinute = 1 })
	expect(t, limited.app.Do("GET", "/auth/sso/start?org=nowhere.test", apptest.Caller{}, nil, "Accept", "application/json"), 429, "rate_limited")

	if target, ok := postgresTarget(t); ok {
		keyless := apptest.Start(t, target)
		org := keyless.Org("Keyless")
		admin := keyless.Login(keyless.User(org, identity.Admin, false).Email)
		expect(t, keyless.Do("PUT", "/v1/sso", admin, map[string]any{"issuer": "https://idp.example.com", "client_id": "c", "client_secret": "s",
			"allowed_domains": []string{"keyless.test"}}), 409, "secret_key_required")
	}
}

func postgresTarget(t *testing.T) (sqltest.Target, bool) {
	for _, target := range sqltest.Targets(t) {
		if target.Name == "postgres" {
			return target, true
		}
	}
	return sqltest.Target{}, false
}
