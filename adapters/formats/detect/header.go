package detect

import (
	"slices"
	"strconv"
	"strings"
)

// HeaderCandidates is how far down Header looks for the header; the
// records below a candidate (up to BelowRecords) are what it is compared
// with.
const (
	HeaderCandidates = 30
	BelowRecords     = 20
)

// Header picks the header among the first records of a table and
// tells whether the table has one at all. A candidate must be about as
// wide as the table (at least 60 % of its typical number of non-empty
// cells: title lines, notes and sparse group headers are narrower). Then
// it is compared with the records below it: in a table with number or
// date columns, the header is the first candidate whose cells are text
// where the column below holds numbers, directly followed by records that
// are data (a banner line with delimiters, or a group header over the real
// header, is followed by the header, which is not data). A first record
// that is data itself — no text cell at all, a text cell whose value
// recurs below in its column (a header's names do not), or the shapes of
// its columns' values in every column that has one (typedData) — means
// there is no header row: at is then the first data record and header is
// false, unless the record directly above it names the columns with blank
// names among its own, too narrow to be a candidate (dataFrom).
// With text columns only, the first wide candidate is the header.
func Header(sample [][]string) (at int, header bool) {
	widths, typical := RecordWidths(sample)
	if typical == 0 {
		return 0, true
	}
	need := max(1, (typical*6+9)/10) // at least 60 % of the typical width
	first := -1
	for i := 0; i < len(sample) && i < HeaderCandidates; i++ {
		if widths[i] < need {
			continue
		}
		if first < 0 {
			first = i
		}
		below := NonBlankAfter(sample, i, BelowRecords)
		below = slices.DeleteFunc(below, func(r []string) bool { return SameCells(r, sample[i]) }) // a repeated header
		if len(below) == 0 {
			if i == first && looksLikeData(sample[i], nil) {
				return dataFrom(sample, i, need) // a lone record of numbers: data, as in a longer file
			}
			break
		}
		kinds := ColumnKinds(below)
		numeric := countKind(kinds, KindNumber)
		m := Mismatches(sample[i], kinds)
		if i == first && m == 0 && firstIsData(sample[i], kinds, below) {
			return dataFrom(sample, i, need)
		}
		if numeric == 0 {
			break // text columns only: the first wide record
		}
		if m*2 < numeric && YearsHeader(sample[i], kinds, below) && len(below)-dataRows(below, kinds, numeric) <= max(1, len(below)/5) {
			return i, true // the header of a table of yearly figures, whose names are numbers
		}
		if m == 0 || m*2 < numeric || (i != first && !Strong(sample[i], kinds)) {
			continue // data-like, or (below a wide record) not clearly a header
		}
		// Followed by data: not by a header-like record (the case of a
		// banner or group header above the header), and nearly all
		// records below are data (one odd record in a few is allowed).
		if !Strong(below[0], kinds) && len(below)-dataRows(below, kinds, numeric) <= max(1, len(below)/5) {
			return i, true
		}
	}
	if first < 0 {
		return 0, true
	}
	return first, true
}

// firstIsData tells a first wide record with no text where its columns
// hold numbers that is data itself: no text cell, or one recurring below
// (looksLikeData), or its columns' shapes in every typed column (typedData)
// where it is no header of yearly figures.
func firstIsData(rec []string, kinds []Kind, below [][]string) bool {
	return looksLikeData(rec, below) || typedData(rec, below) && !YearsHeader(rec, kinds, below)
}

// dataFrom is the header of data starting at record i, the first wide
// one: the record directly above it when that names the data's columns,
// narrower than the table for its blank names (",var2,,var2" over
// numbers); else none. Such a record holds two names or more, each text
// of no value's shape over a column that holds data, none recurring in
// its column below, and reaches across the table (its last name at 60 %
// of the typical width or beyond), where a title or a note in the first
// cells does not.
func dataFrom(sample [][]string, i, need int) (at int, header bool) {
	p := i - 1
	if p < 0 || NonEmpty(sample[p]) < 2 {
		return i, false
	}
	rec := sample[p]
	below := NonBlankAfter(sample, p, BelowRecords)
	last := -1
	for j, c := range rec {
		if KindOf(c) == KindEmpty {
			continue
		}
		if KindOf(c) != KindText || ShapeOf(c) != ShapeNone || !holdsData(below, j) {
			return i, false
		}
		last = j
	}
	if last+1 < need || looksLikeData(rec, below) {
		return i, false
	}
	return p, true
}

// holdsData tells a column j with a value in one of the records.
func holdsData(recs [][]string, j int) bool {
	for _, r := range recs {
		if j < len(r) && KindOf(r[j]) != KindEmpty {
			return true
		}
	}
	return false
}

// RecordWidths returns each record's number of non-empty cells, and the
// typical width: the most common non-zero width, the wider on ties.
func RecordWidths(sample [][]string) (widths []int, typical int) {
	widths = make([]int, len(sample))
	counts := map[int]int{}
	for i, rec := range sample {
		widths[i] = NonEmpty(rec)
		if widths[i] > 0 {
			counts[widths[i]]++
		}
	}
	freq := 0
	for w, f := range counts {
		if f > freq || (f == freq && w > typical) {
			typical, freq = w, f
		}
	}
	return widths, typical
}

// countKind counts the columns of kind k.
func countKind(kinds []Kind, k Kind) int {
	n := 0
	for _, c := range kinds {
		if c == k {
			n++
		}
	}
	return n
}

