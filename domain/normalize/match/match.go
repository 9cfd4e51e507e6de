package match

import (
	"math"
	"sort"
	"strings"

	"github.com/tabnorm/tabnorm/domain/schema"
)

// The matcher scores each column–field pair that the header methods
// (exact, normalized, alias, learned) leave open from two kinds of
// evidence: what the header says (a synonym of the field's concept in
// synonyms.json, or a name like the field's) and what the column's
// sampled values say (the share of them that look like what the field
// holds, weighed by how telling that is). A strong value match beats a
// weak header match; a pair whose values contradict the field is never
// proposed. The same scores decide the automatic mapping, conservatively,
// and rank the alternatives a review offers.

// Evidence says what a mapping rests on: how strongly the header names
// the field (0 to 1), the share of the sample's values that fit it, and
// what they were read as (a kind of value, "enum", "pattern", "list", or
// "empty" when the sample holds no value in the column).
type Evidence struct {
	Header  float64
	Values  float64
	Matched string
}

// Candidate is a field a column could map to, with the method that
// suggests it, how sure it is and the evidence.
type Candidate struct {
	Field      string
	Method     string
	Confidence float64
	Evidence   *Evidence
}

// Thresholds of the combined score.
const (
	// autoThreshold is the score from which a pair is mapped without a
	// person: a wrong automatic mapping is a silent error.
	autoThreshold = 0.85
	// proposalThreshold is the least score a review offers.
	proposalThreshold = 0.2
	// headerLed is the header score from which the header, not the
	// values, is said to decide a mapping.
	headerLed = 0.5
	// tieMargin: a pair this close to a rival for its column or field is
	// left to a person.
	tieMargin = 0.03
	// contentMargin: a pair the values alone decide must beat any rival
	// by this much value evidence.
	contentMargin = 0.15
)

// kindStrength is how plainly values of a kind say what a column is: a
// column of e-mail addresses is the e-mail field; a column of whole
// numbers could be many fields.
var kindStrength = map[string]float64{
	kindEmail: 0.95, kindUUID: 0.95, kindURI: 0.9, kindDateTime: 0.85, kindDate: 0.8, kindPhone: 0.85,
	kindCountry: 0.85, kindCurrency: 0.85, kindWeek: 0.8, kindBoolean: 0.6, kindTime: 0.7, kindYear: 0.45, kindPostal: 0.5,
	kindNumber: 0.4, kindInteger: 0.35, kindIdentifier: 0.4, kindPersonName: 0.35, kindGivenName: 0.3,
	kindWords: 0.2, kindCompany: 0.8, kindStreet: 0.8, kindAddress: 0.5, kindText: 0.1,
	kindEnum: 0.9, kindPattern: 0.7, kindList: 0.9,
}

// strictKinds are kinds a value either reads as or not: a column few of
// whose values read so is not that field, whatever its header says.
var strictKinds = map[string]bool{kindEmail: true, kindUUID: true, kindURI: true, kindDate: true, kindDateTime: true, kindTime: true,
	kindInteger: true, kindNumber: true, kindBoolean: true, kindYear: true, kindPhone: true}

// expectation is what one field expects of a column.
type expectation struct {
	kind     string // what its values are; "" when the field says nothing
	concepts map[*concept]bool
	enum     map[string]bool
	pattern  func(string) bool
	list     ListLookup
	terms    [][]term // its name, title and aliases read as words
	keys     []string // its name and aliases as HeaderKey reads them
	// bare is its name without its light words (r for r_value), "" when
	// it has none or is nothing else.
	bare string
}

// pairScore is one column–field pair scored.
type pairScore struct {
	col, field int
	score      float64
	header     float64
	headerBy   string // the method the header evidence is: synonym or fuzzy
	values     float64
	matched    string
	support    float64 // values × strength
	excluded   bool    // the values contradict the field
	placeCode  bool    // a header naming a place over codes, for the place's code field
	other      bool    // the header names another concept
}

func (p pairScore) method() string {
	if p.header >= headerLed {
		return p.headerBy
	}
	return MethodContent
}

func (p pairScore) evidence() *Evidence {
	return &Evidence{Header: round2(p.header), Values: round2(p.values), Matched: p.matched}
}

func round2(f float64) float64 { return math.Round(f*100) / 100 }

