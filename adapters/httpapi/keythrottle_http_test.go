package httpapi_test

import (
	"testing"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/application/auth"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/importsession"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// TestAccess_invalidKeysAreThrottled: one address presenting invalid
// API keys gets 401 up to the limit, then 429 rate_limited with
// Retry-After; a valid key from the same address is still served.
func TestAccess_invalidKeysAreThrottled(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			app := apptest.Start(t, target)
			good := apptest.Caller{Key: app.Key(app.Org("Acme", identity.Normalize))}
			expect(t, app.Do("GET", "/v1/jobs", good, nil), 200, "")
			bad := apptest.Caller{Key: "svc_live_" + "0000000000000000000000000000000000000000000"}
			for range auth.KeyFailuresPerAddress {
				if res := app.Do("GET", "/v1/jobs", bad, nil); res.StatusCode != 401 {
					t.Fatalf("an invalid key under the limit: %d %s", res.StatusCode, res.Body)
				}
			}
			res := app.Do("GET", "/v1/jobs", bad, nil)
			expect(t, res, 429, "rate_limited")
			if res.Header.Get("Retry-After") == "" {
				t.Fatalf("429 without Retry-After: %v", res.Header)
			}
			expect(t, app.Do("GET", "/v1/jobs", good, nil), 200, "")
		})
	}
}

// TestAccess_invalidImportSecretsAreThrottled: random import session
// secrets, each a database lookup, are throttled per address like invalid
// API keys: 401 up to the limit, then 429 rate_limited with Retry-After
// before any lookup; a secret found valid lately is still served.
func TestAccess_invalidImportSecretsAreThrottled(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			app := apptest.Start(t, target)
			key := apptest.Caller{Key: app.Key(app.Org("Acme", identity.Normalize))}
			good := apptest.Caller{Key: createImportSession(t, app, key, importSessionBody()).ClientSecret}
			expect(t, app.Do("GET", "/v1/import-sessions/current", good, nil), 200, "")
			for range auth.KeyFailuresPerAddress {
				bad := apptest.Caller{Key: importsession.GenerateSecret()}
				if res := app.Do("GET", "/v1/import-sessions/current", bad, nil); res.StatusCode != 401 {
					t.Fatalf("an unknown secret under the limit: %d %s", res.StatusCode, res.Body)
				}
			}
			res := app.Do("GET", "/v1/import-sessions/current", apptest.Caller{Key: importsession.GenerateSecret()}, nil)
			expect(t, res, 429, "rate_limited")
			if res.Header.Get("Retry-After") == "" {
				t.Fatalf("429 without Retry-After: %v", res.Header)
			}
			expect(t, app.Do("GET", "/v1/import-sessions/current", good, nil), 200, "")
		})
	}
}
