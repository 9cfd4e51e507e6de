package browser

import (
	"bytes"
	"net"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
	"github.com/tabnorm/tabnorm/test/oidctest"
)

// TestSSO: an admin sets the organization's provider on the single
// sign-on page (keyboard-reachable, no serious axe-core violation); a
// new person signs in with "Sign in with SSO" on the sign-in page,
// through the real provider's own login page, and lands on the dashboard
// as a member; a sign-in for a domain nobody configured comes back to the
// sign-in page with a readable explanation.
func TestSSO(t *testing.T) {
	browserTest(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	base := "http://" + addr
	app := apptest.Start(t, sqltest.SQLite(t), func(c *bootstrap.Config) {
		c.HTTP.Addr, c.BaseURL, c.DashboardURL, c.HTTP.BaseOrigin, c.HTTP.DashboardOrigin = addr, base, base, base, base
		c.SSOAllowHTTPIssuer, c.SecretKeys = true, [][]byte{bytes.Repeat([]byte{7}, 32)}
	})
	provider := oidctest.Start(t, base+"/auth/sso/callback", oidctest.User{Email: "alice@acme.test", Verified: true, Name: "Alice Acme"})
	acme := app.Org("Acme", identity.Normalize)
	person(t, app, acme, "ann@acme.test", identity.Admin, false)

	admin := open(t, app)
	admin.login("ann@acme.test")
	if nav := admin.text("nav"); !strings.Contains(nav, "Single sign-on") {
		t.Fatalf("an admin's navigation has no single sign-on: %q", nav)
	}
	admin.expect("/v1/sso", "404") // sso_not_configured: the page offers the form
	admin.visit("/admin/sso")
	admin.until("the form", `document.querySelector('#sso-form')`)
	admin.do(
		chromedp.SendKeys(chromedp.ID("sso-issuer"), provider.Issuer),
		chromedp.SendKeys(chromedp.ID("sso-client-id"), provider.ClientID),
		chromedp.SendKeys(chromedp.ID("sso-client-secret"), provider.ClientSecret),
		chromedp.SendKeys(chromedp.ID("sso-domains"), "acme.test"),
	)
	admin.press("#sso-save")
	admin.until("the saved settings", `document.querySelector('#sso-redirect-uri')`)
	if uri := admin.text("#sso-redirect-uri"); uri != base+"/auth/sso/callback" {
		t.Errorf("the redirect URI shown: %q", uri)
	}
	if state := admin.text("#sso-state"); !strings.Contains(state, "Single sign-on is on since") || strings.Contains(state, "[object") {
		t.Errorf("the state says %q", state)
	}
	if v := eval[string](admin, `document.querySelector('#sso-client-secret').value`); v != "" {
		t.Errorf("the secret stays in the form: %q", v)
	}
	admin.checkStep(width)
	admin.shot("sso-settings")

	// A new person, in another browser.
	p := open(t, app)
	p.expect("favicon.ico", "404") // the provider's login page has none
	p.visit("/login")
	p.checkStep(width)
	p.do(chromedp.SendKeys(chromedp.ID("sso-org"), "alice@acme.test"), chromedp.Click(chromedp.ID("sso-sign-in")))
	p.until("the provider's login page", `location.origin === `+jsString(provider.Issuer)+` && document.querySelector('#username')`)
	p.do(
		chromedp.SendKeys(chromedp.ID("username"), "alice@acme.test"),
		chromedp.SendKeys(chromedp.ID("password"), oidctest.Password),
		chromedp.Submit(chromedp.ID("password")),
	)
	p.ready("/")
	p.until("the header", `document.querySelector('#who')`)
	if who := p.text("#who"); !strings.Contains(who, "alice@acme.test") || !strings.Contains(who, "member") {
		t.Fatalf("signed in as %q", who)
	}
	if p.cookie() == "" {
		t.Fatal("no session cookie after single sign-on")
	}

	// A domain nobody configured: back on the sign-in page, told why.
	q := open(t, app)
	q.visit("/login")
	q.do(chromedp.SendKeys(chromedp.ID("sso-org"), "someone@nowhere.test"), chromedp.Click(chromedp.ID("sso-sign-in")))
	q.until("the explanation", `location.search.includes('sso_error') && document.querySelector('#login-message')`)
	if msg := q.text("#login-message"); !strings.Contains(msg, "No organization signs in with single sign-on") {
		t.Errorf("the failure says %q", msg)
	}
	q.checkStep(width)
	q.shot("sso-failure")

	member := open(t, app)
	person(t, app, acme, "bob@acme.test", identity.Member, false)
	member.login("bob@acme.test")
	member.refusal("/admin/sso", "Only organization admins see and change single sign-on", "#sso-form", "/v1/sso", "insufficient_permissions")
}
