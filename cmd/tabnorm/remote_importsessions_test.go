package main

import (
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// TestRemote_importSessions drives every import-sessions command against
// a real server: create (url and secret printed once, theme and texts
// taken), a refused theme, list (filtered by status), show (its jobs and
// summary) and revoke.
func TestRemote_importSessions(t *testing.T) {
	app := apptest.Start(t, sqltest.SQLite(t))
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	t.Setenv("TABNORM_API_URL", app.URL)
	t.Setenv("TABNORM_API_KEY", app.Key(app.Org("Importers", identity.Normalize)))
	run := func(args ...string) string {
		t.Helper()
		out, errOut, err := runRemote(t, args...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, errOut)
		}
		return out
	}
	out := run("import-sessions", "create", "--origin", "https://app.example.com", "--schema", apptest.PeopleSchema, "--locale", "fr",
		"--theme", `{"mode":"dark","title":"Importer"}`, "--texts", `{"submit.button":"Envoyer à Acme"}`, "--max-jobs", "3")
	id, _, _ := strings.Cut(out, "\t")
	if !strings.HasPrefix(id, "imp_") || !strings.Contains(out, "\topen\tjobs -/3\tfr\thttps://app.example.com\t") ||
		!strings.Contains(out, "/embed/"+id+"\n") || !strings.Contains(out, "\nclient_secret imp_secret_") {
		t.Fatalf("create printed %q", out)
	}
	if _, _, err := runRemote(t, "import-sessions", "create", "--origin", "https://app.example.com", "--schema", apptest.PeopleSchema,
		"--theme", `{"text":"#bbbbbb"}`); err == nil || !strings.Contains(err.Error(), "theme.text (#bbbbbb) on theme.background (#ffffff)") {
		t.Fatalf("a pale theme: %v", err)
	}
	second := run("import-sessions", "create", "--origin", "http://localhost:3000", "--schema", apptest.PeopleSchema, "--json")
	if !strings.Contains(second, `"client_secret":"imp_secret_`) {
		t.Fatalf("create --json printed %q", second)
	}
	if out := run("import-sessions", "show", id); !strings.HasPrefix(out, id+"\topen\tjobs 0/3\t") || !strings.Contains(out, "\nsummary\t0 final jobs\t0 rows valid, 0 rejected") {
		t.Fatalf("show printed %q", out)
	}
	if out := run("import-sessions", "revoke", id); !strings.HasPrefix(out, id+"\trevoked\t") {
		t.Fatalf("revoke printed %q", out)
	}
	all := run("import-sessions", "list")
	revoked := run("import-sessions", "list", "--status", "revoked")
	if strings.Count(all, "\n") != 2 || strings.Contains(all, "imp_secret_") || strings.TrimSpace(revoked) == "" || strings.Count(revoked, "\n") != 1 ||
		!strings.HasPrefix(revoked, id+"\trevoked") {
		t.Fatalf("list printed %q, --status revoked %q", all, revoked)
	}
	if _, _, err := runRemote(t, "import-sessions", "list", "--status", "done"); err == nil {
		t.Fatal("an unknown status was accepted")
	}
}
