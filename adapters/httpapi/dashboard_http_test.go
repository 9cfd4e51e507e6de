package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/dashboard"
	"github.com/tabnorm/tabnorm/adapters/httpapi"
	"github.com/tabnorm/tabnorm/adapters/importer"
	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

const dashboardCSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'"

func securityHeaders(t *testing.T, path string, h http.Header, csp string) {
	t.Helper()
	for k, want := range map[string]string{
		"Content-Security-Policy": csp,
		"X-Frame-Options":         "DENY",
		"Referrer-Policy":         "same-origin",
		"X-Content-Type-Options":  "nosniff",
	} {
		if got := h.Get(k); got != want {
			t.Errorf("%s: %s = %q, want %q", path, k, got, want)
		}
	}
}

func TestDashboard_pagesAssetsAndHeaders(t *testing.T) {
	t.Parallel()
	app := apptest.Start(t, sqltest.SQLite(t))
	for _, path := range []string{"/", "/login", "/jobs", "/jobs/new", "/jobs/job_01jz8k2m3n4p5q6r7s8t9v0w1x",
		"/schemas", "/connect", "/admin/keys", "/staff/organizations"} {
		for _, method := range []string{"GET", "HEAD"} {
			res := app.Do(method, path, apptest.Caller{}, nil)
			if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/html; charset=utf-8" || res.Header.Get("Cache-Control") != "no-store" {
				t.Fatalf("%s %s: %d %q %q", method, path, res.StatusCode, res.Header.Get("Content-Type"), res.Header.Get("Cache-Control"))
			}
			if method == "GET" && !strings.Contains(res.Body, `<script type="module" src="/assets/app.js"></script>`) {
				t.Errorf("GET %s is not the dashboard shell:\n%s", path, res.Body)
			}
			securityHeaders(t, path, res.Header, dashboardCSP)
		}
	}

	js := app.Do("GET", "/assets/views/keys.js", apptest.Caller{}, nil)
	if js.StatusCode != 200 || js.Header.Get("Content-Type") != "text/javascript; charset=utf-8" ||
		js.Header.Get("Cache-Control") != "no-cache" || js.Header.Get("ETag") == "" || !strings.Contains(js.Body, "export default") {
		t.Fatalf("asset: %d %v", js.StatusCode, js.Header)
	}
	securityHeaders(t, "/assets/views/keys.js", js.Header, dashboardCSP)
	again := app.Do("GET", "/assets/views/keys.js", apptest.Caller{}, nil, "If-None-Match", js.Header.Get("ETag"))
	if again.StatusCode != http.StatusNotModified || again.Body != "" {
		t.Errorf("revalidation: %d %q", again.StatusCode, again.Body)
	}
	if css := app.Do("GET", "/assets/style.css", apptest.Caller{}, nil); css.Header.Get("Content-Type") != "text/css; charset=utf-8" {
		t.Errorf("style.css Content-Type %q", css.Header.Get("Content-Type"))
	}
	// The spreadsheet is the importer's: its module, style sheet and
	// English words are served from the importer's files.
	for mine, theirs := range dashboard.FromImporter {
		want, _ := importer.Asset(theirs)
		got := app.Do("GET", "/assets/"+mine, apptest.Caller{}, nil)
		if got.StatusCode != 200 || got.Body != string(want.Body) || got.Body == "" || got.Header.Get("Content-Type") != want.ContentType {
			t.Errorf("/assets/%s: %d %q, want the importer's %s", mine, got.StatusCode, got.Header.Get("Content-Type"), theirs)
		}
	}

	// Everything else stays the API's.
	for _, c := range []struct {
		method, path string
		status       int
		code         string
	}{
		{"GET", "/nope", 404, "not_found"},
		{"GET", "/jobs/a/b", 404, "not_found"},
		{"POST", "/jobs", 404, "not_found"},
		{"GET", "/assets/nope.js", 404, "not_found"},
		{"GET", "/assets/../index.html", 404, "not_found"},
		{"GET", "/v1/nope", 401, "unauthenticated"},
		{"GET", "/v1/jobs", 401, "unauthenticated"},
	} {
		res := app.Do(c.method, c.path, apptest.Caller{}, nil)
		if res.StatusCode != c.status || res.Problem(t) != c.code {
			t.Errorf("%s %s: %d %s, want %d %s", c.method, c.path, res.StatusCode, res.Body, c.status, c.code)
		}
		if res.Header.Get("Content-Security-Policy") != "" {
			t.Errorf("%s %s: an API answer carries the dashboard's CSP", c.method, c.path)
		}
	}
	if res := app.Do("GET", "/healthz", apptest.Caller{}, nil); res.StatusCode != 200 {
		t.Errorf("/healthz: %d", res.StatusCode)
	}
}

