package match

import (
	_ "embed"
	"encoding/json"
	"slices"
	"strings"
	"sync"

	"github.com/tabnorm/tabnorm/domain/normalize/coerce"
)

// Headers read as words. A header is split into words (snake_case,
// camelCase, spaces, letters against digits, and German or Dutch
// compounds into the vocabulary's words: Beitrittsdatum is beitritt +
// datum), each word folded (case, accents) and translated through
// vocabulary.json into a concept; a field's name, title and aliases are
// read the same way, and the two sets of concepts are compared
// (docs/engine.md, "Headers read as words").

// vocabularyJSON is the multilingual vocabulary of data headers: data the
// team extends without touching code.
//
//go:embed vocabulary.json
var vocabularyJSON []byte

// vocabLanguages are the keys of a concept that hold its words.
var vocabLanguages = []string{"en", "de", "fr", "es", "it", "pt", "nl", "abbr"}

// term is one word of a header or field name read as a concept: the
// concept's id, or "=word" for a word the vocabulary does not know.
type term struct {
	id     string
	weight float64
}

// lightWeight is the weight of a word that barely changes what a header
// names (name, total, number of): denominazione_regione is the region,
// totale_casi the cases.
const lightWeight = 0.25

// unknownWeight is the weight of a word the vocabulary does not know: it
// may be a name (ISTAT, ERTE) more than a concept.
const unknownWeight = 0.5

// ordinals read a digit after a word: doses1, dose_2.
var ordinals = map[string]string{"1": "first", "2": "second", "3": "third"}

type vocabulary struct {
	byWord  map[string]string          // folded word → concept id
	weight  map[string]float64         // concept id → weight, when not 1
	stop    map[string]bool            // words that say nothing (of, de, der)
	close   map[string]map[string]bool // concepts that may name one another's values (a day, a date)
	kind    map[string]string          // concept id → the kind of value it holds (week), when it says one
	abbr    map[string]bool            // folded words listed as abbreviations
	longest int                        // the longest word's length, bounding compound search
}

var vocab = sync.OnceValue(func() *vocabulary {
	var doc struct {
		Stopwords []string                     `json:"stopwords"`
		Concepts  []map[string]json.RawMessage `json:"concepts"`
	}
	if err := json.Unmarshal(vocabularyJSON, &doc); err != nil {
		panic("vocabulary.json: " + err.Error()) // embedded: TestVocabulary_data reads it
	}
	v := &vocabulary{byWord: map[string]string{}, weight: map[string]float64{}, stop: keySet(doc.Stopwords), close: map[string]map[string]bool{},
		kind: map[string]string{}, abbr: map[string]bool{}}
	for _, raw := range doc.Concepts {
		var id, kind string
		var light bool
		var near, abbr []string
		_ = json.Unmarshal(raw["id"], &id)
		_ = json.Unmarshal(raw["light"], &light)
		_ = json.Unmarshal(raw["close"], &near)
		_ = json.Unmarshal(raw["kind"], &kind)
		_ = json.Unmarshal(raw["abbr"], &abbr)
		if kind != "" {
			v.kind[id] = kind
		}
		for _, a := range abbr {
			v.abbr[synKey(a)] = true
		}
		for _, o := range near {
			if v.close[id] == nil {
				v.close[id] = map[string]bool{}
			}
			if v.close[o] == nil {
				v.close[o] = map[string]bool{}
			}
			v.close[id][o], v.close[o][id] = true, true
		}
		if light {
			v.weight[id] = lightWeight
		}
		v.add(id, id)
		for _, lang := range vocabLanguages {
			var words []string
			_ = json.Unmarshal(raw[lang], &words)
			for _, w := range words {
				v.add(w, id)
			}
		}
	}
	return v
})

// add files a word (or a phrase, read as one folded word) under a
// concept; the first concept to claim a word keeps it.
func (v *vocabulary) add(word, id string) {
	k := synKey(word)
	if k == "" {
		return
	}
	if _, ok := v.byWord[k]; !ok {
		v.byWord[k] = id
	}
	v.longest = max(v.longest, len(k))
}

// lookup is the concept of a folded word, or of its singular (cases,
// Fälle are listed; a plain -s or -es plural is taken off).
func (v *vocabulary) lookup(w string) (string, bool) {
	if id, ok := v.byWord[w]; ok {
		return id, true
	}
	if len(w) >= 4 && strings.HasSuffix(w, "s") {
		if id, ok := v.byWord[w[:len(w)-1]]; ok {
			return id, true
		}
		if strings.HasSuffix(w, "es") {
			if id, ok := v.byWord[w[:len(w)-2]]; ok {
				return id, true
			}
		}
	}
	return "", false
}

