package match

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
	// MethodSynonym maps a column whose header is a synonym of the field's
	// concept in synonyms.json (Courriel, PLZ, Geburtsdatum), its values
	// not contradicting it.
	MethodSynonym = "synonym"
	// MethodContent maps a column its values decided more than its header
	// (match.go).
	MethodContent = "content"
	// MethodPosition maps a column whose header is blank (or has no letter
	// or digit) to the field named by its position, column_N: the name
	// infer gives such a column.
	MethodPosition = "position"
)

// fuzzyThreshold is the Jaro-Winkler similarity of normalized names above
// which a header maps to a field it does not name exactly ("Emial" →
// email). Such matches are reported as warnings.
const fuzzyThreshold = 0.88

// Entry says where one source column went.
type Entry struct {
	SourceFile   string // file id; "" for a single-file job
	SourceColumn string
	Field        string // "" when unmapped
	Method       string
	Confidence   float64
	// Evidence is what the matcher saw, for a mapping it made (synonym,
	// fuzzy, content); nil for the header methods, which are certain,
	// and for an unmapped column.
	Evidence *Evidence
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

// Input is what the mapping of one file reads.
type Input struct {
	Header []string
	Schema *schema.Schema
	// Explicit is options.mapping (a header → its field, "" to ignore
	// the column); Learned are the organization's learned mappings (a
	// HeaderKey → its field).
	Explicit, Learned map[string]string
	// Values returns each column's non-missing, trimmed sample values;
	// called only when a column is left to the matcher. nil: no sample.
	Values func() [][]string
	// Lists are the reference lists the schema checks, by id.
	Lists map[string]ListLookup
}

// matchColumns decides, for each source column, its field index or -1.
// Every field is taken by at most one column; the header methods claim
// first, strongest first, and within a method the leftmost column wins;
// then the matcher (match.go) maps what it is sure of, reading the values
// only when a column and a field are left. An explicit "" ignores the
// column. The matcher is returned for the review's alternatives (nil
// when it was not needed).
func matchColumns(in Input) ([]int, []Entry, *Matcher) {
	header, s := in.Header, in.Schema
	m := &mapper{header: header, s: s, to: make([]int, len(header)), entries: make([]Entry, len(header)),
		taken: make([]bool, len(s.Fields)), ignored: make([]bool, len(header)), norm: make([]string, len(header)),
		fieldNorm: make([]string, len(s.Fields))}
	for i, h := range header {
		m.to[i] = -1
		m.entries[i] = Entry{SourceColumn: h}
		m.norm[i] = HeaderKey(h)
	}
	for j, f := range s.Fields {
		m.fieldNorm[j] = HeaderKey(f.Name)
	}
	// The header methods, strongest first.
	m.explicit(in.Explicit)
	m.exact()
	m.normalized()
	m.aliases()
	m.learned(in.Learned)
	m.position()
	if !m.open() {
		return m.to, m.entries, nil
	}
	var values [][]string
	if in.Values != nil {
		values = in.Values()
	}
	mt := NewMatcher(header, values, s, in.Lists)
	mt.assign(m)
	for i, e := range m.entries {
		switch e.Method {
		case MethodSynonym, MethodFuzzy, MethodContent:
			m.entries[i].Evidence = mt.pairs[i][m.to[i]].evidence()
		}
	}
	return m.to, m.entries, mt
}

// mapper is the state of matchColumns: each column's field so far, the
// fields taken, and the columns no method may take.
type mapper struct {
	header    []string
	s         *schema.Schema
	to        []int
	entries   []Entry
	taken     []bool
	ignored   []bool
	norm      []string // each column's HeaderKey
	fieldNorm []string // each field's name's HeaderKey
}

// open says the header methods left a column and a field the matcher
// may pair: only then are the values read.
func (m *mapper) open() bool {
	col, field := false, false
	for i := range m.header {
		col = col || m.to[i] < 0 && !m.ignored[i]
	}
	for j, f := range m.s.Fields {
		field = field || !m.taken[j] && f.Compute == ""
	}
	return col && field
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

// ListLookup answers whether a value is in a reference list. It is used
// by every worker at once.
type ListLookup interface {
	Contains(value string) (bool, error)
}

// Columns decides, for each source column of a file, its field index or
// -1, and says how (one entry per column), as matchColumns does, but
// leaves computed fields to their expressions: no column fills them.
// The matcher is returned for the review's alternatives and the
// engine's warnings of ambiguous columns (nil when it was not needed).
func Columns(in Input) ([]int, []Entry, *Matcher) {
	s := in.Schema
	to, entries, mt := matchColumns(in)
	for c, f := range to {
		if f >= 0 && s.Fields[f].Compute != "" {
			to[c] = -1
			entries[c] = Entry{SourceFile: entries[c].SourceFile, SourceColumn: entries[c].SourceColumn}
		}
	}
	return to, entries, mt
}