func TestDashboard_downloadsAreAttachments(t *testing.T) {
	t.Parallel()
	app := apptest.Start(t, sqltest.SQLite(t))
	org := app.Org("Acme", identity.Normalize)
	who := apptest.Caller{Key: app.Key(org)}
	res := app.Request(upload(t, app, "people.csv", peopleCSV, map[string]string{"schema": peopleSchema}), who)
	var j jobView
	res.JSON(t, &j)
	waitJob(t, app, who, j.ID)
	for _, c := range []struct{ path, filename string }{
		{"/rows?format=csv", j.ID + "-rows.csv"},
		{"/rows?format=jsonl", j.ID + "-rows.jsonl"},
		{"/errors?format=csv", j.ID + "-issues.csv"},
		{"/errors?format=jsonl", j.ID + "-issues.jsonl"},
		{"/rows?format=xlsx", j.ID + "-rows.xlsx"},
		{"/rows?format=parquet", j.ID + "-rows.parquet"},
		{"/errors?format=xlsx", j.ID + "-issues.xlsx"},
		{"/errors?format=xlsx&rows=rejected", j.ID + "-issues.xlsx"},
	} {
		res := app.Do("GET", "/v1/jobs/"+j.ID+c.path, who, nil)
		if want := `attachment; filename="` + c.filename + `"`; res.StatusCode != 200 || res.Header.Get("Content-Disposition") != want {
			t.Errorf("%s: %d Content-Disposition %q, want %q", c.path, res.StatusCode, res.Header.Get("Content-Disposition"), want)
		}
	}
	if res := app.Do("GET", "/v1/jobs/"+j.ID+"/rows", who, nil); res.Header.Get("Content-Disposition") != "" {
		t.Errorf("a JSON page is not a download: %q", res.Header.Get("Content-Disposition"))
	}
}

