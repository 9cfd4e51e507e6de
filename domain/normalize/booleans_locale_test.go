package normalize

import (
	"testing"
)

// TestRun_booleanLocale: a job's boolean_locale reads that language's yes
// and no words, in any of their cases, besides the English ones; without
// it "ja" is invalid_boolean, and a Dutch job does not read "oui".
func TestRun_booleanLocale(t *testing.T) {
	t.Parallel()
	s := mustSchema(t, `{"fields":[{"name":"id","type":"integer"},{"name":"active","type":"boolean"}]}`)
	rows := [][]string{{"id", "active"}, {"1", "ja"}, {"2", "Nein"}, {"3", "yes"}, {"4", "oui"}, {"5", "NEE"}}
	for _, c := range []struct {
		locale string
		want   []any // active of rows 1–5; nil: rejected
	}{
		{"", []any{nil, nil, true, nil, nil}},
		{"de", []any{true, false, true, nil, nil}},
		{"fr", []any{nil, nil, true, true, nil}},
		{"nl", []any{true, nil, true, nil, false}},
	} {
		t.Run("locale_"+c.locale, func(t *testing.T) {
			t.Parallel()
			opts := `{}`
			if c.locale != "" {
				opts = `{"boolean_locale":"` + c.locale + `"}`
			}
			r := runEdits(t, s, opts, nil, source("", rows...))
			if r.err != nil {
				t.Fatal(r.err)
			}
			got := map[float64]any{}
			for _, row := range r.rows {
				got[row["id"].(float64)] = row["active"]
			}
			for i, w := range c.want {
				v, ok := got[float64(i+1)]
				if (w == nil) == ok || (ok && v != w) {
					t.Errorf("row %d: got %v (kept %v), want %v", i+1, v, ok, w)
				}
			}
		})
	}
	for _, bad := range []string{`{"boolean_locale":"ja"}`, `{"boolean_locale":"de-DE"}`, `{"boolean_locale":1}`} {
		if _, err := ParseOptions(ModeNormalize, []byte(bad)); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}
