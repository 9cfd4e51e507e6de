package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRelease_versionFromTag: a release is built from a tagged commit
// (task release), and the Go toolchain stamps the tag into the binary as
// the main module's version, with the commit: `tabnorm version` prints
// them, so no -ldflags can be forgotten. The test tags a clone of this
// checkout's HEAD and builds it as the release task does.
func TestRelease_versionFromTag(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		t.Skipf("*** SKIPPING %s: %s is not a git checkout, so there is no commit to tag ***", t.Name(), root)
	}
	clone := filepath.Join(t.TempDir(), "src")
	git := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=release", "GIT_AUTHOR_EMAIL=release@example.test",
			"GIT_COMMITTER_NAME=release", "GIT_COMMITTER_EMAIL=release@example.test")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git(root, "clone", "--quiet", "--no-hardlinks", root, clone)
	git(clone, "tag", "-a", "v1.8.7", "-m", "release v1.8.7")
	commit := git(clone, "rev-parse", "HEAD")
	bin := filepath.Join(t.TempDir(), "tabnorm")
	build := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", bin, "./cmd/tabnorm")
	build.Dir = clone
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=-buildvcs=true")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("release build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version", "--json").Output()
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Version, Commit string
		Modified        bool
	}
	if err := json.Unmarshal(out, &v); err != nil || v.Version != "v1.8.7" || v.Commit != commit || v.Modified {
		t.Fatalf("tabnorm version of a build of tag v1.8.7 at %s printed %s (%v)", commit, out, err)
	}
}
