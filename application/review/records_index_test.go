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

// TestSorter: numbers by value, texts by their bytes (escapes read),
// nulls last both ways, ties in the files' order.
func TestSorter(t *testing.T) {
	t.Parallel()
	values := []string{`10`, `null`, `9.5`, `"2024-01-02"`, `10`, ``, `"a\"b"`, `"a"`}
	order := func(desc bool) []uint32 {
		s := &sorter{desc: desc}
		for i, v := range values {
			s.add(uint32(i), []byte(v))
		}
		s.sort()
		out := make([]uint32, len(s.keys))
		for i, k := range s.keys {
			out[i] = k.at
		}
		return out
	}
	if got := order(false); !slices.Equal(got, []uint32{2, 0, 4, 3, 7, 6, 1, 5}) {
		t.Errorf("ascending %v", got)
	}
	if got := order(true); !slices.Equal(got, []uint32{6, 7, 3, 0, 4, 2, 1, 5}) {
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
