package normalize

import (
	"context"
	"strings"
	"testing"
)

func TestRun_replacementsInStepOrderWithEdits(t *testing.T) {
	t.Parallel()
	s := mustSchema(t, `{"fields":[{"name":"id","type":"integer"},{"name":"country","type":"string","constraints":{"enum":["DE","FR"]}},{"name":"city","type":"string"}]}`)
	src := source("", []string{"id", "country", "city"},
		[]string{"1", "Deutschland", "Berlin"},
		[]string{"2", "Deutschland", "Bonn"},    // edited at step 2, after the replacement: the edit wins
		[]string{"3", "France", "Paris"},        // edited at step 0 to Deutschland: the replacement changes the edit
		[]string{"4", "Germany (DE)", "Munich"}, // a regex's group
		[]string{"5", "deutschland", "Köln"},    // exact is case-sensitive; contains is not
	)
	edits := []Edit{{Row: 2, Field: "country", Value: sp("FR"), Step: 2}, {Row: 3, Field: "country", Value: sp("Deutschland")}}
	o, _ := ParseOptions(ModeNormalize, nil)
	in := Input{Mode: ModeNormalize, Schema: s, Options: o, Sources: []Source{src}, Edits: edits, Replacements: []Replacement{
		{Field: "country", Find: `\((\w+)\)$`, Replace: "$1", Match: MatchRegex, Step: 3},
		{Field: "country", Find: "Deutschland", Replace: "DE", Match: MatchExact, Step: 1},
		{Field: "city", Find: "O", Replace: "0", Match: MatchContains, Step: 4, Rows: map[string][]int64{"": {2}}},
	}}
	got, err := CheckRows(context.Background(), in, map[string][]int64{"": {1, 2, 3, 4, 5}})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ country, city string }{{"DE", "Berlin"}, {"FR", "B0nn"}, {"DE", "Paris"}, {"Germany DE", "Munich"}, {"deutschland", "Köln"}}
	for i, w := range want {
		c := got[i]
		if c.Cells["country"] == nil || *c.Cells["country"] != w.country || *c.Cells["city"] != w.city {
			t.Errorf("row %d: country %v city %v, want %q %q", c.Row, *c.Cells["country"], *c.Cells["city"], w.country, w.city)
		}
	}
	if !got[0].Valid || !strings.Contains(strings.Join(got[0].Edited, ","), "country") {
		t.Errorf("row 1 = valid %v edited %v, want valid with country marked changed", got[0].Valid, got[0].Edited)
	}
	if got[4].Valid {
		t.Errorf("row 5 is valid; want deutschland left as it is (exact is case-sensitive) and refused by the enum")
	}
}

func TestReplacer_matchesAndBounds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		r          Replacement
		cell, want string
		matched    bool
	}{
		{Replacement{Find: "ä", Replace: "ae", Match: MatchContains}, "MÄRZ März", "MaeRZ Maerz", true},
		{Replacement{Find: "x", Replace: "y", Match: MatchExact}, "xx", "xx", false},
		{Replacement{Find: "", Replace: "n/a", Match: MatchExact}, "", "n/a", true},
		{Replacement{Find: "a*", Replace: strings.Repeat("z", 40000), Match: MatchRegex}, "bb", "bb", false}, // over 64 KiB: left as it is
	} {
		c, err := tc.r.Compile()
		if err != nil {
			t.Fatal(err)
		}
		got, ok := c.Apply(tc.cell)
		var buf []byte
		if got != tc.want || ok != tc.matched || (tc.matched && !c.Matches([]byte(tc.cell), &buf)) {
			t.Errorf("%+v on %q = %q, %v; want %q, %v", tc.r, tc.cell, got, ok, tc.want, tc.matched)
		}
	}
	s := mustSchema(t, editsSchema)
	errs := CheckReplacement(Replacement{Field: "label", Find: "(", Match: MatchRegex}, s)
	if len(errs) != 2 || errs[0].Field != "field" || errs[1].Field != "find" {
		t.Fatalf("CheckReplacement of a computed field and a bad regex = %v, want field and find named", errs)
	}
	if errs := CheckReplacement(Replacement{Field: "email", Find: strings.Repeat("a", MaxFindBytes+1), Match: "fuzzy"}, s); len(errs) != 2 {
		t.Fatalf("CheckReplacement of a long find and an unknown match = %v, want match and find named", errs)
	}
}

func TestHistory_undoRedoOrder(t *testing.T) {
	t.Parallel()
	h := History{{Step: 1}, {Step: 2}, {Step: 3, Undone: true}, {Step: 4, Undone: true}}
	if i, err := h.Undoable(); err != nil || h[i].Step != 2 {
		t.Fatalf("Undoable = %d, %v; want step 2", i, err)
	}
	if i, err := h.Redoable(); err != nil || h[i].Step != 3 {
		t.Fatalf("Redoable = %d, %v; want step 3", i, err)
	}
	if _, err := (History{}).Undoable(); err != ErrNothingToUndo {
		t.Fatalf("Undoable of no steps = %v", err)
	}
	if _, err := h[:2].Redoable(); err != ErrNothingToRedo {
		t.Fatalf("Redoable of no undone steps = %v", err)
	}
	if n := h.NextStep(7); n != 8 {
		t.Fatalf("NextStep after an edit of step 7 = %d, want 8", n)
	}
	if s := ReplacementSummary(Replacement{Field: "country", Find: "Deutschland", Replace: "DE"}, 1204); s != "country: Deutschland → DE (1,204 cells)" {
		t.Fatalf("ReplacementSummary = %q", s)
	}
}
