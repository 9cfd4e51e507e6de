package httpapi_test

import (
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// TestKeys_idempotentCreation: POST /v1/admin/keys under an
// Idempotency-Key makes one key. The first answer shows its secret; a
// replay answers the same record without it (only the secret's hash is
// kept, in the key table and in the stored answer alike); another request
// under the key is 409.
func TestKeys_idempotentCreation(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			app := apptest.Start(t, target)
			admin := app.Login(app.User(app.Org("Acme", identity.Normalize), identity.Admin, false).Email)
			type keyJSON struct {
				ID  string `json:"id"`
				Key string `json:"key"`
			}
			first := app.Do("POST", "/v1/admin/keys", admin, map[string]string{"name": "ci"}, "Idempotency-Key", "k-1")
			expect(t, first, 201, "")
			var k1 keyJSON
			first.JSON(t, &k1)
			if !strings.HasPrefix(k1.Key, "svc_live_") || first.Header.Get("Idempotent-Replayed") != "" {
				t.Fatalf("first answer: %s %v", first.Body, first.Header)
			}
			replay := app.Do("POST", "/v1/admin/keys", admin, map[string]string{"name": "ci"}, "Idempotency-Key", "k-1")
			expect(t, replay, 201, "")
			var k2 keyJSON
			replay.JSON(t, &k2)
			if k2.ID != k1.ID || k2.Key != "" || strings.Contains(replay.Body, k1.Key) || replay.Header.Get("Idempotent-Replayed") != "true" ||
				replay.Header.Get("Cache-Control") != "no-store" {
				t.Fatalf("replay: %s %v", replay.Body, replay.Header)
			}
			expect(t, app.Do("POST", "/v1/admin/keys", admin, map[string]string{"name": "other"}, "Idempotency-Key", "k-1"), 409, "idempotency_key_reused")
			expect(t, app.Do("POST", "/v1/admin/keys", admin, "{", "Idempotency-Key", "k-1"), 409, "idempotency_key_reused")
			var list struct {
				Data []struct{ Name string }
			}
			app.Do("GET", "/v1/admin/keys", admin, nil).JSON(t, &list)
			named := 0
			for _, k := range list.Data {
				if k.Name == "ci" {
					named++
				}
			}
			if named != 1 {
				t.Fatalf("%d keys named ci: %+v", named, list.Data)
			}
			// A usable secret: the first answer's.
			expect(t, app.Do("GET", "/v1/jobs", apptest.Caller{Key: k1.Key}, nil), 200, "")
		})
	}
}
