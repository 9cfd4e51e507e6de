package coerce

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/tabnorm/tabnorm/domain/schema"
)

// Kind says how a canonical value is written in JSON.
type Kind uint8

// The kinds of values: KindString is written quoted, KindRaw (numbers,
// booleans, years) as it is.
const (
	KindString Kind = iota
	KindRaw
)

// Problem is why a value was refused or changed.
type Problem struct {
	Code     string
	Message  string
	Severity string // "" is error
}

// Warning is the severity of a problem that changes a value rather than
// refusing it.
const Warning = "warning"

// DecimalAuto is the decimal_char option that lets the engine decide a
// column's decimal mark from its values.
const DecimalAuto = "auto"

// coercer turns trimmed cell text into the field's canonical text: s
// itself, a constant, or text it writes to sc.
type coercer func(s string, sc *Scratch) (string, *Problem)

// Scratch is where a worker's coercers write the values they make, so that
// coercing allocates nothing (BenchmarkCoerce): a value is appended to buf
// and handed out as a string that shares buf's memory. The engine empties
// it before each row, once the row's values are written and hashed, so a
// value never outlives its row; what must (an issue's message) is
// formatted into a string of its own. A new Scratch that is never emptied
// gives values that stay valid, as the parsers' other callers need.
type Scratch struct {
	buf []byte
	// phones caches libphonenumber's verdict on numbers the fast path
	// read (validPhone): bounded, cleared when full.
	phones map[string]bool
	// currency is the amount code index (amounts.go) of the currency the
	// number parsed last carried, 0 for none.
	currency uint16
}

// Reset empties the scratch: the values written to it before are no
// longer valid.
func (sc *Scratch) Reset() { sc.buf = sc.buf[:0] }

// since returns what was appended after mark as a string sharing buf.
func (sc *Scratch) since(mark int) string {
	if len(sc.buf) == mark {
		return ""
	}
	return unsafe.String(&sc.buf[mark], len(sc.buf)-mark)
}

// Column is a field compiled once: its coercer and its checks, so the
// per-cell path does no lookups by name.
type Column struct {
	Field schema.Field
	// Kind says how the field's values are written in JSON.
	Kind   Kind
	coerce coercer
	// validate mode: report, do not change.
	validate bool
	// Plain says the canonical text never needs escaping in JSON (it is
	// printable ASCII without quotes or backslashes), so it is written as
	// it is.
	Plain bool
	// checked says the field has constraints on values (enum, pattern,
	// lengths, range).
	checked bool
	// currencies counts the currencies a number field's values carried
	// (nil for other types): several are the warning mixed_currencies.
	currencies *currencyTally
}

// MixedCurrencies names the currencies a number field's values carried
// with how many of each, when they were several; "" when they were not.
func (c *Column) MixedCurrencies() string {
	if !c.currencies.mixed() {
		return ""
	}
	return c.currencies.String()
}

