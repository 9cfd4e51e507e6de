package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// failingClose is a file whose bytes are lost when it is closed, as on a
// full disk or a network filesystem that reports delayed write errors at
// close.
type failingClose struct{ io.WriteCloser }

func (f failingClose) Close() error {
	_ = f.WriteCloser.Close()
	return errors.New("input/output error")
}

// TestNormalizeCommand_outputFailures: a file the command wrote that
// cannot be written or closed is exit 1 naming it, never exit 0.
func TestNormalizeCommand_outputFailures(t *testing.T) {
	dir := t.TempDir()
	input := write(t, dir, "a.csv", "a\n1\nx\n")
	schemaFile := write(t, dir, "schema.json", `{"fields":[{"name":"a","type":"integer"}]}`)
	rowsFile, issuesFile := filepath.Join(dir, "rows.jsonl"), filepath.Join(dir, "issues.jsonl")

	t.Run("write error", func(t *testing.T) {
		_, err := run(t, nil, "normalize", "--schema", schemaFile, "--out", "/dev/full", input)
		if exitCode(err) != 1 || !strings.Contains(err.Error(), "no space left") {
			t.Fatalf("err %v (exit %d), want exit 1 for a full device", err, exitCode(err))
		}
	})
	for _, failing := range []string{rowsFile, issuesFile} {
		t.Run("close error of "+filepath.Base(failing), func(t *testing.T) {
			create := createOutput
			t.Cleanup(func() { createOutput = create })
			createOutput = func(name string) (io.WriteCloser, error) {
				f, err := os.Create(name)
				if err != nil || name != failing {
					return f, err
				}
				return failingClose{f}, nil
			}
			_, err := run(t, nil, "normalize", "--schema", schemaFile, "--out", rowsFile, "--errors", issuesFile, input)
			if exitCode(err) != 1 || !strings.Contains(err.Error(), failing) || !strings.Contains(err.Error(), "input/output error") {
				t.Fatalf("err %v (exit %d), want exit 1 naming %s", err, exitCode(err), failing)
			}
		})
	}
}
