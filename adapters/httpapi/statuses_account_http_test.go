package httpapi_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/httpapi"
	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// TestStatuses_accountAndSchemaRoutes: answers of the sign-in, account
// and saved-schema routes that their own tests leave out.
func TestStatuses_accountAndSchemaRoutes(t *testing.T) {
	t.Parallel()
	app := apptest.StartRole(t, sqltest.SQLite(t), bootstrap.RoleAPI)
	acme := app.Org("Acme", identity.Normalize)
	key := apptest.Caller{Key: app.Key(acme)}
	other := apptest.Caller{Key: app.Key(app.Org("Other", identity.Normalize))}
	staff := app.Login(app.User(acme, identity.Admin, true).Email)

	doc := app.Do("GET", "/v1/openapi.json", apptest.Caller{}, nil)
	expect(t, doc, 200, "")
	if doc.Body != string(httpapi.OpenAPI) || !strings.HasPrefix(doc.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("GET /v1/openapi.json is not the document: %q", doc.Header.Get("Content-Type"))
	}

	for _, c := range []struct {
		name, method, path string
		who                apptest.Caller
		body               any
		code               string
	}{
		{"login without a password", "POST", "/auth/login", apptest.Caller{}, map[string]string{"email": "a@example.test"}, "invalid_request"},
		{"login with an unknown field", "POST", "/auth/login", apptest.Caller{}, map[string]string{"email": "a@example.test", "password": "x", "otp": "1"}, "invalid_request"},
		{"impersonate nobody", "POST", "/auth/impersonate", staff, map[string]string{}, "invalid_request"},
		{"impersonate, not JSON", "POST", "/auth/impersonate", staff, "{", "invalid_request"},
		{"organizations limit", "GET", "/v1/admin/organizations?limit=201", staff, nil, "invalid_request"},
		{"organizations cursor", "GET", "/v1/admin/organizations?cursor=" + strings.Repeat("c", 201), staff, nil, "invalid_cursor"},
		{"keys limit", "GET", "/v1/admin/keys?limit=x", staff, nil, "invalid_request"},
		{"schemas limit", "GET", "/v1/schemas?limit=-1", key, nil, "invalid_request"},
		{"files limit", "GET", "/v1/connect/files?limit=0", staff, nil, "invalid_request"},
	} {
		t.Run(c.name, func(t *testing.T) {
			expect(t, app.Do(c.method, c.path, c.who, c.body), 400, c.code)
		})
	}

	// Saved schemas: read back, and another organization's are 404.
	res := app.Do("POST", "/v1/schemas", key, map[string]any{"name": "people", "schema": json.RawMessage(peopleSchema)})
	expect(t, res, 201, "")
	var saved struct{ ID string }
	res.JSON(t, &saved)
	got := app.Do("GET", "/v1/schemas/"+saved.ID, key, nil)
	expect(t, got, 200, "")
	if got.Body != res.Body {
		t.Fatalf("read back %s, created %s", got.Body, res.Body)
	}
	expect(t, app.Do("GET", "/v1/schemas/"+saved.ID, other, nil), 404, "not_found")
	expect(t, app.Do("DELETE", "/v1/schemas/"+saved.ID, other, nil), 404, "not_found")
	expect(t, app.Do("DELETE", "/v1/schemas/"+saved.ID, key, nil), 204, "")
	expect(t, app.Do("DELETE", "/v1/schemas/"+saved.ID, key, nil), 404, "not_found")
}

// TestStatuses_readyzUnavailable: /readyz answers 503 unavailable, saying
// why, once the database is gone; /healthz still answers.
func TestStatuses_readyzUnavailable(t *testing.T) {
	t.Parallel()
	app := apptest.StartRole(t, sqltest.SQLite(t), bootstrap.RoleAPI)
	expect(t, app.Do("GET", "/readyz", apptest.Caller{}, nil), 200, "")
	if err := app.DB.Close(); err != nil {
		t.Fatal(err)
	}
	res := app.Do("GET", "/readyz", apptest.Caller{}, nil)
	expect(t, res, 503, "unavailable")
	if !strings.Contains(res.Body, "database unreachable") {
		t.Fatalf("503 does not say why: %s", res.Body)
	}
	expect(t, app.Do("GET", "/healthz", apptest.Caller{}, nil), 200, "")
}
