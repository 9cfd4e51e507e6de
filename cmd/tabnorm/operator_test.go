package main

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
)

// runIn executes the CLI in-process with stdin.
func runIn(t *testing.T, stdin string, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	root := newRoot(&out, &errOut)
	root.SetIn(strings.NewReader(stdin))
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), err
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		out, err := run(t, nil, args...)
		if err != nil || !strings.HasPrefix(out, "tabnorm ") || !strings.Contains(out, "commit ") || !strings.Contains(out, runtime.Version()) {
			t.Fatalf("%v printed %q (%v)", args, out, err)
		}
	}
	out, err := run(t, nil, "version", "--json")
	var v buildInfo
	if err != nil || json.Unmarshal([]byte(out), &v) != nil || v.GoVersion != runtime.Version() || v.Version == "" || v.Commit == "" {
		t.Fatalf("version --json printed %q (%v)", out, err)
	}
}

// TestNormalize_stdinAndInlineJSON: INPUT - reads stdin, and --schema and
// --options take inline JSON as well as a file.
func TestNormalize_stdinAndInlineJSON(t *testing.T) {
	csv := "Name;E-mail\nAnn;ANN@x.io\nBob;bob@\n"
	schema := `{"fields":[{"name":"name"},{"name":"email","type":"string","format":"email"}]}`
	out, err := runIn(t, csv, "normalize", "--schema", schema, "--options", `{"delimiter":";"}`, "-")
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(out) != `{"name":"Ann","email":"ann@x.io"}` {
		t.Fatalf("rows: %q", out)
	}
	schemaFile := write(t, t.TempDir(), "schema.json", schema)
	if out2, err := runIn(t, csv, "normalize", "--schema", schemaFile, "-"); err != nil || out2 != out {
		t.Fatalf("schema from a file: %q %v", out2, err)
	}
	if _, err := runIn(t, csv, "normalize", "--schema", `{"fields":[{"name":"x","type":"nope"}]}`, "-"); exitCode(err) != 2 {
		t.Fatalf("bad inline schema: exit %d (%v)", exitCode(err), err)
	}
	if _, err := runIn(t, csv, "normalize", "--schema", schema, "--options", `{"delimiter":`, "-"); exitCode(err) != 2 {
		t.Fatalf("bad inline options: exit %d (%v)", exitCode(err), err)
	}
}

func TestAdminList(t *testing.T) {
	env := map[string]string{"TABNORM_DATABASE_URL": "sqlite://" + filepath.Join(t.TempDir(), "t.db"), "TABNORM_LOG_LEVEL": "error"}
	if _, err := run(t, env, "migrate"); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, env, "admin", "list-orgs", "--json")
	if err != nil || strings.TrimSpace(out) != "[]" {
		t.Fatalf("list-orgs on an empty database: %q %v", out, err)
	}
	var ids []string
	for _, name := range []string{"Acme", "Globex"} {
		out, err := run(t, env, "admin", "create-org", "--name", name, "--json")
		var org struct{ ID string }
		if err != nil || json.Unmarshal([]byte(out), &org) != nil {
			t.Fatalf("create-org: %q %v", out, err)
		}
		ids = append(ids, org.ID)
	}
	out, err = run(t, env, "admin", "list-orgs", "--json")
	var orgs []struct{ ID, Name, Object string }
	if err != nil || json.Unmarshal([]byte(out), &orgs) != nil || len(orgs) != 2 || orgs[0].Object != "organization" {
		t.Fatalf("list-orgs --json: %q %v", out, err)
	}
	out, err = run(t, env, "admin", "list-orgs")
	if err != nil || strings.Count(out, "\n") != 2 || !strings.Contains(out, ids[0]) || !strings.Contains(out, `"Globex"`) {
		t.Fatalf("list-orgs: %q %v", out, err)
	}

	out, err = run(t, env, "admin", "create-key", "--org", ids[0], "--name", "deploy", "--json")
	var key struct{ ID, Key string }
	if err != nil || json.Unmarshal([]byte(out), &key) != nil {
		t.Fatalf("create-key: %q %v", out, err)
	}
	out, err = run(t, env, "admin", "list-keys", "--org", ids[0], "--json")
	var keys []map[string]any
	if err != nil || json.Unmarshal([]byte(out), &keys) != nil || len(keys) != 1 || keys[0]["id"] != key.ID || keys[0]["revoked_at"] != nil {
		t.Fatalf("list-keys --json: %q %v", out, err)
	}
	if strings.Contains(out, key.Key) {
		t.Fatal("list-keys printed a plaintext key")
	}
	if out, err := run(t, env, "admin", "list-keys", "--org", ids[1], "--json"); err != nil || strings.TrimSpace(out) != "[]" {
		t.Fatalf("another organization's keys: %q %v", out, err)
	}
	if _, err := run(t, env, "admin", "list-keys", "--org", "org_nope"); err == nil || exitCode(err) != 1 || !strings.Contains(message(err), "not found") {
		t.Fatalf("unknown org: %v", err)
	}
}

