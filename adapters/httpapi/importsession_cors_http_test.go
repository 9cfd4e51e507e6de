package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// TestImportSession_embedPageAndCORS: the importer's page may be framed
// by the session's origins only, under a strict policy; its files are
// served; a host page's origin gets CORS, preflight included, only when a
// session allows it, and a secret is refused from any other origin; on
// each database.
func TestImportSession_embedPageAndCORS(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			w := newSessionWorld(t, target)
			app := w.app
			checkEmbedPage(t, app, w.sessionID)
			checkPreflight(t, app, "https://app.example.com", true)
			checkPreflight(t, app, "https://evil.example", false)
			ok := app.Do("GET", "/v1/import-sessions/current", w.secret, nil, "Origin", "https://app.example.com")
			expect(t, ok, 200, "")
			if ok.Header.Get("Access-Control-Allow-Origin") != "https://app.example.com" || ok.Header.Get("Access-Control-Allow-Credentials") != "" {
				t.Fatalf("allowed origin: %v", ok.Header)
			}
			bad := app.Do("GET", "/v1/import-sessions/current", w.secret, nil, "Origin", "https://evil.example")
			expect(t, bad, 403, "forbidden_import_session")
			if bad.Header.Get("Access-Control-Allow-Origin") != "" {
				t.Fatalf("a refused origin may read the answer: %v", bad.Header)
			}
			// The importer's page calls from the service's own origin.
			expect(t, app.Do("GET", "/v1/import-sessions/current", w.secret, nil, "Origin", app.URL), 200, "")
			// A revoked session's page is framed nowhere, and its origin
			// no longer passes a preflight.
			expect(t, app.Do("DELETE", "/v1/import-sessions/"+w.sessionID, w.key, nil), 200, "")
			if res := app.Do("GET", "/embed/"+w.sessionID, apptest.Caller{}, nil); res.StatusCode != 404 {
				t.Fatalf("revoked session's page: %d", res.StatusCode)
			}
			checkPreflight(t, app, "https://app.example.com", false)
		})
	}
}

// checkEmbedPage: the session's page may be framed by its origins only,
// under a strict policy, and the importer's files are served.
func checkEmbedPage(t *testing.T, app *apptest.App, sessionID string) {
	t.Helper()
	page := app.Do("GET", "/embed/"+sessionID, apptest.Caller{}, nil)
	expect(t, page, 200, "")
	csp := page.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "frame-ancestors https://app.example.com;") || !strings.Contains(csp, "script-src 'self';") ||
		strings.Contains(csp, "unsafe") || page.Header.Get("X-Frame-Options") != "" || page.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("page headers %v", page.Header)
	}
	if !strings.Contains(page.Body, `data-origins="[&#34;https://app.example.com&#34;]"`) || !strings.Contains(page.Body, `lang="de"`) ||
		strings.Contains(page.Body, "imp_secret_") || strings.Contains(page.Body, "<script>") {
		t.Fatalf("page %s", page.Body)
	}
	for _, path := range []string{"/embed/imp_unknown", "/embed/x/y"} {
		res := app.Do("GET", path, apptest.Caller{}, nil)
		if res.StatusCode != 404 || !strings.Contains(res.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
			t.Fatalf("%s: %d %v", path, res.StatusCode, res.Header)
		}
	}
	for _, f := range []string{"importer.js", "app.js", "importer.css", "locales/en.json", "locales/de.json"} {
		res := app.Do("GET", "/embed/v1/"+f, apptest.Caller{}, nil)
		if res.StatusCode != 200 || res.Header.Get("ETag") == "" || len(res.Body) < 100 {
			t.Fatalf("%s: %d", f, res.StatusCode)
		}
	}
}

func checkPreflight(t *testing.T, app *apptest.App, origin string, allowed bool) {
	t.Helper()
	req, _ := http.NewRequest("OPTIONS", app.URL+"/v1/jobs", nil)
	req.Header.Set("Origin", origin)
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "authorization")
	res := app.Request(req, apptest.Caller{})
	got := res.Header.Get("Access-Control-Allow-Origin")
	if (res.StatusCode == 204) != allowed || (got == origin) != allowed || (allowed && !strings.Contains(res.Header.Get("Access-Control-Allow-Headers"), "Authorization")) {
		t.Fatalf("preflight from %s: %d %v", origin, res.StatusCode, res.Header)
	}
}
