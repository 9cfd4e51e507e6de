package coerce

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"sync"

	"github.com/nyaruka/phonenumbers"
)

// phoneValid is libphonenumber's IsValidNumber for the number whose
// calling code is cc and whose national significant number is nsn (digits,
// no leading zero), decided without the library's parse and without its
// regular expressions: each number pattern of the metadata is turned once
// into a digit automaton (a DFA over 0–9, built from the pattern's own
// compiled program), so a number costs a table step a digit a pattern.
// Its decision is the library's, step for step (IsValidNumber,
// GetRegionCodeForNumber, getNumberTypeHelper, isNumberMatchingDesc);
// TestPhoneValid_matchesTheLibrary holds the two equal. ok is false where
// it cannot decide (a pattern it does not model): the caller asks the
// library.
func phoneValid(cc int, nsn []byte) (valid, ok bool) {
	c := callingCodeAutomata(cc)
	if c.regions == 0 {
		return false, true
	}
	main := c.main
	if main == nil || main.rewritesAll || main.rewrites(nsn) {
		return false, false // the parse may strip or rewrite digits of this number: the library decides
	}
	if c.dfa != nil && len(nsn) < maxLengthBits {
		if v, ok := c.dfa.valid(nsn); ok {
			return v, true
		}
	}
	m := main
	if c.regions > 1 {
		if m, ok = c.regionOf(nsn); !ok || m == nil {
			return false, ok
		}
	}
	if !m.usable {
		return false, false
	}
	return m.valid(nsn), true
}

// ccAutomata are the automata of a calling code's regions, in the
// library's order, looked up once: a number then costs no map lookup, no
// string built and no library call before its walk.
type ccAutomata struct {
	regions int               // how many regions the library lists for the code
	main    *regionAutomata   // the first of them
	ms      []*regionAutomata // all of them (nil: no metadata)
	ix      *prefixIndex      // nil where a region is not usable, or for one region
	dfa     *verdictDFA       // nil where a region is not usable or past the bound
}

var (
	ccOnce [1000]sync.Once
	ccTab  [1000]*ccAutomata
)

// callingCodeAutomata is the ccAutomata of cc, built on first use.
func callingCodeAutomata(cc int) *ccAutomata {
	if cc < 0 || cc >= len(ccTab) {
		return buildCallingCode(cc)
	}
	ccOnce[cc].Do(func() { ccTab[cc] = buildCallingCode(cc) })
	return ccTab[cc]
}

func buildCallingCode(cc int) *ccAutomata {
	regions := phonenumbers.GetRegionCodesForCountryCode(cc)
	c := &ccAutomata{regions: len(regions)}
	if len(regions) == 0 {
		return c
	}
	c.main = phoneMeta(cc, regions[0])
	if c.main == nil || c.main.rewritesAll {
		return c // phoneValid leaves every number of it to the library before anything else is asked
	}
	c.ms = make([]*regionAutomata, len(regions))
	for i, r := range regions {
		c.ms[i] = phoneMeta(cc, r)
	}
	if len(regions) > 1 {
		c.ix = buildPrefixIndex(c.ms)
	}
	c.dfa = newVerdictDFA(c.ms)
	return c
}

// verdictDFA is a calling code's whole decision as one automaton: the
// product, over its regions in the library's order, of each region's
// union automaton and of its leading digits' prefix search, so one walk
// over a national number answers. A state's verdict is a mask by the
// number's length (bit n: a number of n digits ending there is valid).
// regionOf's choice is in it: a region with leading digits is chosen
// when they start the number, one without when the number is valid for
// it, the first such in order; once a region is chosen, the ones after
// it are no longer followed.
type verdictDFA struct {
	next    [][10]int32
	verdict []uint32
}

// valid walks nsn; ok is false on a non-digit (the caller decides then).
func (v *verdictDFA) valid(nsn []byte) (valid, ok bool) {
	s := int32(0)
	for _, c := range nsn {
		if c < '0' || c > '9' {
			return false, false
		}
		if s = v.next[s][c-'0']; s < 0 {
			return false, true
		}
	}
	return v.verdict[s]>>len(nsn)&1 != 0, true
}

// Prefix search states of a region's leading digits in a verdictDFA.
const (
	leadNever   = -1 // no prefix matched, nor can one
	leadMatched = -2 // a prefix matched: the region is chosen if no one before it is
)

