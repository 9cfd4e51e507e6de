package httpapi_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/importsession"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// importSessionBody is the contract's example body, with an inline schema.
func importSessionBody(origins ...string) map[string]any {
	if origins == nil {
		origins = []string{"https://app.example.com"}
	}
	return map[string]any{"schema": jsonRaw(apptest.PeopleSchema), "allowed_origins": origins, "expires_in": 3600,
		"metadata": map[string]any{"customer_ref": "acct_42"}, "max_jobs": 5, "locale": "de",
		"theme": map[string]any{"primary": "#0b5cff", "radius": "6px", "font": "Inter, sans-serif"}}
}

type importSessionOut struct {
	ID             string         `json:"id"`
	Object         string         `json:"object"`
	Status         string         `json:"status"`
	URL            string         `json:"url"`
	ClientSecret   string         `json:"client_secret"`
	Options        map[string]any `json:"options"`
	AllowedOrigins []string       `json:"allowed_origins"`
	Metadata       map[string]any `json:"metadata"`
	MaxJobs        int            `json:"max_jobs"`
	JobCount       *int           `json:"job_count"`
	Locale         string         `json:"locale"`
	RevokedAt      *string        `json:"revoked_at"`
}

func createImportSession(t *testing.T, app *apptest.App, who apptest.Caller, body map[string]any) importSessionOut {
	t.Helper()
	res := app.Do("POST", "/v1/import-sessions", who, body)
	expect(t, res, 201, "")
	var out importSessionOut
	res.JSON(t, &out)
	return out
}

// TestImportSessions_lifecycle mints a session with an API key and with
// an admin's session, shows its secret once and stores only its hash,
// lists and shows it, keeps it from other organizations and members, and
// revokes it, on each database.
func TestImportSessions_lifecycle(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, target)
			app := w.app
			key := apptest.Caller{Key: w.acmeKey}
			res := app.Do("POST", "/v1/import-sessions", key, importSessionBody("https://App.Example.com:443/", "http://127.0.0.1:8123"))
			expect(t, res, 201, "")
			if res.Header.Get("Cache-Control") != "no-store" || res.Header.Get("Location") == "" {
				t.Fatalf("creation headers %v", res.Header)
			}
			var created importSessionOut
			res.JSON(t, &created)
			if !importsession.ValidSecret(created.ClientSecret) || !strings.HasPrefix(created.ID, "imp_") || created.Object != "import_session" ||
				created.Status != "open" || !strings.HasSuffix(created.URL, "/embed/"+created.ID) || created.Locale != "de" || created.MaxJobs != 5 ||
				created.Metadata["customer_ref"] != "acct_42" || created.Options["review"] != true ||
				strings.Join(created.AllowedOrigins, " ") != "https://app.example.com http://127.0.0.1:8123" {
				t.Fatalf("created %s", res.Body)
			}
			// Only the hash is stored.
			var stored []byte
			if err := app.DB.Bun.NewRaw("SELECT hash FROM import_sessions WHERE id = ?", created.ID).Scan(context.Background(), &stored); err != nil {
				t.Fatal(err)
			}
			if h := importsession.HashOf(created.ClientSecret); string(stored) != string(h[:]) {
				t.Fatal("the stored hash is not the secret's SHA-256")
			}
			list := app.Do("GET", "/v1/import-sessions", key, nil)
			expect(t, list, 200, "")
			if strings.Contains(list.Body, created.ClientSecret) || strings.Contains(list.Body, "client_secret") || !strings.Contains(list.Body, created.ID) {
				t.Fatalf("list %s", list.Body)
			}
			got := app.Do("GET", "/v1/import-sessions/"+created.ID, key, nil)
			expect(t, got, 200, "")
			var one importSessionOut
			got.JSON(t, &one)
			if one.JobCount == nil || *one.JobCount != 0 || one.ClientSecret != "" {
				t.Fatalf("get %s", got.Body)
			}
			// An admin on a session mints too; a member may not; another
			// organization sees none of it.
			admin := app.Login(w.acmeAdmin.Email)
			createImportSession(t, app, admin, importSessionBody())
			member := app.Login(w.acmeMember.Email)
			expect(t, app.Do("POST", "/v1/import-sessions", member, importSessionBody()), 403, "insufficient_permissions")
			expect(t, app.Do("GET", "/v1/import-sessions", member, nil), 403, "insufficient_permissions")
			other := apptest.Caller{Key: app.Key(app.Org("Other", identity.Normalize))}
			expect(t, app.Do("GET", "/v1/import-sessions/"+created.ID, other, nil), 404, "not_found")
			expect(t, app.Do("DELETE", "/v1/import-sessions/"+created.ID, other, nil), 404, "not_found")
			checkRevocation(t, app, key, created.ID)
		})
	}
}