// expectations describes what each field expects.
func expectations(s *schema.Schema, lists map[string]ListLookup) []expectation {
	ix := synonyms()
	out := make([]expectation, len(s.Fields))
	for j, f := range s.Fields {
		e := expectation{concepts: map[*concept]bool{}, terms: fieldTerms(f.Name, f.Title, f.Aliases)}
		for _, name := range append([]string{f.Name}, f.Aliases...) {
			e.keys = append(e.keys, HeaderKey(name))
		}
		for _, name := range append([]string{f.Name, f.Title}, f.Aliases...) {
			if c := ix.fieldConcept(name); c != nil {
				e.concepts[c] = true
			}
		}
		e.kind = fieldKind(ix, f, e.concepts)
		e.bare = bareKey(f.Name)
		if len(f.Constraints.Enum) > 0 {
			e.enum = map[string]bool{}
			for _, v := range f.Constraints.Enum {
				e.enum[strings.ToLower(v)] = true
			}
		}
		if re := f.Constraints.Pattern; re != nil {
			e.pattern = re.MatchString
		}
		if f.Constraints.InList != "" {
			e.list = lists[f.Constraints.InList]
		}
		out[j] = e
	}
	return out
}

// fieldKind is the kind of value a field expects: its type's and
// format's, else its concept's.
func fieldKind(ix *synonymIndex, f schema.Field, concepts map[*concept]bool) string {
	if k := typeKind(f); k != "" {
		return k
	}
	kind := ""
	if c := ix.fieldConcept(f.Name); c != nil {
		kind = c.kind
	} else {
		for c := range concepts {
			kind = c.kind
		}
	}
	if kind == "" && f.Type == schema.String {
		// A text field named by one concept of the vocabulary that says
		// its kind of value (week holds 2020-W11).
		if ts := vocab().terms(f.Name); len(ts) == 1 {
			kind = vocab().kind[ts[0].id]
		}
	}
	if f.Type == schema.String && (kind == kindInteger || kind == kindNumber) {
		// A field its author typed as text (category_value) holds text,
		// whatever number its name suggests.
		return ""
	}
	return kind
}

// typeKind is the kind of value a field's type and format say.
func typeKind(f schema.Field) string {
	switch f.Type {
	case schema.String:
		switch f.Format {
		case schema.Email, schema.Phone, schema.Country, schema.Currency, schema.UUID, schema.URI:
			return string(f.Format)
		}
		return ""
	case schema.Integer, schema.Number, schema.Boolean, schema.Date, schema.DateTime, schema.Time, schema.Year:
		return string(f.Type)
	}
	return ""
}

// fieldConcept is the concept a field's name names: the whole name, else
// its last words (customer_email is an e-mail), else its first ones.
func (ix *synonymIndex) fieldConcept(name string) *concept {
	if name == "" {
		return nil
	}
	if cs := ix.byKey[synKey(name)]; len(cs) > 0 {
		return cs[0]
	}
	words := headerWords(name)
	for i := 1; i < len(words); i++ {
		if cs := ix.byKey[strings.Join(words[i:], "")]; len(cs) > 0 {
			return cs[0]
		}
	}
	for i := len(words) - 1; i >= 1; i-- {
		if cs := ix.byKey[strings.Join(words[:i], "")]; len(cs) > 0 {
			return cs[0]
		}
	}
	return nil
}

// fit is the share of a column's values that fit what a field expects,
// and what they were read as.
func (e *expectation) fit(p *profile) (share float64, matched string) {
	if p.n == 0 {
		return 0, kindEmpty
	}
	switch {
	case e.enum != nil:
		return p.distinctShare(func(v string) bool { return e.enum[strings.ToLower(v)] }), kindEnum
	case e.list != nil:
		return p.distinctShare(func(v string) bool {
			ok, err := e.list.Contains(v)
			return err == nil && ok
		}), kindList
	case e.pattern != nil:
		return p.distinctShare(e.pattern), kindPattern
	}
	if e.kind == "" {
		return 1, kindAny
	}
	return kindFit(p, e.kind), e.kind
}

// distinctShare is the share of values (counted over the distinct values
// the profile kept) for which ok holds.
func (p *profile) distinctShare(ok func(string) bool) float64 {
	total, yes := 0, 0
	for v, n := range p.distinct {
		total += n
		if ok(v) {
			yes += n
		}
	}
	if total == 0 {
		return 0
	}
	return float64(yes) / float64(total)
}

