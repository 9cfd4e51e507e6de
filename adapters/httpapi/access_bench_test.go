package httpapi_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/httpapi"
	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// BenchmarkAuthenticatedRequest measures the access chain (license gate,
// authentication with its database reads, rate limit, CSRF, entitlement)
// through the real router on a real database. The route is an entitled
// but unrouted product path, so the handler is a bare 404.
func BenchmarkAuthenticatedRequest(b *testing.B) {
	for _, target := range sqltest.Targets(b) {
		b.Run(target.Name, func(b *testing.B) { benchWorld(b, target) })
	}
}

func benchWorld(b *testing.B, target sqltest.Target) {
	app := apptest.Start(b, target, func(c *bootstrap.Config) {
		c.HTTP.RateLimit = httpapi.RateLimit{PerSecond: 1e9, Burst: 1e9}
	})
	org := app.Org("Bench", "normalize", "connect")
	user := app.User(org, "admin", false)
	key := app.Key(org)
	session := app.Login(user.Email)
	for _, c := range []struct {
		name string
		set  func(*http.Request)
	}{
		{"api_key", func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+key) }},
		{"cookie", func(r *http.Request) {
			r.AddCookie(&http.Cookie{Name: httpapi.SessionCookie, Value: session.Session})
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			req := httptest.NewRequest("GET", "/v1/connect/bench", nil)
			c.set(req)
			b.ReportAllocs()
			for b.Loop() {
				rec := httptest.NewRecorder()
				app.Handler.ServeHTTP(rec, req)
				if rec.Code != http.StatusNotFound {
					b.Fatalf("status %d: %s", rec.Code, rec.Body)
				}
			}
		})
	}
}
