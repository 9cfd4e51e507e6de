package httpapi_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/httpapi"
	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// The checks every route runs before its handler (API.md §4.5) answer the
// same on every operation. The operations are the OpenAPI document's,
// which TestOpenAPI_listsExactlyTheRoutes holds equal to the router's, so
// a new route is held to them without being named here.

// guard is which of the checks a route runs, by its path.
type guard int

const (
	guardNone    guard = iota // /healthz, /readyz: none
	guardLicense              // the license gate only
	guardSession              // license, a dashboard session, rate limit, CSRF
	guardAccount              // license, an API key or a session, rate limit, CSRF
	guardProduct              // as guardAccount, then the product's entitlement
)

func guardOf(path string) (guard, identity.Product) {
	switch {
	case path == "/healthz" || path == "/readyz":
		return guardNone, ""
	case path == "/v1/openapi.json" || path == "/auth/login" || strings.HasPrefix(path, "/auth/sso/"):
		return guardLicense, ""
	case strings.HasPrefix(path, "/auth/"):
		return guardSession, ""
	case path == "/v1/jobs" || strings.HasPrefix(path, "/v1/jobs/") || path == "/v1/schemas" || strings.HasPrefix(path, "/v1/schemas/") ||
		path == "/v1/import-sessions" || strings.HasPrefix(path, "/v1/import-sessions/"):
		return guardProduct, identity.Normalize
	case strings.HasPrefix(path, "/v1/connect/"):
		return guardProduct, identity.Connect
	}
	return guardAccount, ""
}

var pathParam = regexp.MustCompile(`\{([a-z_]+)\}`)

// concrete fills a path template with ids no organization has.
func concrete(template string) string {
	return pathParam.ReplaceAllString(template, "${1}_unknown")
}

func unsafeMethod(method string) bool {
	return method != http.MethodGet && method != http.MethodHead && method != http.MethodOptions
}

func operations(t *testing.T) []documentedOperation {
	t.Helper()
	ops, err := documentedOperations()
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) < 50 {
		t.Fatalf("the document lists %d operations", len(ops))
	}
	return ops
}

// TestStatuses_checksBeforeHandlers: bad text, missing or mixed
// credentials, a key where a session is needed, a missing CSRF token and a
// missing product are answered alike on every route.
func TestStatuses_checksBeforeHandlers(t *testing.T) {
	t.Parallel()
	// Each credential calls every route, more than a burst of its rate
	// limit: the limit is not what this test checks.
	app := apptest.StartRole(t, sqltest.SQLite(t), bootstrap.RoleAPI, func(c *bootstrap.Config) { c.HTTP.RateLimit.Burst = 1000 })
	acme := app.Org("Acme", identity.Normalize, identity.Connect)
	key := apptest.Caller{Key: app.Key(acme)}
	admin := app.Login(app.User(acme, identity.Admin, false).Email)
	bareKey := apptest.Caller{Key: app.Key(app.Org("Bare"))}
	for _, op := range operations(t) {
		t.Run(op.method+" "+op.path, func(t *testing.T) {
			g, _ := guardOf(op.path)
			path := concrete(op.path)
			// Invalid UTF-8 in the query is refused before anything else.
			expect(t, app.Do(op.method, path+"?q=%FF", apptest.Caller{}, nil), 400, "invalid_request")
			if g < guardSession {
				return
			}
			expect(t, app.Do(op.method, path, apptest.Caller{}, nil), 401, "unauthenticated")
			expect(t, app.Do(op.method, path, apptest.Caller{Key: key.Key, Session: admin.Session, CSRF: admin.CSRF}, nil), 400, "mixed_authentication")
			if g == guardSession {
				expect(t, app.Do(op.method, path, key, nil), 401, "unauthenticated")
			}
			if unsafeMethod(op.method) {
				expect(t, app.Do(op.method, path, apptest.Caller{Session: admin.Session}, nil), 403, "csrf_token_invalid")
				expect(t, app.Do(op.method, path, apptest.Caller{Session: admin.Session, CSRF: "wrong"}, nil), 403, "csrf_token_invalid")
			}
			if g == guardProduct {
				expect(t, app.Do(op.method, path, bareKey, nil), 403, "forbidden_entitlement_missing")
			}
		})
	}
}

