package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/sqlstore"
	"github.com/tabnorm/tabnorm/domain/apikey"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/license"
)

// run executes the CLI in-process with the given settings.
func run(t *testing.T, env map[string]string, args ...string) (string, error) {
	t.Helper()
	for k, v := range env {
		t.Setenv(k, v)
	}
	var out, errOut bytes.Buffer
	root := newRoot(&out, &errOut)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), err
}

func TestBadSettingIsUsageError(t *testing.T) {
	_, err := run(t, map[string]string{"TABNORM_DATABASE_URL": "mysql://x"}, "migrate")
	if err == nil || exitCode(err) != 2 {
		t.Fatalf("err = %v, exit %d; want exit 2", err, exitCode(err))
	}
	if msg := message(err); !strings.HasPrefix(msg, "TABNORM_DATABASE_URL: unsupported scheme") || strings.Contains(msg, "\n") {
		t.Fatalf("message %q", msg)
	}
}

func TestUnknownFlagIsUsageError(t *testing.T) {
	_, err := run(t, nil, "serve", "--rol", "api")
	if exitCode(err) != 2 {
		t.Fatalf("exit %d for %v", exitCode(err), err)
	}
	_, err = run(t, nil, "serve", "--role", "janitor")
	if exitCode(err) != 2 {
		t.Fatalf("bad role: exit %d for %v", exitCode(err), err)
	}
}

