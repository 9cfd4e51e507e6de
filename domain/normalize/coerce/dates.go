package coerce

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tabnorm/tabnorm/domain/calendar"
)

// Date orders for numeric dates without a four-digit first part.
const (
	OrderAuto = "auto"
	OrderDMY  = "DMY"
	OrderMDY  = "MDY"
	OrderYMD  = "YMD"
)

var monthNames = map[string]int{
	"jan": 1, "january": 1, "feb": 2, "february": 2, "mar": 3, "march": 3, "apr": 4, "april": 4,
	"may": 5, "jun": 6, "june": 6, "jul": 7, "july": 7, "aug": 8, "august": 8, "sep": 9, "sept": 9, "september": 9,
	"oct": 10, "october": 10, "nov": 11, "november": 11, "dec": 12, "december": 12,
}

// Date is a calendar date as ParseDate read it.
type Date struct {
	y, m, d      int
	twoDigitYear bool
}

// SplitDateTime separates a date from a time part at 'T' or a space
// followed by a digit.
func SplitDateTime(s string) (datePart, timePart string) {
	if i := strings.IndexByte(s, 'T'); i >= 8 {
		return s[:i], s[i+1:]
	}
	// "2024-01-31 10:22" or "31/01/2024 10:22:00 PM"; month names keep their spaces.
	if i := strings.LastIndexByte(s, ' '); i > 0 && strings.Contains(s[i+1:], ":") {
		return strings.TrimSpace(s[:i]), s[i+1:]
	}
	if i := strings.IndexByte(s, ' '); i > 0 && i+1 < len(s) && strings.Contains(s[i+1:], ":") && !containsLetter(s[:i]) {
		return s[:i], s[i+1:]
	}
	return s, ""
}

func containsLetter(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c >= 'a' && c <= 'z' {
			return true
		}
	}
	return false
}

// ParseDate reads a calendar date in the forms of API.md §6. order decides
// D/M/Y against M/D/Y for numeric dates ("" or auto means M/D/Y here; the
// engine settles auto per column before it calls this).
func ParseDate(s, order string) (Date, bool) {
	var p Date
	s = strings.TrimSpace(s)
	if s == "" {
		return p, false
	}
	if containsLetter(s) {
		return parseMonthName(s)
	}
	sep := byte(0)
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '-' || c == '/' || c == '.' {
			sep = c
			break
		}
	}
	if sep == 0 {
		if len(s) == 8 && AllDigits(s) { // 20240131
			p.y, _ = strconv.Atoi(s[:4])
			p.m, _ = strconv.Atoi(s[4:6])
			p.d, _ = strconv.Atoi(s[6:])
			return p, validDay(p.y, p.m, p.d)
		}
		return p, false
	}
	var parts [3]string
	rest := s
	for k := 0; k < 3; k++ {
		i := strings.IndexByte(rest, sep)
		if k == 2 {
			if i >= 0 {
				return p, false
			}
			i = len(rest)
		} else if i < 0 {
			return p, false
		}
		parts[k] = rest[:i]
		if parts[k] == "" || len(parts[k]) > 4 || !AllDigits(parts[k]) {
			return p, false
		}
		if k < 2 {
			rest = rest[i+1:]
		}
	}
	a, b, c := atoiDigits(parts[0]), atoiDigits(parts[1]), atoiDigits(parts[2])
	switch {
	case len(parts[0]) == 4 || order == OrderYMD:
		p.y, p.m, p.d = a, b, c
		p.twoDigitYear = len(parts[0]) <= 2
	case len(parts[2]) == 4 || len(parts[2]) <= 2:
		p.y = c
		p.twoDigitYear = len(parts[2]) <= 2
		if order == OrderDMY {
			p.d, p.m = a, b
		} else {
			p.m, p.d = a, b
		}
	default:
		return p, false
	}
	if p.twoDigitYear {
		p.y = expandYear(p.y)
	}
	return p, validDay(p.y, p.m, p.d)
}

// ParseDateEitherWay reads a date in the column's order, or, when it is
// impossible that way but valid the other way round (31/01 in a
// month-first column), in the only order it can have: an unambiguous
// value is never wrong, ambiguous ones follow the column.
func ParseDateEitherWay(s, order string) (Date, bool) {
	if d, ok := ParseDate(s, order); ok {
		return d, true
	}
	switch order {
	case OrderDMY:
		return ParseDate(s, OrderMDY)
	case OrderMDY, OrderAuto, "":
		return ParseDate(s, OrderDMY)
	}
	return Date{}, false
}

