package httpapi_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/clock"
	"github.com/tabnorm/tabnorm/adapters/httpapi"
	"github.com/tabnorm/tabnorm/adapters/sqlstore"
	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/application/accounts"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/domain/apikey"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/license"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// world is an app with two organizations and their people and keys.
type world struct {
	app                   *apptest.App
	acme, bare            identity.Organization // acme has both products, bare has none
	acmeAdmin, acmeMember identity.User
	staff                 identity.User // staff of acme
	bareAdmin             identity.User
	acmeKey, bareKey      string
}

func newWorld(t *testing.T, target sqltest.Target, opts ...apptest.Option) world {
	t.Helper()
	app := apptest.Start(t, target, opts...)
	w := world{app: app}
	w.acme = app.Org("Acme", identity.Normalize, identity.Connect)
	w.bare = app.Org("Bare")
	w.acmeAdmin = app.User(w.acme, identity.Admin, false)
	w.acmeMember = app.User(w.acme, identity.Member, false)
	w.staff = app.User(w.acme, identity.Member, true)
	w.bareAdmin = app.User(w.bare, identity.Admin, false)
	w.acmeKey, w.bareKey = app.Key(w.acme), app.Key(w.bare)
	return w
}

func sqliteWorld(t *testing.T, opts ...apptest.Option) world {
	return newWorld(t, sqltest.SQLite(t), opts...)
}

func expect(t *testing.T, res apptest.Response, status int, code string) {
	t.Helper()
	if res.StatusCode != status {
		t.Fatalf("status %d, want %d: %s", res.StatusCode, status, res.Body)
	}
	if code != "" {
		if got := res.Problem(t); got != code {
			t.Fatalf("code %q, want %q", got, code)
		}
	}
}