// kindFit is the share of a column's values that are of a kind.
func kindFit(p *profile, kind string) float64 {
	sh := p.share
	switch kind {
	case "":
		return 0
	case kindDate:
		return math.Min(1, sh[kindDate]+0.7*sh[kindDateTime])
	case kindDateTime:
		return math.Min(1, sh[kindDateTime]+0.8*sh[kindDate])
	case kindYear:
		return math.Min(1, sh[kindYear]+0.5*sh[kindDate])
	case kindAddress:
		return math.Min(1, sh[kindAddress]+0.7*sh[kindStreet])
	case kindNumber:
		// Whole numbers fit a number field, but a column without a fraction
		// is likelier a field of whole numbers.
		return sh[kindNumber] * (1 - 0.4*sh[kindInteger])
	}
	return sh[kind]
}

// contradicts says a column's values rule out a field: few of them read
// as its strict kind, or most are plainly something else.
func contradicts(p *profile, kind, matched string, share float64) bool {
	if p.n == 0 || kind == "" && matched != kindEnum && matched != kindList {
		return false
	}
	if strictKinds[kind] && kindFit(p, kind) < 0.3 {
		return true
	}
	if p.dominant == "" || compatible(kind, p.dominant) {
		return false
	}
	return share < 0.5
}

// compatible says a column mostly of kind dominant may still be a field
// of kind k.
func compatible(k, dominant string) bool {
	if k == dominant {
		return true
	}
	switch k {
	case kindDate, kindDateTime, kindYear:
		return dominant == kindDate || dominant == kindDateTime
	case kindIdentifier:
		return dominant == kindPhone || dominant == kindUUID || dominant == kindEmail || dominant == kindNumber
	case kindInteger, kindNumber, kindPostal:
		return dominant == kindNumber || dominant == kindPhone
	case kindPhone:
		return dominant == kindNumber
	}
	return false
}

// columnEvidence is what the matcher knows of each column: its header's
// concepts and whether it is generic, and its values' profile.
type columnEvidence struct {
	hits  []conceptHit
	terms []term // the header read as words
	// named says the header's words name a field of the schema (a
	// vocabulary score of headerLed or more).
	named bool
	// literal is the best vocabulary score of the header against any
	// field: a header made of a field's own words (0.95) outranks a
	// synonym of another field.
	literal float64
	// own is the vocabulary score of the header against each field, raw
	// the words' alone (before a year or a distinctive word counts).
	own, raw []float64
	norm     string // the header as HeaderKey reads it
	generic  bool
	profile  *profile
}

// scorePair scores one column–field pair.
func scorePair(col, field int, ce *columnEvidence, e *expectation) pairScore {
	ps := pairScore{col: col, field: field, headerBy: MethodFuzzy}
	own := 0.0 // how well the header's own words name this field
	if !ce.generic {
		own = ps.headerWords(ce, e)
	}
	// A synonym of this field may not outrank a field the header's own
	// words name (Aantal is a count before a cumulative count, provincia
	// a province before a region).
	synonymCap := 1.0
	if ce.literal >= 0.9 && own < ce.literal-tieMargin {
		synonymCap = ce.literal - 0.15
	}
	for _, hit := range ce.hits {
		if ce.named && hit.score < synonymWhole-synonymShared {
			// A header whose words name a field is judged by them: a
			// synonym of one of its words (confirmed_date is a date,
			// numero_dosi a number) does not make it a rival of a field
			// its words do not name. The literal beats the synonym.
			continue
		}
		if r := math.Min(synonymCap, hit.score*relation(hit.c, e.concepts)); r > ps.header {
			ps.header, ps.headerBy = r, MethodSynonym
		}
	}
	if len(e.concepts) > 0 && ps.header < headerLed {
		for _, hit := range ce.hits {
			if hit.score >= 0.5 && relation(hit.c, e.concepts) == 0 {
				ps.other = true
			}
		}
	}
	ps.values, ps.matched = e.fit(ce.profile)
	ps.excluded = contradicts(ce.profile, e.kind, ps.matched, ps.values)
	w := kindStrength[ps.matched]
	ps.support = ps.values * w
	a := ps.header
	var conf float64
	switch {
	case ps.matched == kindAny:
		conf = 0 // the field says nothing its values could confirm
	case a >= headerLed:
		// Values that fit confirm what the header says, even values of a
		// kind that would not tell the field on their own.
		conf = ps.values * (0.5 + 0.5*w)
	default:
		conf = math.Min(1, ps.support/0.75) * 0.95
	}
	s := 1 - (1-a)*(1-conf)
	if strictKinds[ps.matched] && ps.values < 0.8 {
		s -= a * 0.3 * (0.8 - ps.values) / 0.8
	}
	if numbersForName(ce.profile, ps.matched) {
		// A header may name a place or a person, but a column of numbers
		// holds their codes, not their names: a person decides.
		s = math.Min(s, a*0.7)
	}
	if ps.other {
		s = conf * 0.5
	}
	if ps.headerBy == MethodFuzzy && a >= headerLed && ps.matched != kindAny && ps.matched != kindEmpty && ps.values < 0.3 {
		// A name spelled like the field's over values that do not fit it
		// (Contratante, a text, for contract_number, an identifier) is
		// left to a person.
		s = math.Min(s, autoThreshold-0.05)
	}
	ps.score = math.Max(0, math.Min(0.99, s))
	return ps
}

