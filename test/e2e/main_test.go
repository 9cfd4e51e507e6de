// Package e2e tests the tabnorm binary from outside: it builds the command,
// runs it as a person or an operator would, and talks to it over HTTP.
package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// binary is the tabnorm command built once for the package's tests.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "tabnorm-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "tabnorm")
	build := exec.Command("go", "build", "-o", binary, "github.com/tabnorm/tabnorm/cmd/tabnorm")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build tabnorm:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
