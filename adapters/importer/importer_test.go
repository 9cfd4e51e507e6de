package importer

import (
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestLocales_sameKeys: every message file has every key English has, and
// no other, so a language never shows a key instead of a sentence.
func TestLocales_sameKeys(t *testing.T) {
	t.Parallel()
	keys := func(name string) []string {
		f, ok := Asset("locales/" + name + ".json")
		if !ok {
			t.Fatalf("no %s.json", name)
		}
		var m map[string]string
		if err := json.Unmarshal(f.Body, &m); err != nil {
			t.Fatalf("%s.json: %v", name, err)
		}
		return slices.Sorted(maps.Keys(m))
	}
	en := keys("en")
	if de := keys("de"); !slices.Equal(en, de) {
		t.Fatalf("de.json keys differ from en.json:\n%v\n%v", de, en)
	}
}

// TestPage_escapesItsData: the origins and the id reach the page as
// escaped attribute text, never as markup or script.
func TestPage_escapesItsData(t *testing.T) {
	t.Parallel()
	page, err := Page(`imp_"><script>x</script>`, []string{`https://a.example"><script>`}, "de")
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	if strings.Contains(s, "<script>x") || strings.Contains(s, `a.example"><script>`) || !strings.Contains(s, `lang="de"`) {
		t.Fatalf("page %s", s)
	}
	if strings.Count(s, "<script") != 1 || !strings.Contains(s, `<script type="module" src="/embed/v1/app.js"></script>`) {
		t.Fatalf("the page has script of its own: %s", s)
	}
}

// TestApp_wordsExist: every message key app.js names literally (t("…")
// and t(cond ? "…" : "…")) is in en.json, so no step shows a bare key.
func TestApp_wordsExist(t *testing.T) {
	t.Parallel()
	app, ok := Asset("app.js")
	en, ok2 := Asset("locales/en.json")
	if !ok || !ok2 {
		t.Fatal("no app.js or en.json")
	}
	var words map[string]string
	if err := json.Unmarshal(en.Body, &words); err != nil {
		t.Fatal(err)
	}
	calls := regexp.MustCompile(`\bt\(([^()]*?)[,)]`).FindAllStringSubmatch(string(app.Body), -1)
	literal := regexp.MustCompile(`"([a-zA-Z]+\.[a-zA-Z.]+|[a-z]+)"`)
	seen := 0
	for _, c := range calls {
		for _, k := range literal.FindAllStringSubmatch(c[1], -1) {
			seen++
			if _, ok := words[k[1]]; !ok {
				t.Errorf("app.js names %q, which en.json lacks", k[1])
			}
		}
	}
	if seen < 50 {
		t.Fatalf("found only %d keys in app.js: the pattern no longer reads it", seen)
	}
}
