package formats

import "strings"

// DetectHeader picks the header among the first records of a table: the
// first record that is about as wide as the table itself. Title lines,
// notes and blank lines above a table have far fewer non-empty cells than
// the table's typical row, so they are passed over.
func DetectHeader(sample [][]string) int {
	widths := make([]int, len(sample))
	counts := map[int]int{}
	for i, rec := range sample {
		widths[i] = nonEmpty(rec)
		if widths[i] > 0 {
			counts[widths[i]]++
		}
	}
	// The typical width: the most common non-zero width, wider on ties.
	typical, freq := 0, 0
	for w, f := range counts {
		if f > freq || (f == freq && w > typical) {
			typical, freq = w, f
		}
	}
	if typical == 0 {
		return 0
	}
	need := max(1, (typical*6+9)/10) // at least 60 % of the typical width
	for i, w := range widths {
		if w >= need {
			return i
		}
	}
	return 0
}

func nonEmpty(rec []string) int {
	n := 0
	for _, c := range rec {
		if strings.TrimSpace(strings.ReplaceAll(c, "\u00a0", "")) != "" {
			n++
		}
	}
	return n
}