func newVerdictDFA(ms []*regionAutomata) *verdictDFA {
	if len(ms) == 0 {
		return nil
	}
	for _, m := range ms {
		if m == nil || !m.usable || m.all == nil {
			return nil
		}
	}
	b := verdictBuilder{ms: ms, ids: map[string]int32{}, v: &verdictDFA{}}
	b.lead = make([]*digitDFA, len(ms))
	if len(ms) > 1 { // the only region is the number's whatever its leading digits (phoneValid)
		for i, m := range ms {
			b.lead[i] = m.leading
		}
	}
	if id, _ := b.add(make([]int32, 2*len(ms))); id != 0 {
		b.v.next = append(b.v.next, [10]int32{-1, -1, -1, -1, -1, -1, -1, -1, -1, -1})
		b.v.verdict = append(b.v.verdict, 0)
		return b.v // no number is valid
	}
	for s := 0; s < len(b.states); s++ {
		for dg := range 10 {
			id, ok := b.add(b.step(b.states[s], dg))
			if !ok {
				return nil
			}
			b.v.next[s][dg] = id
		}
	}
	return b.v
}

// verdictBuilder builds a verdictDFA by the subset construction. A state
// is, by region, its union automaton's state (-1: dead) and its leading
// digits' search state (a digitDFA state, leadNever or leadMatched).
type verdictBuilder struct {
	ms     []*regionAutomata
	lead   []*digitDFA // by region; nil: none (or one region only)
	ids    map[string]int32
	states [][]int32
	v      *verdictDFA
}

// step is the state after reading digit dg in state k.
func (b *verdictBuilder) step(k []int32, dg int) []int32 {
	out := make([]int32, len(k))
	for i, m := range b.ms {
		u, l := k[2*i], k[2*i+1]
		out[2*i], out[2*i+1] = -1, l
		if u >= 0 {
			out[2*i] = m.all.next[u][dg]
		}
		if l >= 0 {
			out[2*i+1] = b.lead[i].next[l][dg]
		}
	}
	return out
}

// norm puts k in its canonical form: a leading-digits search at a match
// is leadMatched, a region that can no longer be chosen is dead, and the
// regions after the first one chosen are not followed.
func (b *verdictBuilder) norm(k []int32) {
	chosen := false
	for i := range b.ms {
		u, l := &k[2*i], &k[2*i+1]
		switch {
		case chosen:
			*u, *l = -1, leadNever
		case b.lead[i] == nil:
			*l = leadNever
		default:
			if *l >= 0 && b.lead[i].match[*l] {
				*l = leadMatched
			}
			if *l == leadNever {
				*u = -1 // never chosen
			}
			chosen = *l == leadMatched
		}
	}
}

// verdict is the mask by length of the numbers ending in state k that are
// valid: the region regionOf chooses takes them.
func (b *verdictBuilder) verdict(k []int32) uint32 {
	var bits uint32
	for n := range maxLengthBits {
		if b.validAt(k, n) {
			bits |= 1 << n
		}
	}
	return bits
}

func (b *verdictBuilder) validAt(k []int32, n int) bool {
	for i, m := range b.ms {
		u, l := k[2*i], k[2*i+1]
		ok := u >= 0 && m.all.accepts(u, n)
		if b.lead[i] == nil && ok {
			return true
		}
		if b.lead[i] != nil && l == leadMatched {
			return ok
		}
	}
	return false
}

// add is the id of state k (normalized), -1 where no region can take a
// number any more; ok is false past maxDFAStates.
func (b *verdictBuilder) add(k []int32) (int32, bool) {
	b.norm(k)
	dead := true
	for i := range b.ms {
		dead = dead && k[2*i] < 0
	}
	if dead {
		return -1, true
	}
	key := make([]byte, 0, 4*len(k))
	for _, x := range k {
		key = append(key, byte(x), byte(x>>8), byte(x>>16), byte(x>>24))
	}
	if id, ok := b.ids[string(key)]; ok {
		return id, true
	}
	if len(b.states) >= maxDFAStates {
		return 0, false
	}
	id := int32(len(b.states))
	b.ids[string(key)] = id
	b.states = append(b.states, k)
	b.v.next = append(b.v.next, [10]int32{})
	b.v.verdict = append(b.v.verdict, b.verdict(k))
	return id, true
}

// regionOf is the region of nsn among the calling code's (regionByPrefix,
// or regionOf where no prefix table could be built).
func (c *ccAutomata) regionOf(nsn []byte) (*regionAutomata, bool) {
	if c.ix == nil || len(nsn) < prefixDigits {
		return regionOf(c.ms, nsn)
	}
	return regionByPrefix(c.ix, c.ms, nsn)
}

