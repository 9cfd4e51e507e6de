package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/test/testtime"
)

// server is a running `tabnorm serve` process.
type server struct {
	cmd      *exec.Cmd
	url      string
	password string
	exited   chan error
}

var listening = regexp.MustCompile(`tabnorm is serving on \S+ \(listening on (\S+)\)`)
var passwordLine = regexp.MustCompile(`password: (\S+)`)

// startServe runs the binary's serve command in dir with env, and waits
// until it says where it listens.
func startServe(t testing.TB, dir string, env ...string) *server {
	t.Helper()
	return startServeRole(t, dir, "all", env...)
}

// startServeRole runs `serve --role role`; the worker role has no HTTP
// server, so it is ready once its start-up line is printed.
func startServeRole(t testing.TB, dir, role string, env ...string) *server {
	t.Helper()
	s, found := launchServe(t, dir, role, env...)
	s.await(t, found)
	return s
}

// launchServe starts `serve --role role` without waiting; found closes
// once the process says it is serving (or working, for the worker role).
func launchServe(t testing.TB, dir, role string, env ...string) (*server, <-chan struct{}) {
	t.Helper()
	cmd := exec.Command(binary, "serve", "--role", role)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), append([]string{"TABNORM_HTTP_ADDR=127.0.0.1:0", "TABNORM_LOG_LEVEL=warn"}, env...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = &testWriter{t: t}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &server{cmd: cmd, exited: make(chan error, 1)}
	found := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			if m := passwordLine.FindStringSubmatch(line); m != nil {
				s.password = m[1]
			}
			if m := listening.FindStringSubmatch(line); m != nil {
				s.url = "http://" + m[1]
				close(found)
			} else if role == "worker" && strings.HasPrefix(line, "tabnorm is working") {
				close(found)
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
	}()
	go func() { s.exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
	})
	return s, found
}

// await waits for a launched process to be serving; it fails the test if
// the process exits first or takes over 60 s.
func (s *server) await(t testing.TB, found <-chan struct{}) {
	t.Helper()
	select {
	case <-found:
	case err := <-s.exited:
		t.Fatalf("serve exited before listening: %v", err)
	case <-testtime.After(60 * time.Second):
		_ = s.cmd.Process.Kill()
		t.Fatal("serve did not start within 60 s")
	}
}

// execCommand prepares a tabnorm command in dir with extra settings.
func execCommand(dir string, env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(binary, args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	return cmd
}

// stop sends SIGTERM and returns the exit error.
func (s *server) stop(t testing.TB) error {
	t.Helper()
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-s.exited:
		return err
	case <-testtime.After(30 * time.Second):
		t.Fatal("serve did not stop within 30 s of SIGTERM")
		return nil
	}
}

type testWriter struct{ t testing.TB }

func (w *testWriter) Write(p []byte) (int, error) {
	w.t.Logf("serve: %s", strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func getStatus(t testing.TB, url string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

// TestServe_freshDirectory is the README's first command: in an empty
// folder, with no settings, serve keeps its data under ./data, prints the
// first admin login, is ready, and stops cleanly on SIGTERM.
func TestServe_freshDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := startServe(t, dir)
	if s.password == "" {
		t.Fatal("first start printed no admin password")
	}
	if code := getStatus(t, s.url+"/readyz"); code != 200 {
		t.Fatalf("/readyz = %d", code)
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "tabnorm.db")); err != nil {
		t.Fatalf("no database under ./data: %v", err)
	}
	if err := s.stop(t); err != nil {
		t.Fatalf("serve exited with %v after SIGTERM, want 0", err)
	}
}

// TestServe_adminWhileServing runs operator commands against the database
// a running server uses, on SQLite and PostgreSQL.
func TestServe_adminWhileServing(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			dbEnv := "TABNORM_DATABASE_URL=" + target.URL
			s := startServe(t, dir, dbEnv)
			if code := getStatus(t, s.url+"/readyz"); code != 200 {
				t.Fatalf("/readyz = %d", code)
			}
			for i := range 5 {
				cmd := exec.Command(binary, "admin", "create-org", "--name", "Acme", "--json")
				cmd.Dir, cmd.Env = dir, append(os.Environ(), dbEnv)
				out, err := cmd.Output()
				if err != nil {
					t.Fatalf("create-org #%d while serving: %v", i, err)
				}
				var org map[string]any
				if err := json.Unmarshal(out, &org); err != nil || org["object"] != "organization" {
					t.Fatalf("create-org printed %q", out)
				}
				if code := getStatus(t, s.url+"/readyz"); code != 200 {
					t.Fatalf("/readyz = %d while admin writes", code)
				}
			}
			if err := s.stop(t); err != nil {
				t.Fatalf("exit after SIGTERM: %v", err)
			}
		})
	}
}

func TestServe_badSettingExits2(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(binary, "serve")
	cmd.Env = append(os.Environ(), "TABNORM_DATABASE_URL=mysql://x")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Fatalf("exit = %v, want 2", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], "TABNORM_DATABASE_URL") {
		t.Fatalf("want one clear line, got:\n%s", out)
	}
}
