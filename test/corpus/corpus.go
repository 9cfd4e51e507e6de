// Package corpus finds the shared corpus of real-world files for tests:
// at TABNORM_TEST_CORPUS, else in the folder "shared/corpus" beside the
// repository (where CI has it), whatever the package under test.
package corpus

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Find returns the corpus folder and whether it exists.
func Find() (string, bool) {
	dir := os.Getenv("TABNORM_TEST_CORPUS")
	if dir == "" {
		_, file, _, _ := runtime.Caller(0) // …/test/corpus/corpus.go in the repository
		dir = filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "corpus")
	}
	_, err := os.Stat(dir)
	return dir, err == nil
}

// Dir returns the corpus folder. Without it the test fails under CI=true
// and is skipped loudly otherwise.
func Dir(t testing.TB) string {
	t.Helper()
	dir, ok := Find()
	if !ok {
		if os.Getenv("CI") == "true" {
			t.Fatalf("corpus missing at %s: CI must have it (or set TABNORM_TEST_CORPUS)", dir)
		}
		t.Skipf("*** SKIPPING: the shared corpus is not at %s (it sits beside the repository in CI; or set TABNORM_TEST_CORPUS) ***", dir)
	}
	return dir
}
