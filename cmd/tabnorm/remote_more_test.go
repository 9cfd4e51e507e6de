package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// remoteApp starts a server of the given role with an organization that
// has both products, and points the remote commands at it.
func remoteApp(t *testing.T, role bootstrap.Role) (*apptest.App, apptest.Caller) {
	t.Helper()
	app := apptest.StartRole(t, sqltest.SQLite(t), role)
	key := app.Key(app.Org("Acme", identity.Normalize, identity.Connect))
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	t.Setenv("TABNORM_API_URL", app.URL)
	t.Setenv("TABNORM_API_KEY", key)
	return app, apptest.Caller{Key: key}
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// fakeTerminal is stderr as a terminal would be: it says it is one.
type fakeTerminal struct{ bytes.Buffer }

func (*fakeTerminal) Terminal() bool { return true }

// runRemoteTo runs the CLI in-process with the given stderr.
func runRemoteTo(t *testing.T, errOut interface{ Write([]byte) (int, error) }, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	root := newRoot(&out, errOut)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), err
}

// TestRemote_waitExitsOneUnlessSucceeded: `jobs create --wait` exits 1
// when the job fails or is canceled, printing the job and its states.
func TestRemote_waitExitsOneUnlessSucceeded(t *testing.T) {
	t.Run("failed", func(t *testing.T) {
		remoteApp(t, bootstrap.RoleAll)
		csv := writeFile(t, "people.csv", "ID,E-mail\n1,ann@x.io\n")
		out, errOut, err := runRemote(t, "jobs", "create", csv, "--schema", `{"fields":[{"name":"sku","constraints":{"required":true}}]}`, "--wait", "--json")
		if exitCode(err) != 1 || !errors.Is(err, errJobNotSucceeded) {
			t.Fatalf("exit %d (%v), want 1", exitCode(err), err)
		}
		var j struct{ ID, Status string }
		if jerr := json.Unmarshal([]byte(out), &j); jerr != nil || j.Status != "failed" {
			t.Fatalf("stdout %q: %v", out, jerr)
		}
		if !strings.HasSuffix(errOut, j.ID+" failed\n") || !strings.Contains(message(err), "required_field_unmapped") {
			t.Fatalf("stderr %q, message %q", errOut, message(err))
		}
	})
	t.Run("canceled", func(t *testing.T) {
		app, key := remoteApp(t, bootstrap.RoleAPI) // no workers: the job waits until it is canceled
		csv := writeFile(t, "people.csv", "ID,E-mail\n1,ann@x.io\n")
		type result struct {
			out, errOut string
			err         error
		}
		done := make(chan result, 1)
		go func() {
			var out, errOut bytes.Buffer
			root := newRoot(&out, &errOut)
			root.SetArgs([]string{"jobs", "create", csv, "--schema", cliSchema, "--wait"})
			err := root.Execute()
			done <- result{out.String(), errOut.String(), err}
		}()
		var id string
		for deadline := time.Now().Add(20 * time.Second); id == "" && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			var list struct{ Data []struct{ ID string } }
			app.Do("GET", "/v1/jobs", key, nil).JSON(t, &list)
			if len(list.Data) == 1 {
				id = list.Data[0].ID
			}
		}
		if id == "" {
			t.Fatal("the job was not created")
		}
		if res := app.Do("POST", "/v1/jobs/"+id+"/cancel", key, nil); res.StatusCode != 200 {
			t.Fatalf("cancel: %d %s", res.StatusCode, res.Body)
		}
		var r result
		select {
		case r = <-done:
		case <-time.After(20 * time.Second):
			t.Fatal("--wait did not end after the job was canceled")
		}
		if exitCode(r.err) != 1 || !strings.HasPrefix(r.out, id+"\tcanceled\t") || r.errOut != id+" queued\n"+id+" canceled\n" {
			t.Fatalf("exit %d (%v), stdout %q, stderr %q", exitCode(r.err), r.err, r.out, r.errOut)
		}
	})
}

var barRE = regexp.MustCompile(`^(upload|job) +\[(#*)(\.*)\] +(\d+)% `)

// bars parses what was drawn on a terminal: each \r starts a redraw.
func bars(t *testing.T, drawn string) map[string][]int {
	t.Helper()
	out := map[string][]int{}
	for _, seg := range strings.Split(drawn, "\r")[1:] {
		m := barRE.FindStringSubmatch(seg)
		if m == nil {
			t.Fatalf("not a bar: %q", seg)
		}
		pct, _ := strconv.Atoi(m[4])
		if filled := len(m[2]); len(m[2])+len(m[3]) != 30 || filled < pct*30/100-1 || filled > pct*30/100+1 || (pct == 100) != (filled == 30) {
			t.Fatalf("bar %q does not show %d%%", seg, pct)
		}
		out[m[1]] = append(out[m[1]], pct)
	}
	return out
}

