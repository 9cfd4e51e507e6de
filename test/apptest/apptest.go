// Package apptest boots the whole service for tests, as `tabnorm serve`
// wires it (real router, real database, real services), on a database of
// sqltest, and gives tests a client with helpers to sign in and call it.
package apptest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/httpapi"
	"github.com/tabnorm/tabnorm/adapters/sqlstore"
	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/application/accounts"
	"github.com/tabnorm/tabnorm/application/jobs"
	"github.com/tabnorm/tabnorm/application/keys"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/testtime"
)

// Clock is a clock tests can move; it starts at the real time.
type Clock struct {
	mu     sync.Mutex
	offset time.Duration
}

// Now is the real time plus the offset.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().UTC().Add(c.offset)
}

// Advance moves the clock forward.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.offset += d
	c.mu.Unlock()
}

// App is a running service.
type App struct {
	t        testing.TB
	URL      string
	DB       *sqlstore.DB
	Accounts *accounts.Service
	Keys     *keys.Service
	Clock    *Clock
	Config   bootstrap.Config
	Client   *http.Client
	// Handler is the router itself, for benchmarks that leave the network out.
	Handler http.Handler
	// MetricsURL is GET /metrics on its own listener (set TABNORM_METRICS_ADDR).
	MetricsURL string
	// Orphans is the sweep of orphaned storage, which the workers run
	// with the retention purge; tests run it when they need it.
	Orphans *jobs.Orphans
}

// Option changes the settings before the app starts.
type Option func(*bootstrap.Config)

// Start boots the whole service (API and workers) on target and stops it
// when the test ends.
func Start(t testing.TB, target sqltest.Target, opts ...Option) *App {
	return StartRole(t, target, bootstrap.RoleAll, opts...)
}

// StartRole boots one role of the service: RoleAPI has no workers, so its
// jobs stay queued.
func StartRole(t testing.TB, target sqltest.Target, role bootstrap.Role, opts ...Option) *App {
	t.Helper()
	return StartWith(t, target, role, bootstrap.Overrides{}, opts...)
}

// StartWith boots one role of the service with parts of its wiring
// replaced (its Clock is always the App's).
func StartWith(t testing.TB, target sqltest.Target, role bootstrap.Role, ov bootstrap.Overrides, opts ...Option) *App {
	t.Helper()
	cfg, err := bootstrap.Load(func(k string) string {
		return map[string]string{
			"TABNORM_DATABASE_URL": target.URL,
			"TABNORM_BLOB_URL":     "file://" + t.TempDir(),
			"TABNORM_HTTP_ADDR":    "127.0.0.1:0",
			"TABNORM_LOG_LEVEL":    "error",
		}[k]
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range opts {
		o(&cfg)
	}
	a := &App{t: t, Clock: &Clock{}, Config: cfg, Client: &http.Client{Timeout: 30 * time.Second}}
	ctx, cancel := context.WithTimeout(context.Background(), testtime.Scale(60*time.Second))
	defer cancel()
	ov.Clock = a.Clock
	h, stop, err := bootstrap.Start(ctx, cfg, role, io.Discard, ov)
	if err != nil {
		t.Fatalf("start app on %s: %v", target.Name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = stop(ctx)
	})
	a.DB, a.Accounts, a.Keys, a.Orphans = h.DB, h.Accounts, h.Keys, h.Orphans
	if h.Metrics != nil {
		a.MetricsURL = "http://" + h.Metrics.Addr() + "/metrics"
	}
	if h.API != nil { // the worker role serves no HTTP
		a.URL = "http://" + h.API.Addr()
		a.Handler = h.API.Handler()
	}
	return a
}

// Org creates an organization with the given products.
func (a *App) Org(name string, products ...identity.Product) identity.Organization {
	a.t.Helper()
	if products == nil {
		products = []identity.Product{}
	}
	org, err := a.Accounts.CreateOrg(context.Background(), name, products)
	if err != nil {
		a.t.Fatal(err)
	}
	if len(products) == 0 { // CreateOrg defaults to normalize; the test asked for none
		if org, err = a.Accounts.Revoke(context.Background(), org.ID, identity.Normalize); err != nil {
			a.t.Fatal(err)
		}
	}
	return org
}

// PeopleSchema is the target schema the HTTP and browser tests share: a
// required, unique integer id, an email and a date.
const PeopleSchema = `{"fields":[
	{"name":"id","type":"integer","constraints":{"required":true,"unique":true}},
	{"name":"email","type":"string","format":"email"},
	{"name":"joined","type":"date"}]}`

// Password is the password of every user tests create.
const Password = "correct horse battery staple"

// User creates a user and returns it.
func (a *App) User(org identity.Organization, role identity.Role, staff bool) identity.User {
	a.t.Helper()
	u, err := a.Accounts.CreateUser(context.Background(), accounts.NewUser{OrgID: org.ID,
		Email:    strings.ToLower(strings.ReplaceAll(org.Name, " ", "")) + "-" + string(role) + "-" + time.Now().Format("150405.000000000") + "@example.test",
		Password: Password, Role: role, IsStaff: staff})
	if err != nil {
		a.t.Fatal(err)
	}
	return u
}

// Key creates an API key for an organization and returns its plaintext.
func (a *App) Key(org identity.Organization) string {
	a.t.Helper()
	_, plain, err := a.Keys.CreateForOperator(context.Background(), org.ID, keys.NewKey{Name: "test"})
	if err != nil {
		a.t.Fatal(err)
	}
	return plain
}

// ScopedKey creates an API key holding only scopes (names as the API
// takes them) and returns its plaintext.
func (a *App) ScopedKey(org identity.Organization, scopes ...string) string {
	a.t.Helper()
	_, plain, err := a.Keys.CreateForOperator(context.Background(), org.ID, keys.NewKey{Name: "scoped", Scopes: append([]string{}, scopes...)})
	if err != nil {
		a.t.Fatal(err)
	}
	return plain
}

// Caller is how a request authenticates.
type Caller struct {
	Key     string // API key, sent as Authorization: Bearer
	Session string // session cookie value
	CSRF    string // X-CSRF-Token; sent when set
}

// Login signs a user in and returns the session caller with its CSRF token.
func (a *App) Login(email string) Caller {
	a.t.Helper()
	res := a.Do("POST", "/auth/login", Caller{}, map[string]string{"email": email, "password": Password})
	if res.StatusCode != 200 {
		a.t.Fatalf("login %s: %d %s", email, res.StatusCode, res.Body)
	}
	var me struct {
		CSRFToken string `json:"csrf_token"`
	}
	res.JSON(a.t, &me)
	for _, c := range res.Cookies {
		if c.Name == httpapi.SessionCookie {
			return Caller{Session: c.Value, CSRF: me.CSRFToken}
		}
	}
	a.t.Fatal("login set no session cookie")
	return Caller{}
}

// Response is a read response.
type Response struct {
	StatusCode int
	Header     http.Header
	Body       string
	Cookies    []*http.Cookie
}

// JSON decodes the body.
func (r Response) JSON(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(r.Body), v); err != nil {
		t.Fatalf("body is not JSON: %v\n%s", err, r.Body)
	}
}

// ProblemTypes is the start of every problem's type: its code's section
// of docs/problems.md follows.
const ProblemTypes = "https://github.com/tabnorm/tabnorm/blob/main/docs/problems.md#"

// Problem decodes a problem+json body and checks its shape.
func (r Response) Problem(t testing.TB) (code string) {
	t.Helper()
	if ct := r.Header.Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("Content-Type %q, want problem+json; status %d body %s", ct, r.StatusCode, r.Body)
	}
	var p struct {
		Type      string `json:"type"`
		Status    int    `json:"status"`
		Code      string `json:"code"`
		RequestID string `json:"request_id"`
	}
	r.JSON(t, &p)
	if p.Status != r.StatusCode || p.RequestID == "" || p.RequestID != r.Header.Get("X-Request-Id") {
		t.Fatalf("malformed problem %s (status %d, X-Request-Id %q)", r.Body, r.StatusCode, r.Header.Get("X-Request-Id"))
	}
	// type is the documentation of the code: its section of docs/problems.md.
	if want := ProblemTypes + p.Code; p.Type != want {
		t.Fatalf("problem type %q, want %q", p.Type, want)
	}
	// Every 401 challenges (RFC 9110 §11.6.1) with the Bearer scheme.
	if ch := r.Header.Get("WWW-Authenticate"); r.StatusCode == http.StatusUnauthorized && !strings.HasPrefix(ch, `Bearer realm="tabnorm"`) {
		t.Fatalf("401 %s with WWW-Authenticate %q, want a Bearer challenge with the realm", p.Code, ch)
	}
	return p.Code
}