func TestAuthErrors(t *testing.T) {
	t.Parallel()
	w := sqliteWorld(t)
	app := w.app
	admin := app.Login(w.acmeAdmin.Email)
	member := app.Login(w.acmeMember.Email)
	bareAdmin := app.Login(w.bareAdmin.Email)
	revoked := app.Key(w.acme)
	var revokedID string
	{
		var list struct {
			Data []struct{ ID, Last4 string }
		}
		app.Do("GET", "/v1/admin/keys", admin, nil).JSON(t, &list)
		for _, k := range list.Data {
			if k.Last4 == apikey.Last4(revoked) {
				revokedID = k.ID
			}
		}
		expect(t, app.Do("DELETE", "/v1/admin/keys/"+revokedID, admin, nil), 200, "")
	}
	good := apikey.Generate()
	badChecksum := good[:len(good)-1] + map[bool]string{true: "B", false: "A"}[strings.HasSuffix(good, "A")]

	cases := []struct {
		name   string
		method string
		path   string
		who    apptest.Caller
		body   any
		header []string
		status int
		code   string
	}{
		{"no credentials", "GET", "/v1/admin/keys", apptest.Caller{}, nil, nil, 401, "unauthenticated"},
		{"no credentials on an unrouted product path", "GET", "/v1/connect/files", apptest.Caller{}, nil, nil, 401, "unauthenticated"},
		{"unknown session", "GET", "/auth/me", apptest.Caller{Session: strings.Repeat("A", 43)}, nil, nil, 401, "unauthenticated"},
		{"junk session", "GET", "/auth/me", apptest.Caller{Session: "junk"}, nil, nil, 401, "unauthenticated"},
		{"basic auth", "GET", "/v1/admin/keys", apptest.Caller{}, nil, []string{"Authorization", "Basic YTpi"}, 401, "unauthenticated"},
		{"revoked key", "GET", "/v1/admin/keys", apptest.Caller{Key: revoked}, nil, nil, 401, "invalid_api_key"},
		{"unknown key", "GET", "/v1/jobs", apptest.Caller{Key: good}, nil, nil, 401, "invalid_api_key"},
		{"malformed key", "GET", "/v1/jobs", apptest.Caller{Key: "svc_live_nope"}, nil, nil, 401, "invalid_api_key"},
		{"bad checksum", "GET", "/v1/jobs", apptest.Caller{Key: badChecksum}, nil, nil, 401, "invalid_api_key"},
		{"wrong password", "POST", "/auth/login", apptest.Caller{}, map[string]string{"email": w.acmeAdmin.Email, "password": "wrong-password"}, nil, 401, "invalid_credentials"},
		{"unknown email", "POST", "/auth/login", apptest.Caller{}, map[string]string{"email": "nobody@example.test", "password": "wrong-password"}, nil, 401, "invalid_credentials"},
		{"login as form", "POST", "/auth/login", apptest.Caller{}, nil, []string{"Content-Type", "application/x-www-form-urlencoded"}, 415, "unsupported_media_type"},
		{"csrf missing", "POST", "/v1/admin/keys", apptest.Caller{Session: admin.Session}, map[string]string{"name": "x"}, nil, 403, "csrf_token_invalid"},
		{"csrf wrong", "POST", "/v1/admin/keys", apptest.Caller{Session: admin.Session, CSRF: member.CSRF}, map[string]string{"name": "x"}, nil, 403, "csrf_token_invalid"},
		{"csrf on logout", "POST", "/auth/logout", apptest.Caller{Session: admin.Session}, nil, nil, 403, "csrf_token_invalid"},
		{"mixed", "GET", "/v1/admin/keys", apptest.Caller{Key: w.acmeKey, Session: admin.Session}, nil, nil, 400, "mixed_authentication"},
		{"entitlement, key", "GET", "/v1/connect/files", apptest.Caller{Key: w.bareKey}, nil, nil, 403, "forbidden_entitlement_missing"},
		{"entitlement, key, normalize", "GET", "/v1/jobs", apptest.Caller{Key: w.bareKey}, nil, nil, 403, "forbidden_entitlement_missing"},
		{"entitlement, cookie", "GET", "/v1/schemas", bareAdmin, nil, nil, 403, "forbidden_entitlement_missing"},
		{"entitlement, cookie, post", "POST", "/v1/connect/jobs", bareAdmin, map[string]any{}, nil, 403, "forbidden_entitlement_missing"},
		{"key managing keys", "POST", "/v1/admin/keys", apptest.Caller{Key: w.acmeKey}, map[string]string{"name": "x"}, nil, 403, "insufficient_permissions"},
		{"key listing keys", "GET", "/v1/admin/keys", apptest.Caller{Key: w.acmeKey}, nil, nil, 403, "insufficient_permissions"},
		{"member managing keys", "POST", "/v1/admin/keys", member, map[string]string{"name": "x"}, nil, 403, "insufficient_permissions"},
		{"member revoking keys", "DELETE", "/v1/admin/keys/" + revokedID, member, nil, nil, 403, "insufficient_permissions"},
		{"non-staff impersonating", "POST", "/auth/impersonate", admin, map[string]string{"organization_id": w.bare.ID}, nil, 403, "insufficient_permissions"},
		{"non-staff listing orgs", "GET", "/v1/admin/organizations", admin, nil, nil, 403, "insufficient_permissions"},
		{"key on /auth/me", "GET", "/auth/me", apptest.Caller{Key: w.acmeKey}, nil, nil, 401, "unauthenticated"},
		{"another org's key", "DELETE", "/v1/admin/keys/" + revokedID, bareAdmin, nil, nil, 404, "not_found"},
		{"unknown field", "POST", "/v1/admin/keys", admin, map[string]string{"name": "x", "scope": "all"}, nil, 400, "invalid_request"},
		{"empty name", "POST", "/v1/admin/keys", admin, map[string]string{"name": " "}, nil, 400, "invalid_request"},
		{"bad limit", "GET", "/v1/admin/keys?limit=500", admin, nil, nil, 400, "invalid_request"},
		{"entitled but unrouted", "GET", "/v1/connect/nothing-here", apptest.Caller{Key: w.acmeKey}, nil, nil, 404, "not_found"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			expect(t, app.Do(c.method, c.path, c.who, c.body, c.header...), c.status, c.code)
		})
	}
}