// expandYear puts a two-digit year in 1970–2069, as spreadsheets do.
func expandYear(y int) int {
	if y < 70 {
		return 2000 + y
	}
	return 1900 + y
}

// parseMonthName reads "Jan 31 2024", "31 January 2024", "January 31,
// 2024", "31-Jan-2024" and "11-May-11": three words, case ignored.
func parseMonthName(s string) (Date, bool) {
	var f [3]string
	if !IsASCII(s) {
		words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return r < utf8.RuneSelf && monthSep(byte(r)) })
		if len(words) != len(f) {
			return Date{}, false
		}
		copy(f[:], words)
		return monthNameDate(f)
	}
	n := 0
	for i := 0; i < len(s); {
		for i < len(s) && monthSep(s[i]) {
			i++
		}
		start := i
		for i < len(s) && !monthSep(s[i]) {
			i++
		}
		if i > start {
			if n == len(f) {
				return Date{}, false
			}
			f[n] = s[start:i]
			n++
		}
	}
	if n != len(f) {
		return Date{}, false
	}
	return monthNameDate(f)
}

func monthSep(c byte) bool { return c == ' ' || c == '-' || c == '/' || c == ',' || c == '.' }

// monthNameDate reads the three words of a date with a month name, A–Z
// read as a–z.
func monthNameDate(f [3]string) (Date, bool) {
	var p Date
	var nums [2]string
	n := 0
	month := 0
	for _, w := range f {
		if m := monthNumber(w); m > 0 && month == 0 {
			month = m
			continue
		}
		for _, suffix := range [...]string{"st", "nd", "rd", "th"} {
			if len(w) >= 2 && w[len(w)-2]|0x20 == suffix[0] && w[len(w)-1]|0x20 == suffix[1] {
				w = w[:len(w)-2]
			}
		}
		if !AllDigits(w) || w == "" || n == len(nums) {
			return p, false
		}
		nums[n] = w
		n++
	}
	if month == 0 || n != len(nums) {
		return p, false
	}
	day, year := nums[0], nums[1]
	if len(nums[0]) == 4 { // 2024 Jan 31
		day, year = nums[1], nums[0]
	}
	p.m = month
	p.d, _ = strconv.Atoi(day)
	p.y, _ = strconv.Atoi(year)
	if len(year) <= 2 {
		p.twoDigitYear, p.y = true, expandYear(p.y)
	} else if len(year) != 4 {
		return p, false
	}
	return p, validDay(p.y, p.m, p.d)
}

// monthNumber looks w up in monthNames with A–Z folded, or returns 0.
func monthNumber(w string) int {
	var b [9]byte // "september"
	if len(w) > len(b) {
		return 0
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		b[i] = c
	}
	return monthNames[string(b[:len(w)])]
}

// atoiDigits reads a short string of ASCII digits (checked by the caller).
func atoiDigits(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}

// AllDigits reports whether s is one or more ASCII digits.
func AllDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func validDay(y, m, d int) bool {
	if y < 1 || y > 9999 || m < 1 || m > 12 || d < 1 {
		return false
	}
	return d <= calendar.DaysIn(y, m)
}