// TestAdmin_unmigratedDatabase: operator commands on a database that was
// never migrated say what to do instead of printing a SQL error.
func TestAdmin_unmigratedDatabase(t *testing.T) {
	env := map[string]string{"TABNORM_DATABASE_URL": "sqlite://" + filepath.Join(t.TempDir(), "t.db"), "TABNORM_LOG_LEVEL": "error"}
	for _, args := range [][]string{
		{"admin", "list-orgs"},
		{"admin", "create-org", "--name", "Acme"},
		{"admin", "list-keys", "--org", "org_x"},
	} {
		_, err := run(t, env, args...)
		if err == nil || message(err) != "the database is not set up for tabnorm: run tabnorm migrate" {
			t.Fatalf("%v: %v", args, err)
		}
	}
	if _, err := run(t, env, "migrate"); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, env, "admin", "list-orgs"); err != nil {
		t.Fatalf("after migrate: %v", err)
	}
}

func TestHealthcheck(t *testing.T) {
	var ready atomic.Bool
	ready.Store(true)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/readyz" {
			http.NotFound(w, r)
			return
		}
		if !ready.Load() {
			http.Error(w, `{"detail":"Not ready: blob store bucket not found."}`, http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte(`{"status":"ok"}`))
	}))
	defer srv.Close()
	if out, err := run(t, nil, "healthcheck", "--url", srv.URL+"/readyz"); err != nil || strings.TrimSpace(out) != "ready" {
		t.Fatalf("ready server: %q %v", out, err)
	}
	// Without --url it probes TABNORM_HTTP_ADDR's port on loopback.
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	if _, err := run(t, map[string]string{"TABNORM_HTTP_ADDR": "0.0.0.0:" + port}, "healthcheck"); err != nil {
		t.Fatalf("from TABNORM_HTTP_ADDR: %v", err)
	}
	ready.Store(false)
	_, err := run(t, nil, "healthcheck", "--url", srv.URL+"/readyz")
	if err == nil || exitCode(err) != 1 || !strings.Contains(err.Error(), "bucket not found") {
		t.Fatalf("unready server: %v", err)
	}
	srv.Close()
	if _, err := run(t, nil, "healthcheck", "--url", srv.URL+"/readyz", "--timeout", "1s"); err == nil || exitCode(err) != 1 {
		t.Fatalf("no server: %v", err)
	}
}

// TestAdminUsersAndKeys: list-users, reset-password (the printed password
// is the one stored, hashed), disable-user and revoke-key, each as its
// record with --json, and an unknown id as not found.
func TestAdminUsersAndKeys(t *testing.T) {
	dbPath := filepath.Join(t.TempDir(), "t.db")
	env := map[string]string{"TABNORM_DATABASE_URL": "sqlite://" + dbPath, "TABNORM_LOG_LEVEL": "error"}
	if _, err := run(t, env, "migrate"); err != nil {
		t.Fatal(err)
	}
	var org, user, key struct{ ID, Key string }
	mustJSON(t, env, &org, "admin", "create-org", "--name", "Acme", "--json")
	mustJSON(t, env, &user, "admin", "create-user", "--org", org.ID, "--email", "ann@acme.test", "--password", "first-password", "--json")
	mustJSON(t, env, &key, "admin", "create-key", "--org", org.ID, "--name", "deploy", "--json")

	var users []struct {
		ID, Email  string
		DisabledAt *string `json:"disabled_at"`
	}
	mustJSON(t, env, &users, "admin", "list-users", "--org", org.ID, "--json")
	if len(users) != 1 || users[0].ID != user.ID || users[0].DisabledAt != nil {
		t.Fatalf("list-users: %+v", users)
	}

	var reset struct {
		ID, Password  string
		SessionsEnded int `json:"sessions_ended"`
	}
	mustJSON(t, env, &reset, "admin", "reset-password", "--user", user.ID, "--json")
	if reset.ID != user.ID || len(reset.Password) < 20 {
		t.Fatalf("reset-password: %+v", reset)
	}
	if stored := storedPasswordHash(t, dbPath, user.ID); !checks(t, stored, reset.Password) || checks(t, stored, "first-password") {
		t.Fatal("the stored hash is not that of the printed password alone")
	}

	var disabled struct {
		ID         string
		DisabledAt *string `json:"disabled_at"`
	}
	mustJSON(t, env, &disabled, "admin", "disable-user", "--user", user.ID, "--json")
	if disabled.ID != user.ID || disabled.DisabledAt == nil {
		t.Fatalf("disable-user: %+v", disabled)
	}
	if out, err := run(t, env, "admin", "list-users", "--org", org.ID); err != nil || !strings.Contains(out, "disabled ") {
		t.Fatalf("list-users after disable-user: %q %v", out, err)
	}

	var revoked struct {
		ID        string
		RevokedAt *string `json:"revoked_at"`
	}
	mustJSON(t, env, &revoked, "admin", "revoke-key", "--org", org.ID, "--key", key.ID, "--json")
	if revoked.ID != key.ID || revoked.RevokedAt == nil {
		t.Fatalf("revoke-key: %+v", revoked)
	}
	for _, args := range [][]string{
		{"admin", "reset-password", "--user", "usr_nope"},
		{"admin", "disable-user", "--user", "usr_nope"},
		{"admin", "revoke-key", "--org", org.ID, "--key", "key_nope"},
		{"admin", "list-users", "--org", "org_nope"},
	} {
		if _, err := run(t, env, args...); exitCode(err) != 1 || !strings.Contains(message(err), "not found") {
			t.Fatalf("%v: %v", args, err)
		}
	}
}

func mustJSON(t *testing.T, env map[string]string, into any, args ...string) {
	t.Helper()
	out, err := run(t, env, args...)
	if err != nil || json.Unmarshal([]byte(out), into) != nil {
		t.Fatalf("%v: %q %v", args, out, err)
	}
}