// regionOf is GetRegionCodeForNumberFromRegionList: the first region of
// the calling code whose leading digits start nsn or, for one without
// them, for which nsn is valid; nil for none. ok is false where a region
// has a pattern the automata do not model.
func regionOf(ms []*regionAutomata, nsn []byte) (_ *regionAutomata, ok bool) {
	for _, m := range ms {
		if m == nil || !m.usable {
			return nil, false
		}
		if m.leading != nil && m.leading.matchesPrefix(nsn) || m.leading == nil && m.valid(nsn) {
			return m, true
		}
	}
	return nil, true
}

// regionByPrefix is regionOf, with the regions that cannot be the
// number's (their leading digits rule its first three digits out) passed
// over by a table of the calling code's regions by those digits
// (prefixIndex): a calling code shared by 25 regions (+1) then costs one
// or two regions' checks, not 25.
func regionByPrefix(ix *prefixIndex, ms []*regionAutomata, nsn []byte) (*regionAutomata, bool) {
	p := 0
	for _, c := range nsn[:prefixDigits] {
		if c < '0' || c > '9' {
			return regionOf(ms, nsn)
		}
		p = p*10 + int(c-'0')
	}
	for _, c := range ix.byPrefix[p] {
		if c.sure || c.m.leading == nil && c.m.valid(nsn) || c.m.leading != nil && c.m.leading.matchesPrefix(nsn) {
			return c.m, true
		}
	}
	return nil, true
}

// prefixDigits is how many leading digits prefixIndex tables.
const prefixDigits = 3

// prefixIndex lists, for each first prefixDigits digits of a national
// number, the calling code's regions that may be its region, in the
// library's order: a region without leading digits (its numbers decide),
// and one whose leading digits may match (sure: they match whatever
// follows, and no region after it is listed).
type prefixIndex struct {
	byPrefix [1000][]prefixCandidate
}

type prefixCandidate struct {
	m    *regionAutomata
	sure bool
}

func buildPrefixIndex(ms []*regionAutomata) *prefixIndex {
	for _, m := range ms {
		if m == nil || !m.usable {
			return nil // regionOf answers ok=false on it, in its order
		}
	}
	ix := &prefixIndex{}
	var digits [prefixDigits]byte
	for p := range ix.byPrefix {
		for k, q := prefixDigits-1, p; k >= 0; k, q = k-1, q/10 {
			digits[k] = byte('0' + q%10)
		}
		for _, m := range ms {
			if m.leading == nil {
				ix.byPrefix[p] = append(ix.byPrefix[p], prefixCandidate{m: m})
				continue
			}
			switch m.leading.onPrefix(digits[:]) {
			case prefixMatches:
				ix.byPrefix[p] = append(ix.byPrefix[p], prefixCandidate{m: m, sure: true})
			case prefixMay:
				ix.byPrefix[p] = append(ix.byPrefix[p], prefixCandidate{m: m})
			default:
				continue
			}
			if c := ix.byPrefix[p]; c[len(c)-1].sure {
				break // the library stops at it
			}
		}
	}
	return ix
}

// regionAutomata are a region's number descriptions as automata.
type regionAutomata struct {
	usable bool // every pattern compiled to an automaton
	// npp is the automaton of the national prefix for parsing where that
	// is more than the national prefix (a pattern, a transform rule): the
	// library's parse strips or rewrites the digits of a number of its
	// calling code that a prefix of matches ("^(?:npp)"). nppRE is its
	// regular expression where no automaton models it; rewritesAll: it
	// does not compile.
	npp         *digitDFA
	nppRE       *regexp.Regexp
	rewritesAll bool
	general     desc
	types       []desc // premium rate … voicemail: any of them makes a number valid
	fixed       desc
	mobile      desc
	same        bool // the same pattern for mobile and fixed line
	leading     *digitDFA
	// all is the descriptions' automata run as one (nil past its bound):
	// one walk over a number tells which descriptions' patterns match it.
	all *unionDFA
}

// rewrites tells whether the library's parse would strip or rewrite the
// start of nsn (its national prefix for parsing matches there).
func (m *regionAutomata) rewrites(nsn []byte) bool {
	switch {
	case m.npp != nil:
		return m.npp.matchesPrefix(nsn)
	case m.nppRE != nil:
		return m.nppRE.MatchString(string(nsn)) // a copy: nsn (the caller's array) stays on its stack
	}
	return false
}

