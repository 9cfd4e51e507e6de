package browser

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// TestLoginRedirect: the login page's ?next= sends the browser back only
// to a path of the dashboard's own origin, however the link is dressed up.
func TestLoginRedirect(t *testing.T) {
	browserTest(t)
	app := apptest.Start(t, sqltest.SQLite(t))
	const email = "ann@acme.test"
	person(t, app, app.Org("Acme", identity.Normalize), email, identity.Admin, false)
	host := strings.TrimPrefix(app.URL, "http://")
	p := open(t, app)
	p.visit("/login")

	// Unit cases, run by the page's own module in the browser that
	// resolves the URLs.
	cases := map[string]string{
		"":                            "/jobs",
		"/schemas":                    "/schemas",
		"/jobs/job_1?tab=rows":        "/jobs/job_1?tab=rows",
		"/login":                      "/jobs",
		"/.//evil.test/x":             "/jobs",
		"http://" + host + "//evil/x": "/jobs",
		"//evil.test/x":               "/jobs",
		`/\evil.test/x`:               "/jobs",
		`\/evil.test/x`:               "/jobs",
		"/\t/evil.test/x":             "/jobs",
		"/%2F%2Fevil.test/x":          "/jobs",
		"/%5Cevil.test/x":             "/jobs",
		"/%E0%A4%A":                   "/jobs",
		"https://evil.test/x":         "/jobs",
		"javascript:alert(1)":         "/jobs",
		"schemas":                     "/jobs",
	}
	var inputs []string
	for in := range cases {
		inputs = append(inputs, in)
	}
	list, err := json.Marshal(inputs)
	if err != nil {
		t.Fatal(err)
	}
	got := eval[[]string](p, `import('/assets/views/login.js').then((m) => `+string(list)+`.map(m.back))`)
	for i, in := range inputs {
		if got[i] != cases[in] {
			t.Errorf("next=%q goes to %q, want %q", in, got[i], cases[in])
		}
	}

	// End to end: signing in from such links lands on this origin.
	for next, want := range map[string]string{"/.//evil.test/x": "/jobs", "http://" + host + "//evil.test/x": "/jobs", "/schemas": "/schemas"} {
		p.visit("/login?next=" + url.QueryEscape(next))
		p.do(
			chromedp.SendKeys(chromedp.ID("email"), email),
			chromedp.SendKeys(chromedp.ID("password"), apptest.Password),
			chromedp.Click(chromedp.ID("sign-in")),
		)
		p.ready(want)
		if origin := eval[string](p, `location.origin`); origin != app.URL {
			t.Errorf("next=%q: signed in at %s, want %s", next, origin, app.URL)
		}
	}
}
