package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// TestRemote_destinations drives the destinations commands against a real
// server and an HTTP receiver on loopback: create (a made signing secret
// printed once), list, show, test, a refused setting, delete.
func TestRemote_destinations(t *testing.T) {
	app := apptest.Start(t, sqltest.SQLite(t), func(c *bootstrap.Config) { c.DestinationAllowPrivate = true })
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	t.Setenv("TABNORM_API_URL", app.URL)
	t.Setenv("TABNORM_API_KEY", app.Key(app.Org("Dest", identity.Normalize)))
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("webhook-signature") == "" {
			w.WriteHeader(http.StatusUnauthorized)
		}
	}))
	t.Cleanup(rcv.Close)
	run := func(args ...string) string {
		t.Helper()
		out, errOut, err := runRemote(t, args...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, errOut)
		}
		return out
	}

	out := run("destinations", "create", "http", "--name", "api", "--set", "url="+rcv.URL+"/rows")
	id, _, _ := strings.Cut(out, "\t")
	if !strings.HasPrefix(id, "dst_") || !strings.Contains(out, "\thttp\tapi\turl="+rcv.URL+"/rows\n") || !strings.Contains(out, "\nsigning secret whsec_") {
		t.Fatalf("create printed %q", out)
	}
	if out := run("destinations", "list"); !strings.HasPrefix(out, id+"\thttp\t") {
		t.Fatalf("list printed %q", out)
	}
	if out := run("destinations", "show", id, "--json"); !strings.Contains(out, `"id":"`+id+`"`) || strings.Contains(out, "whsec_") {
		t.Fatalf("show printed %q", out)
	}
	if out := run("destinations", "test", id); out != "ok "+id+"\n" {
		t.Fatalf("test printed %q", out)
	}
	_, errOut, err := runRemote(t, "destinations", "create", "postgres", "--name", "x", "--set", "url=postgres://db.example.com/app", "--set", "table=t; DROP TABLE users")
	if err == nil || !strings.Contains(err.Error()+errOut, "plain identifier") {
		t.Fatalf("a table that is SQL: %v %q", err, errOut)
	}
	if out := run("destinations", "delete", id); out != "deleted "+id+"\n" {
		t.Fatalf("delete printed %q", out)
	}
	if _, _, err := runRemote(t, "destinations", "show", id); err == nil {
		t.Fatal("show of a deleted destination succeeded")
	}
}