// desc is a PhoneNumberDesc: its possible lengths and its pattern.
type desc struct {
	lengths []int32
	dfa     *digitDFA
}

// matches is isNumberMatchingDesc: a possible length (when the
// description lists any) and the whole number matching its pattern.
func (d desc) matches(nsn []byte) bool {
	if len(d.lengths) > 0 && !slices.Contains(d.lengths, int32(len(nsn))) {
		return false
	}
	return d.dfa.matches(nsn)
}

// valid is getNumberTypeHelper(nsn) != UNKNOWN.
func (m *regionAutomata) valid(nsn []byte) bool {
	if m.all != nil {
		return m.all.valid(nsn)
	}
	if !m.general.matches(nsn) {
		return false
	}
	for _, t := range m.types {
		if t.matches(nsn) {
			return true
		}
	}
	if m.fixed.matches(nsn) {
		return true
	}
	return !m.same && m.mobile.matches(nsn)
}

// maxLengthBits is how many national number lengths unionDFA tables.
const maxLengthBits = 24

// unionDFA is the product of a region's description automata (general,
// the types, fixed line, mobile: bit i of a mask is description i), so a
// number is walked once: a state's mask has the descriptions whose
// pattern matches what was read, byLength the descriptions whose possible
// lengths allow a length, and a number is valid when the general
// description and one that makes it valid (want) are in both. A state
// from which no valid number can be reached is not kept (-1).
type unionDFA struct {
	next     [][10]int32
	mask     []uint16
	byLength [maxLengthBits]uint16
	want     uint16
	descs    []desc // for lengths past the table
}

func (u *unionDFA) valid(nsn []byte) bool {
	s := int32(0)
	for _, c := range nsn {
		if c < '0' || c > '9' {
			return false
		}
		if s = u.next[s][c-'0']; s < 0 {
			return false
		}
	}
	var l uint16
	if len(nsn) < maxLengthBits {
		l = u.byLength[len(nsn)]
	} else {
		l = lengthBits(u.descs, len(nsn))
	}
	e := u.mask[s] & l
	return e&1 != 0 && e&u.want != 0
}

// accepts tells whether a number of n digits (n < maxLengthBits) ending
// in state s is valid.
func (u *unionDFA) accepts(s int32, n int) bool {
	e := u.mask[s] & u.byLength[n]
	return e&1 != 0 && e&u.want != 0
}

// lengthBits has bit i set where descs[i] allows a number of n digits.
func lengthBits(descs []desc, n int) uint16 {
	var bits uint16
	for i, d := range descs {
		if len(d.lengths) == 0 || slices.Contains(d.lengths, int32(n)) {
			bits |= 1 << i
		}
	}
	return bits
}

// newUnionDFA is the product automaton of descs (the general description
// first), or nil past maxDFAStates.
func newUnionDFA(descs []desc, want uint16) *unionDFA {
	if len(descs) > 16 {
		return nil
	}
	b := unionBuilder{descs: descs, ids: map[[16]int32]int32{}, u: &unionDFA{want: want, descs: descs}}
	for n := range b.u.byLength {
		b.u.byLength[n] = lengthBits(descs, n)
	}
	var start [16]int32
	for i := len(descs); i < len(start); i++ {
		start[i] = -1
	}
	if id, _ := b.add(start); id != 0 {
		b.u.next = append(b.u.next, [10]int32{-1, -1, -1, -1, -1, -1, -1, -1, -1, -1})
		b.u.mask = append(b.u.mask, 0)
		return b.u // no number can be valid: a dead start
	}
	for s := 0; s < len(b.states); s++ {
		for dg := range 10 {
			var k [16]int32
			for i := range k {
				k[i] = -1
				if i < len(descs) && b.states[s][i] >= 0 {
					k[i] = descs[i].dfa.next[b.states[s][i]][dg]
				}
			}
			id, ok := b.add(k)
			if !ok {
				return nil
			}
			b.u.next[s][dg] = id
		}
	}
	return b.u
}

// unionBuilder builds a unionDFA: a state is each description's
// automaton state (-1: dead).
type unionBuilder struct {
	descs  []desc
	ids    map[[16]int32]int32
	states [][16]int32
	u      *unionDFA
}