// ParseTime reads "10:22", "10:22:05", "10:22:05.123", "10:22 PM", with an
// optional zone (Z, +02:00, +0200): offset is in seconds east of UTC, 0
// without a zone.
//
//nolint:gocognit // per cell (BenchmarkCoerce/datetime): one pass over the text that allocates nothing
func ParseTime(s string) (hh, mm, ss, nanos, offset int, ok bool) {
	s = strings.TrimSpace(s)
	upper := strings.ToUpper(s)
	pm, am := strings.HasSuffix(upper, "PM"), strings.HasSuffix(upper, "AM")
	if pm || am {
		s = strings.TrimSpace(s[:len(s)-2])
	}
	if strings.HasSuffix(s, "Z") || strings.HasSuffix(s, "z") {
		s = s[:len(s)-1]
	} else if i := strings.LastIndexAny(s, "+-"); i > 0 {
		zone := strings.ReplaceAll(s[i+1:], ":", "")
		if len(zone) != 4 || !AllDigits(zone) {
			return
		}
		h, _ := strconv.Atoi(zone[:2])
		m, _ := strconv.Atoi(zone[2:])
		offset = h*3600 + m*60
		if s[i] == '-' {
			offset = -offset
		}
		s = s[:i]
	}
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return
	}
	for i, part := range parts {
		if i == 2 {
			if dot := strings.IndexByte(part, '.'); dot >= 0 {
				frac := part[dot+1:]
				if !AllDigits(frac) || len(frac) > 9 {
					return
				}
				nanos, _ = strconv.Atoi((frac + "000000000")[:9])
				part = part[:dot]
			}
		}
		if len(part) == 0 || len(part) > 2 || !AllDigits(part) {
			return
		}
	}
	hh, _ = strconv.Atoi(parts[0])
	mm, _ = strconv.Atoi(parts[1])
	if len(parts) == 3 {
		ss, _ = strconv.Atoi(strings.SplitN(parts[2], ".", 2)[0])
	}
	if pm || am {
		if hh < 1 || hh > 12 {
			return
		}
		if pm && hh != 12 {
			hh += 12
		} else if am && hh == 12 {
			hh = 0
		}
	}
	if hh > 23 || mm > 59 || ss > 60 {
		return
	}
	ok = true
	return
}

// ParseDateTime reads a date with an optional time; no zone means UTC.
func ParseDateTime(s, order string) (time.Time, bool, bool) {
	dp, tp := SplitDateTime(strings.TrimSpace(s))
	d, ok := ParseDateEitherWay(dp, order)
	if !ok {
		return time.Time{}, false, false
	}
	var hh, mm, ss, nanos, offset int
	if tp != "" {
		if hh, mm, ss, nanos, offset, ok = ParseTime(tp); !ok {
			return time.Time{}, false, false
		}
	}
	t := time.Date(d.y, time.Month(d.m), d.d, hh, mm, ss, nanos, time.FixedZone("", offset)).UTC()
	return t, d.twoDigitYear, true
}

// isoDate tells whether s is a valid date written YYYY-MM-DD, the
// canonical form, which the date coercer then keeps as it is.
func isoDate(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	for _, i := range [...]int{0, 1, 2, 3, 5, 6, 8, 9} {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return validDay(atoiDigits(s[:4]), atoiDigits(s[5:7]), atoiDigits(s[8:]))
}

// appendDate writes p, a valid date (years 1–9999), as YYYY-MM-DD to sc.
func appendDate(sc *Scratch, p Date) string {
	mark := len(sc.buf)
	y, m, d := p.y, p.m, p.d
	sc.buf = append(sc.buf, byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), '-',
		byte('0'+m/10), byte('0'+m%10), '-', byte('0'+d/10), byte('0'+d%10))
	return sc.since(mark)
}

func formatDate(p Date) string {
	var a [10]byte
	b := appendPadded(a[:0], p.y, 4)
	b = append(b, '-')
	b = appendPadded(b, p.m, 2)
	b = append(b, '-')
	return string(appendPadded(b, p.d, 2))
}

func appendPadded(b []byte, n, width int) []byte {
	var tmp [8]byte
	s := strconv.AppendInt(tmp[:0], int64(n), 10)
	for i := len(s); i < width; i++ {
		b = append(b, '0')
	}
	return append(b, s...)
}

// DateEvidence tells what a numeric date says about the column's order:
// +1 for day-first (31/01/2024), -1 for month-first (01/31/2024), 0 when
// either reading works or neither does.
func DateEvidence(s string) int {
	dp, _ := SplitDateTime(strings.TrimSpace(s))
	for _, sep := range [...]byte{'/', '-', '.'} {
		// Three parts: exactly two separators.
		i := strings.IndexByte(dp, sep)
		if i < 0 {
			continue
		}
		j := strings.IndexByte(dp[i+1:], sep)
		if j < 0 || strings.IndexByte(dp[i+1+j+1:], sep) >= 0 {
			continue
		}
		first, second := dp[:i], dp[i+1:i+1+j]
		if len(first) > 2 || !AllDigits(first) || !AllDigits(second) {
			continue
		}
		a, _ := strconv.Atoi(first)
		b, _ := strconv.Atoi(second)
		switch {
		case a > 12 && b <= 12:
			return +1
		case b > 12 && a <= 12:
			return -1
		case a >= 1 && b >= 1 && a <= 12 && b <= 12 && a != b:
			return 2 // 01/02: either order reads it, differently
		}
		return 0
	}
	return 0
}
