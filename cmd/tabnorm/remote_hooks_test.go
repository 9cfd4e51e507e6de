package main

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/client"
	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// TestRemote_hooks drives every hooks command against a real server:
// create (the secret printed once), list, get, disable, enable,
// rotate-secret, test (a sample batch to a dead hook and to a real one)
// and delete.
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
	// A sample: nothing listens at the hook's address, so a job's batch
	// would fail (exit 1); a real hook on loopback answers.
	out, _, err := runRemote(t, "hooks", "test", id, "--rows", `[{"row":1,"values":{"customer":"acme"}}]`)
	if exitCode(err) != 1 || !errors.Is(err, errHookTestFailed) || !strings.HasPrefix(out, "error in ") {
		t.Fatalf("a sample to a dead hook: exit %d (%v), printed %q", exitCode(err), err, out)
	}
	if _, _, err := runRemote(t, "hooks", "test", id, "--rows", `{"row":1}`); exitCode(err) != 2 {
		t.Fatalf("--rows not an array: exit %d (%v), want 2", exitCode(err), err)
	}
	var secret atomic.Value
	secret.Store("")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		client.HookHandler(func(_ context.Context, b client.HookBatch) (client.HookAnswer, error) {
			var ans client.HookAnswer
			for _, r := range b.Rows {
				ans.Rows = append(ans.Rows, client.HookRowAnswer{Row: r.Row, Values: map[string]any{"customer": "ACME-001"},
					Issues: []client.HookIssue{{Field: "customer", Severity: "warning", Code: "renamed", Message: "Renamed"}}})
			}
			return ans, nil
		}, secret.Load().(string)).ServeHTTP(w, r)
	}))
	defer srv.Close()
	erp := run("hooks", "create", "erp", srv.URL)
	erpID, _, _ := strings.Cut(erp, "\t")
	secret.Store(erp[strings.Index(erp, "whsec_") : strings.Index(erp, "whsec_")+len("whsec_")+44])
	out = run("hooks", "test", erpID, "--rows", `[{"row":7,"values":{"customer":"acme"}}]`)
	if !strings.HasPrefix(out, "succeeded (200) in ") || !strings.Contains(out, "\nrow 7 customer: warning renamed: Renamed\nrow 7 customer: corrected to \"ACME-001\"") {
		t.Fatalf("a sample to a real hook printed %q", out)
	}
	if out := run("hooks", "delete", id); out != "deleted "+id+"\n" {
		t.Fatalf("delete printed %q", out)
	}
	if _, _, err := runRemote(t, "hooks", "get", id); err == nil || !strings.Contains(err.Error(), "not_found") {
		t.Fatalf("get after delete: %v", err)
	}
}