func invalid(code, format string, args ...any) *Problem {
	return &Problem{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Compile builds a field's column; a validating column reports any
// change its coercer would make instead of making it. order and decimal
// are the column's settled date order and decimal mark, region the
// phone region of numbers without a country code.
func Compile(f schema.Field, validate bool, order, decimal, region string) Column {
	if decimal == DecimalAuto {
		decimal = ""
	}
	k := f.Constraints
	c := Column{Field: f, Kind: KindString, validate: validate, Plain: true,
		checked: len(k.Enum) > 0 || k.Pattern != nil || k.Minimum != nil || k.Maximum != nil || k.MinLength != nil || k.MaxLength != nil}
	if f.Type == schema.Integer || f.Type == schema.Number {
		c.Kind, c.currencies = KindRaw, newCurrencyTally()
		c.coerce = numericCoercer(f, decimal, c.currencies)
		return c
	}
	if typed, ok := typeCoercers[f.Type]; ok {
		c.Kind, c.coerce = typed.kind, typed.coercer(f, order, decimal)
		return c
	}
	c.coerce = stringCoercer(f.Format, region)
	// Strings and URIs are the text as it came; these formats write ASCII
	// letters, digits and punctuation of their own.
	switch f.Format {
	case schema.Email, schema.UUID, schema.Phone, schema.Country, schema.Currency:
	default:
		c.Plain = false
	}
	return c
}

// typeCoercers build the coercer of each type but string, and say how its
// values are written: as they are (KindRaw: numbers, booleans, years) or
// as JSON strings.
var typeCoercers = map[schema.Type]struct {
	kind    Kind
	coercer func(f schema.Field, order, decimal string) coercer
}{
	schema.Boolean:  {KindRaw, booleanCoercer},
	schema.Date:     {KindString, dateCoercer},
	schema.DateTime: {KindString, dateTimeCoercer},
	schema.Time:     {KindString, timeCoercer},
	schema.Year:     {KindRaw, yearCoercer},
}

// numericCoercer reads an integer or a number field's values, counting
// the currencies they carry in t.
func numericCoercer(f schema.Field, decimal string, t *currencyTally) coercer {
	if f.Type == schema.Integer {
		return func(s string, sc *Scratch) (string, *Problem) {
			if v, ok := ParseInteger(sc, s, decimal, f.GroupChar); ok {
				if sc.currency != 0 {
					t.add(sc.currency)
				}
				return v, nil
			}
			return "", invalid("invalid_integer", "%q is not a whole number.", s)
		}
	}
	return func(s string, sc *Scratch) (string, *Problem) {
		if v, ok := ParseDecimal(sc, s, decimal, f.GroupChar); ok {
			if sc.currency != 0 {
				t.add(sc.currency)
			}
			return v, nil
		}
		return "", invalid("invalid_number", "%q is not a number.", s)
	}
}

func booleanCoercer(f schema.Field, _, _ string) coercer {
	return func(s string, _ *Scratch) (string, *Problem) {
		if v, ok := ParseBoolean(s, f.TrueValues, f.FalseValues); ok {
			return v, nil
		}
		return "", invalid("invalid_boolean", "%q is not a yes/no value.", s)
	}
}

// phantomLeapDay is the day a spreadsheet shows for its date serial 60.
const phantomLeapDay = "1900-02-29"

// invalidDate is an invalid date or date-time; 1900-02-29 says why it is
// no date.
func invalidDate(code, format, s string) *Problem {
	if strings.HasPrefix(s, phantomLeapDay) {
		return invalid(code, "%q does not exist (1900 was no leap year): it is the date serial 60 of a spreadsheet, which keeps Lotus 1-2-3's leap-year bug. Enter the intended date.", s)
	}
	return invalid(code, format, s)
}

func dateCoercer(_ schema.Field, order, _ string) coercer {
	return func(s string, sc *Scratch) (string, *Problem) {
		if isoDate(s) {
			return s, nil // already canonical
		}
		dp, _ := SplitDateTime(s)
		d, ok := ParseDateEitherWay(dp, order)
		if !ok {
			return "", invalidDate("invalid_date", "%q is not a valid date.", s)
		}
		v := appendDate(sc, d)
		if d.twoDigitYear {
			return v, &Problem{Code: "invalid_date", Severity: Warning, Message: fmt.Sprintf("%q has a two-digit year; read as %s.", s, v)}
		}
		return v, nil
	}
}

func dateTimeCoercer(_ schema.Field, order, _ string) coercer {
	return func(s string, sc *Scratch) (string, *Problem) {
		t, twoDigit, ok := ParseDateTime(s, order)
		if !ok {
			return "", invalidDate("invalid_datetime", "%q is not a valid date and time.", s)
		}
		mark := len(sc.buf)
		sc.buf = t.AppendFormat(sc.buf, time.RFC3339Nano)
		v := sc.since(mark)
		if twoDigit {
			return v, &Problem{Code: "invalid_datetime", Severity: Warning, Message: fmt.Sprintf("%q has a two-digit year; read as %s.", s, v)}
		}
		return v, nil
	}
}

func timeCoercer(schema.Field, string, string) coercer {
	return func(s string, _ *Scratch) (string, *Problem) {
		hh, mm, ss, _, _, ok := ParseTime(s)
		if !ok {
			return "", invalid("invalid_time", "%q is not a valid time of day.", s)
		}
		return fmt.Sprintf("%02d:%02d:%02d", hh, mm, ss), nil
	}
}

func yearCoercer(_ schema.Field, order, _ string) coercer {
	return func(s string, _ *Scratch) (string, *Problem) {
		if len(s) == 4 && AllDigits(s) {
			// The calendar has no year 0: "0000" is a placeholder, not a year.
			if y := strings.TrimLeft(s, "0"); y != "" {
				return y, nil
			}
			return "", invalid("invalid_year", "%q is not a year.", s)
		}
		if d, ok := ParseDate(s, order); ok {
			return strconv.Itoa(d.y), nil
		}
		return "", invalid("invalid_year", "%q is not a year.", s)
	}
}

func stringCoercer(format schema.Format, region string) coercer {
	try := func(parse func(*Scratch, string) (string, bool), code, what string) coercer {
		return func(s string, sc *Scratch) (string, *Problem) {
			if v, ok := parse(sc, s); ok {
				return v, nil
			}
			return "", invalid(code, "%q is not %s.", s, what)
		}
	}
	switch format {
	case schema.Email:
		return try(ParseEmail, "invalid_email", "an email address")
	case schema.URI:
		return try(func(_ *Scratch, s string) (string, bool) { return ParseURI(s) }, "invalid_uri", "an absolute URI")
	case schema.UUID:
		return try(func(_ *Scratch, s string) (string, bool) { return ParseUUID(s) }, "invalid_uuid", "a UUID")
	case schema.Phone:
		return try(func(sc *Scratch, s string) (string, bool) { return ParsePhone(sc, s, region) }, "invalid_phone", "a phone number")
	case schema.Country:
		return try(func(_ *Scratch, s string) (string, bool) { return ParseCountry(s) }, "invalid_country", "a country")
	case schema.Currency:
		return try(func(_ *Scratch, s string) (string, bool) { return ParseCurrency(s) }, "invalid_currency", "a currency")
	}
	return func(s string, _ *Scratch) (string, *Problem) { return s, nil }
}

// Value coerces one trimmed, non-missing cell and checks the field's
// constraints. In validate mode the cell is kept as it is and any change
// the coercer would make is the problem. A value written to sc is valid
// until sc is emptied.
func (c *Column) Value(s string, sc *Scratch) (string, *Problem) {
	v, p := c.coerce(s, sc)
	if p != nil && p.Severity != Warning {
		return "", p
	}
	if c.validate && v != s {
		code := "invalid_" + string(c.Field.Type)
		if c.Field.Type == schema.String {
			code = "invalid_" + string(c.Field.Format)
		}
		return "", invalid(code, "%q is not in canonical form (it would be %q).", s, v)
	}
	if !c.checked {
		return v, p
	}
	if q := c.constraints(v); q != nil {
		return "", q
	}
	return v, p
}

func (c *Column) constraints(v string) *Problem {
	k := c.Field.Constraints
	if len(k.Enum) > 0 {
		found := false
		for _, e := range k.Enum {
			if e == v {
				found = true
				break
			}
		}
		if !found {
			return invalid("not_in_enum", "%q is not one of %s.", v, strings.Join(k.Enum, ", "))
		}
	}
	if k.Pattern != nil && !k.Pattern.MatchString(v) {
		return invalid("pattern_mismatch", "%q does not match the pattern.", v)
	}
	if k.MinLength != nil || k.MaxLength != nil {
		n := utf8.RuneCountInString(v)
		if k.MinLength != nil && n < *k.MinLength {
			return invalid("too_short", "%q is shorter than %d characters.", v, *k.MinLength)
		}
		if k.MaxLength != nil && n > *k.MaxLength {
			return invalid("too_long", "%q is longer than %d characters.", v, *k.MaxLength)
		}
	}
	if k.Minimum != nil && compare(v, *k.Minimum, c.Kind) < 0 {
		return invalid("out_of_range", "%s is less than the minimum %s.", v, *k.Minimum)
	}
	if k.Maximum != nil && compare(v, *k.Maximum, c.Kind) > 0 {
		return invalid("out_of_range", "%s is more than the maximum %s.", v, *k.Maximum)
	}
	return nil
}

// compare orders two canonical values: numbers numerically, ISO dates and
// times as text (their order is the text's).
func compare(a, b string, k Kind) int {
	if k == KindRaw {
		x, err1 := strconv.ParseFloat(a, 64)
		y, err2 := strconv.ParseFloat(b, 64)
		if err1 == nil && err2 == nil {
			switch {
			case x < y:
				return -1
			case x > y:
				return 1
			}
			return 0
		}
	}
	return strings.Compare(a, b)
}
