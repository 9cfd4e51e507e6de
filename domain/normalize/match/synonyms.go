package match

import (
	_ "embed"
	"encoding/json"
	"strings"
	"sync"
	"unicode"

	"github.com/tabnorm/tabnorm/domain/normalize/coerce"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// synonymsJSON is the header synonyms of common fields, by language: data
// the team extends without touching code (docs/engine.md, "Mapping
// columns to fields").
//
//go:embed synonyms.json
var synonymsJSON []byte

// synonymLanguages are the keys of a concept that hold header spellings.
var synonymLanguages = []string{"en", "de", "fr", "es", "it", "pt", "nl", "abbr"}

// concept is a kind of field that headers name in many ways: "email",
// "postal_code". Its kind says what its values look like.
type concept struct {
	name string
	kind string
	// close are concepts a field of this one takes as its own (a street
	// field takes an address column), related ones it may take.
	close, related map[string]bool
}

// synonymIndex is synonyms.json read for lookups: each folded spelling's
// concepts, and the words that make a header say nothing (Column 7).
type synonymIndex struct {
	concepts map[string]*concept
	byKey    map[string][]*concept
	generic  map[string]bool
	// qualifiers name a concept only as a whole header (Customer): in a
	// longer one they qualify another word (Customer ID). heads are
	// generic words (Name, Number) that yield to a more telling one (Nom
	// de la société is a company).
	qualifiers, heads map[string]bool
	// legalForms are the words that end company names (GmbH, S.r.l.);
	// streetWords those of street names (rue, Straße, via).
	legalForms, streetWords map[string]bool
	// longest is the longest spelling's key, bounding compound search.
	longest int
}

var synonyms = sync.OnceValue(func() *synonymIndex {
	var doc struct {
		Generic     []string                     `json:"generic"`
		Qualifiers  []string                     `json:"qualifiers"`
		Heads       []string                     `json:"heads"`
		LegalForms  []string                     `json:"legal_forms"`
		StreetWords []string                     `json:"street_words"`
		Concepts    []map[string]json.RawMessage `json:"concepts"`
	}
	if err := json.Unmarshal(synonymsJSON, &doc); err != nil {
		panic("synonyms.json: " + err.Error()) // embedded: a test reads it
	}
	ix := &synonymIndex{concepts: map[string]*concept{}, byKey: map[string][]*concept{}, generic: keySet(doc.Generic),
		qualifiers: keySet(doc.Qualifiers), heads: keySet(doc.Heads), legalForms: keySet(doc.LegalForms), streetWords: keySet(doc.StreetWords)}
	for _, raw := range doc.Concepts {
		c := &concept{}
		var related, near []string
		_ = json.Unmarshal(raw["concept"], &c.name)
		_ = json.Unmarshal(raw["kind"], &c.kind)
		_ = json.Unmarshal(raw["related"], &related)
		_ = json.Unmarshal(raw["close"], &near)
		c.related, c.close = keySet(related), keySet(near)
		ix.concepts[c.name] = c
		ix.add(c.name, c)
		for _, lang := range synonymLanguages {
			var names []string
			_ = json.Unmarshal(raw[lang], &names)
			for _, n := range names {
				ix.add(n, c)
			}
		}
	}
	return ix
})

func keySet(words []string) map[string]bool {
	out := make(map[string]bool, len(words))
	for _, w := range words {
		out[synKey(w)] = true
	}
	return out
}

func (ix *synonymIndex) add(name string, c *concept) {
	k := synKey(name)
	if k == "" {
		return
	}
	for _, have := range ix.byKey[k] {
		if have == c {
			return
		}
	}
	ix.byKey[k] = append(ix.byKey[k], c)
	ix.longest = max(ix.longest, len(k))
}

// synKey is HeaderKey with accents folded and ß as ss: "Téléphone" and
// "telephone", "Straße" and "strasse" are one key.
func synKey(s string) string {
	k := HeaderKey(s)
	if coerce.IsASCII(k) {
		return k
	}
	fold := transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
	if folded, _, err := transform.String(fold, k); err == nil {
		k = folded
	}
	return strings.ReplaceAll(k, "ß", "ss")
}

// headerWords splits a header into its words, lower-case and folded:
// at spaces and punctuation, and where a lower-case letter meets a
// capital (custEmail) or letters meet digits (email2).
func headerWords(h string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, synKey(string(cur)))
			cur = cur[:0]
		}
	}
	var prev rune
	for _, r := range h {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case len(cur) > 0 && (unicode.IsUpper(r) && unicode.IsLower(prev) || unicode.IsDigit(r) != unicode.IsDigit(prev)):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
		prev = r
	}
	flush()
	out := words[:0]
	for _, w := range words {
		if w != "" {
			out = append(out, w)
		}
	}
	return out
}

