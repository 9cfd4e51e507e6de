package id

import (
	"sort"
	"testing"
)

func TestNew_sortableAndWellFormed(t *testing.T) {
	t.Parallel()
	ids := make([]string, 1000)
	for i := range ids {
		ids[i] = New(Job)
	}
	if !sort.StringsAreSorted(ids) {
		t.Fatal("ids made in sequence do not sort in sequence")
	}
	seen := map[string]bool{}
	for _, s := range ids {
		if !HasPrefix(s, Job) {
			t.Fatalf("%q is not a well-formed job id", s)
		}
		if seen[s] {
			t.Fatalf("duplicate id %q", s)
		}
		seen[s] = true
	}
	if HasPrefix(ids[0], Org) || HasPrefix("job_short", Job) {
		t.Fatal("HasPrefix accepted a wrong id")
	}
}