// headerWords sets the pair's header evidence from the header's spelling
// and its words, and returns how well its own words name the field.
func (p *pairScore) headerWords(ce *columnEvidence, e *expectation) float64 {
	p.header, p.headerBy = headerScoreKeys(ce.norm, e.keys)
	own := ce.own[p.field]
	if p.header >= fuzzyThreshold && ce.raw[p.field] < 0.2 && wordsDiffer(ce.terms, e.terms) {
		// Spelled alike for a shared word only (period_duration and
		// period_description): the likeness is not the field.
		p.header = math.Min(p.header, headerLed+0.1)
	}
	if ce.raw[p.field] < headerLed && codeOf(ce.terms, e.terms) && codeValues(ce.profile) {
		// A header naming a place over a column of codes names the
		// place's code field (departement holding 01, 2A for
		// department_code).
		own = max(own, 0.9)
		p.placeCode = true
	}
	if own > p.header {
		p.header, p.headerBy = own, MethodSynonym
	}
	return own
}

// wordsDiffer says a header and a field each have a word of the
// vocabulary the other lacks: they name different things.
func wordsDiffer(header []term, field [][]term) bool {
	has := func(ts []term, id string) bool {
		for _, t := range ts {
			if t.id == id {
				return true
			}
		}
		return false
	}
	for _, f := range field {
		if len(f) < 2 || len(header) < 2 {
			continue
		}
		hOnly, fOnly := false, false
		for _, t := range header {
			hOnly = hOnly || !has(f, t.id)
		}
		for _, t := range f {
			fOnly = fOnly || !has(header, t.id)
		}
		if hOnly && fOnly {
			return true
		}
	}
	return false
}

// codeOf says a field's words are a header's words and a code (the
// header provincia, the field province_code).
func codeOf(header []term, field [][]term) bool {
	if len(header) == 0 {
		return false
	}
	for _, f := range field {
		if len(f) != len(header)+1 {
			continue
		}
		rest := 0
		for _, ft := range f {
			found := false
			for _, t := range header {
				found = found || t.id == ft.id
			}
			if !found {
				rest++
				if ft.id != "code" {
					rest = 2
				}
			}
		}
		if rest == 1 {
			return true
		}
	}
	return false
}

// codeValues says a column holds codes: short identifiers or whole
// numbers, nearly all of them.
func codeValues(p *profile) bool {
	return p.n >= 3 && (p.share[kindIdentifier] >= 0.9 || p.share[kindInteger] >= 0.9) && p.share[kindWords] < 0.5
}

// nameKinds are the kinds of value that are names and words, never
// numbers.
var nameKinds = map[string]bool{kindWords: true, kindPersonName: true, kindGivenName: true, kindCompany: true,
	kindStreet: true, kindText: true}

// numbersForName says a field of names faces a column nearly all of whose
// values are whole numbers (050540000 for provincia, 84 for region).
func numbersForName(p *profile, matched string) bool {
	return nameKinds[matched] && p.n >= 3 && p.share[kindInteger] >= 0.9
}

// relation is how much a header's concept counts for a field of the
// given concepts: its own concept fully, a close one (address for a
// street) nearly, a related one (a date for a birth date) a little.
func relation(c *concept, fieldConcepts map[*concept]bool) float64 {
	best := 0.0
	for fc := range fieldConcepts {
		switch {
		case fc == c:
			return 1
		case c.close[fc.name] || fc.close[c.name]:
			best = max(best, 0.8)
		case c.related[fc.name] || fc.related[c.name]:
			best = max(best, 0.45)
		}
	}
	return best
}

