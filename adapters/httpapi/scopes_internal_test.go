package httpapi

import (
	"net/http"
	"slices"
	"testing"

	"github.com/tabnorm/tabnorm/domain/apikey"
)

// TestKeyScopes_everyRouteHasOne walks the router: every /v1 route that
// authenticates names the scope a key needs in routeScopes, and the table
// names no route the router lacks. A new route cannot be added without
// deciding its scope.
func TestKeyScopes_everyRouteHasOne(t *testing.T) {
	t.Parallel()
	a := New(Config{}, Deps{})
	routed := map[string]bool{}
	n := 0
	for _, r := range a.engine.Routes() {
		if r.Method == http.MethodHead || len(r.Path) < 4 || r.Path[:4] != "/v1/" || r.Path == "/v1/openapi.json" {
			continue // HEAD is its GET; /v1/openapi.json takes no credential
		}
		n++
		name := r.Method + " " + r.Path
		routed[name] = true
		scope, ok := routeScopes[name]
		if !ok {
			t.Errorf("%s has no required scope in routeScopes", name)
			continue
		}
		if !slices.Contains(apikey.Scopes, scope) {
			t.Errorf("%s needs %q, which domain/apikey does not declare", name, scope)
		}
	}
	for name := range routeScopes {
		if !routed[name] {
			t.Errorf("routeScopes names %s, which the router lacks", name)
		}
	}
	if n < 70 {
		t.Fatalf("walked only %d routes", n)
	}
	if got := scopeOf(http.MethodHead, "/v1/jobs/:id/rows"); got != apikey.JobsRead {
		t.Errorf("HEAD of rows needs %s, want its GET's jobs:read", got)
	}
	if got := scopeOf(http.MethodGet, "/v1/not-in-the-table"); got != apikey.AdminScope {
		t.Errorf("a route missing from the table needs %s, want admin (closed)", got)
	}
}
