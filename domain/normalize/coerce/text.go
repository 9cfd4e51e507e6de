package coerce

import (
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"

	"github.com/nyaruka/phonenumbers"
	"golang.org/x/text/currency"
	"golang.org/x/text/language"
	"golang.org/x/text/language/display"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// ParseEmail lower-cases an address and checks it is plausibly
// local@domain.tld (no spaces, one @, a dot in the domain, a letter TLD).
// ASCII addresses are checked as they are, upper-case letters read as
// lower-case, and written to sc lower-cased only when they have capitals.
func ParseEmail(sc *Scratch, s string) (string, bool) {
	if !IsASCII(s) {
		s = strings.ToLower(s) // which may turn non-ASCII letters into ASCII ones (K, the Kelvin sign)
		return s, validEmail(s)
	}
	if !validEmail(s) {
		return "", false
	}
	return lowerASCII(sc, s), true
}

// validEmail checks an address with A–Z read as a–z.
func validEmail(s string) bool {
	at := strings.IndexByte(s, '@')
	if at <= 0 || len(s) > 254 || at > 64 {
		return false
	}
	prev := byte('.') // a leading dot is refused as a double one
	for i := 0; i < at; i++ {
		c := s[i]
		if emailLocalBad[c] || c == '.' && prev == '.' {
			return false
		}
		prev = c
	}
	if prev == '.' {
		return false
	}
	// The domain: letters, digits, hyphens and dots, no empty label, at
	// least two labels, the last one of two or more letters. (A second @
	// is not a domain character.)
	prev, dot, tldLetters := byte(0), -1, true
	for i := at + 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '.':
			if prev == '.' {
				return false
			}
			dot, tldLetters = i, true
		case c|0x20 >= 'a' && c|0x20 <= 'z':
		case c >= '0' && c <= '9' || c == '-':
			tldLetters = false
		default:
			return false
		}
		prev = c
	}
	return dot > at+1 && len(s)-dot-1 >= 2 && tldLetters
}

