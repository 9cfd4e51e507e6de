package importer

import (
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/domain/importsession"
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
	for _, l := range importsession.Locales[1:] {
		if other := keys(l); !slices.Equal(en, other) {
			t.Errorf("%s.json keys differ from en.json:\n%v\n%v", l, other, en)
		}
	}
}

// placeholders lists the placeholders a message fills, as app.js reads
// it: "name", or "name,plural" whose forms are messages in turn; sorted,
// without repeats. ok is false for a brace that does not close.
func placeholders(msg string) (names []string, ok bool) {
	for i := 0; i < len(msg); i++ {
		if msg[i] != '{' {
			continue
		}
		end := closing(msg, i)
		if end < 0 {
			return nil, false
		}
		body := msg[i+1 : end]
		if m := pluralPart.FindStringSubmatch(body); m != nil {
			names = append(names, m[1]+",plural")
			for _, f := range pluralForm.FindAllStringIndex(m[2], -1) {
				open := f[1] - 1
				fe := closing(m[2], open)
				if fe < 0 {
					return nil, false
				}
				inner, ok := placeholders(m[2][open+1 : fe])
				if !ok {
					return nil, false
				}
				names = append(names, inner...)
			}
		} else {
			names = append(names, strings.TrimSpace(body))
		}
		i = end
	}
	slices.Sort(names)
	return slices.Compact(names), true
}

var (
	pluralPart = regexp.MustCompile(`^\s*(\w+)\s*,\s*plural\s*,([\s\S]*)$`)
	pluralForm = regexp.MustCompile(`(?:=\d+|zero|one|two|few|many|other)\s*\{`)
)

func closing(msg string, i int) int {
	depth := 0
	for ; i < len(msg); i++ {
		switch msg[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// TestLocales_samePlaceholders: each language's message fills the same
// placeholders as the English one, its braces balance, and a plural part
// has an "other" form, so no sentence loses a number or shows a brace.
func TestLocales_samePlaceholders(t *testing.T) {
	t.Parallel()
	read := func(name string) map[string]string {
		f, _ := Asset("locales/" + name + ".json")
		var m map[string]string
		if err := json.Unmarshal(f.Body, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	en := read("en")
	for _, l := range importsession.Locales {
		words := read(l)
		for k, msg := range words {
			got, ok := placeholders(msg)
			if !ok {
				t.Errorf("%s %s: unbalanced braces in %q", l, k, msg)
				continue
			}
			if strings.Contains(msg, "plural") && !strings.Contains(msg, "other {") {
				t.Errorf("%s %s: a plural without an other form: %q", l, k, msg)
			}
			// A language may count where English needs no plural form
			// ("{valid} valid" is "{valid, plural, …} valides"), never
			// fill another value or drop one.
			want, _ := placeholders(en[k])
			if !slices.Equal(plain(got), plain(want)) {
				t.Errorf("%s %s fills %v, English %v", l, k, got, want)
			}
		}
	}
}

func plain(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = strings.TrimSuffix(n, ",plural")
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestIsTextKey: a session's texts may name the English file's keys, and
// the other plural forms of its counted messages' keys, nothing else.
func TestIsTextKey(t *testing.T) {
	t.Parallel()
	for k, want := range map[string]bool{"title": true, "submit.button": true, "issue.invalid_email": true, "titel": false, "": false,
		"submit": false, "title.one": false, "file.upload.other": false} {
		if IsTextKey(k) != want {
			t.Errorf("IsTextKey(%q) = %v", k, !want)
		}
	}
}

// TestPage_escapesItsData: the origins and the id reach the page as
// escaped attribute text, never as markup or script.
func TestPage_escapesItsData(t *testing.T) {
	t.Parallel()
	page, err := Page(importsession.Session{ID: `imp_"><script>x</script>`, AllowedOrigins: []string{`https://a.example"><script>`},
		Theme: importsession.Theme{Title: `</title><script>y</script>`}, Texts: map[string]string{"title": `"><script>z</script>`}}, "de")
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	if strings.Contains(s, "<script>x") || strings.Contains(s, `a.example"><script>`) || strings.Contains(s, "<script>y") ||
		strings.Contains(s, "<script>z") || !strings.Contains(s, `lang="de"`) || !strings.Contains(s, `data-mode="light"`) {
		t.Fatalf("page %s", s)
	}
	if strings.Count(s, "<script") != 1 || !strings.Contains(s, `<script type="module" src="/embed/v1/app.js"></script>`) {
		t.Fatalf("the page has script of its own: %s", s)
	}
}

// TestApp_wordsExist: every message key app.js and sheet.js name literally (t("…")
// and t(cond ? "…" : "…")) is in en.json, so no step shows a bare key.
func TestApp_wordsExist(t *testing.T) {
	t.Parallel()
	app, ok := Asset("app.js")
	grid, ok3 := Asset("sheet.js")
	en, ok2 := Asset("locales/en.json")
	if !ok || !ok2 || !ok3 {
		t.Fatal("no app.js, sheet.js or en.json")
	}
	var words map[string]string
	if err := json.Unmarshal(en.Body, &words); err != nil {
		t.Fatal(err)
	}
	calls := regexp.MustCompile(`\bt\(([^()]*?)[,)]`).FindAllStringSubmatch(string(app.Body)+string(grid.Body), -1)
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
