package normalize

import (
	"strings"
	"unicode"

	"github.com/tabnorm/tabnorm/domain/schema"
)

// Mapping methods, strongest first.
const (
	MethodExplicit   = "explicit"
	MethodExact      = "exact"
	MethodNormalized = "normalized"
	MethodAlias      = "alias"
	MethodLearned    = "learned"
	MethodFuzzy      = "fuzzy"
)

// fuzzyThreshold is the Jaro-Winkler similarity of normalized names above
// which a header maps to a field it does not name exactly ("Emial" →
// email). Such matches are reported as warnings.
const fuzzyThreshold = 0.88

// MappingEntry says where one source column went.
type MappingEntry struct {
	SourceFile   string // file id; "" for a single-file job
	SourceColumn string
	Field        string // "" when unmapped
	Method       string
	Confidence   float64
}

// HeaderKey is the key headers and field names are compared by:
// lower-case letters and digits only ("E-mail" → "email", "First Name" →
// "firstname").
func HeaderKey(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mapColumns decides, for each source column, its field index or -1.
// Every field is taken by at most one column; stronger methods claim
// first, and within a method the leftmost column wins. An explicit ""
// ignores the column.
func mapColumns(header []string, s *schema.Schema, explicit, learned map[string]string) ([]int, []MappingEntry) {
	to := make([]int, len(header))
	for i := range to {
		to[i] = -1
	}
	entries := make([]MappingEntry, len(header))
	for i, h := range header {
		entries[i] = MappingEntry{SourceColumn: h}
	}
	taken := make([]bool, len(s.Fields))
	ignored := make([]bool, len(header))
	claim := func(col, field int, method string, confidence float64) {
		if to[col] >= 0 || field < 0 || taken[field] || ignored[col] {
			return
		}
		to[col], taken[field] = field, true
		entries[col].Field, entries[col].Method, entries[col].Confidence = s.Fields[field].Name, method, confidence
	}
	norm := make([]string, len(header))
	for i, h := range header {
		norm[i] = HeaderKey(h)
	}
	for i, h := range header {
		if f, ok := explicit[h]; ok {
			if f == "" { // mapped to null: no method may take the column
				ignored[i] = true
				continue
			}
			claim(i, s.Index(f), MethodExplicit, 1)
		}
	}
	for i, h := range header {
		claim(i, s.Index(strings.TrimSpace(h)), MethodExact, 1)
	}
	fieldNorm := make([]string, len(s.Fields))
	for j, f := range s.Fields {
		fieldNorm[j] = HeaderKey(f.Name)
	}
	for i := range header {
		for j := range s.Fields {
			if norm[i] != "" && norm[i] == fieldNorm[j] {
				claim(i, j, MethodNormalized, 1)
			}
		}
	}
	for i := range header {
		for j, f := range s.Fields {
			for _, a := range f.Aliases {
				if norm[i] != "" && norm[i] == HeaderKey(a) {
					claim(i, j, MethodAlias, 1)
				}
			}
		}
	}
	for i := range header {
		if f, ok := learned[norm[i]]; ok {
			claim(i, s.Index(f), MethodLearned, 1)
		}
	}
	for i := range header {
		if to[i] >= 0 || len(norm[i]) < 3 {
			continue
		}
		best, bestScore := -1, 0.0
		for j, f := range s.Fields {
			if taken[j] {
				continue
			}
			for _, name := range append([]string{f.Name}, f.Aliases...) {
				if sc := jaroWinkler(norm[i], HeaderKey(name)); sc > bestScore {
					best, bestScore = j, sc
				}
			}
		}
		if bestScore >= fuzzyThreshold {
			claim(i, best, MethodFuzzy, float64(int(bestScore*100))/100)
		}
	}
	return to, entries
}

// jaroWinkler is the Jaro-Winkler similarity of two strings, 0 to 1.
func jaroWinkler(a, b string) float64 {
	ra, rb := []rune(a), []rune(b)
	if len(ra) == 0 || len(rb) == 0 {
		return 0
	}
	window := max(len(ra), len(rb))/2 - 1
	window = max(window, 0)
	ma, mb := make([]bool, len(ra)), make([]bool, len(rb))
	matches := 0
	for i := range ra {
		lo, hi := max(0, i-window), min(len(rb), i+window+1)
		for j := lo; j < hi; j++ {
			if !mb[j] && ra[i] == rb[j] {
				ma[i], mb[j] = true, true
				matches++
				break
			}
		}
	}
	if matches == 0 {
		return 0
	}
	trans, k := 0, 0
	for i := range ra {
		if !ma[i] {
			continue
		}
		for !mb[k] {
			k++
		}
		if ra[i] != rb[k] {
			trans++
		}
		k++
	}
	m := float64(matches)
	jaro := (m/float64(len(ra)) + m/float64(len(rb)) + (m-float64(trans)/2)/m) / 3
	prefix := 0
	for i := 0; i < min(4, len(ra), len(rb)) && ra[i] == rb[i]; i++ {
		prefix++
	}
	return jaro + float64(prefix)*0.1*(1-jaro)
}
