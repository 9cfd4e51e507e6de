package match

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestVocabulary_data: vocabulary.json reads, records its sources, and
// every concept has words in each of the seven languages.
func TestVocabulary_data(t *testing.T) {
	t.Parallel()
	var doc struct {
		Sources []struct {
			Name    string `json:"name"`
			UsedFor string `json:"used_for"`
		} `json:"sources"`
		Stopwords []string                     `json:"stopwords"`
		Concepts  []map[string]json.RawMessage `json:"concepts"`
	}
	if err := json.Unmarshal(vocabularyJSON, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Sources) == 0 {
		t.Error("no sources recorded")
	}
	for _, s := range doc.Sources {
		if s.Name == "" || s.UsedFor == "" {
			t.Errorf("a source without its name or use: %+v", s)
		}
	}
	if len(doc.Concepts) < 120 {
		t.Errorf("%d concepts, want at least 120", len(doc.Concepts))
	}
	ids := map[string]bool{}
	for _, raw := range doc.Concepts {
		var id string
		if err := json.Unmarshal(raw["id"], &id); err != nil || id == "" || ids[id] {
			t.Errorf("a concept without an id, or twice: %q", id)
		}
		ids[id] = true
		for key := range raw {
			if key != "id" && key != "light" && key != "close" && key != "kind" && !slices.Contains(vocabLanguages, key) {
				t.Errorf("%s: unknown key %q", id, key)
			}
		}
		for _, lang := range vocabLanguages[:7] {
			var words []string
			if err := json.Unmarshal(raw[lang], &words); err != nil || len(words) == 0 {
				t.Errorf("%s has no word in %s", id, lang)
			}
		}
	}
}

// TestVocabulary_terms: headers split into words (snake_case, camelCase,
// spaces, compounds), folded and translated.
func TestVocabulary_terms(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ header, want string }{
		{"deceduti", "death"},
		{"Todesfälle", "death"},
		{"totale_casi", "total case"},
		{"denominazione_regione", "name region"},
		{"Beitrittsdatum", "join date"},   // a German compound with its linking s
		{"Gemeentenaam", "city name"},     // a Dutch one
		{"Impfdatum", "vaccination date"}, // a stem and a word
		{"AantalCumulatief", "count cumulative"},
		{"NOM ETABLISSEMENT", "name facility"},
		{"start_datum", "start date"},
		{"Período", "period"},
		{"doses1", "dose first"},
		{"codice_nuts_2", "code =nuts"},
		{"7T_Hospitalisierung_Faelle", "hospitalized case"},
		{"Column 7", "=column"},
	} {
		var got []string
		for _, tm := range vocab().terms(tc.header) {
			got = append(got, tm.id)
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%q: got %q, want %q", tc.header, strings.Join(got, " "), tc.want)
		}
	}
}

// TestVocabulary_score: the header that is the field's words beats one
// with more words; a light word (name, total) costs less than a telling
// one (code); a header naming part of the field stays under headerLed.
func TestVocabulary_score(t *testing.T) {
	t.Parallel()
	v := vocab()
	score := func(header, field string) float64 { return vocabScore(v.terms(header), fieldTerms(field, "", nil)) }
	for _, tc := range []struct {
		header, field string
		min, max      float64
	}{
		{"deceduti", "deaths", 0.94, 1},
		{"Fallecidos", "deaths", 0.94, 1},
		{"denominazione_regione", "region", autoThreshold, 0.94},
		{"codice_regione", "region", 0, autoThreshold - 0.1},
		{"codice_regione", "region_code", 0.94, 1},
		{"codice_nuts_2", "region_code", 0, headerLed},
		{"nuovi_positivi", "total_cases", 0, headerLed},
		{"Beitrittsdatum", "join_date", 0.94, 1},
	} {
		if got := score(tc.header, tc.field); got < tc.min || got > tc.max {
			t.Errorf("%q for %s: %.2f, want %.2f to %.2f", tc.header, tc.field, got, tc.min, tc.max)
		}
	}
	if a, b := score("denominazione_regione", "region"), score("codice_regione", "region"); a-b < 0.1 {
		t.Errorf("denominazione_regione %.2f and codice_regione %.2f for region are too close", a, b)
	}
}
