package httpapi_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/httpapi"
	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/domain/apikey"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// documentedScopes reads each operation's x-required-scope from the
// OpenAPI document, by "METHOD /path-template".
func documentedScopes(t *testing.T) map[string]string {
	t.Helper()
	var doc struct {
		Paths map[string]map[string]struct {
			Scope string `json:"x-required-scope"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(httpapi.OpenAPI, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for path, ops := range doc.Paths {
		for method, op := range ops {
			if op.Scope != "" {
				out[strings.ToUpper(method)+" "+path] = op.Scope
			}
		}
	}
	return out
}

// TestKeyScopes_everyRoute: on every operation of the OpenAPI document
// that takes an API key, a key holding every scope but the one the
// document names is refused with 403 insufficient_scope naming it, and a
// key holding only that scope gets past the check; on each database.
// TestKeyScopes_everyRouteHasOne (internal) walks the router the same way,
// so no route is left without a scope.
func TestKeyScopes_everyRoute(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			app := apptest.StartRole(t, target, bootstrap.RoleAPI, func(c *bootstrap.Config) { c.HTTP.RateLimit.Burst = 1000 })
			acme := app.Org("Acme", identity.Normalize, identity.Connect)
			scopes := documentedScopes(t)
			without, only := scopedKeys(app, acme)
			checked := 0
			for _, op := range operations(t) {
				if g, _ := guardOf(op.path); g < guardAccount {
					continue // no credential, or a session only
				}
				need, ok := scopes[op.method+" "+op.path]
				if !ok {
					t.Errorf("%s %s: the document names no x-required-scope", op.method, op.path)
					continue
				}
				checked++
				checkScope(t, app, op, need, without[need], only[need])
			}
			if checked < 70 {
				t.Fatalf("checked %d operations", checked)
			}
		})
	}
}

// scopedKeys makes, for each scope, a key holding every other scope but
// admin, and a key holding only it.
func scopedKeys(app *apptest.App, org identity.Organization) (without, only map[string]apptest.Caller) {
	without, only = map[string]apptest.Caller{}, map[string]apptest.Caller{}
	for _, s := range apikey.Scopes {
		var rest []string
		for _, o := range apikey.Scopes {
			if o != s && o != apikey.AdminScope {
				rest = append(rest, string(o))
			}
		}
		without[string(s)] = apptest.Caller{Key: app.ScopedKey(org, rest...)}
		only[string(s)] = apptest.Caller{Key: app.ScopedKey(org, string(s))}
	}
	return without, only
}

// checkScope: without need, op is 403 insufficient_scope naming it (in
// the body and in WWW-Authenticate); with only need, the check lets it by.
func checkScope(t *testing.T, app *apptest.App, op documentedOperation, need string, without, only apptest.Caller) {
	t.Helper()
	path := concrete(op.path)
	res := app.Do(op.method, path, without, nil)
	expect(t, res, 403, "insufficient_scope")
	if !strings.Contains(res.Body, `"required_scope":"`+need+`"`) || !strings.Contains(res.Header.Get("WWW-Authenticate"), `scope="`+need+`"`) {
		t.Errorf("%s %s: the refusal does not name %s: %s %v", op.method, op.path, need, res.Body, res.Header)
	}
	var body any
	if op.hasBody {
		body = map[string]any{}
	}
	if got := app.Do(op.method, path, only, body); got.StatusCode == 401 || strings.Contains(got.Body, "insufficient_scope") {
		t.Errorf("%s %s with only %s: %d %s", op.method, op.path, need, got.StatusCode, got.Body)
	}
}

// TestKeyScopes_lifecycle: a key is created with scopes and expires_at
// and lists them with its last use's time and address; a bad list or a
// past expiry is 400; an expired key is 401 api_key_expired with a
// WWW-Authenticate saying so, on the very next request; a key without a
// list (and every key made before scopes) holds admin, which passes every
// scope check; on each database.
func TestKeyScopes_lifecycle(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			app := apptest.Start(t, target)
			acme := app.Org("Acme", identity.Normalize)
			admin := app.Login(app.User(acme, identity.Admin, false).Email)
			expires := app.Clock.Now().Add(time.Hour).UTC().Truncate(time.Second)
			res := app.Do("POST", "/v1/admin/keys", admin, map[string]any{"name": "reader", "scopes": []string{"jobs:read"}, "expires_at": expires.Format(time.RFC3339)})
			expect(t, res, 201, "")
			var created struct {
				ID, Key   string
				Scopes    []string `json:"scopes"`
				ExpiresAt string   `json:"expires_at"`
			}
			res.JSON(t, &created)
			if at, err := time.Parse(time.RFC3339, created.ExpiresAt); err != nil || !at.Equal(expires) || len(created.Scopes) != 1 || created.Scopes[0] != "jobs:read" {
				t.Fatalf("created %s", res.Body)
			}
			reader := apptest.Caller{Key: created.Key}
			expect(t, app.Do("GET", "/v1/jobs", reader, nil), 200, "")
			expect(t, app.Do("POST", "/v1/schemas", reader, map[string]any{"name": "x", "schema": json.RawMessage(apptest.PeopleSchema)}), 403, "insufficient_scope")
			list := app.Do("GET", "/v1/admin/keys", admin, nil)
			if !strings.Contains(list.Body, `"last_used_ip":"127.0.0.1"`) || !strings.Contains(list.Body, `"scopes":["jobs:read"]`) {
				t.Fatalf("the keys list lacks the last use's address or the scopes: %s", list.Body)
			}
			for _, bad := range []map[string]any{
				{"name": "x", "scopes": []string{}},
				{"name": "x", "scopes": []string{"jobs:delete"}},
				{"name": "x", "expires_at": app.Clock.Now().Add(-time.Minute).UTC().Format(time.RFC3339)},
				{"name": "x", "expires_at": "next week"},
			} {
				expect(t, app.Do("POST", "/v1/admin/keys", admin, bad), 400, "invalid_request")
			}
			// Expiry applies on the next request, and says so.
			app.Clock.Advance(time.Hour)
			res = app.Do("GET", "/v1/jobs", reader, nil)
			expect(t, res, 401, "api_key_expired")
			if h := res.Header.Get("WWW-Authenticate"); !strings.Contains(h, `error="invalid_token"`) || !strings.Contains(h, "expired") {
				t.Fatalf("WWW-Authenticate %q", h)
			}
			// A key made before scopes (the column's default) holds admin.
			old := apikey.Generate()
			if _, err := app.DB.Bun.NewRaw("INSERT INTO api_keys (id, org_id, name, hash, last4, created_at) VALUES (?, ?, 'old', ?, ?, ?)",
				"key_before_scopes", acme.ID, hashOf(old), apikey.Last4(old), app.Clock.Now().UTC()).Exec(context.Background()); err != nil {
				t.Fatal(err)
			}
			for _, path := range []string{"/v1/jobs", "/v1/webhooks", "/v1/import-sessions", "/v1/usage"} {
				expect(t, app.Do("GET", path, apptest.Caller{Key: old}, nil), 200, "")
			}
			var stored string
			if err := app.DB.Bun.NewRaw("SELECT scopes FROM api_keys WHERE hash = ?", hashOf(old)).Scan(context.Background(), &stored); err != nil || stored != "admin" {
				t.Fatalf("a key of before scopes stores %q, %v; want admin", stored, err)
			}
		})
	}
}

func hashOf(key string) []byte {
	h := apikey.HashOf(key)
	return h[:]
}
