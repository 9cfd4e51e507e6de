package normalize

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/domain/schema"
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
		v, ok := parseDecimal(new(scratch), s, dec, "")
		if !ok {
			return
		}
		if !json.Valid([]byte(v)) {
			t.Fatalf("%q → %q is not a JSON number", s, v)
		}
		if again, ok := parseDecimal(new(scratch), v, "", ""); !ok || again != v {
			t.Fatalf("%q → %q → %q, %v: not canonical", s, v, again, ok)
		}
		if i, ok := parseInteger(new(scratch), s, dec, ""); ok && strings.ContainsAny(i, ".eE") {
			t.Fatalf("integer %q has a fraction or exponent", i)
		}
	})
}

func FuzzCoerceDate(f *testing.F) {
	for _, s := range []string{"2024-01-31", "31/01/2024", "01/31/24", "Jan 31 2024", "31 January 2024", "11-May-11", "2024-02-30", "20240131", "1/2/3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, order := range []string{orderDMY, orderMDY, orderYMD} {
			d, ok := parseDateEitherWay(s, order)
			if !ok {
				continue
			}
			v := formatDate(d)
			if !validDay(d.y, d.m, d.d) || len(v) != 10 {
				t.Fatalf("%q (%s) → impossible date %q", s, order, v)
			}
			if again, ok := parseDate(v, orderYMD); !ok || formatDate(again) != v {
				t.Fatalf("%q → %q does not read back", s, v)
			}
		}
		if tm, _, ok := parseDateTime(s, orderMDY); ok && tm.Year() < 1 {
			t.Fatalf("%q → %v", s, tm)
		}
		_, _, _, _, _, _ = parseTime(s)
		_ = dateEvidence(s)
	})
}

func FuzzCoerceText(f *testing.F) {
	for _, s := range []string{"Ann@Example.com", "+44 20 7946 0958", "(415) 555-2671 ext. 12", "Germany", "DEU", "México", "€", "{F47AC10B-58CC-4372-A567-0E02B2C3D479}", "https://x.io/a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if v, ok := parseEmail(new(scratch), s); ok {
			if again, ok := parseEmail(new(scratch), v); !ok || again != v {
				t.Fatalf("email %q → %q not canonical", s, v)
			}
		}
		if v, ok := parsePhone(new(scratch), s, "US"); ok && (!strings.HasPrefix(v, "+") || len(v) > 16 || !allDigits(v[1:])) {
			t.Fatalf("phone %q → %q is not E.164", s, v)
		}
		if v, ok := parseCountry(s); ok && len(v) != 2 {
			t.Fatalf("country %q → %q", s, v)
		}
		if v, ok := parseCurrency(s); ok && len(v) != 3 {
			t.Fatalf("currency %q → %q", s, v)
		}
		if v, ok := parseUUID(s); ok && len(v) != 36 {
			t.Fatalf("uuid %q → %q", s, v)
		}
		_, _ = parseURI(s)
		_, _ = parseBoolean(s, nil, nil)
		if !json.Valid(appendJSONString(nil, s)) {
			t.Fatalf("JSON string of %q is invalid", s)
		}
	})
}

// FuzzInfer: whatever the header and cells, infer fails with a code or
// proposes a schema that parses and that normalizes the same records.
func FuzzInfer(f *testing.F) {
	f.Add("a,b,a", "1,x,2024-01-31\nNULL,y,31/01/2024")
	f.Add("", "")
	f.Add(strings.Repeat("h", 300)+","+strings.Repeat("h", 301), "1,2")
	f.Add("Amount,Price", "\"1,5\",£68,486.66\nn/a,None")
	f.Fuzz(func(t *testing.T, header, body string) {
		rows := [][]string{splitCells(header)}
		for _, line := range strings.Split(body, "\n") {
			rows = append(rows, splitCells(line))
		}
		if len(rows) > 50 {
			rows = rows[:50]
		}
		r := execute(t, ModeInfer, nil, "", source("", rows...))
		if r.err != nil {
			var fl *Failure
			if !errors.As(r.err, &fl) || fl.Code == "internal_error" {
				t.Fatalf("%v", r.err)
			}
			return
		}
		if _, err := schema.Parse(r.res.InferredSchema.JSON()); err != nil {
			t.Fatalf("proposed schema does not parse: %v", err)
		}
	})
}

func splitCells(line string) []string {
	if line == "" {
		return nil
	}
	return strings.Split(line, ",")
}