// TestStatuses_unknownIDs: every route of one resource answers 404 to an
// id no organization has.
func TestStatuses_unknownIDs(t *testing.T) {
	t.Parallel()
	app := apptest.StartRole(t, sqltest.SQLite(t), bootstrap.RoleAPI)
	admin := app.Login(app.User(app.Org("Acme", identity.Normalize, identity.Connect), identity.Admin, false).Email)
	n := 0
	for _, op := range operations(t) {
		if !strings.Contains(op.path, "{") {
			continue
		}
		n++
		t.Run(op.method+" "+op.path, func(t *testing.T) {
			var body any
			if op.hasBody {
				body = map[string]any{}
			}
			expect(t, app.Do(op.method, concrete(op.path), admin, body), 404, "not_found")
		})
	}
	if n < 20 {
		t.Fatalf("only %d operations have an id", n)
	}
}

// TestStatuses_bodyOfAnotherMediaType: every operation that takes a body
// refuses one of another media type, before reading it.
func TestStatuses_bodyOfAnotherMediaType(t *testing.T) {
	t.Parallel()
	app := apptest.StartRole(t, sqltest.SQLite(t), bootstrap.RoleAPI)
	acme := app.Org("Acme", identity.Normalize, identity.Connect)
	admin := app.Login(app.User(acme, identity.Admin, true).Email)
	n := 0
	for _, op := range operations(t) {
		if !op.hasBody {
			continue
		}
		n++
		t.Run(op.method+" "+op.path, func(t *testing.T) {
			who := admin
			if g, _ := guardOf(op.path); g == guardLicense {
				who = apptest.Caller{}
			}
			res := app.Do(op.method, concrete(op.path), who, nil, "Content-Type", "text/plain")
			expect(t, res, 415, "unsupported_media_type")
			res = app.Do(op.method, concrete(op.path), who, "a=1", "Content-Type", "application/x-www-form-urlencoded")
			expect(t, res, 415, "unsupported_media_type")
		})
	}
	if n < 9 {
		t.Fatalf("only %d operations take a body", n)
	}
}

// TestStatuses_rateLimitedEverywhere: once a caller's bucket is empty,
// every authenticated route answers 429 with Retry-After.
func TestStatuses_rateLimitedEverywhere(t *testing.T) {
	t.Parallel()
	// One token, and the next in a quarter of an hour.
	app := apptest.StartRole(t, sqltest.SQLite(t), bootstrap.RoleAPI, func(c *bootstrap.Config) {
		c.HTTP.RateLimit = httpapi.RateLimit{PerSecond: 0.001, Burst: 1}
	})
	acme := app.Org("Acme", identity.Normalize, identity.Connect)
	key := apptest.Caller{Key: app.Key(acme)}
	session := app.Login(app.User(acme, identity.Admin, false).Email)
	expect(t, app.Do("GET", "/v1/usage", key, nil), 200, "")
	expect(t, app.Do("GET", "/auth/me", session, nil), 200, "")
	for _, op := range operations(t) {
		g, _ := guardOf(op.path)
		if g < guardSession {
			continue
		}
		t.Run(op.method+" "+op.path, func(t *testing.T) {
			who := key
			if g == guardSession {
				who = session
			}
			res := app.Do(op.method, concrete(op.path), who, nil)
			expect(t, res, 429, "rate_limited")
			if res.Header.Get("Retry-After") == "" || res.Header.Get("RateLimit-Remaining") != "0" {
				t.Fatalf("429 without Retry-After or RateLimit-Remaining: %v", res.Header)
			}
		})
	}
}

// TestStatuses_licenseGateEverywhere: with a bad license every /v1 and
// /auth route answers 403 license_invalid before anything else, and the
// probes still answer.
func TestStatuses_licenseGateEverywhere(t *testing.T) {
	t.Parallel()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	app := apptest.StartRole(t, sqltest.SQLite(t), bootstrap.RoleAPI, func(c *bootstrap.Config) {
		c.LicenseRequired, c.LicenseToken, c.LicensePublicKey = true, "not-a-license", pub
	})
	key := apptest.Caller{Key: app.Key(app.Org("Acme", identity.Normalize, identity.Connect))}
	for _, op := range operations(t) {
		t.Run(op.method+" "+op.path, func(t *testing.T) {
			g, _ := guardOf(op.path)
			res := app.Do(op.method, concrete(op.path), key, nil)
			if g == guardNone {
				expect(t, res, 200, "")
				return
			}
			expect(t, res, 403, "license_invalid")
		})
	}
}