// checkRevocation revokes a session and checks that revoking it again
// changes nothing.
func checkRevocation(t *testing.T, app *apptest.App, key apptest.Caller, id string) {
	t.Helper()
	// Revocation.
	rev := app.Do("DELETE", "/v1/import-sessions/"+id, key, nil)
	expect(t, rev, 200, "")
	var revoked importSessionOut
	rev.JSON(t, &revoked)
	if revoked.Status != "revoked" || revoked.RevokedAt == nil {
		t.Fatalf("revoked %s", rev.Body)
	}
	again := app.Do("DELETE", "/v1/import-sessions/"+id, key, nil)
	var twice importSessionOut
	again.JSON(t, &twice)
	if twice.RevokedAt == nil || *twice.RevokedAt != *revoked.RevokedAt {
		t.Fatalf("revoking again changed it: %s", again.Body)
	}
}

// TestImportSessions_refusesBadSettings: every setting that reaches a
// browser (origins, theme) or a job (schema, options, metadata) is checked.
func TestImportSessions_refusesBadSettings(t *testing.T) {
	t.Parallel()
	w := sqliteWorld(t)
	key := apptest.Caller{Key: w.acmeKey}
	cases := []struct {
		name, field string
		change      func(map[string]any)
	}{
		{"no origin", "allowed_origins", func(b map[string]any) { b["allowed_origins"] = []string{} }},
		{"http origin off loopback", "allowed_origins", func(b map[string]any) { b["allowed_origins"] = []string{"http://app.example.com"} }},
		{"wildcard origin", "allowed_origins", func(b map[string]any) { b["allowed_origins"] = []string{"https://*.example.com"} }},
		{"origin with a path", "allowed_origins", func(b map[string]any) { b["allowed_origins"] = []string{"https://app.example.com/x"} }},
		{"style injection in a color", "theme.primary", func(b map[string]any) {
			b["theme"] = map[string]any{"primary": "red;background:url(https://evil.example)"}
		}},
		{"style injection in a font", "theme.font", func(b map[string]any) { b["theme"] = map[string]any{"font": "x}</style><script>"} }},
		{"unknown locale", "locale", func(b map[string]any) { b["locale"] = "xx" }},
		{"too long", "expires_in", func(b map[string]any) { b["expires_in"] = 90000 }},
		{"too many jobs", "max_jobs", func(b map[string]any) { b["max_jobs"] = 101 }},
		{"metadata not an object", "metadata", func(b map[string]any) { b["metadata"] = []int{1} }},
		{"no schema", "schema", func(b map[string]any) { delete(b, "schema") }},
		{"unknown saved schema", "schema_id", func(b map[string]any) { delete(b, "schema"); b["schema_id"] = "sch_unknown" }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			body := importSessionBody()
			c.change(body)
			res := w.app.Do("POST", "/v1/import-sessions", key, body)
			expect(t, res, 400, "invalid_request")
			if !strings.Contains(res.Body, `"field":"`+c.field+`"`) {
				t.Fatalf("no error on %s: %s", c.field, res.Body)
			}
		})
	}
	body := importSessionBody()
	body["schema"] = jsonRaw(`{"fields":[{"name":"x","type":"money"}]}`)
	expect(t, w.app.Do("POST", "/v1/import-sessions", key, body), 422, "invalid_schema")
}

// jsonRaw sends a JSON text as itself inside a request body.
func jsonRaw(s string) json.RawMessage { return json.RawMessage(s) }