// conceptHit is a concept a header names, and how plainly.
type conceptHit struct {
	c     *concept
	score float64
}

// How plainly a header names a concept: the whole header is a spelling of
// it; a run of its words is; it ends with one (a compound: Kundennummer).
// A spelling of more than one concept says less.
const (
	synonymWhole    = 0.9
	synonymWords    = 0.72
	synonymCompound = 0.66
	synonymShared   = 0.12 // taken off when a spelling names several concepts
)

// conceptsOf returns the concepts a header (or a field's name) names, the
// plainest first, and whether it is generic: empty, or only words such as
// "Column" and numbers.
func (ix *synonymIndex) conceptsOf(h string) (hits []conceptHit, generic bool) {
	key := synKey(h)
	words := headerWords(h)
	generic = true
	for _, w := range words {
		if !ix.generic[w] && !coerce.AllDigits(w) {
			generic = false
		}
	}
	if generic {
		return nil, true
	}
	add := func(cs []*concept, score float64) {
		if len(cs) > 1 {
			score -= synonymShared
		}
		for _, c := range cs {
			found := false
			for i := range hits {
				if hits[i].c == c {
					hits[i].score, found = max(hits[i].score, score), true
				}
			}
			if !found {
				hits = append(hits, conceptHit{c, score})
			}
		}
	}
	if cs := ix.lookup(key); len(cs) > 0 {
		add(cs, synonymWhole)
		return hits, false
	}
	ix.wordRuns(words, add)
	if len(hits) == 0 {
		ix.compounds(key, add)
	}
	if len(hits) > 1 {
		hits = ix.dropHeads(words, hits)
	}
	if len(hits) > 1 {
		// Several concepts in one header ("Phone No") each say less.
		for i := range hits {
			hits[i].score -= synonymShared
		}
	}
	sortHits(hits)
	return hits, false
}

// lookup is the concepts of a key, or of its singular (Apellidos).
func (ix *synonymIndex) lookup(key string) []*concept {
	if cs := ix.byKey[key]; len(cs) > 0 || len(key) < 5 || !strings.HasSuffix(key, "s") {
		return cs
	}
	return ix.byKey[strings.TrimSuffix(key, "s")]
}

// dropHeads leaves out the concepts that only a header's generic words
// name, when another word names one: Nom de la société is a company,
// Number of items a quantity.
func (ix *synonymIndex) dropHeads(words []string, hits []conceptHit) []conceptHit {
	byHead := map[*concept]bool{}
	other := false
	for _, w := range words {
		if ix.qualifiers[w] {
			continue
		}
		for _, c := range ix.lookup(w) {
			if ix.heads[w] {
				byHead[c] = true
			} else {
				other = true
			}
		}
	}
	if !other {
		return hits
	}
	out := hits[:0]
	for _, h := range hits {
		if !byHead[h.c] {
			out = append(out, h)
		}
	}
	if len(out) == 0 {
		return hits
	}
	return out
}

// wordRuns adds the concepts that runs of a header's words spell, the
// longest runs first: "Customer E-Mail" is e-mail, not customer. A word
// that only qualifies (Customer) counts only as the whole header.
func (ix *synonymIndex) wordRuns(words []string, add func([]*concept, float64)) {
	covered := make([]bool, len(words))
	for i, w := range words {
		covered[i] = ix.qualifiers[w] || coerce.AllDigits(w)
	}
	for n := len(words); n >= 1; n-- {
		for i := 0; i+n <= len(words); i++ {
			if covered[i] || covered[i+n-1] {
				continue
			}
			run := strings.Join(words[i:i+n], "")
			if run == "" || coerce.AllDigits(run) {
				continue
			}
			if cs := ix.lookup(run); len(cs) > 0 {
				add(cs, synonymWords)
				for k := i; k < i+n; k++ {
					covered[k] = true
				}
			}
		}
	}
}

// compounds adds the concepts of a spelling (of 4 letters or more) that
// a one-word header ends or starts with: Rechnungsbetrag, Lieferadresse,
// emailkunde.
func (ix *synonymIndex) compounds(key string, add func([]*concept, float64)) {
	for n := min(len(key)-2, ix.longest); n >= 4; n-- {
		if cs := ix.byKey[key[len(key)-n:]]; len(cs) > 0 {
			add(cs, synonymCompound)
			return
		}
		if cs := ix.byKey[key[:n]]; len(cs) > 0 {
			add(cs, synonymCompound-0.06)
			return
		}
	}
}

func sortHits(hits []conceptHit) {
	for i := 1; i < len(hits); i++ {
		for j := i; j > 0 && hits[j].score > hits[j-1].score; j-- {
			hits[j], hits[j-1] = hits[j-1], hits[j]
		}
	}
}
