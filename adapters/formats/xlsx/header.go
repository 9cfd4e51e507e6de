package xlsx

import (
	"slices"
	"strings"
	"time"

	"github.com/tabnorm/tabnorm/adapters/formats/detect"
)

// sheetHeader picks the header among a sheet's first rows (sample, from
// sheet row skip+1) and tells whether the sheet has one. The text's
// evidence decides first (detect.Header: text over numbers, followed by
// data, the years of yearly figures); then what a workbook adds, which a
// text file cannot say:
//   - a merged range spanning most of the table's width (a title band) is
//     not a header candidate, whatever its width in cells (known when the
//     rows all fit in the sample: the XML keeps the merges after the rows);
//   - typed values (numbers, dates, booleans, errors: hints[i][j].typed)
//     are data, never a header's names: the first wide row holding one
//     (years over other numbers aside, the names of yearly figures) is
//     where the data starts, and the header is above it. A sheet whose
//     first row holds typed values has no header row;
//   - a header is marked: bold or bordered where the data rows are not.
//     A marked row above the data, at least as wide as the row the text
//     chose, is the header (a first data row or a units row of text under
//     it made the text take that row);
//   - a row styled as the data below it (each column's own cell format)
//     is data when another candidate is not.
//
// hints holds each sample row's cell hints (nil without them: the text
// decides alone).
func sheetHeader(sample [][]string, hints [][]cellHint, merges []mergeRange, skip int) (at int, header bool) {
	if len(hints) != len(sample) {
		return detect.Header(sample)
	}
	sample = withoutMissing(sample)
	_, typical := detect.RecordWidths(sample)
	banded := withoutTitleBands(sample, merges, skip, typical)
	if first, ok := firstRowIsData(banded, hints, typical); ok && firstNonBlank(sample) == first {
		return first, false
	}
	sample = banded
	at, header = detect.Header(sample)
	widths, typical := detect.RecordWidths(sample)
	need := max(1, (typical*6+9)/10)
	from := 0
	if header && !typedData(sample, hints, at) {
		from = at + 1 // typed values above the text's header are a title block's (a date, a total)
	}
	data := typedStart(sample, hints, widths, need, from)
	if data < 0 {
		return at, header // no typed values: the text decides
	}
	cands := sheetCandidates(sample, hints, widths, need, data)
	if len(cands) == 0 {
		if at >= data || !header || firstNonBlank(sample) == data {
			return 0, false // nothing above the data can be its header
		}
		return at, header
	}
	textChoice := header && slices.Contains(cands, at)
	evidence := markedRows(cands, sample, hints, data)
	if textChoice && slices.Contains(evidence, at) {
		return at, true
	}
	if len(evidence) == 0 && textChoice {
		evidence = notStyledAsData(cands, at, sample, hints, data)
	}
	// The evidence nearest the data, at least as wide as the text's choice.
	for k := len(evidence) - 1; k >= 0; k-- {
		if !textChoice || widths[evidence[k]] >= widths[at] {
			return evidence[k], true
		}
	}
	if textChoice {
		return at, true
	}
	if !header {
		return at, false // the text found data first, and nothing marks a header
	}
	return cands[len(cands)-1], true
}

// firstRowIsData tells a sheet whose first row is data, not a header: a
// wide row each of whose cells is of the kind most of its column's
// cells below have (typed values or numbers among them, URLs among
// URLs, text among text), one at least not text, that is neither the
// names of figures by period (years, months) nor marked as a header
// (bold or bordered where the rows below are not). A row with nothing
// below is data when its cells are all values or URLs. It returns the
// row's index.
func firstRowIsData(sample [][]string, hints [][]cellHint, typical int) (int, bool) {
	first := firstNonBlank(sample)
	if first < 0 || detect.NonEmpty(sample[first]) < max(1, (typical*6+9)/10) {
		return first, false
	}
	rec, h := sample[first], hints[first]
	below := detect.NonBlankAfter(sample, first, detect.BelowRecords)
	var belowHints [][]cellHint
	for i := first + 1; i < len(sample) && len(belowHints) < len(below); i++ {
		if detect.NonEmpty(sample[i]) > 0 {
			belowHints = append(belowHints, hints[i])
		}
	}
	valued := false
	for j, c := range rec {
		k := cellClass(c, h, j)
		if k == classEmpty {
			continue
		}
		if k != classText {
			valued = true
		}
		if len(below) > 0 && columnClass(below, belowHints, j) != k {
			return first, false
		}
		if len(below) == 0 && k == classText {
			return first, false
		}
	}
	if !valued || len(below) > 0 && (detect.YearsHeader(rec, detect.ColumnKinds(below), below) || periodsHeader(rec, below)) {
		return first, false
	}
	return first, len(markedRows([]int{first}, sample, hints, first+1)) == 0
}

