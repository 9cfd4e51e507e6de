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

// remote is the state the steps of the remote commands' script share.
type remote struct {
	app     *apptest.App
	key     string
	dir     string
	csvPath string
	jobID   string // the job create --wait made
}

func remoteCommands(t *testing.T, target sqltest.Target) {
	app := apptest.Start(t, target)
	r := &remote{app: app, key: app.Key(app.Org("Acme", identity.Normalize, identity.Connect)), dir: t.TempDir()}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	t.Setenv("TABNORM_API_URL", app.URL)
	t.Setenv("TABNORM_API_KEY", r.key)
	r.csvPath = filepath.Join(r.dir, "people.csv")
	if err := os.WriteFile(r.csvPath, []byte("ID,E-mail\n9007199254740993,ANN@x.io\n2,bob@\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		name string
		run  func(*testing.T, *remote)
	}{
		{"create_wait_prints_each_state_and_the_job", remoteCreateWait},
		{"downloads_are_the_apis_bytes", remoteDownloads},
		{"errors_carry_their_code_and_request_id", remoteErrors},
		{"schemas_and_connect", remoteSchemasAndConnect},
		{"login_stores_the_server_and_key", remoteLogin},
	} {
		if !t.Run(step.name, func(t *testing.T) { step.run(t, r) }) {
			return // the later steps build on this one
		}
	}
}

// remoteCreateWait: a line per state change (no terminal here), the job
// as JSON.
func remoteCreateWait(t *testing.T, r *remote) {
	out, errOut, err := runRemote(t, "jobs", "create", r.csvPath, "--schema", cliSchema, "--wait", "--json")
	if err != nil {
		t.Fatalf("create --wait: %v\n%s", err, errOut)
	}
	for _, l := range strings.Split(strings.TrimSpace(errOut), "\n") {
		r.jobID, _, _ = strings.Cut(l, " ")
	}
	if !strings.Contains(errOut, " queued\n") || !strings.HasSuffix(errOut, " succeeded\n") || !strings.Contains(out, `"id":"`+r.jobID+`"`) || !strings.Contains(out, `"status":"succeeded"`) {
		t.Fatalf("create --wait printed %q / %q", out, errOut)
	}
}

func remoteDownloads(t *testing.T, r *remote) {
	for _, format := range []string{"csv", "jsonl"} {
		api := r.app.Do("GET", "/v1/jobs/"+r.jobID+"/rows."+format, apptest.Caller{Key: r.key}, nil)
		file := filepath.Join(r.dir, "rows."+format)
		if _, _, err := runRemote(t, "jobs", "rows", r.jobID, "--format", format, "-o", file); err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(file)
		if api.StatusCode != 200 || string(got) != api.Body || !strings.Contains(api.Body, "9007199254740993") {
			t.Fatalf("%s: %q, API %d %q", format, got, api.StatusCode, api.Body)
		}
	}
	// The generated formats: the same bytes the API builds.
	for _, d := range []struct {
		args []string
		path string
	}{
		{[]string{"jobs", "rows", r.jobID, "--format", "xlsx", "--out"}, "/rows.xlsx"},
		{[]string{"jobs", "rows", r.jobID, "--format", "parquet", "--out"}, "/rows.parquet"},
		{[]string{"jobs", "errors-xlsx", r.jobID, "--rejected", "--out"}, "/errors.xlsx?rows=rejected"},
	} {
		api := r.app.Do("GET", "/v1/jobs/"+r.jobID+d.path, apptest.Caller{Key: r.key}, nil)
		file := filepath.Join(r.dir, "download")
		if _, _, err := runRemote(t, append(d.args, file)...); err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(file)
		if api.StatusCode != 200 || len(got) < 100 || string(got) != api.Body {
			t.Fatalf("%s: %d bytes, API %d with %d", d.path, len(got), api.StatusCode, len(api.Body))
		}
	}
	out, _, err := runRemote(t, "jobs", "errors", r.jobID)
	if err != nil || out != r.app.Do("GET", "/v1/jobs/"+r.jobID+"/errors.jsonl", apptest.Caller{Key: r.key}, nil).Body {
		t.Fatalf("errors: %v %q", err, out)
	}
	if out, _, err := runRemote(t, "jobs", "list"); err != nil || !strings.HasPrefix(out, r.jobID+"\tsucceeded\tnormalize\t1 rows, 1 rejected") {
		t.Fatalf("list: %v %q", err, out)
	}
}

func remoteErrors(t *testing.T, r *remote) {
	_, _, err := runRemote(t, "jobs", "get", "job_nope")
	if msg := message(err); exitCode(err) != 1 || !strings.HasPrefix(msg, "not_found: ") || !strings.Contains(msg, "request req_") {
		t.Fatalf("missing job: exit %d, %q", exitCode(err), msg)
	}
	_, _, err = runRemote(t, "jobs", "cancel", r.jobID)
	if msg := message(err); !strings.HasPrefix(msg, "job_not_cancelable: ") {
		t.Fatalf("cancel ended job: %q", msg)
	}
}

func remoteSchemasAndConnect(t *testing.T, r *remote) {
	out, _, err := runRemote(t, "schemas", "create", "people", cliSchema, "--json")
	if err != nil || !strings.Contains(out, `"object":"schema"`) {
		t.Fatalf("schemas create: %v %q", err, out)
	}
	schemaID, _, _ := strings.Cut(strings.TrimPrefix(out, `{"id":"`), `"`)
	out, _, err = runRemote(t, "connect", "files", "upload", r.csvPath)
	if err != nil || !strings.HasPrefix(out, "file_") {
		t.Fatalf("files upload: %v %q", err, out)
	}
	fileID, _, _ := strings.Cut(out, "\t")
	if out, errOut, err := runRemote(t, "connect", "jobs", "create", "--file-id", fileID, "--schema-id", schemaID, "--wait"); err != nil || !strings.Contains(out, "succeeded") {
		t.Fatalf("connect jobs create: %v %q %q", err, out, errOut)
	}
	for _, args := range [][]string{{"connect", "files", "delete", fileID}, {"schemas", "delete", schemaID}, {"jobs", "delete", r.jobID}} {
		if _, _, err := runRemote(t, args...); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
	}
}

// remoteLogin: login stores the server and key (0600) for later commands.
func remoteLogin(t *testing.T, r *remote) {
	t.Setenv("TABNORM_API_URL", "")
	t.Setenv("TABNORM_API_KEY", "")
	if _, _, err := runRemote(t, "jobs", "list"); exitCode(err) != 2 {
		t.Fatalf("no server: %v", err)
	}
	if _, _, err := runRemote(t, "login", "--url", r.app.URL, "--key", "svc_live_wrong"); err == nil {
		t.Fatal("login with a bad key stored it")
	}
	if _, _, err := runRemote(t, "login", "--url", r.app.URL, "--key", r.key); err != nil {
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
