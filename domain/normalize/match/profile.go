package match

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/tabnorm/tabnorm/domain/normalize/coerce"
	"golang.org/x/text/language"
	"golang.org/x/text/language/display"
)

// A column's profile is what its sample's values look like: the share of
// them that read as each kind of value a field can hold, and how many
// are distinct. The matcher (match.go) compares it with what each field
// expects. Values are classified loosely: "bob@" is meant as an e-mail
// address even if it is not a valid one, and the coercer will say so.

// The kinds of values, as the evidence of a mapping names them.
const (
	kindEmail      = "email"
	kindPhone      = "phone"
	kindCountry    = "country"
	kindCurrency   = "currency"
	kindUUID       = "uuid"
	kindURI        = "uri"
	kindDate       = "date"
	kindDateTime   = "datetime"
	kindTime       = "time"
	kindInteger    = "integer"
	kindNumber     = "number"
	kindBoolean    = "boolean"
	kindYear       = "year"
	kindWeek       = "week" // an ISO 8601 week: 2020-W11
	kindPostal     = "postal"
	kindPersonName = "personname"
	kindGivenName  = "givenname"
	kindWords      = "words"
	kindCompany    = "company"
	kindStreet     = "street"
	kindAddress    = "address"
	kindIdentifier = "identifier"
	kindText       = "text"
	kindEnum       = "enum"
	kindPattern    = "pattern"
	kindList       = "list"
	kindEmpty      = "empty" // the sample has no value in the column
	kindAny        = "any"   // the field says nothing of its values: any fits
)

// profileKinds are the kinds a value is classified as, each a bit.
var profileKinds = []string{kindEmail, kindPhone, kindCountry, kindCurrency, kindUUID, kindURI, kindDate, kindDateTime, kindTime,
	kindInteger, kindNumber, kindBoolean, kindYear, kindWeek, kindPostal, kindPersonName, kindGivenName, kindWords, kindStreet, kindAddress,
	kindIdentifier, kindText, kindCompany}

// maxProfileDistinct bounds the distinct values a profile keeps (with
// their counts) for the checks of enums, patterns and lists.
const maxProfileDistinct = 256

// maxProfiled is how many of a column's sampled values its profile reads:
// the shares of its kinds are settled well before, and a review of a
// file of hundreds of columns answers in time (BenchmarkReview_200Columns).
const maxProfiled = 100

// profile is one column's sample described.
type profile struct {
	n        int // values that are not missing
	share    map[string]float64
	distinct map[string]int // up to maxProfileDistinct values, with counts
	// distinctRatio is distinct values over values (1: all differ).
	distinctRatio float64
	// dominant is the kind most values are, when one of the telling kinds
	// holds most of them ("" otherwise).
	dominant string
}

// tellingKinds are kinds whose values say plainly what a column is; a
// column mostly of one of them contradicts a field of another kind.
var tellingKinds = []string{kindEmail, kindURI, kindUUID, kindDateTime, kindDate, kindWeek, kindPhone, kindCurrency, kindNumber}

// profileValues profiles a column's non-missing, trimmed values.
func profileValues(values []string) *profile {
	p := &profile{n: len(values), share: map[string]float64{}, distinct: map[string]int{}}
	if p.n == 0 {
		return p
	}
	if len(values) > maxProfiled {
		values = values[:maxProfiled]
		p.n = maxProfiled
	}
	// Each distinct value is classified once, and counted.
	type entry struct {
		kinds []string
		n     int
	}
	at := make(map[string]int, len(values))
	var entries []entry
	var order []string
	sc := &coerce.Scratch{}
	for _, v := range values {
		if i, ok := at[v]; ok {
			entries[i].n++
			continue
		}
		at[v] = len(entries)
		entries = append(entries, entry{kinds: classify(v, sc), n: 1})
		order = append(order, v)
		sc.Reset()
	}
	counts := make(map[string]int, len(profileKinds))
	for i, e := range entries {
		for _, k := range e.kinds {
			counts[k] += e.n
		}
		if i < maxProfileDistinct {
			p.distinct[order[i]] = e.n
		}
	}
	seen := at
	p.distinctRatio = float64(len(seen)) / float64(p.n)
	for k, c := range counts {
		p.share[k] = float64(c) / float64(p.n)
	}
	// Booleans are few distinct words: a column of 0..9 is not one.
	if len(seen) > 4 {
		delete(p.share, kindBoolean)
	}
	// An identifier column's values differ from each other.
	if p.distinctRatio < 0.9 && p.n >= 5 {
		p.share[kindIdentifier] *= p.distinctRatio
	}
	for _, k := range tellingKinds {
		if p.share[k] >= 0.6 {
			p.dominant = k
			break
		}
	}
	// Whole numbers are numbers too, but they tell less: only a column
	// of fractions is dominated by numbers.
	if p.dominant == kindNumber && p.share[kindInteger] >= 0.6 {
		p.dominant = ""
	}
	return p
}

