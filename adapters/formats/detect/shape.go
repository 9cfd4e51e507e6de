package detect

import "strings"

// Shape is the type a cell's text has when it is a typed value: a number,
// a date, a clock time, a URL or an e-mail address. A header's name has
// none of these shapes (a year aside, which YearsHeader tells), so a first
// record whose cells have their columns' shapes is data.
type Shape int

// The shapes of cells. ShapeNone is text, or a value of no clear type
// (2019-20, 12" pipe).
const (
	ShapeNone Shape = iota
	ShapeNumber
	ShapeDate
	ShapeTime
	ShapeURL
	ShapeEmail
)

// ShapeOf tells the shape of a cell: a number (sign, currency mark, digits
// with group separators, a decimal part, a percent sign), a date (three
// groups of digits joined by the same -, / or ., one of four digits or
// the last of two, then maybe a time after T or a blank), a clock time
// (h:mm or h:mm:ss), a URL (a scheme and ://, or www.) or an e-mail
// address, none with blanks inside.
func ShapeOf(cell string) Shape {
	c := strings.TrimSpace(cell)
	switch {
	case c == "" || strings.ContainsAny(c, " \t"):
		if date, rest, ok := strings.Cut(c, " "); ok && isDate(date) && isTime(rest) {
			return ShapeDate
		}
		return ShapeNone
	case isNumber(c):
		return ShapeNumber
	case isTime(c):
		return ShapeTime
	case isURL(c):
		return ShapeURL
	case isEmail(c):
		return ShapeEmail
	}
	if date, rest, ok := strings.Cut(c, "T"); isDate(date) && (!ok || isTime(strings.TrimRight(rest, "Z"))) {
		return ShapeDate
	}
	return ShapeNone
}

// isNumber tells -1,234.50, (12), $5, 5 %, 1e3 and the like.
func isNumber(c string) bool {
	c = strings.TrimLeft(c, "+-($€£¥")
	c = strings.TrimRight(c, ")%$€£¥")
	digits, dots := 0, 0
	for i := 0; i < len(c); i++ {
		switch b := c[i]; {
		case b >= '0' && b <= '9':
			digits++
		case b == ',' || b == '\'' || b == '_':
			if digits == 0 || i+1 == len(c) {
				return false
			}
		case b == '.':
			dots++
		case (b == 'e' || b == 'E') && digits > 0 && i+1 < len(c):
			return isInt(strings.TrimLeft(c[i+1:], "+-"))
		default:
			return false
		}
	}
	return digits > 0 && dots <= 1
}

// isInt tells a run of digits.
func isInt(c string) bool {
	for i := 0; i < len(c); i++ {
		if c[i] < '0' || c[i] > '9' {
			return false
		}
	}
	return c != ""
}

// isDate tells 2020-03-08, 08/03/2020, 8.3.20 and the like.
func isDate(c string) bool {
	i := strings.IndexAny(c, "-/.")
	if i < 0 {
		return false
	}
	parts := strings.Split(c, c[i:i+1])
	if len(parts) != 3 {
		return false
	}
	four := false
	for _, p := range parts {
		if !isInt(p) || len(p) > 4 || len(p) == 3 {
			return false
		}
		four = four || len(p) == 4
	}
	return four || len(parts[2]) == 2
}

// isTime tells 12:30, 8:15:05 and 10:22:05.123, with AM or PM.
func isTime(c string) bool {
	c = strings.TrimSpace(c)
	if u := strings.ToUpper(c); strings.HasSuffix(u, "AM") || strings.HasSuffix(u, "PM") {
		c = strings.TrimSpace(c[:len(c)-2])
	}
	parts := strings.Split(c, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return false
	}
	if last := parts[len(parts)-1]; strings.Contains(last, ".") {
		s, frac, _ := strings.Cut(last, ".")
		if !isInt(frac) {
			return false
		}
		parts[len(parts)-1] = s
	}
	for i, p := range parts {
		if !isInt(p) || len(p) > 2 || i > 0 && len(p) != 2 {
			return false
		}
	}
	return true
}

// isURL tells a scheme followed by :// and a host, or www. and a host.
func isURL(c string) bool {
	if scheme, rest, ok := strings.Cut(c, "://"); ok {
		if scheme == "" || rest == "" {
			return false
		}
		for i := 0; i < len(scheme); i++ {
			b := scheme[i] | 0x20
			if (b < 'a' || b > 'z') && (i == 0 || !strings.ContainsRune("0123456789+.-", rune(scheme[i]))) {
				return false
			}
		}
		return true
	}
	rest, ok := strings.CutPrefix(strings.ToLower(c), "www.")
	return ok && strings.Contains(rest, ".")
}

// isEmail tells local@domain.tld.
func isEmail(c string) bool {
	local, domain, ok := strings.Cut(c, "@")
	return ok && local != "" && !strings.Contains(domain, "@") && strings.Contains(domain, ".") &&
		!strings.HasPrefix(domain, ".") && !strings.HasSuffix(domain, ".")
}

// columnShapes tells each column's shape: the shape of at least 80 % of
// its non-empty cells, with at least two of them, else ShapeNone.
func columnShapes(recs [][]string) []Shape {
	width := 0
	for _, r := range recs {
		width = max(width, len(r))
	}
	shapes := make([]Shape, width)
	for j := range shapes {
		counts, all := map[Shape]int{}, 0
		for _, r := range recs {
			if j < len(r) && strings.TrimSpace(r[j]) != "" {
				counts[ShapeOf(r[j])]++
				all++
			}
		}
		for s, n := range counts {
			if s != ShapeNone && n >= 2 && n*10 >= all*8 {
				shapes[j] = s
			}
		}
	}
	return shapes
}

// typedData tells a first record that is data by its shapes: in every
// column of typed values below it (at least one), its cell has the
// column's shape, and it holds no name over a column empty below (a
// header's name over a column not yet filled in).
func typedData(rec []string, below [][]string) bool {
	shapes := columnShapes(below)
	typed := 0
	for j, c := range rec {
		if strings.TrimSpace(c) == "" {
			continue
		}
		if j >= len(shapes) || shapes[j] == ShapeNone {
			if !filledBelow(below, j) {
				return false
			}
			continue
		}
		if ShapeOf(c) != shapes[j] || IsYear(c) && !yearsIn(below, j) {
			return false // a year over other numbers names their column
		}
		typed++
	}
	return typed > 0
}

// yearsIn tells whether at least half of column j's values are years.
func yearsIn(recs [][]string, j int) bool {
	years, all := 0, 0
	for _, r := range recs {
		if j < len(r) && strings.TrimSpace(r[j]) != "" {
			all++
			if IsYear(r[j]) {
				years++
			}
		}
	}
	return years*2 >= all
}

// filledBelow tells whether column j holds a value in any record.
func filledBelow(recs [][]string, j int) bool {
	for _, r := range recs {
		if j < len(r) && strings.TrimSpace(r[j]) != "" {
			return true
		}
	}
	return false
}