// NonBlankAfter returns up to n non-blank records after record i.
func NonBlankAfter(sample [][]string, i, n int) [][]string {
	var out [][]string
	for _, rec := range sample[i+1:] {
		if len(out) == n {
			break
		}
		if NonEmpty(rec) > 0 {
			out = append(out, rec)
		}
	}
	return out
}

// Kind is what a cell or a column holds, as header detection sees it.
type Kind int

// The kinds of cells and columns.
const (
	KindEmpty Kind = iota
	KindNumber
	KindText
)

// KindOf tells a number or date-like cell (digits with separators, signs
// and currency marks) from text.
func KindOf(cell string) Kind {
	c := strings.TrimSpace(cell)
	if c == "" {
		return KindEmpty
	}
	digit := false
	for _, r := range c {
		switch {
		case r >= '0' && r <= '9':
			digit = true
		case strings.ContainsRune(".,-+/: %$€£¥'_()", r):
		default:
			return KindText
		}
	}
	if !digit {
		return KindText
	}
	return KindNumber
}

// ColumnKinds tells each column's kind: a number column when at least
// 60 % of its non-empty cells are numbers or dates, else text (or empty).
func ColumnKinds(recs [][]string) []Kind {
	width := 0
	for _, r := range recs {
		width = max(width, len(r))
	}
	num, all := make([]int, width), make([]int, width)
	for _, r := range recs {
		for j, c := range r {
			switch KindOf(c) {
			case KindNumber:
				num[j]++
				all[j]++
			case KindText:
				all[j]++
			}
		}
	}
	kinds := make([]Kind, width)
	for j := range kinds {
		switch {
		case all[j] == 0:
			kinds[j] = KindEmpty
		case num[j]*10 >= all[j]*6:
			kinds[j] = KindNumber
		default:
			kinds[j] = KindText
		}
	}
	return kinds
}

// Mismatches counts the record's text cells in number columns.
func Mismatches(rec []string, kinds []Kind) int {
	m := 0
	for j, c := range rec {
		if j < len(kinds) && kinds[j] == KindNumber && KindOf(c) == KindText {
			m++
		}
	}
	return m
}

// dataRows counts the records that are data: text in under half of the
// number columns.
func dataRows(recs [][]string, kinds []Kind, numeric int) int {
	n := 0
	for _, r := range recs {
		if Mismatches(r, kinds)*2 < numeric {
			n++
		}
	}
	return n
}

// Strong tells a clear header: text in every non-empty cell of the
// number columns, and at least one such cell.
func Strong(rec []string, kinds []Kind) bool {
	n := 0
	for j, c := range rec {
		if j >= len(kinds) || kinds[j] != KindNumber {
			continue
		}
		switch KindOf(c) {
		case KindNumber:
			return false
		case KindText:
			n++
		}
	}
	return n > 0
}

// YearsHeader tells the header of a table of yearly figures (Region,
// Country, 2022, 2023): at least two of its cells in number columns are
// years, every other cell there is text, and no column under a year holds
// years itself (a table whose data are years has them below, not above).
// Such a header has no text where the numbers are, so the comparison of
// kinds cannot find it; without this, a wide title line above it was taken
// for the header.
func YearsHeader(rec []string, kinds []Kind, below [][]string) bool {
	years := 0
	for j, c := range rec {
		if j >= len(kinds) || kinds[j] != KindNumber || KindOf(c) == KindEmpty {
			continue
		}
		if !IsYear(c) {
			if KindOf(c) != KindText {
				return false
			}
			continue
		}
		years++
		inColumn, yearsBelow := 0, 0
		for _, b := range below {
			if j < len(b) && KindOf(b[j]) != KindEmpty {
				inColumn++
				if IsYear(b[j]) {
					yearsBelow++
				}
			}
		}
		if yearsBelow*2 >= inColumn {
			return false
		}
	}
	return years >= 2
}

// IsYear tells a cell holding a year from 1800 to 2100.
func IsYear(cell string) bool {
	y, err := strconv.Atoi(strings.TrimSpace(cell))
	return err == nil && y >= 1800 && y <= 2100
}

// looksLikeData tells a first record that is data from a header with the
// same shape: it has no text cell (unless its cells are years, the usual
// header of a table of yearly figures), or one of its text cells recurs
// below in the same column.
func looksLikeData(rec []string, below [][]string) bool {
	text, years, filled := 0, 0, 0
	for j, c := range rec {
		if KindOf(c) != KindEmpty {
			filled++
		}
		if y, err := strconv.Atoi(strings.TrimSpace(c)); err == nil && y >= 1800 && y <= 2100 {
			years++
		}
		if KindOf(c) != KindText {
			continue
		}
		text++
		v := strings.TrimSpace(c)
		for _, b := range below {
			if j < len(b) && strings.TrimSpace(b[j]) == v {
				return true
			}
		}
	}
	return text == 0 && (years < 2 || years < filled)
}

// NonEmpty counts the record's cells that hold more than white space
// (no-break spaces included).
func NonEmpty(rec []string) int {
	n := 0
	for _, c := range rec {
		if strings.TrimSpace(strings.ReplaceAll(c, "\u00a0", "")) != "" {
			n++
		}
	}
	return n
}

// SameCells tells records with the same cells, spaces around them and
// trailing empty cells aside.
func SameCells(a, b []string) bool {
	for i := range max(len(a), len(b)) {
		var x, y string
		if i < len(a) {
			x = strings.TrimSpace(a[i])
		}
		if i < len(b) {
			y = strings.TrimSpace(b[i])
		}
		if x != y {
			return false
		}
	}
	return true
}
