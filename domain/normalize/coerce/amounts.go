package coerce

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// Amounts: the currency marks a number may carry. Only a currency symbol
// or an ISO 4217 code may stand beside an amount (EUR 12, 12 USD, €7); any
// other letters make the value an identifier (ITF1, a region; SKU 7), an
// invalid number that names the value, never the digits it carries. The
// code "no currency" (XXX) and the testing code (XTS) are not an amount's
// currency.

// amountCodes numbers the currencies an amount may carry, from 1 (0 is
// none), so a Scratch and a tally hold a small index, not a string.
var (
	amountOnce    sync.Once
	amountCodes   []string          // index-1 → code, in code order
	amountIndex   map[string]uint16 // code → index
	amountSymbols map[rune]uint16   // symbol → its code's index
)

func loadAmountCodes() {
	currencyOnce.Do(loadCurrencies)
	amountCodes = slices.Sorted(func(yield func(string) bool) {
		for code := range currencyCodes {
			if code != "XXX" && code != "XTS" && !yield(code) {
				return
			}
		}
	})
	amountIndex = make(map[string]uint16, len(amountCodes))
	for i, code := range amountCodes {
		amountIndex[code] = uint16(i + 1)
	}
	amountSymbols = map[rune]uint16{}
	for _, r := range currencySymbols {
		amountSymbols[r] = amountIndex[currencySymbolCodes[string(r)]]
	}
}

// amountCode returns the index of a three-letter upper-case ISO 4217 code
// that may stand beside an amount, else 0.
func amountCode(s string) uint16 {
	if len(s) != 3 || !isUpperCode(s) {
		return 0
	}
	amountOnce.Do(loadAmountCodes)
	return amountIndex[s]
}

// stripCurrency drops a currency symbol or an ISO 4217 code at either end
// (with or without a space), and records in sc which currency it was
// (the last one dropped), for the column's tally.
func stripCurrency(sc *Scratch, s string) string {
	s = strings.TrimSpace(s)
	for {
		r, n := utf8.DecodeRuneInString(s)
		if n > 0 && strings.ContainsRune(currencySymbols, r) {
			sc.currency = symbolCode(r)
			s = strings.TrimSpace(s[n:])
			continue
		}
		r, n = utf8.DecodeLastRuneInString(s)
		if n > 0 && strings.ContainsRune(currencySymbols, r) {
			sc.currency = symbolCode(r)
			s = strings.TrimSpace(s[:len(s)-n])
			continue
		}
		break
	}
	if n := len(s); n > 3 && (IsDigit(s[n-4]) || s[n-4] == ' ') {
		if c := amountCode(s[n-3:]); c != 0 {
			sc.currency, s = c, strings.TrimSpace(s[:n-3])
		}
	}
	if len(s) > 3 && (IsDigit(s[3]) || s[3] == ' ' || s[3] == '-') {
		if c := amountCode(s[:3]); c != 0 {
			sc.currency, s = c, strings.TrimSpace(s[3:])
		}
	}
	return s
}

func symbolCode(r rune) uint16 {
	amountOnce.Do(loadAmountCodes)
	return amountSymbols[r]
}

// CurrencyOf returns the code of the currency a number's text carries, ""
// when none: infer's report of a column's currency.
func CurrencyOf(s string) string {
	sc := new(Scratch)
	if _, ok := ParseDecimal(sc, s, "", ""); !ok || sc.currency == 0 {
		return ""
	}
	return amountCodes[sc.currency-1]
}

// currencyTally counts, for one number column of one file, the values
// that carried each currency; the column's coercer adds to it from every
// worker.
type currencyTally struct {
	counts []atomic.Int64 // by amount code index-1
	kinds  atomic.Int32   // how many codes have a count
}

func newCurrencyTally() *currencyTally {
	amountOnce.Do(loadAmountCodes)
	return &currencyTally{counts: make([]atomic.Int64, len(amountCodes))}
}

// add counts one value of the currency with index c (not 0).
func (t *currencyTally) add(c uint16) {
	if t.counts[c-1].Add(1) == 1 {
		t.kinds.Add(1)
	}
}

// mixed tells a column whose values carried more than one currency.
func (t *currencyTally) mixed() bool { return t != nil && t.kinds.Load() > 1 }

// String lists each currency seen with its count, the most common first:
// "EUR (3), GBP (1), USD (1)".
func (t *currencyTally) String() string {
	type seen struct {
		code string
		n    int64
	}
	var all []seen
	for i := range t.counts {
		if n := t.counts[i].Load(); n > 0 {
			all = append(all, seen{amountCodes[i], n})
		}
	}
	slices.SortStableFunc(all, func(a, b seen) int { return int(b.n - a.n) })
	parts := make([]string, len(all))
	for i, s := range all {
		parts[i] = fmt.Sprintf("%s (%d)", s.code, s.n)
	}
	return strings.Join(parts, ", ")
}
