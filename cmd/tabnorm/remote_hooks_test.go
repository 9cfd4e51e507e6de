package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// TestRemote_hooks drives every hooks command against a real server:
// create (the secret printed once), list, get, disable, enable,
// rotate-secret and delete.
func TestRemote_hooks(t *testing.T) {
	app := apptest.Start(t, sqltest.SQLite(t), func(c *bootstrap.Config) {
		c.WebhookAllowPrivate = true
		c.SecretKeys = [][]byte{bytes.Repeat([]byte{3}, 32)}
	})
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	t.Setenv("TABNORM_API_URL", app.URL)
	t.Setenv("TABNORM_API_KEY", app.Key(app.Org("Hooks", identity.Normalize)))
	run := func(args ...string) string {
		t.Helper()
		out, errOut, err := runRemote(t, args...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, errOut)
		}
		return out
	}
	out := run("hooks", "create", "crm", "http://127.0.0.1:9/validate", "--timeout-ms", "2000", "--concurrency", "2")
	id, _, _ := strings.Cut(out, "\t")
	if !strings.HasPrefix(id, "hook_") || !strings.Contains(out, "\tcrm\tenabled\thttp://127.0.0.1:9/validate\t2000 ms\t2 in flight\n") || !strings.Contains(out, "\nsecret whsec_") {
		t.Fatalf("create printed %q", out)
	}
	if out := run("hooks", "list"); !strings.HasPrefix(out, id+"\tcrm\tenabled\t") {
		t.Fatalf("list printed %q", out)
	}
	if out := run("hooks", "get", id, "--json"); !strings.Contains(out, `"id":"`+id+`"`) || strings.Contains(out, "whsec_") {
		t.Fatalf("get printed %q", out)
	}
	if out := run("hooks", "disable", id); !strings.HasPrefix(out, id+"\tcrm\tdisabled\t") {
		t.Fatalf("disable printed %q", out)
	}
	if out := run("hooks", "enable", id); !strings.HasPrefix(out, id+"\tcrm\tenabled\t") {
		t.Fatalf("enable printed %q", out)
	}
	if out := run("hooks", "rotate-secret", id); !strings.Contains(out, "\nsecret whsec_") {
		t.Fatalf("rotate-secret printed %q", out)
	}
	if out := run("hooks", "delete", id); out != "deleted "+id+"\n" {
		t.Fatalf("delete printed %q", out)
	}
	if _, _, err := runRemote(t, "hooks", "get", id); err == nil || !strings.Contains(err.Error(), "not_found") {
		t.Fatalf("get after delete: %v", err)
	}
}
