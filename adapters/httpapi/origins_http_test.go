package httpapi_test

import (
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// TestImportSessions_hostileOrigins: allowed_origins that are not plainly
// scheme://host[:port] (a ; or " that would add to the importer page's
// Content-Security-Policy, a < or a port out of range) are refused with
// the validation code, naming the field, and no session is made.
func TestImportSessions_hostileOrigins(t *testing.T) {
	t.Parallel()
	app := apptest.Start(t, sqltest.SQLite(t))
	key := apptest.Caller{Key: app.Key(app.Org("Acme", identity.Normalize))}
	for _, bad := range []string{"https://a.example;sandbox", `https://a.example"`, "https://a.example<x>", "https://a.example:70000", "https://a.example;frame-ancestors *"} {
		res := app.Do("POST", "/v1/import-sessions", key, importSessionBody(bad))
		expect(t, res, 400, "invalid_request")
		if !strings.Contains(res.Body, "allowed_origins") {
			t.Errorf("%q refused without naming allowed_origins: %s", bad, res.Body)
		}
	}
	list := app.Do("GET", "/v1/import-sessions", key, nil)
	expect(t, list, 200, "")
	if strings.Contains(list.Body, `"imp_`) {
		t.Fatalf("a refused session was made: %s", list.Body)
	}
}
