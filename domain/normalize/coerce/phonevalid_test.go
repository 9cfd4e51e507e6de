package coerce

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/nyaruka/phonenumbers"
)

// libraryValid is what validPhone asked before the automata: the
// library's parse of +digits and its IsValidNumber.
func libraryValid(d []byte) bool {
	num, err := phonenumbers.Parse("+"+string(d), "ZZ")
	return err == nil && phonenumbers.IsValidNumber(num)
}

// TestPhoneValid_matchesTheLibrary holds phoneValid equal to the library
// on every number validPhone can be given: for each calling code in use,
// numbers near each of its regions' example numbers (valid ones and their
// neighbours) and random ones of each possible length, taken where the
// fast path would ask (a possible length, no national prefix).
func TestPhoneValid_matchesTheLibrary(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	checked, valid, decided := 0, 0, 0
	for cc := range phonenumbers.GetSupportedCallingCodes() {
		for _, d := range phoneSamples(rng, cc) {
			if !fastPathAsks(d) {
				continue
			}
			checked++
			cc, n := callingCodeOf(d)
			got, ok := phoneValid(cc, d[n:])
			if !ok {
				continue
			}
			decided++
			want := libraryValid(d)
			if want {
				valid++
			}
			if got != want {
				t.Errorf("+%s: automata say valid=%v, the library %v", d, got, want)
			}
		}
	}
	t.Logf("%d numbers, %d decided by the automata (%d of them valid)", checked, decided, valid)
	if decided < checked*3/4 || valid < 1000 {
		t.Fatalf("the automata decided %d of %d numbers, %d valid: too few to hold them equal", decided, checked, valid)
	}
	// The calling codes of most files are decided without the library.
	for _, d := range []string{"14155552671", "493012345678", "33155429200", "447911123456", "34912345678", "390212345678",
		"31201234567", "61212345678", "81312345678", "861012345678", "919876543210", "41446681800", "4312345678"} {
		cc, n := callingCodeOf([]byte(d))
		if _, ok := phoneValid(cc, []byte(d[n:])); !ok {
			t.Errorf("+%s: the automata leave calling code %d to the library", d, cc)
		}
	}
}

// TestPhoneValid_oneWalkAsRegionByRegion holds the calling code's one
// automaton (verdictDFA) equal to the region-by-region decision it
// replaces (regionByPrefix, then the region's descriptions), on every
// number one digit away from an example number (changed, added,
// dropped): the region choice and the lengths are where they differ if
// they do.
func TestPhoneValid_oneWalkAsRegionByRegion(t *testing.T) {
	n, valid := 0, 0
	for cc := range phonenumbers.GetSupportedCallingCodes() {
		c := callingCodeAutomata(cc)
		if c.main == nil || c.main.rewritesAll {
			continue
		}
		if c.dfa == nil {
			t.Errorf("calling code %d has no one automaton", cc)
			continue
		}
		for _, d := range oneDigitAway(exampleNumbers(cc)) {
			nsn := []byte(d)
			if c.main.rewrites(nsn) || len(nsn) >= maxLengthBits {
				continue
			}
			got, ok := c.dfa.valid(nsn)
			want := regionByRegion(c, nsn)
			n++
			if want {
				valid++
			}
			if !ok || got != want {
				t.Errorf("+%d %s: the automaton says valid=%v (ok %v), region by region %v", cc, d, got, ok, want)
			}
		}
	}
	t.Logf("%d numbers, %d valid", n, valid)
	if valid < 10000 {
		t.Fatalf("only %d valid numbers among %d: too few to hold the two equal", valid, n)
	}
}

// regionByRegion is phoneValid's decision without the one automaton: the
// region regionOf chooses, then its descriptions.
func regionByRegion(c *ccAutomata, nsn []byte) bool {
	m := c.main
	if c.regions > 1 {
		if m, _ = regionOf(c.ms, nsn); m == nil {
			return false
		}
	}
	return m.valid(nsn)
}