// The classes of cells firstRowIsData compares.
const (
	classEmpty = iota
	classText
	classValue // a typed value, or a number or date written as text
	classURL
)

// cellClass is cell j's class, its hints saying whether it is typed.
func cellClass(c string, h []cellHint, j int) int {
	switch {
	case !filled(c):
		return classEmpty
	case j < len(h) && h[j].typed, detect.KindOf(c) == detect.KindNumber:
		return classValue
	case isURL(c):
		return classURL
	}
	return classText
}

// columnClass is the class of at least 60 % of column j's filled cells
// in rows; classEmpty when none has so many.
func columnClass(rows [][]string, hints [][]cellHint, j int) int {
	var counts [4]int
	all := 0
	for i, r := range rows {
		if j >= len(r) {
			continue
		}
		if k := cellClass(r[j], hints[i], j); k != classEmpty {
			counts[k]++
			all++
		}
	}
	for k, n := range counts {
		if k != classEmpty && all > 0 && n*10 >= all*6 {
			return k
		}
	}
	return classEmpty
}

// isURL tells a cell holding one web address (a scheme's or www.'s
// prefix, no space): never a header's name.
func isURL(c string) bool {
	c = strings.TrimSpace(c)
	if strings.ContainsAny(c, " \t\n") {
		return false
	}
	l := strings.ToLower(c)
	for _, p := range []string{"http://", "https://", "ftp://", "www."} {
		if strings.HasPrefix(l, p) && len(l) > len(p) {
			return true
		}
	}
	return false
}

// firstNonBlank is the index of the sample's first non-blank row.
func firstNonBlank(sample [][]string) int {
	for i, r := range sample {
		if detect.NonEmpty(r) > 0 {
			return i
		}
	}
	return -1
}

// withoutTitleBands blanks the rows whose cells all start merged ranges
// spanning several columns that together cover most of the table's width
// (60 % of its typical width, and at least two columns): a title or a
// band of group names, not a header. The sample is not changed.
func withoutTitleBands(sample [][]string, merges []mergeRange, skip, typical int) [][]string {
	if len(merges) == 0 {
		return sample
	}
	anchors := make(map[[2]int]mergeRange, len(merges))
	for _, m := range merges {
		if m.right > m.left {
			anchors[[2]int{m.top, m.left}] = m
		}
	}
	out, cloned := sample, false
	for i, rec := range sample {
		row := skip + i + 1
		covered, cells := 0, 0
		band := true
		for j, c := range rec {
			if !filled(c) {
				continue
			}
			cells++
			m, ok := anchors[[2]int{row, j + 1}]
			if !ok {
				band = false
				break
			}
			covered += m.right - m.left + 1
		}
		if !band || cells == 0 || covered < max(2, (typical*6+9)/10) {
			continue
		}
		if !cloned {
			out, cloned = slices.Clone(sample), true
		}
		out[i] = nil
	}
	return out
}

// typedStart is the first wide row (need cells or more) from row from
// that holds typed values making it data (typedData); -1 when there is
// none.
func typedStart(sample [][]string, hints [][]cellHint, widths []int, need, from int) int {
	for i := from; i < len(sample) && i < detect.HeaderCandidates+detect.BelowRecords; i++ {
		if widths[i] >= need && typedData(sample, hints, i) {
			return i
		}
	}
	return -1
}