func TestEntitlementGatesEveryProductPathForKeysAndCookies(t *testing.T) {
	t.Parallel()
	w := sqliteWorld(t)
	bareSession := w.app.Login(w.bareAdmin.Email)
	acmeSession := w.app.Login(w.acmeAdmin.Email)
	for _, path := range []string{"/v1/jobs", "/v1/jobs/job_x", "/v1/jobs/job_x/events", "/v1/schemas", "/v1/connect/files", "/v1/connect/jobs"} {
		for _, who := range []apptest.Caller{{Key: w.bareKey}, bareSession} {
			expect(t, w.app.Do("GET", path, who, nil), 403, "forbidden_entitlement_missing")
		}
		for _, who := range []apptest.Caller{{Key: w.acmeKey}, acmeSession} {
			if res := w.app.Do("GET", path, who, nil); res.StatusCode == 401 || res.StatusCode == 403 {
				t.Fatalf("entitled caller refused on %s: %d %s", path, res.StatusCode, res.Body)
			}
		}
	}
}

func TestLoginSessionCookieAndLogout(t *testing.T) {
	t.Parallel()
	w := sqliteWorld(t, func(c *bootstrap.Config) { c.HTTP.CookieSecure = true })
	app := w.app
	res := app.Do("POST", "/auth/login", apptest.Caller{}, map[string]string{"email": strings.ToUpper(w.acmeAdmin.Email), "password": apptest.Password})
	expect(t, res, 200, "")
	raw := res.Header.Get("Set-Cookie")
	for _, flag := range []string{"svc_session=", "Path=/", "HttpOnly", "SameSite=Lax", "Secure"} {
		if !strings.Contains(raw, flag) {
			t.Errorf("Set-Cookie %q lacks %s", raw, flag)
		}
	}
	var me struct {
		User struct {
			ID, Email, Role string
			IsStaff         bool `json:"is_staff"`
		}
		Organization struct {
			ID       string
			Products []string
		}
		CSRFToken     string `json:"csrf_token"`
		Impersonating any
	}
	res.JSON(t, &me)
	if me.User.ID != w.acmeAdmin.ID || me.User.Role != "admin" || me.Organization.ID != w.acme.ID || me.CSRFToken == "" || me.Impersonating != nil {
		t.Fatalf("login body %s", res.Body)
	}
	first := app.Login(w.acmeAdmin.Email)
	second := app.Login(w.acmeAdmin.Email)
	if first.Session == second.Session || first.CSRF == second.CSRF {
		t.Fatal("a login reused a session id or CSRF token")
	}
	var again struct {
		CSRFToken string `json:"csrf_token"`
	}
	app.Do("GET", "/auth/me", first, nil).JSON(t, &again)
	if again.CSRFToken != first.CSRF {
		t.Fatal("/auth/me gives another CSRF token than login did")
	}
	res = app.Do("POST", "/auth/logout", first, nil)
	expect(t, res, 204, "")
	if !strings.Contains(res.Header.Get("Set-Cookie"), "Max-Age=0") {
		t.Fatalf("logout did not clear the cookie: %q", res.Header.Get("Set-Cookie"))
	}
	expect(t, app.Do("GET", "/auth/me", first, nil), 401, "unauthenticated")
	expect(t, app.Do("GET", "/auth/me", second, nil), 200, "")
}