// alive tells whether the general description and one of want can still
// match from k.
func (b *unionBuilder) alive(k [16]int32) bool {
	if k[0] < 0 {
		return false
	}
	for i := 1; i < len(b.descs); i++ {
		if b.u.want&(1<<i) != 0 && k[i] >= 0 {
			return true
		}
	}
	return false
}

func (b *unionBuilder) add(k [16]int32) (int32, bool) {
	if !b.alive(k) {
		return -1, true
	}
	if id, ok := b.ids[k]; ok {
		return id, true
	}
	if len(b.states) >= maxDFAStates {
		return 0, false
	}
	id := int32(len(b.states))
	b.ids[k] = id
	b.states = append(b.states, k)
	var m uint16
	for i, d := range b.descs {
		if k[i] >= 0 && d.dfa.match[k[i]] {
			m |= 1 << i
		}
	}
	b.u.mask = append(b.u.mask, m)
	b.u.next = append(b.u.next, [10]int32{})
	return id, true
}

var phoneAutomata struct {
	once    sync.Once
	byKey   map[string]*phoneMetaEntry
	failure bool
}

type phoneMetaEntry struct {
	md   *phonenumbers.PhoneMetadata
	once sync.Once
	a    *regionAutomata
}

// phoneMeta is the automata of a region (or, for "001", of the
// non-geographic entity of calling code cc), built on first use.
func phoneMeta(cc int, region string) *regionAutomata {
	phoneAutomata.once.Do(func() {
		phoneAutomata.byKey = map[string]*phoneMetaEntry{}
		coll, err := phonenumbers.MetadataCollection()
		if err != nil || coll == nil {
			phoneAutomata.failure = true
			return
		}
		for _, md := range coll.GetMetadata() {
			phoneAutomata.byKey[metaKey(int(md.GetCountryCode()), md.GetId())] = &phoneMetaEntry{md: md}
		}
	})
	if phoneAutomata.failure {
		return &regionAutomata{}
	}
	e := phoneAutomata.byKey[metaKey(cc, region)]
	if e == nil {
		return nil
	}
	e.once.Do(func() { e.a = buildRegion(e.md) })
	return e.a
}

func metaKey(cc int, region string) string {
	if region == "001" {
		return "001/" + string(rune(cc))
	}
	return region
}

func buildRegion(md *phonenumbers.PhoneMetadata) *regionAutomata {
	a := &regionAutomata{usable: true, same: md.GetSameMobileAndFixedLinePattern()}
	if npp := md.GetNationalPrefixForParsing(); md.GetNationalPrefixTransformRule() != "" || npp != "" && npp != md.GetNationalPrefix() {
		re, err := regexp.Compile("^(?:" + npp + ")")
		switch {
		case err != nil:
			a.rewritesAll = true
		default:
			if a.npp = newDigitDFA("(?:" + npp + ")"); a.npp == nil {
				a.nppRE = re
			}
		}
	}
	mk := func(d *phonenumbers.PhoneNumberDesc) desc {
		dfa := newDigitDFA(d.GetNationalNumberPattern())
		if dfa == nil {
			a.usable = false
		}
		return desc{lengths: d.GetPossibleLength(), dfa: dfa}
	}
	a.general = mk(md.GetGeneralDesc())
	for _, d := range []*phonenumbers.PhoneNumberDesc{md.GetPremiumRate(), md.GetTollFree(), md.GetSharedCost(), md.GetVoip(),
		md.GetPersonalNumber(), md.GetPager(), md.GetUan(), md.GetVoicemail()} {
		a.types = append(a.types, mk(d))
	}
	a.fixed, a.mobile = mk(md.GetFixedLine()), mk(md.GetMobile())
	if ld := md.GetLeadingDigits(); ld != "" {
		if a.leading = newDigitDFA(ld); a.leading == nil {
			a.usable = false
		}
	}
	if a.usable {
		descs := append(append([]desc{a.general}, a.types...), a.fixed, a.mobile)
		want := uint16(1<<len(descs)-1) &^ 1 // every description but the general one
		if a.same {
			want &^= 1 << (len(descs) - 1) // mobile is fixed line's pattern: not asked
		}
		a.all = newUnionDFA(descs, want)
	}
	return a
}

// maxDFAStates bounds an automaton; a pattern past it is left to the
// library.
const maxDFAStates = 1 << 16

// digitDFA is a pattern's deterministic automaton over the digits, built
// whole from its program by the subset construction (patterns of phone
// numbers are short and bounded, so it stays small).
type digitDFA struct {
	next  [][10]int32 // by state and digit; -1: no match possible
	match []bool      // the state ends a match
}