// headerScoreKeys is how much a header is like a field's name or aliases (each
// as HeaderKey reads them):
// a close spelling (Jaro-Winkler at least fuzzyThreshold) is that
// similarity; a name within the header, or a looser likeness, says less.
func headerScoreKeys(norm string, keys []string) (float64, string) {
	if len(norm) < 3 {
		return 0, MethodFuzzy
	}
	best := 0.0
	for _, key := range keys {
		jw := jaroWinkler(norm, key)
		if jw >= fuzzyThreshold {
			best = max(best, jw)
			continue
		}
		best = max(best, 0.45*math.Max(0, math.Min(1, (jw-0.7)/0.18)))
		if c := containment(norm, key); c > 0 {
			best = max(best, 0.4+0.3*(c-alternativeThreshold)/0.2)
		}
	}
	return best, MethodFuzzy
}

// Matcher holds one file's evidence for scoring.
type Matcher struct {
	header  []string
	s       *schema.Schema
	expect  []expectation
	columns []columnEvidence
	pairs   [][]pairScore // by column, then field
	// ambiguous are the fields two columns or more named as well as each
	// other: none was mapped, and the run says so (ambiguous_mapping).
	ambiguous []ambiguity
	// contested are the synonym mappings made over a rival column whose
	// header names the field too, if less well: the run warns
	// (synonym_mapping) as it does of a fuzzy one.
	contested []ambiguity
}

// ambiguity is a field and the columns that compete for it, best first.
type ambiguity struct {
	field int
	cols  []int
}

// Ambiguity is a field several columns name about as well as one
// another, for a warning that asks a person to choose: the columns, best
// first, each with its confidence. Mapped says the best was mapped all
// the same, as a synonym its rivals contest; else none was mapped.
type Ambiguity struct {
	Field       string
	Columns     []string
	Confidences []float64
	Mapped      bool
}

// Ambiguities are the fields the matcher left open because several
// columns named them equally well, then the synonym mappings other
// columns contested; none for a nil Matcher.
func (m *Matcher) Ambiguities() []Ambiguity {
	if m == nil {
		return nil
	}
	var out []Ambiguity
	add := func(a ambiguity, mapped bool) {
		amb := Ambiguity{Field: m.s.Fields[a.field].Name, Mapped: mapped}
		for _, c := range a.cols {
			amb.Columns = append(amb.Columns, m.header[c])
			amb.Confidences = append(amb.Confidences, round2(m.pairs[c][a.field].score))
		}
		out = append(out, amb)
	}
	for _, a := range m.ambiguous {
		add(a, false)
	}
	for _, a := range m.contested {
		add(a, true)
	}
	return out
}

// NewMatcher profiles each column's values (values[c] are column c's
// non-missing, trimmed sample values; nil when there is no sample).
func NewMatcher(header []string, values [][]string, s *schema.Schema, lists map[string]ListLookup) *Matcher {
	m := &Matcher{header: header, s: s, expect: expectations(s, lists), columns: make([]columnEvidence, len(header)), pairs: make([][]pairScore, len(header))}
	ix := synonyms()
	for c, h := range header {
		var vals []string
		if c < len(values) {
			vals = values[c]
		}
		hits, generic := ix.conceptsOf(h)
		terms := vocab().terms(h)
		literal := 0.0
		own := make([]float64, len(s.Fields))
		raw := make([]float64, len(s.Fields))
		if !generic {
			for j := range s.Fields {
				raw[j] = vocabScore(terms, m.expect[j].terms)
			}
		}
		copy(own, raw)
		if m.yearField(h, own) {
			generic = false // a year that names a field says something
		} else if !generic {
			m.bareName(h, own)
			m.distinctive(terms, own)
		}
		for j := range s.Fields {
			literal = max(literal, own[j])
		}
		m.columns[c] = columnEvidence{hits: hits, terms: terms, named: literal >= headerLed, literal: literal, own: own, raw: raw,
			norm: HeaderKey(h), generic: generic, profile: profileValues(vals)}
		m.pairs[c] = make([]pairScore, len(s.Fields))
		placeCode := false
		for j := range s.Fields {
			m.pairs[c][j] = scorePair(c, j, &m.columns[c], &m.expect[j])
			placeCode = placeCode || m.pairs[c][j].placeCode
		}
		if placeCode {
			// The header names a place and its code field takes the codes:
			// the place's own field (department beside department_code)
			// is left to a person.
			for j := range s.Fields {
				if ps := &m.pairs[c][j]; !ps.placeCode && raw[j] >= 0.9 {
					ps.score = math.Min(ps.score, ps.header*0.7)
				}
			}
		}
	}
	return m
}

