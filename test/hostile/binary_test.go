package hostile

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	buildOnce  sync.Once
	builtPath  string
	buildError error
)

// serveBinary builds the tabnorm command once for the package, so that
// memory is measured on a server process of its own, not on the tests.
func serveBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "tabnorm-hostile")
		if err != nil {
			buildError = err
			return
		}
		builtPath = filepath.Join(dir, "tabnorm")
		out, err := exec.Command("go", "build", "-o", builtPath, "github.com/tabnorm/tabnorm/cmd/tabnorm").CombinedOutput()
		if err != nil {
			buildError = err
			builtPath = string(out)
		}
	})
	if buildError != nil {
		t.Fatalf("build tabnorm: %v\n%s", buildError, builtPath)
	}
	return builtPath
}

// served is a running `tabnorm serve` process.
type served struct {
	cmd      *exec.Cmd
	url      string
	password string // of the first admin, admin@localhost
}

var (
	listeningLine = regexp.MustCompile(`tabnorm is serving on \S+ \(listening on (\S+)\)`)
	adminPassword = regexp.MustCompile(`password: (\S+)`)
)

// serve starts the binary on a fresh SQLite database in a temporary
// folder, with extra settings, and waits until it listens.
func serve(t *testing.T, env ...string) *served {
	t.Helper()
	cmd := exec.Command(serveBinary(t), "serve")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), append([]string{"TABNORM_HTTP_ADDR=127.0.0.1:0", "TABNORM_LOG_LEVEL=error"}, env...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	s := &served{cmd: cmd}
	found := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := adminPassword.FindStringSubmatch(sc.Text()); m != nil {
				s.password = m[1]
			}
			if m := listeningLine.FindStringSubmatch(sc.Text()); m != nil {
				s.url = "http://" + m[1]
				close(found)
				break
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case <-found:
	case <-time.After(90 * time.Second):
		t.Fatal("serve did not start within 90 s")
	}
	return s
}

// peakRSS is the process's peak resident set (VmHWM), in bytes.
func (s *served) peakRSS(t *testing.T) int64 {
	t.Helper()
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(s.cmd.Process.Pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc/PID/status")
	return 0
}
