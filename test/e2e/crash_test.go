package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/test/testtime"
)

// TestWorkerCrash kills a worker process in the middle of a job on
// PostgreSQL: once another worker comes up, the job is requeued when its
// lease lapses and succeeds with exactly the right rows.
func TestWorkerCrash(t *testing.T) {
	t.Parallel()
	target, ok := sqltest.Postgres(t)
	if !ok {
		t.Skip("*** SKIPPED: needs PostgreSQL (TABNORM_TEST_DATABASE_URL) ***")
	}
	dir := t.TempDir()
	env := []string{"TABNORM_DATABASE_URL=" + target.URL, "TABNORM_BLOB_URL=file://" + filepath.Join(dir, "blobs"), "TABNORM_JOB_LEASE=2s"}
	api := startServe(t, dir, env...) // role all: the first worker is this process's
	key := createKey(t, dir, env)

	// A file big enough that the job is still running when its worker dies.
	const rows = 300_000
	var csv strings.Builder
	csv.WriteString("id,email,note\n")
	for i := 1; i <= rows; i++ {
		fmt.Fprintf(&csv, "%d,user%d@example.com,\"note, with a comma and \"\"quotes\"\" %d\"\n", i, i, i)
	}
	schema := `{"fields":[{"name":"id","type":"integer","constraints":{"unique":true}},{"name":"email","type":"string","format":"email"},{"name":"note"}]}`
	jobID := submit(t, api.url, key, csv.String(), schema)

	// Wait until it runs, then kill the only worker (SIGKILL: no cleanup).
	waitStatus(t, api.url, key, jobID, "running", 30*time.Second)
	_ = api.cmd.Process.Signal(syscall.SIGKILL)
	if err := <-api.exited; err == nil {
		t.Fatal("serve exited cleanly after SIGKILL")
	}

	// A new process (API and worker) on the same database and files.
	next := startServe(t, dir, env...)
	job := waitStatus(t, next.url, key, jobID, "succeeded", 90*time.Second)
	if job["attempts"].(float64) < 2 {
		t.Fatalf("attempts = %v, want the job to have been requeued", job["attempts"])
	}
	res := get(t, next.url+"/v1/jobs/"+jobID+"/rows?format=jsonl", key)
	seen := make(map[int]bool, rows)
	lines := bytes.Split(bytes.TrimSpace(res), []byte("\n"))
	for _, line := range lines {
		var r struct{ ID int }
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("row %q: %v", line, err)
		}
		if seen[r.ID] {
			t.Fatalf("row %d twice", r.ID)
		}
		seen[r.ID] = true
	}
	if len(seen) != rows {
		t.Fatalf("%d rows after the crash, want %d", len(seen), rows)
	}
}

func createKey(t testing.TB, dir string, env []string) string {
	t.Helper()
	run := func(args ...string) []byte {
		cmd := execCommand(dir, env, args...)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return out
	}
	var org struct{ ID string }
	_ = json.Unmarshal(run("admin", "create-org", "--name", "Crash", "--json"), &org)
	var key struct{ Key string }
	_ = json.Unmarshal(run("admin", "create-key", "--org", org.ID, "--name", "crash", "--json"), &key)
	if key.Key == "" {
		t.Fatal("no key")
	}
	return key.Key
}

func submit(t testing.TB, base, key, content, schema string) string {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", "big.csv")
	_, _ = io.WriteString(fw, content)
	_ = mw.WriteField("schema", schema)
	_ = mw.Close()
	req, _ := http.NewRequest("POST", base+"/v1/jobs", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var j struct{ ID string }
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode != 202 || json.Unmarshal(raw, &j) != nil {
		t.Fatalf("submit: %d %s", res.StatusCode, raw)
	}
	return j.ID
}

func get(t testing.TB, url, key string) []byte {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", url, res.StatusCode, raw)
	}
	return raw
}

func waitStatus(t testing.TB, base, key, jobID, want string, timeout time.Duration) map[string]any {
	t.Helper()
	deadline := testtime.Deadline(timeout)
	for time.Now().Before(deadline) {
		var j map[string]any
		_ = json.Unmarshal(get(t, base+"/v1/jobs/"+jobID, key), &j)
		if j["status"] == want {
			return j
		}
		if s := j["status"]; s == "failed" || s == "canceled" {
			t.Fatalf("job ended %v: %v", s, j["error"])
		}
		time.Sleep(100 * time.Millisecond) // 10 reads a second: under the default rate limit of 20 a second per key
	}
	t.Fatalf("job did not become %s within %s", want, timeout)
	return nil
}