// booleanWords are yes and no in the languages of synonyms.json.
var booleanWords = map[string]bool{"true": true, "false": true, "yes": true, "no": true, "y": true, "n": true, "t": true, "f": true,
	"1": true, "0": true, "on": true, "off": true, "x": true, "ja": true, "nein": true, "oui": true, "non": true, "si": true, "sí": true,
	"sim": true, "não": true, "nao": true, "nee": true, "wahr": true, "falsch": true, "vrai": true, "faux": true, "verdadero": true,
	"falso": true, "vero": true, "waar": true, "onwaar": true, "j": true, "o": true, "s": true, "-": true}

// classify returns the kinds one value reads as.
func classify(v string, sc *coerce.Scratch) []string {
	c := valueShape{v: v, lower: strings.ToLower(v), hasSpace: strings.ContainsAny(v, " \t"), words: strings.Fields(v)}
	c.digits, c.letters = countDigitsLetters(v)
	c.contacts()
	c.times()
	c.numbers(sc)
	c.codes()
	c.names()
	return c.out
}

// valueShape is one value being classified: what it is made of, and the
// kinds found so far.
type valueShape struct {
	v, lower        string
	hasSpace        bool
	words           []string
	digits, letters int
	isDate          bool
	out             []string
}

func (c *valueShape) add(k string) { c.out = append(c.out, k) }

// contacts: e-mail addresses, web addresses, UUIDs and phone numbers.
func (c *valueShape) contacts() {
	if at := strings.IndexByte(c.v, '@'); at > 0 && !c.hasSpace && strings.Count(c.v, "@") == 1 {
		c.add(kindEmail)
	}
	if strings.Contains(c.v, "://") || strings.HasPrefix(c.lower, "www.") {
		c.add(kindURI)
	}
	if _, ok := coerce.ParseUUID(c.v); ok {
		c.add(kindUUID)
	}
}

// times: dates, dates with a time, times of day.
func (c *valueShape) times() {
	date, datetime := dateKinds(c.v)
	c.isDate = date
	if date {
		c.add(kindDate)
	}
	if datetime {
		c.add(kindDateTime)
	}
	if _, _, _, _, _, ok := coerce.ParseTime(c.v); ok && !date && strings.Contains(c.v, ":") {
		c.add(kindTime)
	}
	if isoWeek(c.v) {
		c.add(kindWeek)
	}
}

// isoWeek says a value is an ISO 8601 week: 2020-W11, 2020W11, 2020-W11-3.
func isoWeek(v string) bool {
	if len(v) < 7 || len(v) > 10 || !coerce.AllDigits(v[:4]) {
		return false
	}
	rest := strings.TrimPrefix(v[4:], "-")
	if len(rest) < 3 || rest[0] != 'W' && rest[0] != 'w' || !coerce.AllDigits(rest[1:3]) {
		return false
	}
	if wk := rest[1:3]; wk < "01" || wk > "53" {
		return false
	}
	day := strings.TrimPrefix(rest[3:], "-")
	return day == "" || len(day) == 1 && day >= "1" && day <= "7"
}

// numbers: phone numbers, whole and other numbers, years, postal codes.
// A number written as a phone number is not a number, unless it is
// digits only.
func (c *valueShape) numbers(sc *coerce.Scratch) {
	phone := !c.isDate && phoneShaped(c.v, c.digits, c.letters)
	if phone {
		c.add(kindPhone)
	}
	if !c.isDate && !phone || coerce.AllDigits(c.v) {
		if _, ok := coerce.ParseInteger(sc, c.v, "", ""); ok {
			c.add(kindInteger)
			c.add(kindNumber)
		} else if _, ok := coerce.ParseDecimal(sc, c.v, "", ""); ok {
			c.add(kindNumber)
		}
	}
	if len(c.v) == 4 && coerce.AllDigits(c.v) && c.v >= "1800" && c.v <= "2100" {
		c.add(kindYear)
	}
	if postalShaped(c.v) {
		c.add(kindPostal)
	}
}

