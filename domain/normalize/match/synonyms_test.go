package match

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestSynonyms_data: synonyms.json reads, every concept has a kind the
// profile knows and names only concepts there are, and the concepts the
// matcher is promised for have spellings in each of the seven languages.
func TestSynonyms_data(t *testing.T) {
	t.Parallel()
	var doc struct {
		Concepts []map[string]json.RawMessage `json:"concepts"`
	}
	if err := json.Unmarshal(synonymsJSON, &doc); err != nil {
		t.Fatal(err)
	}
	byName := map[string]map[string]json.RawMessage{}
	for _, raw := range doc.Concepts {
		var name string
		_ = json.Unmarshal(raw["concept"], &name)
		byName[name] = raw
		checkConcept(t, name, raw)
	}
	for _, c := range []string{"name", "first_name", "last_name", "email", "phone", "address", "street", "city", "postal_code", "country",
		"date_of_birth", "company", "amount", "price", "quantity", "currency", "date", "id"} {
		raw := byName[c]
		if raw == nil {
			t.Errorf("no concept %s", c)
			continue
		}
		for _, lang := range []string{"en", "de", "fr", "es", "it", "pt", "nl"} {
			var names []string
			if err := json.Unmarshal(raw[lang], &names); err != nil || len(names) == 0 {
				t.Errorf("%s has no spelling in %s", c, lang)
			}
		}
	}
}

// checkConcept checks one concept of synonyms.json.
func checkConcept(t *testing.T, name string, raw map[string]json.RawMessage) {
	t.Helper()
	var kind string
	_ = json.Unmarshal(raw["kind"], &kind)
	if !slices.Contains(profileKinds, kind) {
		t.Errorf("%s: kind %q is none the profile reads", name, kind)
	}
	for key := range raw {
		switch key {
		case "concept", "kind", "related", "close", "en", "de", "fr", "es", "it", "pt", "nl", "abbr":
		default:
			t.Errorf("%s: unknown key %q", name, key)
		}
	}
	for _, r := range []string{"related", "close"} {
		var names []string
		_ = json.Unmarshal(raw[r], &names)
		for _, n := range names {
			if synonyms().concepts[n] == nil {
				t.Errorf("%s: %s names no concept %q", name, r, n)
			}
		}
	}
}

// TestHeaderConcepts: how headers name concepts, in the languages and the
// shapes files have.
func TestHeaderConcepts(t *testing.T) {
	t.Parallel()
	ix := synonyms()
	for _, tc := range []struct{ header, want string }{
		{"Courriel", "email"}, {"E-Mail-Adresse", "email"}, {"cust_eml", "email"}, {"custEmail", "email"},
		{"PLZ", "postal_code"}, {"Tel.", "phone"}, {"DOB", "date_of_birth"}, {"Geburtsdatum", "date_of_birth"},
		{"Téléphone", "phone"}, {"Straße", "street"}, {"Apellidos", "last_name"}, {"Rechnungsbetrag", "amount"},
		{"Customer ID", "id"}, {"Nom de la société", "company"}, {"Number of items", "quantity"},
		{"Column 7", ""}, {"Unnamed: 3", ""}, {"", ""},
	} {
		hits, generic := ix.conceptsOf(tc.header)
		got := ""
		if len(hits) > 0 {
			got = hits[0].c.name
		}
		if got != tc.want || tc.want == "" && !generic {
			t.Errorf("%q: %q (generic %v), want %q", tc.header, got, generic, tc.want)
		}
	}
}
