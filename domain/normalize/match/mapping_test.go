package match

import (
	"testing"

	"github.com/tabnorm/tabnorm/domain/schema"
)

func TestJaroWinkler(t *testing.T) {
	t.Parallel()
	if s := jaroWinkler("emial", "email"); s < fuzzyThreshold {
		t.Errorf("emial/email %.3f", s)
	}
	if s := jaroWinkler("phone", "email"); s >= fuzzyThreshold {
		t.Errorf("phone/email %.3f", s)
	}
	if s := jaroWinkler("abc", "abc"); s != 1 {
		t.Errorf("identical %.3f", s)
	}
}

func mustSchema(t *testing.T, doc string) *schema.Schema {
	t.Helper()
	s, err := schema.Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestColumns_headerMethods: each header method, strongest first, and a
// field taken once.
func TestColumns_headerMethods(t *testing.T) {
	t.Parallel()
	s := mustSchema(t, `{"fields":[{"name":"email"},{"name":"first_name"},{"name":"phone","aliases":["tel"]},{"name":"country"},{"name":"city"},{"name":"zip"}]}`)
	header := []string{"email", "First Name", "Tel.", "Land", "Ciyt", "Postleitzahl", "junk"}
	to, entries, _ := Columns(Input{Header: header, Schema: s, Explicit: map[string]string{"Postleitzahl": "zip"}, Learned: map[string]string{"land": "country"}})
	want := []string{MethodExact, MethodNormalized, MethodAlias, MethodLearned, MethodFuzzy, MethodExplicit, ""}
	for i, e := range entries {
		if e.Method != want[i] {
			t.Errorf("%s: method %q, want %q (field %q)", header[i], e.Method, want[i], e.Field)
		}
	}
	if to[6] != -1 || entries[6].Field != "" {
		t.Errorf("junk mapped to %q", entries[6].Field)
	}
	if entries[4].Confidence >= 1 || entries[4].Field != "city" {
		t.Errorf("fuzzy %+v", entries[4])
	}
	// A field is taken once; the leftmost exact match wins.
	to, _, _ = Columns(Input{Header: []string{"email", "email"}, Schema: s})
	if to[0] != 0 || to[1] != -1 {
		t.Errorf("duplicate headers: %v", to)
	}
}

// TestColumns_nullIgnoresAColumn: an explicit "" leaves a column unmapped,
// even one whose header names a field.
func TestColumns_nullIgnoresAColumn(t *testing.T) {
	t.Parallel()
	s := mustSchema(t, `{"fields":[{"name":"email"},{"name":"name"}]}`)
	to, entries, _ := Columns(Input{Header: []string{"email", "Mail", "Name"}, Schema: s, Explicit: map[string]string{"email": "", "Mail": "email"}})
	if to[0] != -1 || to[1] != 0 || to[2] != 1 || entries[0].Field != "" || entries[1].Method != MethodExplicit {
		t.Fatalf("to %v entries %+v", to, entries)
	}
}
