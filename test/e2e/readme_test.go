package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestReadme_commands runs the shell commands of README.md's "A job, from
// the command line" and "Offline normalization" sections as written, on
// the files in examples/, against a server started as the README's first
// command starts it. Only what cannot run here is changed: the server's
// address, the ids the commands print (job_…), the key, the binary's path;
// curl fails on an HTTP error; and, where the README says to poll, the
// test waits for the job's status before the next command. The connect
// block needs the connect product's library and is left out, as is the
// line that downloads from an example host.
func TestReadme_commands(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := shellBlocks(string(readme), "A job, from the command line", "Offline normalization")
	if len(blocks) < 4 {
		t.Fatalf("found %d shell blocks in README.md's job sections; want at least 4", len(blocks))
	}
	dir := t.TempDir()
	srv := startServe(t, dir)
	key := createKey(t, dir, nil)
	work := t.TempDir()
	if err := os.Symlink(filepath.Join(root, "examples"), filepath.Join(work, "examples")); err != nil {
		t.Fatal(err)
	}
	r := &readmeRun{t: t, url: srv.url, key: key, dir: work}
	for _, block := range blocks {
		if strings.Contains(block, "/v1/connect/") {
			continue
		}
		for _, line := range commandLines(block) {
			r.run(line)
		}
	}
	r.checkOutcome()
}

// readmeRun runs README commands one after another, carrying the job id
// the last one printed.
type readmeRun struct {
	t        *testing.T
	url, key string
	dir      string
	job      string // the job the next command's job_… means
	reviewed string // the job created with review on
	rerun    string // the job its rerun made
	ran      int
}

var (
	jobID       = regexp.MustCompile(`job_[0-9a-z]{20,}`)
	placeholder = "job_\u2026"
	// trailingComment is a shell comment after a command (the README's
	// commands hold no # of their own).
	trailingComment = regexp.MustCompile(`\s+#\s.*$`)
)

func (r *readmeRun) run(line string) {
	t := r.t
	if strings.HasPrefix(line, "KEY=") || strings.HasPrefix(line, "export ") || strings.Contains(line, "example.test") {
		return // the key and the API's address are set below; no download from an example host
	}
	line = trailingComment.ReplaceAllString(line, "")
	cmd := strings.ReplaceAll(line, "http://localhost:8080", r.url)
	cmd = strings.Replace(cmd, "curl ", "curl --fail-with-body --max-time 60 ", 1)
	if strings.HasPrefix(cmd, "tabnorm ") {
		cmd = binary + strings.TrimPrefix(cmd, "tabnorm")
	}
	if strings.Contains(cmd, placeholder) {
		if r.job == "" {
			t.Fatalf("%q names a job before any command printed one", line)
		}
		r.waitFor(cmd)
		cmd = strings.ReplaceAll(cmd, placeholder, r.job)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sh := exec.CommandContext(ctx, "bash", "-c", cmd)
	sh.Dir = r.dir
	sh.Env = append(os.Environ(), "KEY="+r.key, "TABNORM_API_URL="+r.url, "TABNORM_API_KEY="+r.key, "TABNORM_LOG_LEVEL=error")
	out, err := sh.CombinedOutput()
	if err != nil {
		t.Fatalf("README command failed: %s\n%v\n%s", line, err, out)
	}
	r.ran++
	creates := !strings.Contains(line, placeholder) || strings.Contains(line, "/rerun")
	if ids := jobID.FindAllString(string(out), -1); creates && len(ids) > 0 {
		r.job = ids[0] // a created job's document starts with its id
		switch {
		case strings.Contains(line, `"review":true`):
			r.reviewed = r.job
		case strings.Contains(line, "/rerun"):
			r.rerun = r.job
		}
	}
}

// waitFor waits, as the README's "poll" says, until the job is where the
// command needs it: awaiting its review for the review's commands, over
// for the results and the rerun.
func (r *readmeRun) waitFor(cmd string) {
	switch {
	case strings.Contains(cmd, "/review") || strings.Contains(cmd, "/mapping") || strings.Contains(cmd, "/confirm"):
		waitStatus(r.t, r.url, r.key, r.job, "awaiting_review", 60*time.Second)
	case strings.Contains(cmd, "/rows") || strings.Contains(cmd, "/errors") || strings.Contains(cmd, "/invalid-values") ||
		strings.Contains(cmd, "/rerun") || strings.Contains(cmd, "jobs rows"):
		waitStatus(r.t, r.url, r.key, r.job, "succeeded", 60*time.Second)
	}
}

// checkOutcome: every command ran, the rerun with the review's mapping and
// the value fixes turned rejected rows into valid ones, and the offline
// run wrote its rows and issues.
func (r *readmeRun) checkOutcome() {
	t := r.t
	if r.reviewed == "" || r.rerun == "" || r.rerun == r.reviewed {
		t.Fatalf("the review block made no job or no rerun (reviewed %q, rerun %q)", r.reviewed, r.rerun)
	}
	first := waitStatus(t, r.url, r.key, r.reviewed, "succeeded", 60*time.Second)
	second := waitStatus(t, r.url, r.key, r.rerun, "succeeded", 60*time.Second)
	valid := func(j map[string]any) float64 {
		progress, _ := j["progress"].(map[string]any)
		n, _ := progress["rows_valid"].(float64)
		return n
	}
	if valid(second) <= valid(first) {
		t.Fatalf("the rerun with value fixes has %v valid rows, the reviewed run %v: the fixes fixed nothing", valid(second), valid(first))
	}
	var rows []map[string]any
	raw, err := os.ReadFile(filepath.Join(r.dir, "rows.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var row map[string]any
		if line != "" && json.Unmarshal([]byte(line), &row) == nil {
			rows = append(rows, row)
		}
	}
	if issues, err := os.ReadFile(filepath.Join(r.dir, "issues.jsonl")); err != nil || !strings.Contains(string(issues), `"code":"invalid_date"`) {
		t.Fatalf("the offline run's issues name no impossible date: %v %s", err, issues)
	}
	if clean, err := os.ReadFile(filepath.Join(r.dir, "contacts.clean.csv")); err != nil || !strings.HasPrefix(string(clean), "name,email,phone,country,signed_up,active") {
		t.Fatalf("jobs rows wrote no CSV with the schema's header: %v %q", err, clean)
	}
	t.Logf("ran %d README commands; the rerun has %v valid rows (the reviewed run %v); offline %d rows", r.ran, valid(second), valid(first), len(rows))
}

// shellBlocks returns the ```sh blocks of the named sections of a
// Markdown text, in order.
func shellBlocks(md string, sections ...string) []string {
	var out []string
	for _, name := range sections {
		_, rest, ok := strings.Cut(md, "\n## "+name+"\n")
		if !ok {
			continue
		}
		rest, _, _ = strings.Cut(rest, "\n## ")
		for {
			_, after, ok := strings.Cut(rest, "```sh\n")
			if !ok {
				break
			}
			block, tail, _ := strings.Cut(after, "```")
			out = append(out, block)
			rest = tail
		}
	}
	return out
}

// commandLines joins a block's continued lines and drops blank ones.
func commandLines(block string) []string {
	var out []string
	var cur strings.Builder
	for _, line := range strings.Split(block, "\n") {
		if strings.HasSuffix(strings.TrimRight(line, " "), `\`) {
			cur.WriteString(strings.TrimSuffix(strings.TrimRight(line, " "), `\`))
			continue
		}
		cur.WriteString(line)
		if s := strings.TrimSpace(cur.String()); s != "" {
			out = append(out, s)
		}
		cur.Reset()
	}
	return out
}
