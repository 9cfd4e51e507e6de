package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"

	"github.com/tabnorm/tabnorm/adapters/clock"
)

type readiness struct{ err error }

func (r readiness) Ready(context.Context) error { return r.err }

func newTestAPI(t *testing.T, ready error) *API {
	t.Helper()
	return New(Config{}, Deps{Log: slog.New(slog.DiscardHandler), Readiness: readiness{ready}, Clock: clock.System{}})
}

func do(t *testing.T, h http.Handler, method, path string, header http.Header) *http.Response {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	for k, v := range header {
		req.Header[k] = v
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result()
}

func decodeProblem(t *testing.T, res *http.Response) problem {
	t.Helper()
	if ct := res.Header.Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("Content-Type = %q, want application/problem+json", ct)
	}
	var p problem
	if err := json.NewDecoder(res.Body).Decode(&p); err != nil {
		t.Fatal(err)
	}
	if p.RequestID == "" || p.RequestID != res.Header.Get("X-Request-Id") {
		t.Fatalf("problem request_id %q, header %q", p.RequestID, res.Header.Get("X-Request-Id"))
	}
	if p.Status != res.StatusCode || p.Type != problemType(p.Code) || p.Title == "" || p.Detail == "" {
		t.Fatalf("incomplete problem: %+v (status %d)", p, res.StatusCode)
	}
	return p
}

func TestRouter_unknownRouteIsProblem404(t *testing.T) {
	t.Parallel()
	res := do(t, newTestAPI(t, nil).Handler(), "GET", "/nope", nil)
	if res.StatusCode != 404 {
		t.Fatalf("status %d", res.StatusCode)
	}
	if p := decodeProblem(t, res); p.Code != "not_found" {
		t.Fatalf("code %q", p.Code)
	}
}

func TestRouter_wrongMethodIsProblem405WithAllow(t *testing.T) {
	t.Parallel()
	res := do(t, newTestAPI(t, nil).Handler(), "DELETE", "/healthz", nil)
	if res.StatusCode != 405 {
		t.Fatalf("status %d", res.StatusCode)
	}
	if allow := res.Header.Get("Allow"); !strings.Contains(allow, "GET") {
		t.Fatalf("Allow = %q", allow)
	}
	if p := decodeProblem(t, res); p.Code != "method_not_allowed" {
		t.Fatalf("code %q", p.Code)
	}
}

func TestRouter_requestID(t *testing.T) {
	t.Parallel()
	h := newTestAPI(t, nil).Handler()
	cases := []struct {
		name, sent string
		echoed     bool
	}{
		{"sane id echoed", "abc-123.X:y_z", true},
		{"missing id generated", "", false},
		{"id with spaces replaced", "a b", false},
		{"id with newline replaced", "a\nb", false},
		{"overlong id replaced", strings.Repeat("a", 129), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hdr := http.Header{}
			if c.sent != "" {
				hdr["X-Request-Id"] = []string{c.sent}
			}
			got := do(t, h, "GET", "/healthz", hdr).Header.Get("X-Request-Id")
			if c.echoed && got != c.sent {
				t.Fatalf("got %q, want echo of %q", got, c.sent)
			}
			if !c.echoed && (got == c.sent || !strings.HasPrefix(got, "req_")) {
				t.Fatalf("got %q, want a generated req_ id", got)
			}
		})
	}
}

func TestRouter_panicIsGeneric500(t *testing.T) {
	t.Parallel()
	a := newTestAPI(t, nil)
	a.engine.GET("/boom", func(*gin.Context) { panic("secret database password in panic") })
	res := do(t, a.Handler(), "GET", "/boom", nil)
	if res.StatusCode != 500 {
		t.Fatalf("status %d", res.StatusCode)
	}
	p := decodeProblem(t, res)
	if p.Code != "internal_error" || strings.Contains(p.Detail, "secret") {
		t.Fatalf("problem leaks or has wrong code: %+v", p)
	}
}

func TestRouter_internalErrorNotEchoed(t *testing.T) {
	t.Parallel()
	a := newTestAPI(t, nil)
	a.engine.GET("/fail", func(c *gin.Context) { fail(c, errors.New("pq: relation users_secret does not exist")) })
	p := decodeProblem(t, do(t, a.Handler(), "GET", "/fail", nil))
	if p.Code != "internal_error" || strings.Contains(p.Detail, "users_secret") {
		t.Fatalf("internal error leaked: %+v", p)
	}
}

func TestReadyz(t *testing.T) {
	t.Parallel()
	if res := do(t, newTestAPI(t, nil).Handler(), "GET", "/readyz", nil); res.StatusCode != 200 {
		t.Fatalf("ready: status %d", res.StatusCode)
	}
	res := do(t, newTestAPI(t, errors.New("database unreachable")).Handler(), "GET", "/readyz", nil)
	if res.StatusCode != 503 {
		t.Fatalf("not ready: status %d", res.StatusCode)
	}
	if p := decodeProblem(t, res); p.Code != "unavailable" {
		t.Fatalf("code %q", p.Code)
	}
	a := newTestAPI(t, nil)
	a.draining.Store(true)
	if res := do(t, a.Handler(), "GET", "/readyz", nil); res.StatusCode != 503 {
		t.Fatalf("draining: status %d", res.StatusCode)
	}
}

func TestHealthz(t *testing.T) {
	t.Parallel()
	res := do(t, newTestAPI(t, errors.New("db down")).Handler(), "GET", "/healthz", nil)
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 || !strings.Contains(string(body), `"ok"`) {
		t.Fatalf("healthz = %d %s", res.StatusCode, body)
	}
}