// terms reads a header (or a field's name) as concepts, each once.
func (v *vocabulary) terms(h string) []term {
	words := headerWords(h)
	lower := strings.ToLower(h)
	var out []term
	seen := map[string]bool{}
	addTerm := func(id string) {
		if !seen[id] {
			seen[id] = true
			w, ok := v.weight[id]
			switch {
			case strings.HasPrefix(id, "="):
				w = unknownWeight
			case !ok:
				w = 1
			}
			out = append(out, term{id: id, weight: w})
		}
	}
	// A run of words may be one entry ("date of birth", "code postal").
	for i := 0; i < len(words); i++ {
		w := words[i]
		if coerce.AllDigits(w) {
			// A single digit right after a word counts (doses1 is the
			// first dose); other numbers (2020, nuts_2) say nothing.
			if id, ok := ordinals[w]; ok && i > 0 && strings.Contains(lower, words[i-1]+w) {
				addTerm(id)
			}
			continue
		}
		if v.stop[w] {
			continue
		}
		if i+1 < len(words) {
			if id, ok := v.lookup(w + words[i+1]); ok {
				addTerm(id)
				i++
				continue
			}
		}
		if id, ok := v.lookup(w); ok {
			addTerm(id)
			continue
		}
		if parts := v.split(w); parts != nil {
			for _, id := range parts {
				addTerm(id)
			}
			continue
		}
		if len(w) > 1 {
			addTerm("=" + w) // a single letter says nothing
		}
	}
	return out
}

// split reads a compound (Beitrittsdatum, Gemeentenaam, Provincienaam)
// as the vocabulary's words it is made of, with the linking s or en of
// German and Dutch between them; nil when it is not made of known words.
// A short compound of abbreviations (NBCOM is nb + com, CODREG cod +
// reg, as statistics offices write them) is read too: a part of two
// letters must be a listed abbreviation.
func (v *vocabulary) split(w string) []string {
	if len(w) < 5 {
		return nil
	}
	// best[i] is the fewest parts that spell w[:i]; from[i] where the
	// last part starts, id[i] its concept.
	n := len(w)
	best := make([]int, n+1)
	from := make([]int, n+1)
	ids := make([]string, n+1)
	for i := 1; i <= n; i++ {
		best[i] = -1
	}
	for i := 1; i <= n; i++ {
		for j := max(0, i-v.longest); j <= i-2; j++ {
			if best[j] < 0 {
				continue
			}
			id, ok := v.byWord[w[j:i]]
			if !ok || i-j == 2 && !v.abbr[w[j:i]] {
				continue
			}
			if best[i] < 0 || best[j]+1 < best[i] {
				best[i], from[i], ids[i] = best[j]+1, j, id
			}
		}
		// A linking s, e or en after a part: Beitritt-s-datum.
		for _, link := range []string{"s", "e", "en"} {
			j := i - len(link)
			if j > 0 && best[j] > 0 && ids[j] != "" && w[j:i] == link && (best[i] < 0 || best[j] < best[i]) {
				best[i], from[i], ids[i] = best[j], j, ""
			}
		}
	}
	if best[n] < 2 {
		return nil
	}
	return v.parts(w, from, ids)
}

// parts are the concepts of a compound's split, in order (from and ids as
// split found them); nil for a short compound (under seven letters) none
// of whose parts is an abbreviation.
func (v *vocabulary) parts(w string, from []int, ids []string) []string {
	var parts []string
	short := len(w) < 7
	for i := len(w); i > 0; i = from[i] {
		if ids[i] != "" {
			parts = append(parts, ids[i])
			short = short && !v.abbr[w[from[i]:i]]
		}
	}
	if short {
		return nil
	}
	slices.Reverse(parts)
	return parts
}

// termScore is how well a header's concepts name a field's: all of the
// field's concepts and nothing else is 0.95; all of them with more
// words, less (a light word like name or total costs little, an unknown
// word some, a word like code a lot: codice_regione is not the region,
// and 0.7 is not enough to map a text field on its own); some of them,
// under headerLed, so that only values or a person can settle it.
func termScore(header, field []term) float64 {
	if len(header) == 0 || len(field) == 0 {
		return 0
	}
	var hw, fw, matched float64
	for _, t := range header {
		hw += t.weight
	}
	for _, f := range field {
		fw += f.weight
		for _, t := range header {
			if t.id == f.id {
				matched += f.weight
				break
			}
		}
	}
	if matched == 0 || hw == 0 || fw == 0 {
		return 0
	}
	recall, precision := matched/fw, matched/hw
	switch {
	case recall < 0.999:
		return 0.45 * recall * precision
	case precision >= 0.5:
		return 0.45 + 0.5*precision
	}
	return 1.4 * precision
}

// fieldTerms are a field's name, title and aliases read as concepts.
func fieldTerms(name, title string, aliases []string) [][]term {
	v := vocab()
	var out [][]term
	for _, s := range append([]string{name, title}, aliases...) {
		if ts := v.terms(s); len(ts) > 0 {
			out = append(out, ts)
		}
	}
	return out
}

// vocabScore is the best termScore of a header against any of a field's
// spellings.
func vocabScore(header []term, field [][]term) float64 {
	best := 0.0
	for _, f := range field {
		best = max(best, termScore(header, f))
	}
	return best
}

// speaksAgainst says a header's words name something other than a
// field: a concept of the vocabulary (not a light or unknown word) that
// is neither among the field's concepts nor close to one, while none of
// the header's words is. Geändert am (updated) is no birth date; dia (a
// day) may be a date; stato (a word it does not know) says nothing.
func (v *vocabulary) speaksAgainst(header []term, field [][]term) bool {
	against := false
	for _, t := range header {
		if strings.HasPrefix(t.id, "=") || t.weight < 1 {
			continue
		}
		agrees := false
		for _, f := range field {
			for _, ft := range f {
				agrees = agrees || ft.id == t.id || v.close[t.id][ft.id]
			}
		}
		if agrees {
			return false
		}
		against = true
	}
	return against
}
