package coerce

import (
	"testing"

	"github.com/tabnorm/tabnorm/domain/schema"
)

type coerceCase struct {
	in, want string // want "" means refused
}

func runCoerce(t *testing.T, name string, f func(string) (string, bool), cases []coerceCase) {
	t.Helper()
	t.Run(name, func(t *testing.T) {
		t.Parallel()
		for _, c := range cases {
			got, ok := f(c.in)
			if c.want == "" {
				if ok {
					t.Errorf("%q accepted as %q, want refused", c.in, got)
				}
				continue
			}
			if !ok || got != c.want {
				t.Errorf("%q = %q, %v; want %q", c.in, got, ok, c.want)
			}
		}
	})
}

func TestCoercers(t *testing.T) {
	t.Parallel()
	num := func(s string) (string, bool) { return ParseDecimal(new(Scratch), s, "", "") }
	runCoerce(t, "number", num, []coerceCase{
		{"12", "12"}, {"-3.25", "-3.25"}, {" 7.0 ", "7.0"}, {"1,234.50", "1234.50"}, {"$12", "12"}, {"12.00 USD", "12.00"},
		{"EUR 12", "12"}, {"12€", "12"}, {"(12)", "-12"}, {"12-", "-12"}, {"(1,234.50)", "-1234.50"}, {"12%", "12"},
		{"1.234,50", "1234.50"}, {"0,611553068", "0.611553068"}, {"1 234 567", "1234567"}, {"1'234.5", "1234.5"},
		{"1.234.567", "1234567"}, {"007", "7"}, {"0.0001", "0.0001"}, {"1e5", "1e5"}, {"-2.5E-3", "-2.5e-3"},
		{"123456789012345678901234567890", "123456789012345678901234567890"},
		{"0.1000000000000000055511151231257827", "0.1000000000000000055511151231257827"},
		{"", ""}, {"abc", ""}, {"1.2.3,4", ""}, {"1,23,456", "123456"}, {"1 234,5", "1234.5"}, {"12a", ""}, {"--1", ""}, {"1,2,3.4.5", ""}, {"$", ""}, {"e5", ""},
	})
	runCoerce(t, "number_with_decimal_comma", func(s string) (string, bool) { return ParseDecimal(new(Scratch), s, ",", ".") }, []coerceCase{
		{"1.234,50", "1234.50"}, {"12,5", "12.5"}, {"1.234", "1234"}, {"-1.234,567", "-1234.567"}, {"12.345,67", "12345.67"},
	})
	runCoerce(t, "integer", func(s string) (string, bool) { return ParseInteger(new(Scratch), s, "", "") }, []coerceCase{
		{"42", "42"}, {"6,700", "6700"}, {"7.0", "7"}, {"-0", "0"}, {"00081135561", "81135561"}, {"(5)", "-5"},
		{"9223372036854775808", "9223372036854775808"}, {"7.5", ""}, {"1e3", ""}, {"x", ""},
	})
	runCoerce(t, "boolean", func(s string) (string, bool) {
		return ParseBoolean(s, []string{"ja", "WAHR"}, []string{"nein", "FALSCH"})
	}, []coerceCase{
		{"true", "true"}, {"FALSE", "false"}, {"Yes", "true"}, {"n", "false"}, {"Y", "true"}, {"t", "true"}, {"F", "false"},
		{"1", "true"}, {"0", "false"}, {"on", "true"}, {"OFF", "false"}, {"x", "true"}, {"ja", "true"}, {"FALSCH", "false"},
		{"maybe", ""}, {"2", ""}, {"", ""},
	})
	date := func(order string) func(string) (string, bool) {
		return func(s string) (string, bool) {
			d, ok := ParseDate(s, order)
			if !ok {
				return "", false
			}
			return formatDate(d), true
		}
	}
	runCoerce(t, "date_month_first", date(OrderMDY), []coerceCase{
		{"2024-01-31", "2024-01-31"}, {"01/31/2024", "2024-01-31"}, {"1/2/2024", "2024-01-02"}, {"2024/01/31", "2024-01-31"},
		{"Jan 31 2024", "2024-01-31"}, {"31 January 2024", "2024-01-31"}, {"January 31, 2024", "2024-01-31"},
		{"11-May-11", "2011-05-11"}, {"31-Jan-2024", "2024-01-31"}, {"20240131", "2024-01-31"}, {"2024-02-29", "2024-02-29"},
		{"2024-02-30", ""}, {"2023-02-29", ""}, {"13/13/2024", ""}, {"31/01/2024", ""}, {"2024-13-01", ""}, {"Foo 3 2024", ""},
		{"1/2", ""}, {"", ""},
	})
	runCoerce(t, "date_day_first", date(OrderDMY), []coerceCase{
		{"31/01/2024", "2024-01-31"}, {"31.01.2024", "2024-01-31"}, {"01/02/2024", "2024-02-01"}, {"01-01-13", "2013-01-01"},
		{"01/31/2024", ""},
	})
	email := func(s string) (string, bool) { return ParseEmail(new(Scratch), s) }
	runCoerce(t, "email", email, []coerceCase{
		{"Ann@Example.COM", "ann@example.com"}, {"a.b+c@sub.example.co.uk", "a.b+c@sub.example.co.uk"},
		{"bob@", ""}, {"@x.io", ""}, {"a@b", ""}, {"a b@c.io", ""}, {"a@@b.io", ""}, {"a@b.c", ""}, {"a..b@c.io", ""}, {"a@b..io", ""}, {"a@b.i0", ""},
	})
	runCoerce(t, "phone_us", func(s string) (string, bool) { return ParsePhone(new(Scratch), s, "US") }, []coerceCase{
		{"+44 20 7946 0958", "+442079460958"}, {"(415) 555-2671", "+14155552671"}, {"415.555.2671", "+14155552671"},
		{"1-415-555-2671", "+14155552671"}, {"+1 415 555 2671", "+14155552671"}, {"415 555 267", ""}, {"(015) 555-2671", ""},
		{"call me", ""}, {"+0 123", ""},
	})
	runCoerce(t, "phone_gb_region", func(s string) (string, bool) { return ParsePhone(new(Scratch), s, "GB") }, []coerceCase{
		{"020 7946 0958", "+442079460958"},
	})
	runCoerce(t, "country", ParseCountry, []coerceCase{
		{"Germany", "DE"}, {"DEU", "DE"}, {"de", "DE"}, {"United States", "US"}, {"USA", "US"}, {"uk", "GB"},
		{"United Kingdom", "GB"}, {"France", "FR"}, {"japan", "JP"}, {"Côte d’Ivoire", "CI"}, {"Atlantis", ""}, {"XX", ""},
		// CLDR's names in the languages of the matcher's synonyms
		{"Frankreich", "FR"}, {"Vereinigte Staaten", "US"}, {"Allemagne", "DE"}, {"États-Unis", "US"}, {"Países Bajos", "NL"},
		{"Paesi Bassi", "NL"}, {"Alemanha", "DE"}, {"Verenigd Koninkrijk", "GB"}, {"Suiza", "CH"}, {"Zwitserland", "CH"},
		{"Japón", "JP"}, {"Giappone", "JP"}, {"Österreich", "AT"}, {"Reino Unido", "GB"},
		// English names and codes keep their meaning in every language
		{"Chad", "TD"}, {"Niger", "NE"}, {"Oman", "OM"},
	})
	runCoerce(t, "currency", ParseCurrency, []coerceCase{
		{"USD", "USD"}, {"eur", "EUR"}, {"€", "EUR"}, {"$", "USD"}, {"£", "GBP"}, {"JPY", "JPY"}, {"XYZ", ""}, {"dollarz", ""},
	})
	runCoerce(t, "uuid", ParseUUID, []coerceCase{
		{"F47AC10B-58CC-4372-A567-0E02B2C3D479", "f47ac10b-58cc-4372-a567-0e02b2c3d479"},
		{"{f47ac10b-58cc-4372-a567-0e02b2c3d479}", "f47ac10b-58cc-4372-a567-0e02b2c3d479"},
		{"f47ac10b58cc4372a5670e02b2c3d479", "f47ac10b-58cc-4372-a567-0e02b2c3d479"}, {"f47ac10b-58cc", ""}, {"g47ac10b58cc4372a5670e02b2c3d479", ""},
	})
	runCoerce(t, "uri", ParseURI, []coerceCase{
		{"https://example.com/a?b=c", "https://example.com/a?b=c"}, {"mailto:a@b.io", "mailto:a@b.io"}, {"example.com", ""}, {"http://", ""}, {"a b", ""},
	})
}

