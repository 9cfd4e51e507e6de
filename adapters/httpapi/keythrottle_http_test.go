package httpapi_test

import (
	"testing"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/application/auth"
	"github.com/tabnorm/tabnorm/domain/identity"
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