// distinctiveScore is the header evidence of a header whose words name
// only part of a field, but a part no other field of the schema has
// (Públicos for public_beds beside private_beds and total): enough to
// lead, not to map without values that confirm it.
const distinctiveScore = 0.7

// yearScore is the header evidence of a header that is a year, for the
// one field whose name holds that year (2019 for density_2019).
const yearScore = 0.9

// yearField says a header is a year that names the only field whose
// name holds that year (a wide table's 2019 for density_2019), and
// scores it so in own.
func (m *Matcher) yearField(h string, own []float64) bool {
	y := strings.TrimSpace(h)
	if len(y) != 4 || y < "1800" || y > "2100" || !allDigits(y) {
		return false
	}
	at := -1
	for j, f := range m.s.Fields {
		for _, w := range headerWords(f.Name) {
			if w == y && f.Compute == "" {
				if at >= 0 && at != j {
					return false // two fields hold the year
				}
				at = j
			}
		}
	}
	if at < 0 {
		return false
	}
	own[at] = max(own[at], yearScore)
	return true
}

// bareScore is the header evidence of a header that is a field's name
// without its light words (R for r_value).
const bareScore = 0.85

// bareName scores, in own, the one field whose name without its light
// words (value, number, total) is the header: R is r_value.
func (m *Matcher) bareName(h string, own []float64) {
	key := HeaderKey(h)
	if key == "" {
		return
	}
	at := -1
	for j, f := range m.s.Fields {
		if m.expect[j].bare != key || f.Compute != "" {
			continue
		}
		if at >= 0 {
			return // two fields read so
		}
		at = j
	}
	if at >= 0 {
		own[at] = max(own[at], bareScore)
	}
}

// bareKey is a field name without its light words, as HeaderKey reads
// it; "" when it has no light word or only light words.
func bareKey(name string) string {
	words := headerWords(name)
	var kept []string
	for _, w := range words {
		if id, ok := vocab().lookup(w); !ok || vocab().weight[id] == 0 {
			kept = append(kept, w)
		}
	}
	if len(kept) == 0 || len(kept) == len(words) {
		return ""
	}
	return strings.Join(kept, "")
}

// distinctive raises a header's vocabulary score for a field (own, by
// field) where the words alone leave it short: a header whose telling
// words are a part of one field's words, and of no other field's, names
// that field at distinctiveScore. The rest of the header must not
// outweigh what it shares with the field, nor name another field.
func (m *Matcher) distinctive(terms []term, own []float64) {
	fields := m.s.Fields
	for j := range fields {
		if own[j] >= headerLed || own[j] == 0 || fields[j].Compute != "" || !m.tellsApart(terms, j) {
			continue
		}
		named := false
		for k := range fields {
			named = named || k != j && own[k] >= headerLed
		}
		if !named {
			own[j] = distinctiveScore
		}
	}
}

// tellsApart says a header's words share with field j a telling word no
// other field has, and what they share outweighs the rest of the header.
func (m *Matcher) tellsApart(terms []term, j int) bool {
	var shared, rest float64
	unique := false
	for _, t := range terms {
		if !hasTerm(m.expect[j].terms, t.id) {
			rest += t.weight
			continue
		}
		if t.weight < 1 || strings.HasPrefix(t.id, "=") {
			continue // a light or unknown word tells nothing apart
		}
		shared += t.weight
		unique = unique || m.onlyField(t.id, j)
	}
	return shared > 0 && unique && rest <= shared
}

// onlyField says no field but j (and computed ones) has the concept id.
func (m *Matcher) onlyField(id string, j int) bool {
	for k, g := range m.s.Fields {
		if k != j && g.Compute == "" && hasTerm(m.expect[k].terms, id) {
			return false
		}
	}
	return true
}

