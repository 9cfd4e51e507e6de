package normalize

import (
	"net/url"
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

// parseEmail lower-cases an address and checks it is plausibly
// local@domain.tld (no spaces, one @, a dot in the domain, a letter TLD).
func parseEmail(s string) (string, bool) {
	s = lowerASCII(s)
	at := strings.IndexByte(s, '@')
	if at <= 0 || at != strings.LastIndexByte(s, '@') || len(s) > 254 {
		return "", false
	}
	local, domain := s[:at], s[at+1:]
	if len(local) > 64 || local[0] == '.' || local[len(local)-1] == '.' || strings.Contains(local, "..") {
		return "", false
	}
	for i := 0; i < len(local); i++ {
		c := local[i]
		if c <= ' ' || c == '"' || c == '(' || c == ')' || c == ',' || c == ':' || c == ';' || c == '<' || c == '>' || c == '[' || c == ']' || c == '\\' || c >= 0x7f {
			return "", false
		}
	}
	dot := strings.LastIndexByte(domain, '.')
	if dot <= 0 || dot == len(domain)-1 || strings.Contains(domain, "..") {
		return "", false
	}
	for i := 0; i < len(domain); i++ {
		c := domain[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			return "", false
		}
	}
	tld := domain[dot+1:]
	if len(tld) < 2 {
		return "", false
	}
	for i := 0; i < len(tld); i++ {
		if tld[i] < 'a' || tld[i] > 'z' {
			return "", false
		}
	}
	return s, true
}

// parseURI accepts absolute URIs with a scheme and, for web schemes, a host.
func parseURI(s string) (string, bool) {
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

// parseUUID accepts hex with or without hyphens or braces and returns the
// canonical lower-case 8-4-4-4-12 form.
func parseUUID(s string) (string, bool) {
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

// parsePhone returns E.164. Common shapes take a fast path (a number is
// digits and formatting): "+<country><number>" with 8–15 digits, or, for
// North American regions, 10 digits (or 11 starting with 1) with valid
// area and exchange codes. Everything else goes to libphonenumber's
// rules for the default region, which are thorough but ~50× slower.
func parsePhone(s, region string) (string, bool) {
	if strings.ContainsAny(s, "xXtT#") {
		s = dropExtension(s)
	}
	if strings.HasPrefix(s, "00") {
		s = "+" + s[2:] // international call prefix
	} else if strings.HasPrefix(s, "011") && nanpRegion(region) {
		s = "+" + s[3:]
	}
	var digits [20]byte
	n, plus, other := 0, false, false
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
		var out [24]byte
		e164 := append(out[:0], '+')
		switch {
		case plus && n >= 8 && n <= 15 && d[0] != '0':
			if d[0] != '1' || validNANP(d[1:]) {
				return string(append(e164, d...)), true
			}
			return "", false
		case !plus && nanpRegion(region) && n == 10:
			if !validNANP(d) {
				return "", false // the numbering plan's own rules; no need to ask libphonenumber
			}
			return string(append(append(e164, '1'), d...)), true
		case !plus && nanpRegion(region) && n == 11 && d[0] == '1':
			if !validNANP(d[1:]) {
				return "", false
			}
			return string(append(e164, d...)), true
		case !plus && nanpRegion(region) && n < 10:
			return "", false
		}
	}
	num, err := phonenumbers.Parse(s, region)
	if err != nil || !phonenumbers.IsValidNumber(num) {
		return "", false
	}
	return phonenumbers.Format(num, phonenumbers.E164), true
}

func nanpRegion(r string) bool { return r == "US" || r == "CA" }

// dropExtension removes "ext. 123", "x123" or "#123" after a number: E.164
// has no extensions.
func dropExtension(s string) string {
	l := foldASCII(s) // same length as s, so indexes carry over
	for _, mark := range []string{" ext.", " ext", " extension", " x", "#"} {
		if i := strings.LastIndex(l, mark); i > 6 {
			rest := strings.TrimSpace(strings.TrimLeft(l[i+len(mark):], ". :"))
			if allDigits(rest) {
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

func validRegion(r string) bool {
	if len(r) != 2 {
		return false
	}
	return len(phonenumbers.GetSupportedRegions()) > 0 && phonenumbers.GetCountryCodeForRegion(r) != 0
}

// lowerASCII lower-cases s, allocating only when it has upper-case
// letters; non-ASCII text goes through strings.ToLower.
func lowerASCII(s string) string {
	upper := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return strings.ToLower(s)
		}
		if c >= 'A' && c <= 'Z' {
			upper = true
		}
	}
	if !upper {
		return s
	}
	b := make([]byte, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		b[i] = c
	}
	return string(b)
}

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

func isASCII(s string) bool {
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
			if name := countryKey(regionNames.Name(r)); name != "" {
				if _, taken := countries[name]; !taken {
					countries[name] = code
				}
			}
		}
	}
	for k, v := range countryAliases {
		countries[countryKey(k)] = v
	}
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

// countryKey folds case, accents and punctuation: "México" and "mexico"
// are the same key.
func countryKey(s string) string {
	if !isASCII(s) {
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

// parseCountry maps alpha-2, alpha-3 and English names to alpha-2. The
// exact spellings seen are remembered (a column repeats a few hundred
// names at most), so folding runs once per spelling.
func parseCountry(s string) (string, bool) {
	countryOnce.Do(loadCountries)
	if code, ok := countryExact[s]; ok {
		return code, true
	}
	if v, ok := countrySeen.Load(s); ok {
		code := v.(string)
		return code, code != ""
	}
	code := countries[countryKey(s)]
	if countrySeenN.Add(1) < 100_000 {
		countrySeen.Store(s, code)
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

// parseCurrency maps ISO 4217 codes (any case) and common symbols to the code.
func parseCurrency(s string) (string, bool) {
	if code, ok := currencySymbolCodes[strings.ToLower(s)]; ok {
		return code, true
	}
	if len(s) != 3 {
		return "", false
	}
	currencyOnce.Do(loadCurrencies)
	code := strings.ToUpper(s)
	return code, currencyCodes[code]
}

var (
	currencyOnce  sync.Once
	currencyCodes map[string]bool
)

// loadCurrencies lists every ISO 4217 code x/text knows, once: parsing
// each value through it costs far more than a map lookup.
func loadCurrencies() {
	currencyCodes = map[string]bool{}
	for a := 'A'; a <= 'Z'; a++ {
		for b := 'A'; b <= 'Z'; b++ {
			for c := 'A'; c <= 'Z'; c++ {
				code := string([]rune{a, b, c})
				if u, err := currency.ParseISO(code); err == nil && u.String() == code {
					currencyCodes[code] = true
				}
			}
		}
	}
}
