package review

import (
	"slices"
	"testing"
)

// TestMemberOf: a value is found by its key at the object's top level
// only, whatever the strings around it hold.
func TestMemberOf(t *testing.T) {
	t.Parallel()
	obj := []byte(`{"note":"a,\"id\":9,\\","_extra":{"id":7},"id":42,"email":null,"name":"b\"}"}`)
	for key, want := range map[string]string{"id": "42", "email": "null", "name": `"b\"}"`, "note": `"a,\"id\":9,\\"`, "_extra": `{"id":7}`, "nope": ""} {
		if got := string(memberOf(obj, key)); got != want {
			t.Errorf("memberOf(%s) = %q, want %q", key, got, want)
		}
	}
	if memberOf([]byte(`null`), "id") != nil {
		t.Error("memberOf(null) is not nil")
	}
}

// TestCompareKeys: numbers by value, texts by their bytes, nulls last
// both ways; a stable sort keeps ties in the files' order.
func TestCompareKeys(t *testing.T) {
	t.Parallel()
	keys := []sortKey{typedKey(entry{off: 0}, []byte(`10`)), typedKey(entry{off: 1}, []byte(`null`)), typedKey(entry{off: 2}, []byte(`9.5`)),
		typedKey(entry{off: 3}, []byte(`"2024-01-02"`)), typedKey(entry{off: 4}, []byte(`10`)), typedKey(entry{off: 5}, nil)}
	order := func(desc bool) []int64 {
		k := slices.Clone(keys)
		slices.SortStableFunc(k, func(a, b sortKey) int { return compareKeys(a, b, desc) })
		out := make([]int64, len(k))
		for i, x := range k {
			out[i] = x.e.off
		}
		return out
	}
	if got := order(false); !slices.Equal(got, []int64{2, 0, 4, 3, 1, 5}) {
		t.Errorf("ascending %v", got)
	}
	if got := order(true); !slices.Equal(got, []int64{3, 0, 4, 2, 1, 5}) {
		t.Errorf("descending %v", got)
	}
}

// TestAppendSearchText: a cell's text as a search reads it, in lower case
// as strings.ToLower has the query, also past ASCII; its separators are
// spaces, so that no match spans two cells.
func TestAppendSearchText(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"MÜLLER Straße": "müller straße", "X.IO": "x.io", "a\x1fb\nc": "a b c"} {
		if got := string(appendSearchText([]byte("to "), in)); got != "to "+want {
			t.Errorf("appendSearchText(%q) = %q, want %q", in, got, "to "+want)
		}
	}
	if !hasIssueText([]byte("email\x1finvalid_email\x1e\x1fduplicate_row"), "", "duplicate_row") ||
		hasIssueText([]byte("email\x1finvalid_email"), "id", "") || !hasIssueText([]byte("email\x1finvalid_email"), "email", "") {
		t.Error("hasIssueText")
	}
}