func TestSessionExpiry(t *testing.T) {
	t.Parallel()
	w := sqliteWorld(t)
	s := w.app.Login(w.acmeAdmin.Email)
	w.app.Clock.Advance(11 * time.Hour)
	expect(t, w.app.Do("GET", "/auth/me", s, nil), 200, "") // slides the idle timeout
	w.app.Clock.Advance(11 * time.Hour)
	expect(t, w.app.Do("GET", "/auth/me", s, nil), 200, "")
	w.app.Clock.Advance(12 * time.Hour)
	expect(t, w.app.Do("GET", "/auth/me", s, nil), 401, "unauthenticated")

	s = w.app.Login(w.acmeAdmin.Email)
	for range 20 { // active every 11 h, but 7 days is the end
		w.app.Clock.Advance(11 * time.Hour)
		if res := w.app.Do("GET", "/auth/me", s, nil); res.StatusCode != 200 {
			expect(t, res, 401, "unauthenticated")
			return
		}
	}
	t.Fatal("a session outlived its 7-day absolute lifetime")
}

// TestKeyLifecycle creates a key, uses it, revokes it and checks it fails
// on the very next request, on each database.
func TestKeyLifecycle(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, target)
			app := w.app
			admin := app.Login(w.acmeAdmin.Email)
			res := app.Do("POST", "/v1/admin/keys", admin, map[string]string{"name": "ci"})
			expect(t, res, 201, "")
			var created struct {
				ID, Name, Prefix, Last4, Key string
				CreatedBy                    string  `json:"created_by"`
				RevokedAt                    *string `json:"revoked_at"`
			}
			res.JSON(t, &created)
			if apikey.Validate(created.Key) != nil || created.Prefix != "svc_live_" || created.Last4 != apikey.Last4(created.Key) ||
				created.Name != "ci" || created.CreatedBy != w.acmeAdmin.ID || created.RevokedAt != nil {
				t.Fatalf("created %s", res.Body)
			}
			if cc := res.Header.Get("Cache-Control"); cc != "no-store" {
				t.Fatalf("creation response may be cached: %q", cc)
			}
			key := apptest.Caller{Key: created.Key}
			if res := app.Do("GET", "/v1/jobs", key, nil); res.StatusCode == 401 || res.StatusCode == 403 {
				t.Fatalf("new key refused: %d %s", res.StatusCode, res.Body)
			}
			list := app.Do("GET", "/v1/admin/keys", admin, nil)
			if strings.Contains(list.Body, created.Key) || strings.Contains(list.Body, `"key":`) {
				t.Fatalf("list shows a plaintext key: %s", list.Body)
			}
			if !strings.Contains(list.Body, created.ID) {
				t.Fatalf("list lacks the key: %s", list.Body)
			}
			res = app.Do("DELETE", "/v1/admin/keys/"+created.ID, admin, nil)
			expect(t, res, 200, "")
			if !strings.Contains(res.Body, `"revoked_at":"`) || strings.Contains(res.Body, created.Key) {
				t.Fatalf("revoke response %s", res.Body)
			}
			expect(t, app.Do("GET", "/v1/jobs", key, nil), 401, "invalid_api_key")
			again := app.Do("DELETE", "/v1/admin/keys/"+created.ID, admin, nil)
			expect(t, again, 200, "")
			if again.Body != res.Body {
				t.Fatalf("second revoke changed the record:\n%s\n%s", res.Body, again.Body)
			}
			expect(t, app.Do("DELETE", "/v1/admin/keys/key_unknown", admin, nil), 404, "not_found")
		})
	}
}