// newDigitDFA is the automaton of the whole-string match of pattern, or
// nil where the pattern has what a digit automaton cannot model
// (assertions such as ^ or \b, which phone metadata does not use).
func newDigitDFA(pattern string) *digitDFA {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return nil
	}
	b := dfaBuilder{prog: prog, ids: map[string]int32{}, dfa: &digitDFA{}}
	start, ok := b.state(b.closure([]uint32{uint32(prog.Start)}))
	if !ok || start != 0 {
		return nil
	}
	for s := 0; s < len(b.sets); s++ {
		for d := range 10 {
			id, ok := b.state(b.step(b.sets[s], rune('0'+d)))
			if !ok {
				return nil
			}
			b.dfa.next[s][d] = id
		}
	}
	return b.dfa
}

type dfaBuilder struct {
	prog *syntax.Prog
	ids  map[string]int32
	sets [][]uint32
	dfa  *digitDFA
	bad  bool
}

// closure is the set of consuming or matching instructions reachable
// from pcs without reading a digit, sorted.
func (b *dfaBuilder) closure(pcs []uint32) []uint32 {
	var out []uint32
	seen := map[uint32]bool{}
	stack := append([]uint32(nil), pcs...)
	for len(stack) > 0 {
		pc := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[pc] {
			continue
		}
		seen[pc] = true
		in := &b.prog.Inst[pc]
		switch in.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			stack = append(stack, in.Out, in.Arg)
		case syntax.InstNop, syntax.InstCapture:
			stack = append(stack, in.Out)
		case syntax.InstEmptyWidth:
			b.bad = true
		case syntax.InstFail:
		default:
			out = append(out, pc)
		}
	}
	slices.Sort(out)
	return out
}

func (b *dfaBuilder) step(set []uint32, r rune) []uint32 {
	var next []uint32
	for _, pc := range set {
		in := &b.prog.Inst[pc]
		if in.Op != syntax.InstMatch && in.MatchRune(r) {
			next = append(next, in.Out)
		}
	}
	return b.closure(next)
}

// state is the id of the automaton state of set, -1 for the empty set;
// ok is false past the bound or on an assertion.
func (b *dfaBuilder) state(set []uint32) (int32, bool) {
	if b.bad {
		return 0, false
	}
	if len(set) == 0 {
		return -1, true
	}
	key := make([]byte, 0, 4*len(set))
	for _, pc := range set {
		key = append(key, byte(pc), byte(pc>>8), byte(pc>>16), byte(pc>>24))
	}
	if id, ok := b.ids[string(key)]; ok {
		return id, true
	}
	if len(b.sets) >= maxDFAStates {
		return 0, false
	}
	id := int32(len(b.sets))
	b.ids[string(key)] = id
	b.sets = append(b.sets, set)
	matches := false
	for _, pc := range set {
		matches = matches || b.prog.Inst[pc].Op == syntax.InstMatch
	}
	b.dfa.match = append(b.dfa.match, matches)
	b.dfa.next = append(b.dfa.next, [10]int32{})
	return id, true
}

// matches tells whether the whole of digits matches.
func (d *digitDFA) matches(digits []byte) bool {
	s := int32(0)
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
		if s = d.next[s][c-'0']; s < 0 {
			return false
		}
	}
	return d.match[s]
}

// What the first digits of a number tell of a leading-digits automaton's
// prefix search (matchesPrefix) over the whole number.
const (
	prefixNever   = iota // no number starting with them matches
	prefixMay            // the digits after them decide
	prefixMatches        // every number starting with them matches
)

// onPrefix tells what matchesPrefix answers for numbers that start with
// digits (and have at least as many digits).
func (d *digitDFA) onPrefix(digits []byte) int {
	s := int32(0)
	for _, c := range digits {
		if d.match[s] {
			return prefixMatches
		}
		if s = d.next[s][c-'0']; s < 0 {
			return prefixNever
		}
	}
	if d.match[s] {
		return prefixMatches
	}
	return prefixMay
}

// matchesPrefix tells whether some prefix of digits (the empty one too)
// matches: the library's "^(?:leading digits)" search.
func (d *digitDFA) matchesPrefix(digits []byte) bool {
	s := int32(0)
	for _, c := range digits {
		if d.match[s] {
			return true
		}
		if c < '0' || c > '9' {
			return false
		}
		if s = d.next[s][c-'0']; s < 0 {
			return false
		}
	}
	return d.match[s]
}
