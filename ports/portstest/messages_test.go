package portstest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// failure is a suite's failure call with its message.
var failure = regexp.MustCompile(`t\.(?:Fatalf|Errorf|Fatal)\("((?:[^"\\]|\\.)*)"`)

// named is the start of a message that names what was called: a port's
// method (Jobs.Get), a suite helper's subject (%s) or a listing (List:).
var named = regexp.MustCompile(`^(?:[A-Z][A-Za-z]*\.[A-Z][A-Za-z]*|%s|List:|Queue:|%v, want)`)

// TestSuites_failuresNameTheMethodAndTheExpectation: every failure of a
// conformance suite says which port method answered what, and what was
// wanted, so an adapter's author reads the broken promise from the
// message alone.
func TestSuites_failuresNameTheMethodAndTheExpectation(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range failure.FindAllStringSubmatch(string(src), -1) {
			if msg := m[1]; !named.MatchString(msg) || !strings.Contains(msg, "want") {
				t.Errorf("%s: the failure %q does not name the port method and say what was wanted", f, msg)
			}
		}
	}
}