// TestRevocationAcrossNodes runs two service instances on one PostgreSQL
// database: a key revoked through one is refused by the other at once.
func TestRevocationAcrossNodes(t *testing.T) {
	t.Parallel()
	target, ok := sqltest.Postgres(t)
	if !ok {
		t.Skip("*** SKIPPED: needs PostgreSQL (TABNORM_TEST_DATABASE_URL) ***")
	}
	w := newWorld(t, target)
	nodeB := apptest.Start(t, target)
	admin := w.app.Login(w.acmeAdmin.Email)
	var created struct{ ID, Key string }
	w.app.Do("POST", "/v1/admin/keys", admin, map[string]string{"name": "two-nodes"}).JSON(t, &created)
	key := apptest.Caller{Key: created.Key}
	for i := range 3 { // warm node B with the key: no cache may keep it alive
		if res := nodeB.Do("GET", "/v1/jobs", key, nil); res.StatusCode == 401 {
			t.Fatalf("node B refused a valid key (try %d)", i)
		}
	}
	expect(t, w.app.Do("DELETE", "/v1/admin/keys/"+created.ID, admin, nil), 200, "")
	expect(t, nodeB.Do("GET", "/v1/jobs", key, nil), 401, "invalid_api_key")
	// And sessions: a logout on A ends the session on B.
	expect(t, nodeB.Do("GET", "/auth/me", admin, nil), 200, "")
	expect(t, w.app.Do("POST", "/auth/logout", admin, nil), 204, "")
	expect(t, nodeB.Do("GET", "/auth/me", admin, nil), 401, "unauthenticated")
}