// typedData tells a row whose typed values make it data: any but the
// names of a table of figures by period, typed as the spreadsheet's user
// typed them: years (2022, 2023) or dates (each month's first day) over
// columns of other numbers.
func typedData(sample [][]string, hints [][]cellHint, i int) bool {
	if !hasTyped(hints[i]) {
		return false
	}
	if typedPeriodsOnly(sample[i], hints[i]) {
		below := detect.NonBlankAfter(sample, i, detect.BelowRecords)
		if len(below) > 0 && (detect.YearsHeader(sample[i], detect.ColumnKinds(below), below) || periodsHeader(sample[i], below)) {
			return false
		}
	}
	return true
}

func hasTyped(h []cellHint) bool {
	return slices.ContainsFunc(h, func(c cellHint) bool { return c.typed })
}

// typedPeriodsOnly: every typed cell of the row is a year or a date.
func typedPeriodsOnly(rec []string, h []cellHint) bool {
	for j, c := range h {
		if c.typed && (j >= len(rec) || !isPeriod(rec[j])) {
			return false
		}
	}
	return true
}

// isPeriod tells a year or a date as the reader writes a date cell
// (2024-01-31, with a time of day or not).
func isPeriod(cell string) bool {
	c := strings.TrimSpace(cell)
	if detect.IsYear(c) {
		return true
	}
	if len(c) < 10 || (len(c) > 10 && c[10] != 'T') {
		return false
	}
	_, err := time.Parse("2006-01-02", c[:10])
	return err == nil
}

// periodsHeader tells the header of figures by period: at least two of
// its cells are years or dates, every other one is text, and the column
// under each period holds values that are mostly not periods.
func periodsHeader(rec []string, below [][]string) bool {
	periods := 0
	for j, c := range rec {
		switch {
		case detect.KindOf(c) == detect.KindEmpty:
			continue
		case !isPeriod(c):
			if detect.KindOf(c) != detect.KindText {
				return false
			}
			continue
		}
		periods++
		filled, alike := 0, 0
		for _, b := range below {
			if j < len(b) && detect.KindOf(b[j]) != detect.KindEmpty {
				filled++
				if isPeriod(b[j]) {
					alike++
				}
			}
		}
		if filled == 0 || alike*2 >= filled {
			return false
		}
	}
	return periods >= 2
}

// sheetCandidates are the rows above the data start that can be its
// header: wide, without typed values (but the periods naming figures),
// and without a text cell that recurs in its column in the data (a
// header's names do not).
func sheetCandidates(sample [][]string, hints [][]cellHint, widths []int, need, data int) []int {
	var out []int
	below := detect.NonBlankAfter(sample, data-1, detect.BelowRecords)
	for i := range data {
		if widths[i] < need {
			continue
		}
		if typedData(sample, hints, i) {
			continue
		}
		if !(hasText(sample[i]) || allPeriods(sample[i])) || recurs(sample[i], below) {
			continue
		}
		out = append(out, i)
	}
	return out
}

// recurs tells a record with a text cell whose value is found in the
// same column of the records below.
func recurs(rec []string, below [][]string) bool {
	for j, c := range rec {
		if detect.KindOf(c) != detect.KindText {
			continue
		}
		for _, b := range below {
			if j < len(b) && strings.TrimSpace(b[j]) == strings.TrimSpace(c) {
				return true
			}
		}
	}
	return false
}

// dataRowsFrom returns the indexes of up to detect.BelowRecords non-blank rows
// from row data on.
func dataRowsFrom(sample [][]string, data int) []int {
	var out []int
	for i := data; i < len(sample) && len(out) < detect.BelowRecords; i++ {
		if detect.NonEmpty(sample[i]) > 0 {
			out = append(out, i)
		}
	}
	return out
}