// hasTerm says one of a field's spellings has the concept id.
func hasTerm(f [][]term, id string) bool {
	for _, sp := range f {
		for _, t := range sp {
			if t.id == id {
				return true
			}
		}
	}
	return false
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// assign maps the columns and fields still free, best pair first, when a
// pair is sure enough to map without a person.
func (m *Matcher) assign(mp *mapper) {
	var order []pairScore
	for c := range m.pairs {
		if mp.to[c] >= 0 || mp.ignored[c] {
			continue
		}
		for j, ps := range m.pairs[c] {
			if !mp.taken[j] && m.s.Fields[j].Compute == "" && !ps.excluded && !ps.other && (ps.score >= autoThreshold || m.onlyOfItsKind(mp, ps)) {
				order = append(order, ps)
			}
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return order[a].score > order[b].score })
	for _, ps := range order {
		if mp.to[ps.col] >= 0 || mp.taken[ps.field] || !m.sure(mp, ps) {
			continue
		}
		mp.claim(ps.col, ps.field, ps.method(), round2(ps.score))
		if ps.method() == MethodSynonym {
			m.findRivals(ps)
		}
	}
	m.findAmbiguities(mp)
}

// findRivals records a synonym mapping that another column's header
// contested: it names the field as well (header evidence of headerLed or
// more) under values that do not rule it out.
func (m *Matcher) findRivals(ps pairScore) {
	a := ambiguity{field: ps.field, cols: []int{ps.col}}
	for c := range m.pairs {
		rival := m.pairs[c][ps.field]
		if c != ps.col && !rival.excluded && !rival.other && rival.header >= headerLed && rival.score >= proposalThreshold {
			a.cols = append(a.cols, c)
		}
	}
	if len(a.cols) > 1 {
		m.contested = append(m.contested, a)
	}
}

// findAmbiguities records each field left open because columns whose
// headers name it came within tieMargin of one another: a coin-toss the
// Matcher refuses (codice_regione and cod_regione for region_code).
func (m *Matcher) findAmbiguities(mp *mapper) {
	for j, f := range m.s.Fields {
		if mp.taken[j] || f.Compute != "" {
			continue
		}
		var rivals []pairScore
		for c := range m.pairs {
			ps := m.pairs[c][j]
			if mp.to[c] < 0 && !mp.ignored[c] && !ps.excluded && !ps.other && ps.header >= headerLed && ps.score >= autoThreshold {
				rivals = append(rivals, ps)
			}
		}
		if len(rivals) < 2 {
			continue
		}
		sort.SliceStable(rivals, func(a, b int) bool { return rivals[a].score > rivals[b].score })
		a := ambiguity{field: j}
		for _, r := range rivals {
			if r.score >= rivals[0].score-tieMargin {
				a.cols = append(a.cols, r.col)
			}
		}
		if len(a.cols) >= 2 {
			m.ambiguous = append(m.ambiguous, a)
		}
	}
}

// sure says a pair may be mapped without a person: no rival pair of its
// column or field comes close, and a pair the values decide is of a
// telling kind under a header that names nothing.
func (m *Matcher) sure(mp *mapper, ps pairScore) bool {
	led := ps.header >= headerLed
	if !led && m.onlyOfItsKind(mp, ps) {
		return true
	}
	if !led {
		ce := &m.columns[ps.col]
		need := 0.85
		if ce.generic {
			need = 0.75
		}
		if len(ce.hits) > 0 || kindStrength[ps.matched] < need {
			return false
		}
	}
	for j, rival := range m.pairs[ps.col] {
		if j == ps.field || mp.taken[j] || rival.excluded || m.s.Fields[j].Compute != "" {
			continue
		}
		if rival.score >= ps.score-tieMargin || !led && rival.support >= ps.support-contentMargin {
			return false
		}
	}
	for c := range m.pairs {
		if c == ps.col || mp.to[c] >= 0 || mp.ignored[c] {
			continue
		}
		rival := m.pairs[c][ps.field]
		if rival.excluded {
			continue
		}
		if rival.score >= ps.score-tieMargin || !led && rival.header < headerLed && rival.support >= ps.support-contentMargin {
			return false
		}
	}
	return true
}

// uniqueKinds are the kinds of value that tell a field when the schema
// has one field of the kind: a column of dates is its only date field.
var uniqueKinds = map[string]bool{kindDate: true, kindDateTime: true, kindWeek: true, kindEmail: true, kindPhone: true, kindURI: true,
	kindUUID: true, kindCountry: true, kindCurrency: true, kindBoolean: true}

// onlyOfItsKind says the values decide a pair its header cannot: nine in
// ten of them or more read as a telling kind, the field is the schema's
// only open field of that kind, no other open column's values fit it,
// and the header neither names another field nor speaks against this one.
func (m *Matcher) onlyOfItsKind(mp *mapper, ps pairScore) bool {
	ce := &m.columns[ps.col]
	kind := m.expect[ps.field].kind
	if !uniqueKinds[ps.matched] || ps.values < 0.9 || ps.excluded || ps.other || ce.profile.n < 3 || kind == "" {
		return false
	}
	if !ce.generic && vocab().speaksAgainst(ce.terms, m.expect[ps.field].terms) {
		return false
	}
	for j, f := range m.s.Fields {
		if j == ps.field || f.Compute != "" {
			continue
		}
		if m.pairs[ps.col][j].header >= headerLed {
			return false // the header names another field
		}
		if !mp.taken[j] && sameKind(m.expect[j].kind, kind) {
			return false
		}
	}
	for c := range m.pairs {
		if c != ps.col && mp.to[c] < 0 && !mp.ignored[c] && !m.pairs[c][ps.field].excluded && m.pairs[c][ps.field].values >= 0.5 {
			return false
		}
	}
	return true
}

// sameKind says two fields expect the same kind of value (a date and a
// datetime field both take a column of dates).
func sameKind(a, b string) bool {
	dated := func(k string) bool { return k == kindDate || k == kindDateTime }
	return a == b || dated(a) && dated(b)
}

// Candidates ranks the fields column c could take, best first: the
// header methods' fields, then the scored pairs worth offering.
func (m *Matcher) Candidates(c int, learned map[string]string) []Candidate {
	var out []Candidate
	h := m.header[c]
	norm := HeaderKey(h)
	for j, f := range m.s.Fields {
		ps := m.pairs[c][j]
		cand := Candidate{Field: f.Name, Evidence: ps.evidence()}
		switch {
		case strings.TrimSpace(h) == f.Name:
			cand.Method, cand.Confidence = MethodExact, 1
		case norm != "" && norm == HeaderKey(f.Name):
			cand.Method, cand.Confidence = MethodNormalized, 1
		case norm != "" && aliasOf(norm, f):
			cand.Method, cand.Confidence = MethodAlias, 1
		case norm != "" && learned[norm] == f.Name:
			cand.Method, cand.Confidence = MethodLearned, 1
		case !ps.excluded && ps.score >= proposalThreshold:
			cand.Method, cand.Confidence = ps.method(), round2(ps.score)
		}
		if cand.Method != "" {
			if cand.Confidence == 1 {
				cand.Evidence.Header = 1
			}
			out = append(out, cand)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Confidence > out[j].Confidence })
	if len(out) >= fillCandidates {
		return out
	}
	// Fewer than three: the likeliest of the weaker pairs fill the list,
	// so a person still sees where the column may go.
	var weak []Candidate
	for j, f := range m.s.Fields {
		ps := m.pairs[c][j]
		if !ps.excluded && ps.score >= fillThreshold && ps.score < proposalThreshold && !candidateOf(out, f.Name) {
			weak = append(weak, Candidate{Field: f.Name, Method: ps.method(), Confidence: round2(ps.score), Evidence: ps.evidence()})
		}
	}
	sort.SliceStable(weak, func(i, j int) bool { return weak[i].Confidence > weak[j].Confidence })
	return append(out, weak[:min(len(weak), fillCandidates-len(out))]...)
}

// fillCandidates is how many candidates a column's list is filled up to
// with pairs under proposalThreshold, each of at least fillThreshold.
const (
	fillCandidates = 3
	fillThreshold  = 0.1
)

func candidateOf(cs []Candidate, field string) bool {
	for _, c := range cs {
		if c.Field == field {
			return true
		}
	}
	return false
}

// alternativeThreshold is the similarity above which a field is offered
// as an alternative for a column: lower than fuzzyThreshold, since a
// person chooses among them.
const alternativeThreshold = 0.75

// containment scores a name that holds the other whole ("fullname" and
// "name"), which Jaro-Winkler rates low when the other is short: from
// alternativeThreshold up, by the share of the longer one it covers.
func containment(a, b string) float64 {
	if len(a) < len(b) {
		a, b = b, a
	}
	if len(b) < 3 || !strings.Contains(a, b) {
		return 0
	}
	return alternativeThreshold + 0.2*float64(len(b))/float64(len(a))
}

func aliasOf(norm string, f schema.Field) bool {
	for _, a := range f.Aliases {
		if norm == HeaderKey(a) {
			return true
		}
	}
	return false
}
