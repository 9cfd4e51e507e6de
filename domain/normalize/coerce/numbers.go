package coerce

import (
	"strings"
	"unicode"
)

// currencySymbols are stripped from numbers at either end (amounts.go).
var currencySymbols = "$€£¥₹₽₩₺₪₫₴₦₱฿"

// ParseDecimal turns messy number text into a canonical JSON number,
// keeping every digit: thousands separators (by groupChar, or guessed)
// dropped, currency symbols and codes dropped, (12) and 12- as negatives,
// a trailing % dropped ("percent as given": 12% is 12). decimal and group
// are "" for auto.
//
//nolint:gocognit // per cell (BenchmarkCoerce/number): one pass over the bytes that allocates nothing
func ParseDecimal(sc *Scratch, s, decimal, group string) (string, bool) {
	sc.currency = 0
	if v, ok := plainDecimal(s, decimal); ok {
		return v, true
	}
	if v, ok := zeroPaddedDigits(s); ok {
		return v, true
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return "", false
	}
	neg := false
	if strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") {
		neg, s = true, strings.TrimSpace(s[1:len(s)-1])
	}
	s = strings.TrimSuffix(s, "%")
	s = stripCurrency(sc, s)
	if strings.HasSuffix(s, "-") && !strings.HasPrefix(s, "-") {
		neg, s = !neg, strings.TrimSpace(s[:len(s)-1])
	}
	if strings.HasPrefix(s, "-") {
		neg, s = !neg, strings.TrimSpace(s[1:])
	} else if strings.HasPrefix(s, "+") {
		s = strings.TrimSpace(s[1:])
	}
	s = stripCurrency(sc, s) // "-$12"
	if s == "" {
		return "", false
	}
	// Exponent notation passes through when it is a plain JSON number.
	if i := strings.IndexAny(s, "eE"); i > 0 {
		mant, exp := s[:i], s[i+1:]
		cur := sc.currency
		m, ok := ParseDecimal(sc, mant, decimal, group)
		sc.currency = cur
		if !ok || strings.HasPrefix(m, "-") || !isExponent(exp) {
			return "", false
		}
		return sign(neg, m+"e"+strings.TrimPrefix(exp, "+")), true
	}
	dec := byte(0)
	switch {
	case decimal != "":
		dec = decimal[0]
	default:
		dec = guessDecimal(s, group)
	}
	// The digits are written to sc as they come, a sign first, the integer
	// part's leading zeros skipped, and a point before the first digit of
	// the fraction.
	mark := len(sc.buf)
	sc.buf = append(sc.buf, '-')
	// A thousands mark must group: at most three digits before the first,
	// exactly three after the last (two between marks, for lakh grouping
	// 1,23,456), so a decimal mark read as a thousands mark (0,611 in a
	// decimal-point column) is an invalid number, never a value ×1000.
	seenDec, intDigits, digits, nonZero := false, 0, 0, false
	grouped, sinceMark := false, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			if !seenDec {
				sinceMark++
			}
			if seenDec {
				if len(sc.buf) == mark+1 {
					sc.buf = append(sc.buf, '0') // the integer part was all zeros
				}
				if digits == intDigits {
					sc.buf = append(sc.buf, '.')
				}
			} else {
				intDigits++
			}
			if c != '0' || seenDec || len(sc.buf) > mark+1 {
				sc.buf = append(sc.buf, c)
			}
			nonZero = nonZero || c != '0'
			digits++
		case c == dec && !seenDec:
			if grouped && sinceMark != 3 {
				sc.buf = sc.buf[:mark]
				return "", false
			}
			seenDec = true
		case c == ',' || c == '.' || c == '\'' || c == ' ' || (group != "" && c == group[0]) || c == 0xC2 && i+1 < len(s) && s[i+1] == 0xA0:
			if seenDec || intDigits == 0 || sinceMark > 3 || grouped && sinceMark < 2 {
				sc.buf = sc.buf[:mark]
				return "", false // a separator after the decimal point or before any digit, or one that does not group
			}
			grouped, sinceMark = true, 0
			if c == 0xC2 { // no-break space
				i++
			}
		default:
			sc.buf = sc.buf[:mark]
			return "", false
		}
	}
	if digits == 0 || grouped && !seenDec && sinceMark != 3 {
		sc.buf = sc.buf[:mark]
		return "", false
	}
	if len(sc.buf) == mark+1 {
		sc.buf = append(sc.buf, '0') // only zeros, and no fraction
	}
	if !neg || !nonZero {
		mark++ // no sign: zero is never negative
	}
	return sc.since(mark), true
}

// zeroPaddedDigits reads digits with leading zeros (00081135561), as
// ParseDecimal's general path would: the zeros dropped, 0 for all zeros.
func zeroPaddedDigits(s string) (string, bool) {
	if len(s) < 2 || s[0] != '0' || !AllDigits(s) {
		return "", false
	}
	if v := strings.TrimLeft(s, "0"); v != "" {
		return v, true
	}
	return "0", true
}

