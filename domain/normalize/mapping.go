package normalize

import (
	"strings"
	"unicode"

	"github.com/tabnorm/tabnorm/domain/schema"
	"github.com/tabnorm/tabnorm/domain/table"
)

// Mapping methods, strongest first.
const (
	MethodExplicit   = "explicit"
	MethodExact      = "exact"
	MethodNormalized = "normalized"
	MethodAlias      = "alias"
	MethodLearned    = "learned"
	MethodFuzzy      = "fuzzy"
	// MethodPosition maps a column whose header is blank (or has no letter
	// or digit) to the field named by its position, column_N: the name
	// infer gives such a column.
	MethodPosition = "position"
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
	m := &mapper{header: header, s: s, to: make([]int, len(header)), entries: make([]MappingEntry, len(header)),
		taken: make([]bool, len(s.Fields)), ignored: make([]bool, len(header)), norm: make([]string, len(header)),
		fieldNorm: make([]string, len(s.Fields))}
	for i, h := range header {
		m.to[i] = -1
		m.entries[i] = MappingEntry{SourceColumn: h}
		m.norm[i] = HeaderKey(h)
	}
	for j, f := range s.Fields {
		m.fieldNorm[j] = HeaderKey(f.Name)
	}
	// The methods, strongest first.
	m.explicit(explicit)
	m.exact()
	m.normalized()
	m.aliases()
	m.learned(learned)
	m.fuzzy()
	m.position()
	return m.to, m.entries
}

// mapper is the state of mapColumns: each column's field so far, the
// fields taken, and the columns no method may take.
type mapper struct {
	header    []string
	s         *schema.Schema
	to        []int
	entries   []MappingEntry
	taken     []bool
	ignored   []bool
	norm      []string // each column's HeaderKey
	fieldNorm []string // each field's name's HeaderKey
}

// claim maps column col to field, unless either is taken already or the
// column is ignored.
func (m *mapper) claim(col, field int, method string, confidence float64) {
	if m.to[col] >= 0 || field < 0 || m.taken[field] || m.ignored[col] {
		return
	}
	m.to[col], m.taken[field] = field, true
	m.entries[col].Field, m.entries[col].Method, m.entries[col].Confidence = m.s.Fields[field].Name, method, confidence
}

// explicit claims the fields the options map columns to; a column mapped
// to null ("") is ignored: no method may take it.
func (m *mapper) explicit(mapping map[string]string) {
	for i, h := range m.header {
		f, ok := mapping[h]
		switch {
		case !ok:
		case f == "":
			m.ignored[i] = true
		default:
			m.claim(i, m.s.Index(f), MethodExplicit, 1)
		}
	}
}

// exact claims fields named exactly as the column (but for spaces around).
func (m *mapper) exact() {
	for i, h := range m.header {
		m.claim(i, m.s.Index(strings.TrimSpace(h)), MethodExact, 1)
	}
}

// normalized claims fields whose name has the column's HeaderKey.
func (m *mapper) normalized() {
	for i := range m.header {
		for j := range m.s.Fields {
			if m.norm[i] != "" && m.norm[i] == m.fieldNorm[j] {
				m.claim(i, j, MethodNormalized, 1)
			}
		}
	}
}

// aliases claims fields with an alias of the column's HeaderKey.
func (m *mapper) aliases() {
	for i := range m.header {
		if m.norm[i] == "" {
			continue
		}
		for j, f := range m.s.Fields {
			for _, a := range f.Aliases {
				if m.norm[i] == HeaderKey(a) {
					m.claim(i, j, MethodAlias, 1)
				}
			}
		}
	}
}

// learned claims the fields the organization mapped these headers to.
func (m *mapper) learned(learned map[string]string) {
	for i := range m.header {
		if f, ok := learned[m.norm[i]]; ok {
			m.claim(i, m.s.Index(f), MethodLearned, 1)
		}
	}
}

// fuzzy gives each column still unmapped the free field whose name or
// alias is most like it, when it is alike enough.
func (m *mapper) fuzzy() {
	for i := range m.header {
		if m.to[i] >= 0 || len(m.norm[i]) < 3 {
			continue
		}
		best, bestScore := -1, 0.0
		for j, f := range m.s.Fields {
			if m.taken[j] {
				continue
			}
			for _, name := range append([]string{f.Name}, f.Aliases...) {
				if sc := jaroWinkler(m.norm[i], HeaderKey(name)); sc > bestScore {
					best, bestScore = j, sc
				}
			}
		}
		if bestScore >= fuzzyThreshold {
			m.claim(i, best, MethodFuzzy, float64(int(bestScore*100))/100)
		}
	}
}

// position claims, for each column whose header has no letter or digit
// (a blank header cell: a dataframe's index, a spreadsheet's unlabeled
// first column), the field named column_N by its 1-based position, as
// infer names it.
func (m *mapper) position() {
	for i := range m.header {
		if m.norm[i] == "" {
			m.claim(i, m.s.Index(table.PositionalName(i)), MethodPosition, 1)
		}
	}
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