// codes: countries, currencies, yes and no.
func (c *valueShape) codes() {
	if c.letters > 0 && c.digits == 0 {
		if _, ok := coerce.ParseCountry(c.v); ok || countryNames()[coerce.CountryKey(c.v)] {
			c.add(kindCountry)
		}
		if _, ok := coerce.ParseCurrency(c.v); ok {
			c.add(kindCurrency)
		}
	} else if _, ok := coerce.ParseCurrency(c.v); ok && c.digits == 0 {
		c.add(kindCurrency) // a symbol: €
	}
	if booleanWords[c.lower] {
		c.add(kindBoolean)
	}
}

// names: companies, words and names of people, street lines and
// addresses, identifiers, any text.
func (c *valueShape) names() {
	n := len(c.words)
	company := n >= 2 && legalForm(c.words)
	if company {
		c.add(kindCompany)
	}
	if c.letters > 0 && c.digits == 0 && len(c.v) <= 60 && nameChars(c.v) && !company {
		c.add(kindWords)
		if n == 1 || n == 2 && len(c.v) <= 20 && strings.Contains(c.v, "-") {
			c.add(kindGivenName)
		}
		if n >= 2 && n <= 4 || strings.Contains(c.v, ",") && n >= 2 {
			c.add(kindPersonName)
		}
	}
	noAt := !strings.Contains(c.v, "@")
	if c.letters > 0 && c.digits > 0 && n >= 2 && len(c.v) <= 80 && noAt && streetName(c.v) {
		c.add(kindStreet)
		if strings.Contains(c.v, ",") || n >= 5 {
			c.add(kindAddress)
		}
	}
	if !c.hasSpace && utf8.RuneCountInString(c.v) <= 40 && (c.digits > 0 || c.letters > 0) && noAt {
		c.add(kindIdentifier)
	}
	if c.letters > 0 {
		c.add(kindText)
	}
}

// legalForm says a name ends with a company's legal form (GmbH, S.r.l.,
// B.V.), possibly two (GmbH & Co. KG).
func legalForm(words []string) bool {
	forms := synonyms().legalForms
	for _, w := range words[max(1, len(words)-3):] {
		if forms[synKey(w)] {
			return true
		}
	}
	return false
}

// streetName says an address line names its street with a word streets
// are named with, alone (rue, via) or ending a compound (Hauptstraße,
// Bahnhofstr., Kerkstraat).
func streetName(v string) bool {
	ix := synonyms()
	for _, w := range headerWords(v) {
		if ix.streetWords[w] {
			return true
		}
		for n := 3; n < len(w)-2; n++ {
			if ix.streetWords[w[len(w)-n:]] {
				return true
			}
		}
	}
	return false
}

// countryNames are the countries' names in the languages of
// synonyms.json (CLDR, through x/text), folded as coerce.CountryKey folds: the
// Matcher reads Frankreich and Países Bajos as countries.
var countryNames = sync.OnceValue(func() map[string]bool {
	out := map[string]bool{}
	for _, tag := range []language.Tag{language.German, language.French, language.Spanish, language.Italian, language.Portuguese,
		language.EuropeanPortuguese, language.Dutch, language.English} {
		names := display.Regions(tag)
		for a := 'A'; a <= 'Z'; a++ {
			for b := 'A'; b <= 'Z'; b++ {
				r, err := language.ParseRegion(string([]rune{a, b}))
				if err != nil || !r.IsCountry() {
					continue
				}
				if n := names.Name(r); n != "" {
					out[coerce.CountryKey(n)] = true
				}
			}
		}
	}
	return out
})

func countDigitsLetters(s string) (digits, letters int) {
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case unicode.IsLetter(r):
			letters++
		}
	}
	return digits, letters
}