// TestRemote_progressBars: on a terminal, `jobs create --wait` draws an
// upload bar and then a job bar, each rising to 100 %; elsewhere it prints
// only a line per state change.
func TestRemote_progressBars(t *testing.T) {
	remoteApp(t, bootstrap.RoleAll)
	var b strings.Builder
	b.WriteString("ID,E-mail\n")
	for i := range 5000 { // 100 KiB and more: the upload is drawn several times
		fmt.Fprintf(&b, "%d,user%d@example.com\n", i+1, i)
	}
	csv := writeFile(t, "people.csv", b.String())

	var tty fakeTerminal
	out, err := runRemoteTo(t, &tty, "jobs", "create", csv, "--schema", cliSchema, "--wait")
	if err != nil {
		t.Fatalf("%v\n%s", err, tty.String())
	}
	id, _, _ := strings.Cut(out, "\t")
	drawn := tty.String()
	got := bars(t, strings.NewReplacer(id+" queued\n", "", id+" running\n", "", id+" succeeded\n", "", "\n", "").Replace(drawn))
	for _, label := range []string{"upload", "job"} {
		p := got[label]
		if len(p) < 2 || p[0] >= 100 || p[len(p)-1] != 100 {
			t.Fatalf("%s bar %v does not rise to 100 %%:\n%q", label, p, drawn)
		}
		for i := 1; i < len(p); i++ {
			if p[i] < p[i-1] {
				t.Fatalf("%s bar goes back: %v", label, p)
			}
		}
	}
	if u := strings.LastIndex(drawn, "\rupload"); u > strings.Index(drawn, "\rjob") {
		t.Fatalf("the upload bar is drawn after the job bar:\n%q", drawn)
	}
	if !strings.Contains(drawn, "5000 read, 5000 valid, 0 rejected") || !strings.HasSuffix(drawn, "\n"+id+" succeeded\n") {
		t.Fatalf("the job bar does not end with the counts and the state:\n%q", drawn)
	}

	// Not a terminal: a line per state change, nothing drawn.
	var plain bytes.Buffer
	out, err = runRemoteTo(t, &plain, "jobs", "create", csv, "--schema", cliSchema, "--wait")
	if err != nil {
		t.Fatal(err)
	}
	id, _, _ = strings.Cut(out, "\t")
	if plain.String() != id+" queued\n"+id+" running\n"+id+" succeeded\n" {
		t.Fatalf("without a terminal: %q", plain.String())
	}
}

// TestRemote_jsonPrintsTheAPIObjects: --json prints each object as the
// API sent it, one a line.
func TestRemote_jsonPrintsTheAPIObjects(t *testing.T) {
	app, key := remoteApp(t, bootstrap.RoleAPI)
	csv := writeFile(t, "people.csv", "ID,E-mail\n1,ann@x.io\n")
	var ids []string
	for range 3 {
		out, _, err := runRemote(t, "jobs", "create", csv, "--schema", cliSchema, "--json")
		if err != nil {
			t.Fatal(err)
		}
		var j struct{ ID string }
		if err := json.Unmarshal([]byte(out), &j); err != nil || !strings.HasSuffix(out, "}\n") || strings.Count(out, "\n") != 1 {
			t.Fatalf("create --json printed %q", out)
		}
		ids = append(ids, j.ID)
	}
	out, _, err := runRemote(t, "jobs", "get", ids[0], "--json")
	if want := app.Do("GET", "/v1/jobs/"+ids[0], key, nil).Body + "\n"; err != nil || out != want {
		t.Fatalf("get --json:\n%q\nAPI:\n%q", out, want)
	}
	out, _, err = runRemote(t, "jobs", "list", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var page struct{ Data []json.RawMessage }
	app.Do("GET", "/v1/jobs", key, nil).JSON(t, &page)
	var want strings.Builder
	for _, raw := range page.Data {
		want.Write(raw)
		want.WriteByte('\n')
	}
	if len(page.Data) != 3 || out != want.String() {
		t.Fatalf("list --json:\n%q\nAPI:\n%q", out, want.String())
	}
	out, _, err = runRemote(t, "schemas", "create", "people", cliSchema, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var s struct{ ID string }
	_ = json.Unmarshal([]byte(out), &s)
	if api := app.Do("GET", "/v1/schemas/"+s.ID, key, nil).Body + "\n"; out != api {
		t.Fatalf("schemas create --json %q, API %q", out, api)
	}
	out, _, err = runRemote(t, "jobs", "delete", ids[1], "--json")
	if err != nil || out != `{"id":"`+ids[1]+`","deleted":true}`+"\n" {
		t.Fatalf("delete --json: %v %q", err, out)
	}
}

// TestRemote_loginTightensAnExistingFile: a stored login is mode 0600 in a
// 0700 folder, even when an older file was readable by others.
func TestRemote_loginTightensAnExistingFile(t *testing.T) {
	app, key := remoteApp(t, bootstrap.RoleAPI)
	t.Setenv("TABNORM_API_URL", "")
	t.Setenv("TABNORM_API_KEY", "")
	path, err := remoteConfigPath()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(`{"url":"http://old.example","key":"svc_live_old"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var errOut bytes.Buffer
	root := newRoot(&bytes.Buffer{}, &errOut)
	root.SetIn(strings.NewReader(key.Key + "\n")) // the key from stdin, not the command line
	root.SetArgs([]string{"login", "--url", app.URL})
	if err := root.Execute(); err != nil {
		t.Fatalf("login: %v %s", err, errOut.String())
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("stored login: %v %v", st.Mode(), err)
	}
	if dir, err := os.Stat(filepath.Dir(path)); err != nil || dir.Mode().Perm() != 0o700 {
		t.Fatalf("config folder: %v %v", dir.Mode(), err)
	}
	raw, _ := os.ReadFile(path)
	var stored remoteConfig
	if err := json.Unmarshal(raw, &stored); err != nil || stored.URL != app.URL || stored.Key != key.Key {
		t.Fatalf("stored %s", raw)
	}
	if out, _, err := runRemote(t, "jobs", "list"); err != nil || out != "" {
		t.Fatalf("list after login: %v %q", err, out)
	}
}