func TestOrigin(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"http://localhost:8080":           "http://localhost:8080",
		"https://App.Example.com/":        "https://app.example.com",
		"https://app.example.com:443/x?y": "https://app.example.com",
		"http://app.example.com:80":       "http://app.example.com",
		"http://app.example.com:443":      "http://app.example.com:443",
		"http://[::1]:8080/":              "http://[::1]:8080",
		"ftp://example.com":               "",
		"/relative":                       "",
		"":                                "",
	} {
		if got := httpapi.Origin(in); got != want {
			t.Errorf("Origin(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestCORS: a dashboard served from its own origin may call /v1 and /auth
// with its cookie; no other origin may read an answer.
func TestCORS(t *testing.T) {
	t.Parallel()
	const dash = "https://dashboard.example.test"
	app := apptest.Start(t, sqltest.SQLite(t), func(c *bootstrap.Config) { c.HTTP.DashboardOrigin = dash })
	api := app.Config.HTTP.BaseOrigin
	org := app.Org("Acme", identity.Normalize)
	u := app.User(org, identity.Admin, false)

	preflight := func(origin, path string) apptest.Response {
		return app.Do("OPTIONS", path, apptest.Caller{}, nil, "Origin", origin,
			"Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "content-type,x-csrf-token,idempotency-key")
	}
	for _, path := range []string{"/v1/jobs", "/auth/login", "/v1/admin/keys/key_x", "/v1/jobs/job_x/events"} {
		res := preflight(dash, path)
		h := res.Header
		if res.StatusCode != 204 || h.Get("Access-Control-Allow-Origin") != dash || h.Get("Access-Control-Allow-Credentials") != "true" ||
			!strings.Contains(h.Get("Vary"), "Origin") || !strings.Contains(h.Get("Access-Control-Allow-Methods"), "DELETE") {
			t.Fatalf("preflight %s: %d %v", path, res.StatusCode, h)
		}
		for _, want := range []string{"Content-Type", "X-CSRF-Token", "Idempotency-Key", "Last-Event-ID"} {
			if !strings.Contains(h.Get("Access-Control-Allow-Headers"), want) {
				t.Errorf("preflight %s allows headers %q, not %s", path, h.Get("Access-Control-Allow-Headers"), want)
			}
		}
	}

	res := app.Do("POST", "/auth/login", apptest.Caller{}, map[string]string{"email": u.Email, "password": apptest.Password}, "Origin", dash)
	if res.StatusCode != 200 || res.Header.Get("Access-Control-Allow-Origin") != dash || res.Header.Get("Access-Control-Allow-Credentials") != "true" ||
		!strings.Contains(res.Header.Get("Access-Control-Expose-Headers"), "X-Request-Id") {
		t.Fatalf("login from the dashboard: %d %v", res.StatusCode, res.Header)
	}
	who := app.Login(u.Email)
	if res := app.Do("GET", "/v1/jobs", who, nil, "Origin", dash); res.StatusCode != 200 || res.Header.Get("Access-Control-Allow-Origin") != dash {
		t.Errorf("GET /v1/jobs from the dashboard: %d %v", res.StatusCode, res.Header)
	}
	// Errors carry the headers too, so the dashboard can read the problem.
	if res := app.Do("GET", "/v1/jobs", apptest.Caller{}, nil, "Origin", dash); res.StatusCode != 401 || res.Header.Get("Access-Control-Allow-Origin") != dash {
		t.Errorf("401 from the dashboard: %d %v", res.StatusCode, res.Header)
	}

	for _, origin := range []string{"https://evil.example.test", "https://dashboard.example.test.evil.test", "null", api} {
		if res := app.Do("GET", "/auth/me", who, nil, "Origin", origin); res.StatusCode != 200 || res.Header.Get("Access-Control-Allow-Origin") != "" ||
			res.Header.Get("Access-Control-Allow-Credentials") != "" || !strings.Contains(res.Header.Get("Vary"), "Origin") {
			t.Errorf("GET /auth/me from %s: %d %v", origin, res.StatusCode, res.Header)
		}
		if res := preflight(origin, "/v1/jobs"); res.StatusCode == 204 || res.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("preflight from %s: %d %v", origin, res.StatusCode, res.Header)
		}
	}

	// The pages call the API at its origin, and the policy lets them.
	page := app.Do("GET", "/jobs", apptest.Caller{}, nil, "Origin", dash)
	if !strings.Contains(page.Body, `<meta name="tabnorm-api" content="`+api+`">`) {
		t.Errorf("the shell does not name the API origin %s:\n%s", api, page.Body)
	}
	securityHeaders(t, "/jobs", page.Header, strings.Replace(dashboardCSP, "connect-src 'self'", "connect-src 'self' "+api, 1))
	if page.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("a page carries CORS headers: %v", page.Header)
	}
}

// TestCORS_offOnOneOrigin: with the dashboard on the API's origin (the
// default) no answer carries CORS headers.
func TestCORS_offOnOneOrigin(t *testing.T) {
	t.Parallel()
	app := apptest.Start(t, sqltest.SQLite(t))
	if app.Config.HTTP.DashboardOrigin != app.Config.HTTP.BaseOrigin || app.Config.HTTP.BaseOrigin == "" {
		t.Fatalf("origins: dashboard %q, base %q", app.Config.HTTP.DashboardOrigin, app.Config.HTTP.BaseOrigin)
	}
	for _, origin := range []string{app.Config.HTTP.BaseOrigin, "https://evil.example.test"} {
		res := app.Do("OPTIONS", "/v1/jobs", apptest.Caller{}, nil, "Origin", origin, "Access-Control-Request-Method", "POST")
		if res.StatusCode == 204 || res.Header.Get("Access-Control-Allow-Origin") != "" || strings.Contains(res.Header.Get("Vary"), "Origin") {
			t.Errorf("preflight from %s: %d %v", origin, res.StatusCode, res.Header)
		}
	}
}