// TestPlaintextKeyOnlyInCreationResponse looks for the plaintext in the
// list, the logs at debug level and every byte of the database.
func TestPlaintextKeyOnlyInCreationResponse(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	target := sqltest.SQLite(t)
	w := newWorld(t, target, func(c *bootstrap.Config) { c.LogLevel, c.LogOutput = slog.LevelDebug, &logs })
	admin := w.app.Login(w.acmeAdmin.Email)
	var created struct{ ID, Key string }
	w.app.Do("POST", "/v1/admin/keys", admin, map[string]string{"name": "secret"}).JSON(t, &created)
	w.app.Do("GET", "/v1/jobs", apptest.Caller{Key: created.Key}, nil)
	w.app.Do("GET", "/v1/jobs", apptest.Caller{Key: created.Key + "x"}, nil)
	if body := w.app.Do("GET", "/v1/admin/keys", admin, nil).Body; strings.Contains(body, created.Key) {
		t.Fatal("plaintext in list")
	}
	logs.mu.Lock()
	logged := logs.b.String()
	logs.mu.Unlock()
	if !strings.Contains(logged, "/v1/admin/keys") {
		t.Fatalf("captured no access log lines: %q", logged)
	}
	if strings.Contains(logged, created.Key[len("svc_live_"):]) {
		t.Fatal("the plaintext key is in the logs")
	}
	// The key's requests are logged with its id and its organization.
	want := "key_id=" + created.ID
	var keyLine string
	for line := range strings.Lines(logged) {
		if strings.Contains(line, "path=/v1/jobs") && strings.Contains(line, want) {
			keyLine = line
		}
	}
	if keyLine == "" || !strings.Contains(keyLine, "org_id="+w.acme.ID) {
		t.Fatalf("no access log line with %s and org_id=%s: %q", want, w.acme.ID, logged)
	}
	// Every column, read back as text.
	ctx := context.Background()
	rows, err := w.app.DB.Bun.QueryContext(ctx, "SELECT * FROM api_keys")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for i, v := range vals {
			if s, ok := v.(string); ok && strings.Contains(s, created.Key[len("svc_live_"):]) {
				t.Fatalf("column %s holds the plaintext", cols[i])
			}
		}
	}
	path := strings.TrimPrefix(target.URL, "sqlite://")
	for _, f := range []string{path, path + "-wal"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if bytes.Contains(b, []byte(created.Key[len("svc_live_"):])) {
			t.Fatalf("%s contains the plaintext secret", f)
		}
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestStaffImpersonation(t *testing.T) {
	t.Parallel()
	w := sqliteWorld(t)
	app := w.app
	staff := app.Login(w.staff.Email)
	// Outside impersonation, staff bypass entitlements ...
	if res := app.Do("GET", "/v1/connect/files", staff, nil); res.StatusCode == 403 {
		t.Fatalf("staff refused outside impersonation: %s", res.Body)
	}
	expect(t, app.Do("GET", "/v1/admin/organizations", staff, nil), 200, "")
	res := app.Do("POST", "/auth/impersonate", staff, map[string]string{"organization_id": w.bare.ID})
	expect(t, res, 200, "")
	var me struct {
		User          struct{ Role string }
		Organization  struct{ ID string }
		Impersonating *struct {
			OrganizationID   string `json:"organization_id"`
			OrganizationName string `json:"organization_name"`
			StartedAt        string `json:"started_at"`
		}
	}
	res.JSON(t, &me)
	if me.Impersonating == nil || me.Impersonating.OrganizationID != w.bare.ID || me.Impersonating.OrganizationName != "Bare" ||
		me.Organization.ID != w.bare.ID || me.User.Role != "admin" || me.Impersonating.StartedAt == "" {
		t.Fatalf("impersonation body %s", res.Body)
	}
	// ... but while impersonating, the customer's entitlements apply.
	expect(t, app.Do("GET", "/v1/connect/files", staff, nil), 403, "forbidden_entitlement_missing")
	expect(t, app.Do("GET", "/v1/jobs", staff, nil), 403, "forbidden_entitlement_missing")
	// As admin of the customer, staff see and manage the customer's keys.
	var keys struct{ Data []struct{ Last4 string } }
	app.Do("GET", "/v1/admin/keys", staff, nil).JSON(t, &keys)
	if len(keys.Data) != 1 || keys.Data[0].Last4 != apikey.Last4(w.bareKey) {
		t.Fatalf("impersonating staff see keys %+v, want bare's", keys.Data)
	}
	expect(t, app.Do("GET", "/v1/admin/organizations", staff, nil), 403, "insufficient_permissions")
	expect(t, app.Do("POST", "/auth/impersonate", staff, map[string]string{"organization_id": "org_unknown"}), 404, "not_found")

	res = app.Do("DELETE", "/auth/impersonate", staff, nil)
	expect(t, res, 200, "")
	if !strings.Contains(res.Body, `"impersonating":null`) {
		t.Fatalf("after stop: %s", res.Body)
	}
	if res := app.Do("GET", "/v1/connect/files", staff, nil); res.StatusCode == 403 {
		t.Fatal("staff bypass not restored after impersonation")
	}

	// Audit: login, impersonation start and stop, in both organizations.
	entries := auditActions(t, w, w.bare.ID)
	if !strings.Contains(entries, "impersonation.start") || !strings.Contains(entries, "impersonation.stop") {
		t.Fatalf("customer audit log: %s", entries)
	}
	if entries := auditActions(t, w, w.acme.ID); !strings.Contains(entries, "login") || !strings.Contains(entries, "impersonation.start") {
		t.Fatalf("staff org audit log: %s", entries)
	}
}

func auditActions(t *testing.T, w world, orgID string) string {
	t.Helper()
	rows, err := w.app.DB.Bun.QueryContext(context.Background(), "SELECT action, actor_user_id, ip, user_agent FROM audit_log WHERE org_id = ? ORDER BY id", orgID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var action, actor, ip, ua string
		if err := rows.Scan(&action, &actor, &ip, &ua); err != nil {
			t.Fatal(err)
		}
		if actor != "" && (ip == "" || ua == "") { // a person's action: where from
			t.Fatalf("audit entry %s lacks ip or user agent", action)
		}
		if actor == "" && ua != "tabnorm admin" { // else an operator's, from the command line
			t.Fatalf("audit entry %s has neither a person nor the operator", action)
		}
		out = append(out, action)
	}
	return strings.Join(out, ",")
}

func TestAuditOfKeysAndLogout(t *testing.T) {
	t.Parallel()
	w := sqliteWorld(t)
	admin := w.app.Login(w.acmeAdmin.Email)
	var created struct{ ID string }
	w.app.Do("POST", "/v1/admin/keys", admin, map[string]string{"name": "audited"}).JSON(t, &created)
	w.app.Do("DELETE", "/v1/admin/keys/"+created.ID, admin, nil)
	w.app.Do("DELETE", "/v1/admin/keys/"+created.ID, admin, nil) // no second entry
	w.app.Do("POST", "/auth/logout", admin, nil)
	got := auditActions(t, w, w.acme.ID)
	// The world's three users of acme, then its operator key, come first.
	want := "user.create,user.create,user.create,api_key.create,login,api_key.create,api_key.revoke,logout"
	if got != want {
		t.Fatalf("audit log %q, want %q", got, want)
	}
}

func TestLoginThrottled(t *testing.T) {
	t.Parallel()
	w := sqliteWorld(t)
	for range 5 {
		expect(t, w.app.Do("POST", "/auth/login", apptest.Caller{}, map[string]string{"email": w.acmeAdmin.Email, "password": "nope-nope"}), 401, "invalid_credentials")
	}
	res := w.app.Do("POST", "/auth/login", apptest.Caller{}, map[string]string{"email": w.acmeAdmin.Email, "password": apptest.Password})
	expect(t, res, 429, "rate_limited")
	if res.Header.Get("Retry-After") == "" {
		t.Fatal("no Retry-After")
	}
}

func TestRateLimit(t *testing.T) {
	t.Parallel()
	w := sqliteWorld(t, func(c *bootstrap.Config) { c.HTTP.RateLimit = httpapi.RateLimit{PerSecond: 1, Burst: 3} })
	key := apptest.Caller{Key: w.acmeKey}
	var last apptest.Response
	for i := range 3 {
		last = w.app.Do("GET", "/v1/jobs", key, nil)
		if last.StatusCode == 429 {
			t.Fatalf("limited after %d requests, burst is 3", i)
		}
		if got := last.Header.Get("RateLimit-Remaining"); got != []string{"2", "1", "0"}[i] {
			t.Fatalf("request %d: RateLimit-Remaining %q", i, got)
		}
		if last.Header.Get("RateLimit-Limit") != "3" || last.Header.Get("RateLimit-Reset") == "" {
			t.Fatalf("headers %v", last.Header)
		}
	}
	res := w.app.Do("GET", "/v1/jobs", key, nil)
	expect(t, res, 429, "rate_limited")
	if res.Header.Get("Retry-After") != "1" {
		t.Fatalf("Retry-After %q", res.Header.Get("Retry-After"))
	}
	// Another key has its own bucket.
	if res := w.app.Do("GET", "/v1/jobs", apptest.Caller{Key: w.app.Key(w.acme)}, nil); res.StatusCode == 429 {
		t.Fatal("buckets are shared between keys")
	}
}

func TestLicenseGate(t *testing.T) {
	t.Parallel()
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	issue := func(exp time.Time, products ...identity.Product) string {
		tok, err := license.Issue(priv, license.License{Licensee: "Acme", ExpiresAt: exp, Products: products})
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	withLicense := func(token string) apptest.Option {
		return func(c *bootstrap.Config) {
			c.LicenseRequired, c.LicenseToken, c.LicensePublicKey = true, token, pub
		}
	}
	cases := []struct {
		name, token string
		status      int
		code        string
	}{
		{"garbage", "not-a-license", 403, "license_invalid"},
		{"expired", issue(time.Now().Add(-time.Hour), identity.Normalize), 403, "license_expired"},
		{"valid", issue(time.Now().Add(time.Hour), identity.Normalize), 200, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			w := sqliteWorld(t, withLicense(c.token))
			if c.status != 200 {
				expect(t, w.app.Do("GET", "/v1/jobs", apptest.Caller{Key: w.acmeKey}, nil), c.status, c.code)
				expect(t, w.app.Do("POST", "/auth/login", apptest.Caller{}, map[string]string{"email": w.acmeAdmin.Email, "password": apptest.Password}), c.status, c.code)
				// the gate runs before authentication
				expect(t, w.app.Do("GET", "/v1/admin/keys", apptest.Caller{}, nil), c.status, c.code)
			} else {
				admin := w.app.Login(w.acmeAdmin.Email)
				expect(t, w.app.Do("GET", "/v1/admin/keys", admin, nil), 200, "")
				// connect is outside this license, even for an entitled org
				expect(t, w.app.Do("GET", "/v1/connect/files", apptest.Caller{Key: w.acmeKey}, nil), 403, "forbidden_entitlement_missing")
			}
			for _, path := range []string{"/healthz", "/readyz"} {
				if res := w.app.Do("GET", path, apptest.Caller{}, nil); res.StatusCode != 200 {
					t.Fatalf("%s gated by license: %d", path, res.StatusCode)
				}
			}
		})
	}
}

// TestAccessLog_probesAtDebug: a probe that is answered is logged at debug
// level only, so a load balancer polling /healthz does not fill the log;
// other requests are logged at info as before.
func TestAccessLog_probesAtDebug(t *testing.T) {
	t.Parallel()
	for _, level := range []slog.Level{slog.LevelInfo, slog.LevelDebug} {
		t.Run(level.String(), func(t *testing.T) {
			t.Parallel()
			var logs syncBuffer
			w := newWorld(t, sqltest.SQLite(t), func(c *bootstrap.Config) { c.LogLevel, c.LogOutput = level, &logs })
			for _, path := range []string{"/healthz", "/readyz"} {
				expect(t, w.app.Do("GET", path, apptest.Caller{}, nil), 200, "")
			}
			expect(t, w.app.Do("GET", "/v1/jobs", apptest.Caller{}, nil), 401, "unauthenticated")
			logs.mu.Lock()
			logged := logs.b.String()
			logs.mu.Unlock()
			for _, path := range []string{"/healthz", "/readyz"} {
				if got, want := strings.Contains(logged, "path="+path), level == slog.LevelDebug; got != want {
					t.Errorf("at %s, an access log line for %s: %v; want %v", level, path, got, want)
				}
			}
			if !strings.Contains(logged, "path=/v1/jobs") {
				t.Errorf("at %s, no access log line for /v1/jobs: %q", level, logged)
			}
		})
	}
}

// TestDisabledUser: disabling a user (the operator's disable-user) ends
// their sessions at once and refuses their next sign-in with the answer of
// a wrong password, on both databases; their organization's keys go on.
func TestDisabledUser(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, target)
			member := w.app.Login(w.acmeMember.Email)
			expect(t, w.app.Do("GET", "/auth/me", member, nil), 200, "")
			db := w.app.DB
			svc := accounts.NewService(sqlstore.NewOrganizations(db), sqlstore.NewEntitlements(db), sqlstore.NewUsers(db), sqlstore.NewSessions(db),
				sqlstore.NewAuditLog(db), sqlstore.NewTransactor(db), clock.System{})
			if _, ended, err := svc.DisableUser(context.Background(), w.acmeMember.ID); err != nil || ended != 1 {
				t.Fatalf("DisableUser = %d sessions ended, %v", ended, err)
			}
			expect(t, w.app.Do("GET", "/auth/me", member, nil), 401, "unauthenticated")
			res := w.app.Do("POST", "/auth/login", apptest.Caller{}, map[string]string{"email": w.acmeMember.Email, "password": apptest.Password})
			expect(t, res, 401, "invalid_credentials")
			expect(t, w.app.Do("GET", "/v1/jobs", apptest.Caller{Key: w.acmeKey}, nil), 200, "")
			w.app.Login(w.acmeAdmin.Email) // another user of the organization signs in as before
		})
	}
}