// Do sends a request; body is JSON-encoded unless it is a string.
func (a *App) Do(method, path string, who Caller, body any, header ...string) Response {
	a.t.Helper()
	var rd io.Reader
	var ctype string
	switch b := body.(type) {
	case nil:
	case string:
		rd, ctype = strings.NewReader(b), "application/json"
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			a.t.Fatal(err)
		}
		rd, ctype = bytes.NewReader(raw), "application/json"
	}
	req, err := http.NewRequest(method, a.URL+path, rd)
	if err != nil {
		a.t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return a.Request(req, who)
}

// Request sends a prepared request with the caller's credentials.
func (a *App) Request(req *http.Request, who Caller) Response {
	a.t.Helper()
	if who.Key != "" {
		req.Header.Set("Authorization", "Bearer "+who.Key)
	}
	if who.Session != "" {
		req.AddCookie(&http.Cookie{Name: httpapi.SessionCookie, Value: who.Session})
	}
	if who.CSRF != "" {
		req.Header.Set("X-CSRF-Token", who.CSRF)
	}
	res, err := a.Client.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer func() { _ = res.Body.Close() }()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		a.t.Fatal(err)
	}
	record(req.Method, req.URL.Path, res.StatusCode)
	return Response{StatusCode: res.StatusCode, Header: res.Header, Body: string(raw), Cookies: res.Cookies()}
}

// Answer is one (method, path, status) a test's request got.
type Answer struct {
	Method, Path string
	Status       int
}

var answers struct {
	sync.Mutex
	seen map[Answer]bool
}

func record(method, path string, status int) {
	answers.Lock()
	defer answers.Unlock()
	if answers.seen == nil {
		answers.seen = map[Answer]bool{}
	}
	answers.seen[Answer{method, path, status}] = true
}

// Answers are the distinct answers the process's tests got through App,
// so a package can check at its end that every status its OpenAPI
// document promises was produced by some test. Recording costs one map
// insert a request.
func Answers() []Answer {
	answers.Lock()
	defer answers.Unlock()
	out := make([]Answer, 0, len(answers.seen))
	for a := range answers.seen {
		out = append(out, a)
	}
	return out
}