// notStyledAsData: when the row at is styled as the data rows (most of
// its cells in the cell format their column has in the data), the
// candidates that are not; else none.
func notStyledAsData(cands []int, at int, sample [][]string, hints [][]cellHint, data int) []int {
	styles := dataStyles(sample, hints, data)
	asData := func(i int) bool {
		same, cells := 0, 0
		for j, c := range sample[i] {
			style, ok := styles[j]
			if !ok || !filled(c) {
				continue
			}
			cells++
			if j < len(hints[i]) && hints[i][j].style == style {
				same++
			}
		}
		return cells > 0 && same*2 > cells
	}
	if !asData(at) {
		return nil
	}
	return slices.DeleteFunc(slices.Clone(cands), asData)
}

// dataStyles is each column's cell format in the data rows, for the
// columns where at least 60 % of the filled cells share one.
func dataStyles(sample [][]string, hints [][]cellHint, data int) map[int]int32 {
	counts := map[[2]int32]int{}
	inColumn := map[int]int{}
	for _, i := range dataRowsFrom(sample, data) {
		for j, h := range hints[i] {
			if j < len(sample[i]) && filled(sample[i][j]) {
				counts[[2]int32{int32(j), h.style}]++
				inColumn[j]++
			}
		}
	}
	styles := map[int]int32{}
	for k, n := range counts {
		if n*10 >= inColumn[int(k[0])]*6 {
			styles[int(k[0])] = k[1]
		}
	}
	return styles
}

// markedRows are the candidates whose cells are mostly bold, or mostly
// bordered, where most data rows are not.
func markedRows(cands []int, sample [][]string, hints [][]cellHint, data int) []int {
	rows := dataRowsFrom(sample, data)
	dataBold, dataBorder := 0, 0
	for _, i := range rows {
		if mostly(sample[i], hints[i], lookBold) {
			dataBold++
		}
		if mostly(sample[i], hints[i], lookBorder) {
			dataBorder++
		}
	}
	boldTells, borderTells := dataBold*2 < len(rows), dataBorder*2 < len(rows)
	var out []int
	for _, i := range cands {
		if (boldTells && mostly(sample[i], hints[i], lookBold)) || (borderTells && mostly(sample[i], hints[i], lookBorder)) {
			out = append(out, i)
		}
	}
	return out
}

// mostly: at least half of the record's non-empty cells look so.
func mostly(rec []string, h []cellHint, look byte) bool {
	n, cells := 0, 0
	for j, c := range rec {
		if !filled(c) {
			continue
		}
		cells++
		if j < len(h) && h[j].look&look != 0 {
			n++
		}
	}
	return cells > 0 && n*2 >= cells
}

// hasText: a record with a text cell (a header has names).
func hasText(rec []string) bool {
	return slices.ContainsFunc(rec, func(c string) bool { return detect.KindOf(c) == detect.KindText })
}

// allPeriods: every non-empty cell of the record is a year or a date.
func allPeriods(rec []string) bool {
	n := 0
	for _, c := range rec {
		if detect.KindOf(c) == detect.KindEmpty {
			continue
		}
		if !isPeriod(c) {
			return false
		}
		n++
	}
	return n > 0
}

// filled tells a non-empty cell, as detect.NonEmpty counts them.
func filled(c string) bool {
	return strings.TrimSpace(strings.ReplaceAll(c, "\u00a0", "")) != ""
}

// missingTokens are the cells that say a value is missing (as infer reads
// them, "none" aside: a name too): never a header's names.
var missingTokens = []string{"na", "n/a", "null", "nan", "-"}

// withoutMissing blanks the cells that are missing-value tokens, so that a
// first data row of NA is no header candidate; the sample is not changed.
func withoutMissing(sample [][]string) [][]string {
	out, cloned := sample, false
	for i, rec := range sample {
		for j, c := range rec {
			if len(c) > 4 || !slices.Contains(missingTokens, strings.ToLower(strings.TrimSpace(c))) {
				continue
			}
			if !cloned {
				out, cloned = slices.Clone(sample), true
			}
			if &out[i][0] == &sample[i][0] {
				out[i] = slices.Clone(rec)
			}
			out[i][j] = ""
		}
	}
	return out
}