// emailLocalBad are the bytes refused in an address's local part.
var emailLocalBad = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),:;<>[]\`, byte(c)) >= 0
	}
	return t
}()

// ParseURI accepts absolute URIs with a scheme and, for web schemes, a host.
func ParseURI(s string) (string, bool) {
	if strings.ContainsAny(s, " \t\n") {
		return "", false
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" {
		return "", false
	}
	if (u.Scheme == "http" || u.Scheme == "https" || u.Scheme == "ftp") && u.Host == "" {
		return "", false
	}
	return s, true
}

// ParseUUID accepts hex with or without hyphens or braces and returns the
// canonical lower-case 8-4-4-4-12 form.
func ParseUUID(s string) (string, bool) {
	s = strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(s, "urn:uuid:"), "{"), "}")
	hex := strings.ReplaceAll(s, "-", "")
	if len(hex) != 32 || (len(s) != 32 && len(s) != 36) {
		return "", false
	}
	if len(s) == 36 && (s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-') {
		return "", false
	}
	b := []byte(strings.ToLower(hex))
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return "", false
		}
	}
	return string(b[:8]) + "-" + string(b[8:12]) + "-" + string(b[12:16]) + "-" + string(b[16:20]) + "-" + string(b[20:]), true
}

// ParsePhone returns E.164. Common shapes take a fast path (a number is
// digits and formatting): "+<country><number>" with 8–15 digits, or, for
// North American regions, 10 digits (or 11 starting with 1) with valid
// area and exchange codes. Everything else goes to libphonenumber's
// rules for the default region, which are thorough but ~50× slower. A
// number the fast path reads must still be one libphonenumber holds valid
// (validPhone, cached): a possible length is not enough.
//
//nolint:gocognit // per cell (BenchmarkCoerce/phone): the fast path is one pass over the bytes
func ParsePhone(sc *Scratch, s, region string) (string, bool) {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c == 'x' || c == 't' || s[i] == '#' {
			s = DropExtension(s)
			break
		}
	}
	// An international call prefix reads as a "+" (the digits after it
	// are read in place; the library is given "+" and them).
	intl := false
	if strings.HasPrefix(s, "00") {
		s, intl = s[2:], true
	} else if strings.HasPrefix(s, "011") && nanpRegion(region) {
		s, intl = s[3:], true
	}
	var digits [20]byte
	n, plus, other := 0, intl, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			if n == len(digits) {
				return "", false
			}
			digits[n] = c
			n++
		case c == '+' && n == 0 && !plus:
			plus = true
		case c == ' ' || c == '-' || c == '.' || c == '(' || c == ')' || c == '/':
		default:
			other = true
		}
	}
	if !other {
		d := digits[:n]
		mark := len(sc.buf)
		switch {
		case plus && n == 11 && d[0] == '1':
			if !validNANP(d[1:]) || !sc.validPhone(d) {
				return "", false
			}
			sc.buf = append(append(sc.buf, '+'), d...)
			return sc.since(mark), true
		case plus && n >= 8 && n <= 15 && d[0] > '1':
			switch possibleInternational(d) {
			case fastNo:
				return "", false // no such calling code, or a length no number of it has
			case fastYes:
				if !sc.validPhone(d) {
					return "", false // a possible length, but no number the plan assigns
				}
				sc.buf = append(append(sc.buf, '+'), d...)
				return sc.since(mark), true
			} // a national prefix written after the code: libphonenumber drops it

		case !plus && nanpRegion(region) && n == 10:
			var full [11]byte // the calling code and the number, without an allocation
			full[0] = '1'
			copy(full[1:], d)
			if !validNANP(d) || !sc.validPhone(full[:]) {
				return "", false
			}
			sc.buf = append(append(sc.buf, '+', '1'), d...)
			return sc.since(mark), true
		case !plus && nanpRegion(region) && n == 11 && d[0] == '1':
			if !validNANP(d[1:]) || !sc.validPhone(d) {
				return "", false
			}
			sc.buf = append(append(sc.buf, '+'), d...)
			return sc.since(mark), true
		case !plus && nanpRegion(region) && n < 10:
			return "", false
		}
	}
	if intl {
		s = "+" + s
	}
	num, err := phonenumbers.Parse(s, region)
	if err != nil || !phonenumbers.IsValidNumber(num) {
		return "", false
	}
	// E.164 has at most 15 digits: a longer result (the library reads
	// letters as keypad digits, and holds some such numbers valid) is no
	// phone number.
	if e164 := phonenumbers.Format(num, phonenumbers.E164); len(e164) <= 16 {
		return e164, true
	}
	return "", false
}

// maxPhoneCache bounds a Scratch's cache of phone verdicts.
const maxPhoneCache = 4096

// validPhone tells whether the international number with these digits
// (calling code first) is one libphonenumber holds valid for its region:
// the fast path only knows its length is possible. Its verdict (tens of
// microseconds) is cached, as numbers recur in a column.
func (sc *Scratch) validPhone(d []byte) bool {
	if cc, n := callingCodeOf(d); n > 0 {
		if v, ok := phoneValid(cc, d[n:]); ok {
			return v
		}
	}
	if v, ok := sc.phones[string(d)]; ok {
		return v
	}
	num, err := phonenumbers.Parse("+"+string(d), "ZZ")
	v := err == nil && phonenumbers.IsValidNumber(num)
	if sc.phones == nil || len(sc.phones) >= maxPhoneCache {
		sc.phones = make(map[string]bool, 64)
	}
	sc.phones[string(d)] = v
	return v
}

// callingCodeOf is the calling code at the start of d (the digits of an
// international number) and its length, as the library's parse reads it
// (the shortest in use); 0, 0 for none.
func callingCodeOf(d []byte) (cc, n int) {
	codes := callingCodes()
	for i := 0; i < 3 && i < len(d); i++ {
		cc = cc*10 + int(d[i]-'0')
		if codes[cc].used {
			return cc, i + 1
		}
	}
	return 0, 0
}

func nanpRegion(r string) bool { return r == "US" || r == "CA" }

// DropExtension removes "ext. 123", "x123" or "#123" after a number: E.164
// has no extensions.
func DropExtension(s string) string {
	l := foldASCII(s) // same length as s, so indexes carry over
	for _, mark := range []string{" ext.", " ext", " extension", " x", "#"} {
		if i := strings.LastIndex(l, mark); i > 6 {
			rest := strings.TrimSpace(strings.TrimLeft(l[i+len(mark):], ". :"))
			if AllDigits(rest) {
				return strings.TrimSpace(s[:i])
			}
		}
	}
	return s
}

// validNANP checks a 10-digit North American number's area and exchange codes.
func validNANP(d []byte) bool {
	return len(d) == 10 && d[0] >= '2' && d[3] >= '2' && !(d[1] == '1' && d[2] == '1') && !(d[4] == '1' && d[5] == '1')
}

// callingCode is a country calling code in use, with the national
// (trunk) prefix of its main region ("0", "8"…, "" for none).
type callingCode struct {
	used     bool
	prefix   string
	possible [16]bool // by national number length: libphonenumber's IsPossibleNumber, which looks only at the length
}

// callingCodes are the calling codes by number (1 to 3 digits).
var callingCodes = sync.OnceValue(func() *[1000]callingCode {
	t := new([1000]callingCode) // a pointer: the table is not copied a call
	for cc := range phonenumbers.GetSupportedCallingCodes() {
		if cc > 0 && cc < 1000 {
			c := callingCode{used: true, prefix: phonenumbers.GetNddPrefixForRegion(phonenumbers.GetRegionCodeForCountryCode(cc), true)}
			code := int32(cc)
			for n := 1; n < len(c.possible); n++ {
				nn, _ := strconv.ParseUint("2"+strings.Repeat("0", n-1), 10, 64)
				c.possible[n] = phonenumbers.IsPossibleNumber(&phonenumbers.PhoneNumber{CountryCode: &code, NationalNumber: &nn})
			}
			t[cc] = c
		}
	}
	return t
})

const (
	fastNo = iota
	fastYes
	fastUnsure
)

// possibleInternational checks the digits of a +number without a
// libphonenumber parse (about 100× the cost): the calling code is one in
// use, and the national number has a length libphonenumber's rules allow
// for it (its IsPossibleNumber, a table lookup).
// The national number may start with the region's national prefix
// (+44 020…): libphonenumber drops the prefix, so those go to it (unsure).
func possibleInternational(d []byte) int {
	cc, n := callingCodeOf(d)
	if n == 0 {
		return fastNo
	}
	code, national := &callingCodes()[cc], d[n:]
	if p := code.prefix; p != "" && len(national) >= len(p) && string(national[:len(p)]) == p || len(national) > 0 && national[0] == '0' {
		return fastUnsure
	}
	if len(national) < len(code.possible) && code.possible[len(national)] {
		return fastYes
	}
	return fastNo
}

// ValidRegion reports whether r is a region libphonenumber knows, as the
// phone_region option names it (two letters).
func ValidRegion(r string) bool {
	if len(r) != 2 {
		return false
	}
	return len(phonenumbers.GetSupportedRegions()) > 0 && phonenumbers.GetCountryCodeForRegion(r) != 0
}

// lowerASCII lower-cases the ASCII text s, writing to sc only when s has
// upper-case letters.
func lowerASCII(sc *Scratch, s string) string {
	i := 0
	for i < len(s) && (s[i] < 'A' || s[i] > 'Z') {
		i++
	}
	if i == len(s) {
		return s
	}
	mark := len(sc.buf)
	sc.buf = append(sc.buf, s...)
	b := sc.buf[mark:]
	for ; i < len(b); i++ {
		b[i] = asciiLower[b[i]]
	}
	return sc.since(mark)
}

// asciiLower maps A–Z to a–z and every other byte to itself.
var asciiLower = func() (t [256]byte) {
	for c := range t {
		t[c] = byte(c)
		if c >= 'A' && c <= 'Z' {
			t[c] += 'a' - 'A'
		}
	}
	return t
}()

// foldASCII lower-cases A–Z only, keeping every byte where it was.
func foldASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// IsASCII reports whether s holds only ASCII bytes.
func IsASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

var (
	countryOnce sync.Once
	countries   map[string]string // normalized name, alpha-2 or alpha-3 → alpha-2
)

// countryAliases are names people use that differ from CLDR's English ones.
var countryAliases = map[string]string{
	"usa": "US", "united states of america": "US", "america": "US", "u.s.": "US", "u.s.a.": "US",
	"uk": "GB", "great britain": "GB", "britain": "GB", "england": "GB", "scotland": "GB", "wales": "GB", "northern ireland": "GB",
	"russia": "RU", "south korea": "KR", "korea": "KR", "north korea": "KP", "czech republic": "CZ", "holland": "NL",
	"the netherlands": "NL", "ivory coast": "CI", "vietnam": "VN", "iran": "IR", "syria": "SY", "laos": "LA",
	"bolivia": "BO", "venezuela": "VE", "tanzania": "TZ", "moldova": "MD", "macedonia": "MK", "burma": "MM",
	"cape verde": "CV", "swaziland": "SZ", "turkey": "TR", "türkiye": "TR", "uae": "AE", "taiwan": "TW",
	"hong kong": "HK", "macau": "MO", "palestine": "PS", "vatican": "VA", "brunei": "BN", "micronesia": "FM",
	"deutschland": "DE", "españa": "ES", "espana": "ES", "italia": "IT", "brasil": "BR", "schweiz": "CH", "suisse": "CH", "österreich": "AT",
}

// reservedCodes are CLDR regions that are not current ISO 3166-1
// countries: reserved, and withdrawn (East Germany, Yugoslavia, …).
var reservedCodes = map[string]bool{"UK": true, "FX": true, "EU": true, "EZ": true, "UN": true, "AC": true, "CP": true,
	"DG": true, "EA": true, "IC": true, "TA": true, "QO": true, "XK": true, "CQ": true,
	"AN": true, "BU": true, "CS": true, "CT": true, "DD": true, "DY": true, "FQ": true, "HV": true, "JT": true, "MI": true,
	"NH": true, "NQ": true, "NT": true, "PC": true, "PU": true, "PZ": true, "RH": true, "SU": true, "TP": true, "VD": true,
	"WK": true, "YD": true, "YU": true, "ZR": true}

func loadCountries() {
	countries = map[string]string{}
	regionNames := display.English.Regions()
	for a := 'A'; a <= 'Z'; a++ {
		for b := 'A'; b <= 'Z'; b++ {
			code := string([]rune{a, b})
			r, err := language.ParseRegion(code)
			if err != nil || !r.IsCountry() || r.String() != code || reservedCodes[code] {
				continue
			}
			countries[strings.ToLower(code)] = code
			countries[strings.ToLower(r.ISO3())] = code
			if name := CountryKey(regionNames.Name(r)); name != "" {
				if _, taken := countries[name]; !taken {
					countries[name] = code
				}
			}
		}
	}
	for k, v := range countryAliases {
		countries[CountryKey(k)] = v
	}
	addForeignCountryNames(countries)
	// Spellings as they usually come (DE, de, Germany, GERMANY) are looked
	// up as they are, with no folding.
	countryExact = map[string]string{}
	names := display.English.Regions()
	for key, code := range countries {
		countryExact[key] = code
		countryExact[strings.ToUpper(key)] = code
	}
	for _, code := range countries {
		if r, err := language.ParseRegion(code); err == nil {
			countryExact[names.Name(r)] = code
		}
	}
}

var countryExact map[string]string

// countryLanguages are the languages of the matcher's synonyms
// (synonyms.json) besides English: country names in them are read too.
var countryLanguages = []language.Tag{language.German, language.French, language.Spanish, language.Italian,
	language.Portuguese, language.EuropeanPortuguese, language.Dutch}

// addForeignCountryNames adds CLDR's names of the countries in
// countryLanguages to names where English names, codes and aliases left
// the key free. A name two languages give to different countries is left
// out: a value is refused rather than guessed.
func addForeignCountryNames(names map[string]string) {
	found, ambiguous := map[string]string{}, map[string]bool{}
	for _, tag := range countryLanguages {
		regions := display.Regions(tag)
		for _, code := range slices.Compact(slices.Sorted(maps.Values(names))) {
			r, err := language.ParseRegion(code)
			if err != nil {
				continue
			}
			key := CountryKey(regions.Name(r))
			if _, taken := names[key]; taken || key == "" {
				continue
			}
			if prev, ok := found[key]; ok && prev != code {
				ambiguous[key] = true
			}
			found[key] = code
		}
	}
	for key, code := range found {
		if !ambiguous[key] {
			names[key] = code
		}
	}
}

// CountryKey folds case, accents and punctuation: "México" and "mexico"
// are the same key.
func CountryKey(s string) string {
	if !IsASCII(s) {
		// A transformer keeps state: a new one per call keeps this safe
		// for the engine's concurrent workers.
		fold := transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
		if folded, _, err := transform.String(fold, s); err == nil {
			s = folded
		}
	}
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.TrimPrefix(s, "the ")
	return countryPunct.Replace(s)
}

var countryPunct = strings.NewReplacer("&", "and", ".", "", ",", "", "’", "'")

// ParseCountry maps alpha-2, alpha-3 and English names to alpha-2. The
// exact spellings seen are remembered (a column repeats a few hundred
// names at most), so folding runs once per spelling.
func ParseCountry(s string) (string, bool) {
	countryOnce.Do(loadCountries)
	if code, ok := countryExact[s]; ok {
		return code, true
	}
	if v, ok := countrySeen.Load(s); ok {
		code := v.(string)
		return code, code != ""
	}
	code := countries[CountryKey(s)]
	if countrySeenN.Add(1) < 100_000 {
		countrySeen.Store(strings.Clone(s), code) // s may share a reader's reused memory
	}
	return code, code != ""
}

var (
	countrySeen  sync.Map
	countrySeenN atomic.Int64
)

var currencySymbolCodes = map[string]string{
	"$": "USD", "us$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY", "₹": "INR", "₽": "RUB", "₩": "KRW", "₺": "TRY",
	"₪": "ILS", "₫": "VND", "₴": "UAH", "₦": "NGN", "₱": "PHP", "฿": "THB", "c$": "CAD", "ca$": "CAD", "a$": "AUD",
	"au$": "AUD", "nz$": "NZD", "hk$": "HKD", "r$": "BRL", "chf": "CHF", "fr.": "CHF", "kr": "SEK", "zł": "PLN",
	"dollar": "USD", "dollars": "USD", "euro": "EUR", "euros": "EUR", "pound": "GBP", "pounds": "GBP", "yen": "JPY",
}

// ParseCurrency maps ISO 4217 codes (any case) and common symbols to the code.
func ParseCurrency(s string) (string, bool) {
	if code, ok := lookupFolded(currencySymbolCodes, s); ok {
		return code, true
	}
	if len(s) != 3 {
		return "", false
	}
	currencyOnce.Do(loadCurrencies)
	if code, ok := currencyCodes[s]; ok { // as they usually come: USD
		return code, true
	}
	if !IsASCII(s) {
		code := strings.ToUpper(s)
		return code, currencyCodes[code] != ""
	}
	var up [3]byte // usd: upper-cased on the stack
	for i := range up {
		c := s[i]
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		up[i] = c
	}
	code, ok := currencyCodes[string(up[:])]
	return code, ok
}

// lookupFolded is m[strings.ToLower(s)]; short ASCII text is folded on
// the stack, so the lookup allocates nothing.
func lookupFolded(m map[string]string, s string) (string, bool) {
	var b [16]byte
	if len(s) > len(b) || !IsASCII(s) {
		v, ok := m[strings.ToLower(s)]
		return v, ok
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		b[i] = c
	}
	v, ok := m[string(b[:len(s)])]
	return v, ok
}

var (
	currencyOnce  sync.Once
	currencyCodes map[string]string // code → the same code
)

// loadCurrencies lists every ISO 4217 code x/text knows, once: parsing
// each value through it costs far more than a map lookup.
func loadCurrencies() {
	currencyCodes = map[string]string{}
	for a := 'A'; a <= 'Z'; a++ {
		for b := 'A'; b <= 'Z'; b++ {
			for c := 'A'; c <= 'Z'; c++ {
				code := string([]rune{a, b, c})
				if u, err := currency.ParseISO(code); err == nil && u.String() == code {
					currencyCodes[code] = code
				}
			}
		}
	}
}
