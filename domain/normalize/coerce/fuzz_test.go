package coerce

import (
	"encoding/json"
	"strings"
	"testing"
)

// The coercers take any text from any file: none may panic or hang, and
// whatever they accept must be canonical (coercing it again changes
// nothing) and, for numbers, a valid JSON number.

func FuzzCoerceNumber(f *testing.F) {
	for _, s := range []string{"1,234.50", "(12)", "12-", "$1.234,50", "1e5", "0,611", "12.00 USD", "--", "1'234", "-0.0"} {
		f.Add(s, "")
	}
	f.Add("1.234,50", ",")
	f.Fuzz(func(t *testing.T, s, dec string) {
		if len(dec) > 1 {
			dec = dec[:1]
		}
		v, ok := ParseDecimal(new(Scratch), s, dec, "")
		if !ok {
			return
		}
		if !json.Valid([]byte(v)) {
			t.Fatalf("%q → %q is not a JSON number", s, v)
		}
		if again, ok := ParseDecimal(new(Scratch), v, "", ""); !ok || again != v {
			t.Fatalf("%q → %q → %q, %v: not canonical", s, v, again, ok)
		}
		if i, ok := ParseInteger(new(Scratch), s, dec, ""); ok && strings.ContainsAny(i, ".eE") {
			t.Fatalf("integer %q has a fraction or exponent", i)
		}
	})
}

func FuzzCoerceDate(f *testing.F) {
	for _, s := range []string{"2024-01-31", "31/01/2024", "01/31/24", "Jan 31 2024", "31 January 2024", "11-May-11", "2024-02-30", "20240131", "1/2/3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, order := range []string{OrderDMY, OrderMDY, OrderYMD} {
			d, ok := ParseDateEitherWay(s, order)
			if !ok {
				continue
			}
			v := formatDate(d)
			if !validDay(d.y, d.m, d.d) || len(v) != 10 {
				t.Fatalf("%q (%s) → impossible date %q", s, order, v)
			}
			if again, ok := ParseDate(v, OrderYMD); !ok || formatDate(again) != v {
				t.Fatalf("%q → %q does not read back", s, v)
			}
		}
		if tm, _, ok := ParseDateTime(s, OrderMDY); ok && tm.Year() < 1 {
			t.Fatalf("%q → %v", s, tm)
		}
		_, _, _, _, _, _ = ParseTime(s)
		_ = DateEvidence(s)
	})
}

func FuzzCoerceText(f *testing.F) {
	for _, s := range []string{"Ann@Example.com", "+44 20 7946 0958", "(415) 555-2671 ext. 12", "Germany", "DEU", "México", "€", "{F47AC10B-58CC-4372-A567-0E02B2C3D479}", "https://x.io/a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if v, ok := ParseEmail(new(Scratch), s); ok {
			if again, ok := ParseEmail(new(Scratch), v); !ok || again != v {
				t.Fatalf("email %q → %q not canonical", s, v)
			}
		}
		if v, ok := ParsePhone(new(Scratch), s, "US"); ok && (!strings.HasPrefix(v, "+") || len(v) > 16 || !AllDigits(v[1:])) {
			t.Fatalf("phone %q → %q is not E.164", s, v)
		}
		if v, ok := ParseCountry(s); ok && len(v) != 2 {
			t.Fatalf("country %q → %q", s, v)
		}
		if v, ok := ParseCurrency(s); ok && len(v) != 3 {
			t.Fatalf("currency %q → %q", s, v)
		}
		if v, ok := ParseUUID(s); ok && len(v) != 36 {
			t.Fatalf("uuid %q → %q", s, v)
		}
		_, _ = ParseURI(s)
		_, _ = ParseBoolean(s, nil, nil)
	})
}