// oneDigitAway are the numbers one digit from each of numbers: a digit
// changed, added or dropped.
func oneDigitAway(numbers []string) []string {
	var out []string
	for _, ex := range numbers {
		for p := range len(ex) {
			out = append(out, ex[:p]+ex[p+1:])
			for dg := byte('0'); dg <= '9'; dg++ {
				out = append(out, ex[:p]+string(dg)+ex[p+1:], ex[:p]+string(dg)+ex[p:])
			}
		}
	}
	return out
}

// fastPathAsks tells whether validPhone can be given d (the digits of
// +d): what the fast path of the phone coercer lets through.
func fastPathAsks(d []byte) bool {
	if len(d) < 8 || len(d) > 15 || d[0] == '0' {
		return false
	}
	cc, n := callingCodeOf(d)
	switch {
	case n == 0:
		return false
	case cc == 1:
		return len(d) == 11 && validNANP(d[1:])
	default:
		return possibleInternational(d) == fastYes
	}
}

// phoneSamples are numbers of calling code cc: its regions' example
// numbers, neighbours of them (one to three digits changed, one added or
// dropped) and random ones of 4 to 13 national digits.
func phoneSamples(rng *rand.Rand, cc int) [][]byte {
	prefix := strconv.Itoa(cc)
	var out [][]byte
	for _, ex := range exampleNumbers(cc) {
		out = append(out, []byte(prefix+ex))
		for range 40 {
			b := []byte(ex)
			for range 1 + rng.IntN(3) {
				b[rng.IntN(len(b))] = byte('0' + rng.IntN(10))
			}
			switch rng.IntN(4) {
			case 0:
				b = append(b, byte('0'+rng.IntN(10)))
			case 1:
				b = b[:len(b)-1]
			}
			out = append(out, []byte(prefix+string(b)))
		}
	}
	for length := 4; length <= 13; length++ {
		for range 30 {
			b := append([]byte(prefix), byte('1'+rng.IntN(9)))
			for len(b) < len(prefix)+length {
				b = append(b, byte('0'+rng.IntN(10)))
			}
			out = append(out, b)
		}
	}
	return out
}

// exampleNumbers are the national significant numbers of the library's
// example numbers of each type, for every region of calling code cc.
func exampleNumbers(cc int) []string {
	var out []string
	for _, r := range phonenumbers.GetRegionCodesForCountryCode(cc) {
		if r == "001" {
			if ex := phonenumbers.GetExampleNumberForNonGeoEntity(cc); ex != nil {
				out = append(out, phonenumbers.GetNationalSignificantNumber(ex))
			}
			continue
		}
		for _, typ := range []phonenumbers.PhoneNumberType{phonenumbers.FIXED_LINE, phonenumbers.MOBILE, phonenumbers.TOLL_FREE,
			phonenumbers.PREMIUM_RATE, phonenumbers.VOIP, phonenumbers.UAN, phonenumbers.PAGER, phonenumbers.PERSONAL_NUMBER} {
			if ex := phonenumbers.GetExampleNumberForType(r, typ); ex != nil {
				out = append(out, phonenumbers.GetNationalSignificantNumber(ex))
			}
		}
	}
	return out
}

func BenchmarkPhoneValid(b *testing.B) {
	numbers := [][]byte{[]byte("14155552671"), []byte("493012345678"), []byte("33155429200"), []byte("447911123456")}
	b.Run("automata", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			d := numbers[i%len(numbers)]
			cc, n := callingCodeOf(d)
			phoneValid(cc, d[n:])
		}
	})
	b.Run("library", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			libraryValid(numbers[i%len(numbers)])
		}
	})
}

// BenchmarkPhoneValidNANP: numbers of the calling code 25 regions share,
// most of them not valid (as random numbers are), which the library
// checks region by region.
func BenchmarkPhoneValidNANP(b *testing.B) {
	var numbers [][]byte
	for i := range 64 {
		numbers = append(numbers, []byte(fmt.Sprintf("1%03d%07d", 200+i*12%800, 5550000+i*7919%1000000)))
	}
	for i := 0; b.Loop(); i++ {
		d := numbers[i%len(numbers)]
		phoneValid(1, d[1:])
	}
}
