package rules

import (
	"fmt"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/google/cel-go/common/types"
)

func TestValue_andText(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		k    Kind
		text string
		want any
	}{
		{Int, "-42", int64(-42)},
		{Double, "297.78", 297.78},
		{Bool, "true", true},
		{String, "a b", "a b"},
		{Timestamp, "2024-02-29", time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)},
		{Timestamp, "2024-01-31T10:22:00Z", time.Date(2024, 1, 31, 10, 22, 0, 0, time.UTC)},
	} {
		v, err := Parse(c.k, c.text)
		if err != nil || v.CEL().Value() != c.want {
			t.Errorf("Value(%d, %q) = %v, %v; want %v", c.k, c.text, v, err, c.want)
		}
	}
	// A time keeps its instant and its zone, as time.Parse reads them.
	for _, text := range []string{"2024-01-31T10:22:00+02:00", "1969-12-31T23:59:59.5Z", "0001-01-01T00:00:00Z",
		"9999-12-31T23:59:59.999999999-05:00", "2024-06-01T00:00:00+00:00", "1900-03-01T12:00:00.000000001+14:00"} {
		want, _ := time.Parse(time.RFC3339Nano, text)
		v, err := Parse(Timestamp, text)
		if got, ok := v.CEL().Value().(time.Time); err != nil || !ok || got != want || got.Location().String() != want.Location().String() {
			t.Errorf("Value(Timestamp, %q) = %v, %v; want %v", text, v.CEL(), err, want)
		}
	}
	for _, bad := range []struct {
		k    Kind
		text string
	}{{Int, "99999999999999999999"}, {Timestamp, "2024-02-30"}} {
		if _, err := Parse(bad.k, bad.text); err == nil {
			t.Errorf("Value(%d, %q) is no error", bad.k, bad.text)
		}
	}
	ts, _ := Parse(Timestamp, "2024-01-31")
	if got, null, err := Text(ts.CEL(), true); got != "2024-01-31" || null || err != nil {
		t.Errorf("Text(date) = %q %v %v", got, null, err)
	}
	if got, _, _ := Text(types.Double(0.1), false); got != "0.1" {
		t.Errorf("Text(0.1) = %q", got)
	}
	if _, null, _ := Text(types.NullValue, false); !null {
		t.Error("Text(null) is not null")
	}
	if _, _, err := Text(types.NewDynamicList(types.DefaultTypeAdapter, []int{1}), false); err == nil {
		t.Error("a list is a field's value")
	}
}

// An expression whose cost grows with its input is tracked on large rows;
// one whose cost does not is bounded by its estimate and is not.
func TestCompile_sizedOnlyWhenCostDependsOnSizes(t *testing.T) {
	t.Parallel()
	env, err := NewEnv([]Var{{"n", Int}, {"s", String}})
	if err != nil {
		t.Fatal(err)
	}
	for expr, sized := range map[string]bool{
		"row.n == null || row.n > 2":         false,
		"source['a'].contains('zzz')":        true,
		"row.s != null && row.s.size() > 3":  false,
		"source['a'] + source['b'] == 'x y'": true,
	} {
		c, prob := env.Compile(expr, true)
		if prob != nil {
			t.Fatalf("%s: %v", expr, prob)
		}
		if c.sized != sized {
			t.Errorf("%s: sized %v, want %v", expr, c.sized, sized)
		}
	}
}

// isoDate gives the Time time.Date gives, on every day of four centuries
// and their edges, and refuses the days a month does not have.
func TestIsoDate_isTimeDate(t *testing.T) {
	t.Parallel()
	check := func(y, m, d int) {
		s := fmt.Sprintf("%04d-%02d-%02d", y, m, d)
		got, ok := isoDate(s)
		want := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
		if valid := want.Day() == d && want.Month() == time.Month(m); ok != valid || ok && got != want {
			t.Fatalf("%s: %v %v, time.Date %v (a date: %v)", s, got, ok, want, valid)
		}
	}
	for _, y := range []int{0, 1, 4, 100, 399, 400, 1600, 1899, 1900, 1969, 1970, 1999, 2000, 2024, 2100, 2400, 9999} {
		for m := 1; m <= 12; m++ {
			for d := 1; d <= 31; d++ {
				check(y, m, d)
			}
		}
	}
	for day := time.Date(1800, 1, 1, 0, 0, 0, 0, time.UTC); day.Year() < 2200; day = day.AddDate(0, 0, 1) {
		check(day.Year(), int(day.Month()), day.Day())
	}
}

// Parse's fast readings of integers and decimals give what strconv
// gives, or leave the text to it.
func TestParse_fastNumbersAreStrconvs(t *testing.T) {
	t.Parallel()
	ints := []string{"0", "-0", "7", "-7", "123456789012345678", "-123456789012345678", "1234567890123456789",
		"9223372036854775807", "-9223372036854775808", "9223372036854775808", "", "-", "1a", "+5", "007"}
	for _, s := range ints {
		want, wantErr := strconv.ParseInt(s, 10, 64)
		v, err := Parse(Int, s)
		if (err != nil) != (wantErr != nil) || err == nil && (v.k != vInt || v.i != want) {
			t.Errorf("Int %q: %v %v, strconv %v %v", s, v.i, err, want, wantErr)
		}
	}
	decs := []string{"0", "-0", "0.0", "297.78", "-297.78", "0.1", "0.3", "1.", ".5", "123456789.12345678", "9007199254740991",
		"9007199254740993", "0.0000000000000000000001", "0.00000000000000000000001", "1e5", "1.2.3", "", "-", ".", "NaN", "+1.5",
		"99999999999999999", "4.35", "1.005", "2.675"}
	for _, s := range decs {
		want, wantErr := strconv.ParseFloat(s, 64)
		v, err := Parse(Double, s)
		if (err != nil) != (wantErr != nil) || err == nil && (v.k != vDouble || math.Float64bits(v.f) != math.Float64bits(want)) {
			t.Errorf("Double %q: %v %v, strconv %v %v", s, v.f, err, want, wantErr)
		}
	}
}

func FuzzParse_fastNumbersAreStrconvs(f *testing.F) {
	f.Add(int64(29778), uint8(2), true)
	f.Fuzz(func(t *testing.T, m int64, point uint8, neg bool) {
		s := strconv.FormatInt(m, 10)
		if p := int(point) % (len(s) + 1); p > 0 && m >= 0 {
			s = s[:len(s)-p] + "." + s[len(s)-p:]
		}
		if neg && m >= 0 {
			s = "-" + s
		}
		want, wantErr := strconv.ParseFloat(s, 64)
		v, err := Parse(Double, s)
		if (err != nil) != (wantErr != nil) || err == nil && math.Float64bits(v.f) != math.Float64bits(want) {
			t.Errorf("Double %q: %v %v, strconv %v %v", s, v.f, err, want, wantErr)
		}
		wantI, wantErr := strconv.ParseInt(s, 10, 64)
		v, err = Parse(Int, s)
		if (err != nil) != (wantErr != nil) || err == nil && v.i != wantI {
			t.Errorf("Int %q: %v %v, strconv %v %v", s, v.i, err, wantI, wantErr)
		}
	})
}
