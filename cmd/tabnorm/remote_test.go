package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// runRemote runs the CLI in-process and returns stdout and stderr.
func runRemote(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	root := newRoot(&out, &errOut)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), errOut.String(), err
}

const cliSchema = `{"fields":[{"name":"id","type":"integer"},{"name":"email","type":"string","format":"email"}]}`

// TestRemote drives the remote commands against a real server.
func TestRemote(t *testing.T) {
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) { remoteCommands(t, target) })
	}
}

func remoteCommands(t *testing.T, target sqltest.Target) {
	app := apptest.Start(t, target)
	org := app.Org("Acme", identity.Normalize, identity.Connect)
	key := app.Key(org)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	t.Setenv("TABNORM_API_URL", app.URL)
	t.Setenv("TABNORM_API_KEY", key)
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "people.csv")
	if err := os.WriteFile(csvPath, []byte("ID,E-mail\n9007199254740993,ANN@x.io\n2,bob@\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	// create --wait: a line per state change (no terminal here), the job as JSON.
	out, errOut, err := runRemote(t, "jobs", "create", csvPath, "--schema", cliSchema, "--wait", "--json")
	if err != nil {
		t.Fatalf("create --wait: %v\n%s", err, errOut)
	}
	var id string
	for _, l := range strings.Split(strings.TrimSpace(errOut), "\n") {
		id, _, _ = strings.Cut(l, " ")
	}
	if !strings.Contains(errOut, " queued\n") || !strings.HasSuffix(errOut, " succeeded\n") || !strings.Contains(out, `"id":"`+id+`"`) || !strings.Contains(out, `"status":"succeeded"`) {
		t.Fatalf("create --wait printed %q / %q", out, errOut)
	}

	// Downloads are byte-identical to the API's.
	for _, format := range []string{"csv", "jsonl"} {
		api := app.Do("GET", "/v1/jobs/"+id+"/rows."+format, apptest.Caller{Key: key}, nil)
		file := filepath.Join(dir, "rows."+format)
		if _, _, err := runRemote(t, "jobs", "rows", id, "--format", format, "-o", file); err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(file)
		if api.StatusCode != 200 || string(got) != api.Body || !strings.Contains(api.Body, "9007199254740993") {
			t.Fatalf("%s: %q, API %d %q", format, got, api.StatusCode, api.Body)
		}
	}
	out, _, err = runRemote(t, "jobs", "errors", id)
	if err != nil || out != app.Do("GET", "/v1/jobs/"+id+"/errors.jsonl", apptest.Caller{Key: key}, nil).Body {
		t.Fatalf("errors: %v %q", err, out)
	}
	if out, _, err := runRemote(t, "jobs", "list"); err != nil || !strings.HasPrefix(out, id+"\tsucceeded\tnormalize\t1 rows, 1 rejected") {
		t.Fatalf("list: %v %q", err, out)
	}

	// Errors are printed with their code and request id.
	_, _, err = runRemote(t, "jobs", "get", "job_nope")
	if msg := message(err); exitCode(err) != 1 || !strings.HasPrefix(msg, "not_found: ") || !strings.Contains(msg, "request req_") {
		t.Fatalf("missing job: exit %d, %q", exitCode(err), msg)
	}
	_, _, err = runRemote(t, "jobs", "cancel", id)
	if msg := message(err); !strings.HasPrefix(msg, "job_not_cancelable: ") {
		t.Fatalf("cancel ended job: %q", msg)
	}

	// Schemas, and connect files and jobs.
	out, _, err = runRemote(t, "schemas", "create", "people", cliSchema, "--json")
	if err != nil || !strings.Contains(out, `"object":"schema"`) {
		t.Fatalf("schemas create: %v %q", err, out)
	}
	schemaID, _, _ := strings.Cut(strings.TrimPrefix(out, `{"id":"`), `"`)
	out, _, err = runRemote(t, "connect", "files", "upload", csvPath)
	if err != nil || !strings.HasPrefix(out, "file_") {
		t.Fatalf("files upload: %v %q", err, out)
	}
	fileID, _, _ := strings.Cut(out, "\t")
	if out, errOut, err := runRemote(t, "connect", "jobs", "create", "--file-id", fileID, "--schema-id", schemaID, "--wait"); err != nil || !strings.Contains(out, "succeeded") {
		t.Fatalf("connect jobs create: %v %q %q", err, out, errOut)
	}
	for _, args := range [][]string{{"connect", "files", "delete", fileID}, {"schemas", "delete", schemaID}, {"jobs", "delete", id}} {
		if _, _, err := runRemote(t, args...); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
	}

	// login stores the server and key (0600) for later commands.
	t.Setenv("TABNORM_API_URL", "")
	t.Setenv("TABNORM_API_KEY", "")
	if _, _, err := runRemote(t, "jobs", "list"); exitCode(err) != 2 {
		t.Fatalf("no server: %v", err)
	}
	if _, _, err := runRemote(t, "login", "--url", app.URL, "--key", "svc_live_wrong"); err == nil {
		t.Fatal("login with a bad key stored it")
	}
	if _, _, err := runRemote(t, "login", "--url", app.URL, "--key", key); err != nil {
		t.Fatal(err)
	}
	path, _ := remoteConfigPath()
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("stored login %v %v", st, err)
	}
	if out, _, err := runRemote(t, "jobs", "list"); err != nil || !strings.Contains(out, "\tsucceeded\t") {
		t.Fatalf("list after login: %v %q", err, out)
	}
}