// plainDecimal is the fast path for text that already is a canonical
// number (-?digits(.digits)?, no leading zeros): most cells of most files.
func plainDecimal(s, decimal string) (string, bool) {
	if decimal != "" && decimal != "." {
		return "", false
	}
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	digits := i - start
	if digits == 0 || (digits > 1 && s[start] == '0') {
		return "", false
	}
	if i < len(s) && s[i] == '.' {
		i++
		frac := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == frac {
			return "", false
		}
	}
	if i != len(s) || s == "-0" {
		return "", false
	}
	return s, true
}

func sign(neg bool, s string) string {
	if neg {
		return "-" + s
	}
	return s
}

func isExponent(s string) bool {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "+"), "-")
	if s == "" || len(s) > 4 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// guessDecimal decides which of . and , is the decimal point when the
// field does not say: the last one when both appear; a single comma
// followed by exactly three digits is a thousands separator (1,234), any
// other lone comma a decimal comma (0,61); several dots are thousands
// (1.234.567), a single dot is a decimal point.
func guessDecimal(s, group string) byte {
	if group == "." {
		return ','
	}
	if group == "," {
		return '.'
	}
	lastDot, lastComma := strings.LastIndexByte(s, '.'), strings.LastIndexByte(s, ',')
	switch {
	case lastDot >= 0 && lastComma >= 0:
		if lastDot > lastComma {
			return '.'
		}
		return ','
	case lastComma >= 0:
		if strings.Count(s, ",") == 1 && len(s)-lastComma-1 != 3 {
			return ','
		}
		return 0
	case lastDot >= 0:
		if strings.Count(s, ".") > 1 {
			return 0
		}
		return '.'
	}
	return 0
}

func isUpperCode(s string) bool {
	if len(s) != 3 {
		return false
	}
	for _, r := range s {
		if !unicode.IsUpper(r) || r > unicode.MaxASCII {
			return false
		}
	}
	return true
}

// IsDigit reports whether c is an ASCII digit.
func IsDigit(c byte) bool { return c >= '0' && c <= '9' }

// ParseInteger accepts what ParseDecimal does when the fraction is zero
// ("7.0" is 7).
func ParseInteger(sc *Scratch, s, decimal, group string) (string, bool) {
	d, ok := ParseDecimal(sc, s, decimal, group)
	if !ok {
		return "", false
	}
	for i := 0; i < len(d); i++ {
		if c := d[i]; c == 'e' || c == 'E' {
			return "", false
		}
	}
	if i := strings.IndexByte(d, '.'); i >= 0 {
		if strings.Trim(d[i+1:], "0") != "" {
			return "", false
		}
		d = d[:i]
		if d == "-0" {
			d = "0"
		}
	}
	return d, true
}

// boolean words, compared without case.
var trueWords = []string{"true", "yes", "y", "t", "1", "on", "x"}
var falseWords = []string{"false", "no", "n", "f", "0", "off"}

func foldIn(s string, words []string) bool {
	for _, w := range words {
		if len(w) == len(s) && strings.EqualFold(w, s) {
			return true
		}
	}
	return false
}

// ParseBoolean reads a yes/no value as "true" or "false": the field's own
// true and false values first, then the yes and no words the engine knows.
func ParseBoolean(s string, trueValues, falseValues []string) (string, bool) {
	for _, v := range trueValues {
		if s == v {
			return "true", true
		}
	}
	for _, v := range falseValues {
		if s == v {
			return "false", true
		}
	}
	switch {
	case foldIn(s, trueWords):
		return "true", true
	case foldIn(s, falseWords):
		return "false", true
	}
	return "", false
}

// DecimalEvidence says which decimal mark a number's text allows, for
// settling a column's: '.' or ',' when only one reading makes sense
// (1,234.5 and 1.5 say '.'; 0,61, 1.234,5 and 1.234.567 say ','), '?'
// when both do (12,426 and 1.234: one mark followed by three digits), 0
// when the text has no mark or is not a number.
func DecimalEvidence(s string) byte {
	lastDot, lastComma := strings.LastIndexByte(s, '.'), strings.LastIndexByte(s, ',')
	if lastDot < 0 && lastComma < 0 {
		return 0
	}
	if _, ok := ParseDecimal(new(Scratch), s, "", ""); !ok {
		if _, ok := ParseDecimal(new(Scratch), s, ",", ""); !ok {
			return 0 // not a number either way
		}
	}
	switch {
	case lastDot >= 0 && lastComma >= 0:
		if lastDot > lastComma {
			return '.'
		}
		return ','
	case strings.Count(s, ",") > 1:
		return '.' // 40,000,000
	case strings.Count(s, ".") > 1:
		return ',' // 1.234.567
	}
	at := max(lastDot, lastComma)
	frac := 0
	for _, c := range []byte(s[at+1:]) {
		if c < '0' || c > '9' {
			break
		}
		frac++
	}
	intPart := strings.TrimLeft(s[:at], "-+(£$€¥ ")
	if frac != 3 || intPart == "" || intPart == "0" {
		return s[at] // 1.5, 0,611, 0.125: not a thousands mark
	}
	return '?'
}