func TestAdminCommands(t *testing.T) {
	env := map[string]string{"TABNORM_DATABASE_URL": "sqlite://" + filepath.Join(t.TempDir(), "t.db"), "TABNORM_LOG_LEVEL": "error"}
	if out, err := run(t, env, "migrate"); err != nil || !strings.Contains(out, "applied") {
		t.Fatalf("migrate: %q %v", out, err)
	}
	if out, err := run(t, env, "migrate"); err != nil || !strings.Contains(out, "up to date") {
		t.Fatalf("second migrate: %q %v", out, err)
	}

	out, err := run(t, env, "admin", "create-org", "--name", "Acme", "--products", "normalize,connect", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var org struct {
		ID, Object, Name, CreatedAt string
		Products                    []string
	}
	if err := json.Unmarshal([]byte(out), &org); err != nil {
		t.Fatalf("create-org --json printed %q: %v", out, err)
	}
	if !strings.HasPrefix(org.ID, "org_") || org.Object != "organization" || org.Name != "Acme" || strings.Join(org.Products, ",") != "normalize,connect" {
		t.Fatalf("org = %+v", org)
	}

	out, err = run(t, env, "admin", "create-user", "--org", org.ID, "--email", "Ann@Acme.test", "--password", "s3cret-pass", "--role", "admin", "--staff", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var user map[string]any
	if err := json.Unmarshal([]byte(out), &user); err != nil {
		t.Fatal(err)
	}
	if user["email"] != "ann@acme.test" || user["role"] != "admin" || user["is_staff"] != true || user["organization_id"] != org.ID {
		t.Fatalf("user = %v", user)
	}
	if strings.Contains(out, "s3cret") || strings.Contains(out, "argon2") {
		t.Fatalf("create-user printed the password or its hash: %s", out)
	}

	out, err = run(t, env, "admin", "revoke-product", "--org", org.ID, "--product", "connect", "--json")
	if err != nil || !strings.Contains(out, `"products":["normalize"]`) {
		t.Fatalf("revoke-product: %q %v", out, err)
	}
	out, err = run(t, env, "admin", "grant", "--org", org.ID, "--product", "connect", "--json")
	if err != nil || !strings.Contains(out, `"products":["normalize","connect"]`) {
		t.Fatalf("grant: %q %v", out, err)
	}

	// A grant until a day replaces the current one, which the history keeps.
	if out, err = run(t, env, "admin", "grant", "--org", org.ID, "--product", "connect", "--until", "2099-01-01", "--json"); err != nil ||
		!strings.Contains(out, `"products":["normalize","connect"]`) {
		t.Fatalf("grant --until: %q %v", out, err)
	}
	checkEntitlements(t, env, org.ID)
	if _, err := run(t, env, "admin", "grant", "--org", org.ID, "--product", "connect", "--until", "2001-01-01"); exitCode(err) != 2 ||
		!strings.Contains(message(err), "before it starts") {
		t.Fatalf("grant ending in the past: %v", err)
	}
	if _, err := run(t, env, "admin", "grant", "--org", org.ID, "--product", "connect", "--until", "soon"); exitCode(err) != 2 {
		t.Fatalf("grant --until soon: exit %d (%v)", exitCode(err), err)
	}
	if _, err := run(t, env, "admin", "grant", "--org", org.ID, "--product", "billing"); exitCode(err) != 2 {
		t.Fatalf("unknown product: exit %d (%v)", exitCode(err), err)
	}
	if _, err := run(t, env, "admin", "grant", "--org", "org_nope", "--product", "connect"); err == nil || exitCode(err) != 1 || !strings.Contains(message(err), "not found") {
		t.Fatalf("unknown org: %v", err)
	}
	if _, err := run(t, env, "admin", "create-user", "--org", org.ID, "--email", "ann@acme.test", "--password", "another-pass"); err == nil || !strings.Contains(message(err), "already exists") {
		t.Fatalf("duplicate email: %v", err)
	}
	if _, err := run(t, env, "admin", "create-user", "--org", org.ID, "--email", "bob@acme.test", "--password", "short"); exitCode(err) != 2 {
		t.Fatalf("short password: exit %d (%v)", exitCode(err), err)
	}
	if _, err := run(t, env, "admin", "create-org", "--products", "normalize"); exitCode(err) != 2 {
		t.Fatalf("missing --name: exit %d (%v)", exitCode(err), err)
	}
}

func TestLicenseCommands(t *testing.T) {
	out, err := run(t, nil, "license", "keygen", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var pair struct {
		PublicKey  string `json:"public_key"`
		PrivateKey string `json:"private_key"`
	}
	if err := json.Unmarshal([]byte(out), &pair); err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(t.TempDir(), "private.key")
	if err := os.WriteFile(keyFile, []byte(pair.PrivateKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err = run(t, nil, "license", "issue", "--private-key", "@"+keyFile, "--licensee", "Acme",
		"--expires-at", "2027-12-31T00:00:00Z", "--products", "normalize,connect", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var lic struct {
		Token     string   `json:"token"`
		Licensee  string   `json:"licensee"`
		ExpiresAt string   `json:"expires_at"`
		Products  []string `json:"products"`
	}
	if err := json.Unmarshal([]byte(out), &lic); err != nil {
		t.Fatal(err)
	}
	pub, _ := base64.StdEncoding.DecodeString(pair.PublicKey)
	l, err := license.Verify(lic.Token, ed25519.PublicKey(pub))
	if err != nil || l.Licensee != "Acme" || len(l.Products) != 2 || l.ExpiresAt.Year() != 2027 {
		t.Fatalf("issued license %+v does not verify: %v", l, err)
	}
	if _, err := run(t, nil, "license", "issue", "--private-key", "bad", "--licensee", "A", "--expires-at", "2027-01-01T00:00:00Z"); exitCode(err) != 2 {
		t.Fatalf("bad key: exit %d", exitCode(err))
	}
	if _, err := run(t, nil, "license", "issue", "--private-key", pair.PrivateKey, "--licensee", "A", "--expires-at", "tomorrow"); exitCode(err) != 2 {
		t.Fatalf("bad date: exit %d", exitCode(err))
	}
}

func TestCreateKeyCommand(t *testing.T) {
	env := map[string]string{"TABNORM_DATABASE_URL": "sqlite://" + filepath.Join(t.TempDir(), "t.db"), "TABNORM_LOG_LEVEL": "error"}
	if _, err := run(t, env, "migrate"); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, env, "admin", "create-org", "--name", "Acme", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var org struct{ ID string }
	_ = json.Unmarshal([]byte(out), &org)
	out, err = run(t, env, "admin", "create-key", "--org", org.ID, "--name", "deploy", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var key struct {
		ID, Name, Key, Last4, Prefix string
	}
	if err := json.Unmarshal([]byte(out), &key); err != nil {
		t.Fatal(err)
	}
	if apikey.Validate(key.Key) != nil || key.Name != "deploy" || key.Last4 != apikey.Last4(key.Key) || key.Prefix != "svc_live_" {
		t.Fatalf("create-key printed %s", out)
	}
	if _, err := run(t, env, "admin", "create-key", "--org", "org_nope", "--name", "x"); err == nil || !strings.Contains(message(err), "not exist") {
		t.Fatalf("unknown org: %v", err)
	}
	// --scopes and --expires; a key without --scopes holds admin.
	var scoped, all struct {
		Scopes    []string `json:"scopes"`
		ExpiresAt *string  `json:"expires_at"`
	}
	_ = json.Unmarshal([]byte(out), &all)
	if len(all.Scopes) != 1 || all.Scopes[0] != "admin" || all.ExpiresAt != nil {
		t.Fatalf("a key without --scopes: %s", out)
	}
	out, err = run(t, env, "admin", "create-key", "--org", org.ID, "--name", "reader", "--scopes", "jobs:read, jobs:write", "--expires", "90d", "--json")
	if err != nil {
		t.Fatal(err)
	}
	_ = json.Unmarshal([]byte(out), &scoped)
	at, perr := time.Parse(time.RFC3339, derefOr(scoped.ExpiresAt))
	if len(scoped.Scopes) != 2 || scoped.Scopes[0] != "jobs:read" || scoped.Scopes[1] != "jobs:write" || perr != nil ||
		time.Until(at) < 89*24*time.Hour || time.Until(at) > 91*24*time.Hour {
		t.Fatalf("create-key --scopes --expires printed %s", out)
	}
	// The keys' creation is in the organization's audit log, which the
	// operator exports as JSON lines, newest first, by filters.
	out, err = run(t, env, "admin", "audit", "export", "--org", org.ID, "--action", "api_key.create")
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 2 || !strings.Contains(lines[0], `"action":"api_key.create"`) || !strings.Contains(lines[0], `"type":"operator"`) {
		t.Fatalf("audit export printed %q", out)
	}
	if out, err = run(t, env, "admin", "audit", "export", "--org", org.ID, "--action", "logout"); err != nil || strings.TrimSpace(out) != "" {
		t.Fatalf("audit export of nothing printed %q, %v", out, err)
	}
	if _, err := run(t, env, "admin", "audit", "export", "--org", org.ID, "--since", "yesterday"); err == nil {
		t.Error("audit export --since yesterday was accepted")
	}
	for _, bad := range [][]string{{"--scopes", "jobs:delete"}, {"--scopes", ""}, {"--expires", "soon"}, {"--expires", "2001-01-01T00:00:00Z"}} {
		if _, err := run(t, env, append([]string{"admin", "create-key", "--org", org.ID, "--name", "x"}, bad...)...); err == nil {
			t.Errorf("create-key %v was accepted", bad)
		}
	}
}

func derefOr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// storedPasswordHash reads a user's password hash straight from the
// database file.
func storedPasswordHash(t *testing.T, dbPath, userID string) string {
	t.Helper()
	db, err := sqlstore.Open(context.Background(), sqlstore.Config{URL: "sqlite://" + dbPath})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	u, err := sqlstore.NewUsers(db).Get(context.Background(), userID)
	if err != nil {
		t.Fatal(err)
	}
	return u.PasswordHash
}

func checks(t *testing.T, hash, password string) bool {
	t.Helper()
	ok, err := identity.CheckPassword(hash, password)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// checkEntitlements reads an organization's grants of connect after it was
// granted, revoked, granted and granted again until 2099: one current
// grant, and four in the history, newest first.
func checkEntitlements(t *testing.T, env map[string]string, orgID string) {
	t.Helper()
	type grant struct {
		ID, Object, Product, Source, Status string
		GrantedBy                           string  `json:"granted_by"`
		Until                               *string `json:"until"`
		RevokedAt                           *string `json:"revoked_at"`
	}
	read := func(args ...string) []grant {
		t.Helper()
		out, err := run(t, env, append([]string{"admin", "list-entitlements", "--org", orgID, "--json"}, args...)...)
		var gs []grant
		if err != nil || json.Unmarshal([]byte(out), &gs) != nil {
			t.Fatalf("list-entitlements %v: %q %v", args, out, err)
		}
		return gs
	}
	cur := read()
	if len(cur) != 2 {
		t.Fatalf("current grants: %+v", cur)
	}
	for _, g := range cur {
		if g.Product == "connect" && (g.Until == nil || *g.Until != "2099-01-01T00:00:00Z" || g.Status != "active" || g.Source != "admin" || g.GrantedBy != "tabnorm admin") {
			t.Fatalf("connect's grant: %+v", g)
		}
	}
	hist := read("--history")
	var connect []grant
	for _, g := range hist {
		if g.Product == "connect" {
			connect = append(connect, g)
		}
	}
	if len(hist) != 4 || len(connect) != 3 || connect[0].Until == nil || connect[1].Status != "revoked" || connect[2].Status != "revoked" ||
		connect[1].RevokedAt == nil || !strings.HasPrefix(connect[0].ID, "ent_") || connect[0].Object != "entitlement" {
		t.Fatalf("history: %+v", hist)
	}
	if out, err := run(t, env, "admin", "list-entitlements", "--org", orgID, "--history"); err != nil || strings.Count(out, "\n") != 4 ||
		!strings.Contains(out, "until 2099-01-01T00:00:00Z") || !strings.Contains(out, "revoked by tabnorm admin") {
		t.Fatalf("list-entitlements as text: %q %v", out, err)
	}
}