func TestCompiledColumns(t *testing.T) {
	t.Parallel()
	s, err := schema.Parse([]byte(`{"fields":[
		{"name":"d","type":"date"},
		{"name":"dt","type":"datetime"},
		{"name":"t","type":"time"},
		{"name":"y","type":"year"},
		{"name":"n","type":"number","constraints":{"minimum":0,"maximum":100}},
		{"name":"s","type":"string","constraints":{"enum":["a","b"]}},
		{"name":"p","type":"string","constraints":{"pattern":"[A-Z]{2}[0-9]+","minLength":3,"maxLength":5}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	col := func(i int, validate bool) Column {
		return Compile(s.Fields[i], validate, OrderDMY, s.Fields[i].DecimalChar, "US")
	}
	cases := []struct {
		field    int
		validate bool
		in, want string
		code     string
		warning  bool
	}{
		{0, false, "31/01/2024", "2024-01-31", "", false},
		{0, false, "31/01/24", "2024-01-31", "invalid_date", true},
		{0, false, "2024-02-30", "", "invalid_date", false},
		{0, false, "2024-01-31T10:22:00Z", "2024-01-31", "", false},
		{1, false, "2024-01-31T10:22:00+02:00", "2024-01-31T08:22:00Z", "", false},
		{1, false, "2024-01-31 10:22", "2024-01-31T10:22:00Z", "", false},
		{1, false, "31/01/2024 11:07:15 PM", "2024-01-31T23:07:15Z", "", false},
		{1, false, "yesterday", "", "invalid_datetime", false},
		{2, false, "9:05 pm", "21:05:00", "", false},
		{2, false, "25:00", "", "invalid_time", false},
		{3, false, "2024", "2024", "", false},
		{3, false, "MMXXIV", "", "invalid_year", false},
		{3, false, "0000", "", "invalid_year", false},
		{3, false, "0987", "987", "", false},
		{4, false, "50", "50", "", false},
		{4, false, "101", "", "out_of_range", false},
		{4, false, "-1", "", "out_of_range", false},
		{5, false, "a", "a", "", false},
		{5, false, "c", "", "not_in_enum", false},
		{6, false, "AB12", "AB12", "", false},
		{6, false, "ab12", "", "pattern_mismatch", false},
		{6, false, "AB", "", "pattern_mismatch", false},
		{0, true, "2024-01-31", "2024-01-31", "", false},
		{0, true, "31/01/2024", "", "invalid_date", false},
		{4, true, "1,000", "", "invalid_number", false},
	}
	for _, c := range cases {
		cl := col(c.field, c.validate)
		got, p := cl.Value(c.in, new(Scratch))
		switch {
		case c.code == "" && (p != nil || got != c.want):
			t.Errorf("%s %q = %q, %+v; want %q", s.Fields[c.field].Name, c.in, got, p, c.want)
		case c.code != "" && (p == nil || p.Code != c.code || (p.Severity == Warning) != c.warning):
			t.Errorf("%s %q: problem %+v, want %s (warning=%v)", s.Fields[c.field].Name, c.in, p, c.code, c.warning)
		case c.warning && got != c.want:
			t.Errorf("%s %q = %q with a warning, want %q", s.Fields[c.field].Name, c.in, got, c.want)
		}
	}
	// Lengths count characters, not bytes.
	lc := Compile(schema.Field{Name: "x", Type: schema.String, Constraints: schema.Constraints{MaxLength: intp(3)}}, false, "", "", "US")
	if _, p := lc.Value("äöü", new(Scratch)); p != nil {
		t.Errorf("three umlauts are too long: %+v", p)
	}
	if _, p := lc.Value("äöüß", new(Scratch)); p == nil || p.Code != "too_long" {
		t.Errorf("four characters not too_long: %+v", p)
	}
	mc := Compile(schema.Field{Name: "x", Type: schema.String, Constraints: schema.Constraints{MinLength: intp(2)}}, false, "", "", "US")
	if _, p := mc.Value("a", new(Scratch)); p == nil || p.Code != "too_short" {
		t.Errorf("one character not too_short: %+v", p)
	}
}

func intp(n int) *int { return &n }

func TestDateEvidence(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int{"31/01/2024": 1, "01/31/2024": -1, "01/02/2024": 2, "01/01/2024": 0, "2024-01-31": 0, "31.12.2023 10:00": 1} {
		if got := DateEvidence(in); got != want {
			t.Errorf("%q: %d, want %d", in, got, want)
		}
	}
}
