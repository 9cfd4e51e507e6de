package httpapi

import "testing"

// TestKnownMethod: spans are named by a standard method or _OTHER, never
// by a method a client made up.
func TestKnownMethod(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"GET": "GET", "PATCH": "PATCH", "TRACE": "TRACE", "BREW": "_OTHER", "get": "_OTHER", "": "_OTHER"} {
		if got := knownMethod(in); got != want {
			t.Errorf("knownMethod(%q) = %q, want %q", in, got, want)
		}
	}
}