// dateKinds reads a value as a date, and as a date with a time of day.
func dateKinds(v string) (date, datetime bool) {
	if len(v) < 6 || len(v) > 40 {
		return false, false
	}
	if coerce.AllDigits(v) && len(v) != 8 {
		return false, false
	}
	dp, tp := coerce.SplitDateTime(v)
	if _, ok := coerce.ParseDateEitherWay(dp, coerce.OrderMDY); !ok {
		return false, false
	}
	if tp == "" {
		return true, false
	}
	if _, _, _, _, _, ok := coerce.ParseTime(tp); ok {
		return false, true
	}
	return false, false
}

// phoneShaped says a value is written as a phone number: 7 to 15 digits
// with the punctuation of phone numbers, and an international prefix, a
// leading zero or some punctuation to tell it from a plain number.
// thousandsGrouped says a value is a whole number grouped by thousands
// with points, as German, Spanish or Italian write it (4.500.000): a first
// group of one to three digits, not 0, then groups of three.
func thousandsGrouped(v string) bool {
	groups := strings.Split(v, ".")
	if len(groups) < 3 || len(groups[0]) == 0 || len(groups[0]) > 3 || groups[0][0] == '0' {
		return false
	}
	for i, g := range groups {
		if !coerce.AllDigits(g) || i > 0 && len(g) != 3 {
			return false
		}
	}
	return true
}

func phoneShaped(v string, digits, letters int) bool {
	if digits < 7 || digits > 15 {
		return false
	}
	if letters > 0 {
		low := strings.ToLower(v)
		if !strings.Contains(low, "ext") && !strings.Contains(low, "x") {
			return false
		}
		v = coerce.DropExtension(v)
	}
	punct := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case coerce.IsDigit(c):
		case c == '+' || c == '(' || c == ')' || c == '-' || c == ' ' || c == '/' || c == '.':
			punct = true
		default:
			return false
		}
	}
	if strings.Count(v, ".") == 1 && !strings.Contains(v, " ") { // 1234567.89
		return false
	}
	if thousandsGrouped(v) { // 4.500.000 is an amount
		return false
	}
	return punct || v[0] == '0' || v[0] == '+'
}

// postalShaped says a value is written as a postal code of a common
// country: 4 or 5 digits (with a country letter before: D-10115), ZIP+4,
// Dutch 1234 AB, Portuguese 1000-001, Brazilian 01310-100, British and
// Canadian ones.
func postalShaped(v string) bool {
	u := strings.ToUpper(strings.TrimSpace(v))
	if len(u) > 2 && u[1] == '-' && u[0] >= 'A' && u[0] <= 'Z' {
		u = u[2:]
	}
	switch {
	case (len(u) == 4 || len(u) == 5) && coerce.AllDigits(u):
		return true
	case len(u) == 10 && u[5] == '-' && coerce.AllDigits(u[:5]) && coerce.AllDigits(u[6:]), // 12345-6789
		len(u) == 8 && u[4] == '-' && coerce.AllDigits(u[:4]) && coerce.AllDigits(u[5:]), // 1000-001
		len(u) == 9 && u[5] == '-' && coerce.AllDigits(u[:5]) && coerce.AllDigits(u[6:]): // 01310-100
		return true
	}
	c := strings.ReplaceAll(u, " ", "")
	if len(c) == 6 && coerce.AllDigits(c[:4]) && isUpperLetters(c[4:]) { // 1234AB
		return true
	}
	if len(c) == 6 && isUpperLetters(c[0:1]) && coerce.IsDigit(c[1]) && isUpperLetters(c[2:3]) && coerce.IsDigit(c[3]) && isUpperLetters(c[4:5]) && coerce.IsDigit(c[5]) { // K1A0B1
		return true
	}
	// British: A9 9AA, A99 9AA, AA9 9AA, AA99 9AA, A9A 9AA, AA9A 9AA.
	if n := len(c); n >= 5 && n <= 7 && strings.Contains(u, " ") && coerce.IsDigit(c[n-3]) && isUpperLetters(c[n-2:]) && isUpperLetters(c[:1]) {
		return true
	}
	return false
}

func isUpperLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return s != ""
}

// nameChars says text is letters and the punctuation of names.
func nameChars(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) && !strings.ContainsRune(" -'’.,&()/", r) {
			return false
		}
	}
	return true
}
