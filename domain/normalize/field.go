package normalize

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/tabnorm/tabnorm/domain/schema"
)

// kind says how a canonical value is written in JSON.
type kind uint8

const (
	kindString kind = iota // quoted
	kindRaw                // numbers and booleans, as they are
)

// problem is why a value was refused or changed.
type problem struct {
	code     string
	message  string
	severity string // "" is error
}

const warning = "warning"

// coercer turns trimmed cell text into the field's canonical text: s
// itself, a constant, or text it writes to sc.
type coercer func(s string, sc *scratch) (string, *problem)

// scratch is where a worker's coercers write the values they make, so that
// coercing allocates nothing (BenchmarkCoerce): a value is appended to buf
// and handed out as a string that shares buf's memory. The engine empties
// it before each row, once the row's values are written and hashed, so a
// value never outlives its row; what must (an issue's message) is
// formatted into a string of its own. A new scratch that is never emptied
// gives values that stay valid, as the parsers' other callers need.
type scratch struct {
	buf []byte
	// phones caches libphonenumber's verdict on numbers the fast path
	// read (validPhone): bounded, cleared when full.
	phones map[string]bool
	// currency is the amount code index (amounts.go) of the currency the
	// number parsed last carried, 0 for none.
	currency uint16
}

// since returns what was appended after mark as a string sharing buf.
func (sc *scratch) since(mark int) string {
	if len(sc.buf) == mark {
		return ""
	}
	return unsafe.String(&sc.buf[mark], len(sc.buf)-mark)
}

// column is a field compiled once: its coercer and its checks, so the
// per-cell path does no lookups by name.
type column struct {
	field    schema.Field
	kind     kind
	coerce   coercer
	validate bool // validate mode: report, do not change
	// plain says the canonical text never needs escaping in JSON (it is
	// printable ASCII without quotes or backslashes), so it is written as
	// it is.
	plain bool
	// checked says the field has constraints on values (enum, pattern,
	// lengths, range).
	checked bool
	// currencies counts the currencies a number field's values carried
	// (nil for other types): several are the warning mixed_currencies.
	currencies *currencyTally
}

func invalid(code, format string, args ...any) *problem {
	return &problem{code: code, message: fmt.Sprintf(format, args...)}
}

// compile builds a field's column for a mode. order and decimal are the
// column's settled date order and decimal mark.
func compile(f schema.Field, mode Mode, order, decimal, region string) column {
	if decimal == decimalAuto {
		decimal = ""
	}
	k := f.Constraints
	c := column{field: f, kind: kindString, validate: mode == ModeValidate, plain: true,
		checked: len(k.Enum) > 0 || k.Pattern != nil || k.Minimum != nil || k.Maximum != nil || k.MinLength != nil || k.MaxLength != nil}
	if f.Type == schema.Integer || f.Type == schema.Number {
		c.kind, c.currencies = kindRaw, newCurrencyTally()
		c.coerce = numericCoercer(f, decimal, c.currencies)
		return c
	}
	if typed, ok := typeCoercers[f.Type]; ok {
		c.kind, c.coerce = typed.kind, typed.coercer(f, order, decimal)
		return c
	}
	c.coerce = stringCoercer(f.Format, region)
	// Strings and URIs are the text as it came; these formats write ASCII
	// letters, digits and punctuation of their own.
	switch f.Format {
	case schema.Email, schema.UUID, schema.Phone, schema.Country, schema.Currency:
	default:
		c.plain = false
	}
	return c
}

// typeCoercers build the coercer of each type but string, and say how its
// values are written: as they are (kindRaw: numbers, booleans, years) or
// as JSON strings.
var typeCoercers = map[schema.Type]struct {
	kind    kind
	coercer func(f schema.Field, order, decimal string) coercer
}{
	schema.Boolean:  {kindRaw, booleanCoercer},
	schema.Date:     {kindString, dateCoercer},
	schema.DateTime: {kindString, dateTimeCoercer},
	schema.Time:     {kindString, timeCoercer},
	schema.Year:     {kindRaw, yearCoercer},
}

// numericCoercer reads an integer or a number field's values, counting
// the currencies they carry in t.
func numericCoercer(f schema.Field, decimal string, t *currencyTally) coercer {
	if f.Type == schema.Integer {
		return func(s string, sc *scratch) (string, *problem) {
			if v, ok := parseInteger(sc, s, decimal, f.GroupChar); ok {
				if sc.currency != 0 {
					t.add(sc.currency)
				}
				return v, nil
			}
			return "", invalid("invalid_integer", "%q is not a whole number.", s)
		}
	}
	return func(s string, sc *scratch) (string, *problem) {
		if v, ok := parseDecimal(sc, s, decimal, f.GroupChar); ok {
			if sc.currency != 0 {
				t.add(sc.currency)
			}
			return v, nil
		}
		return "", invalid("invalid_number", "%q is not a number.", s)
	}
}

func booleanCoercer(f schema.Field, _, _ string) coercer {
	return func(s string, _ *scratch) (string, *problem) {
		if v, ok := parseBoolean(s, f.TrueValues, f.FalseValues); ok {
			return v, nil
		}
		return "", invalid("invalid_boolean", "%q is not a yes/no value.", s)
	}
}

// phantomLeapDay is the day a spreadsheet shows for its date serial 60.
const phantomLeapDay = "1900-02-29"

// invalidDate is an invalid date or date-time; 1900-02-29 says why it is
// no date.
func invalidDate(code, format, s string) *problem {
	if strings.HasPrefix(s, phantomLeapDay) {
		return invalid(code, "%q does not exist (1900 was no leap year): it is the date serial 60 of a spreadsheet, which keeps Lotus 1-2-3's leap-year bug. Enter the intended date.", s)
	}
	return invalid(code, format, s)
}

func dateCoercer(_ schema.Field, order, _ string) coercer {
	return func(s string, sc *scratch) (string, *problem) {
		if isoDate(s) {
			return s, nil // already canonical
		}
		dp, _ := splitDateTime(s)
		d, ok := parseDateEitherWay(dp, order)
		if !ok {
			return "", invalidDate("invalid_date", "%q is not a valid date.", s)
		}
		v := appendDate(sc, d)
		if d.twoDigitYear {
			return v, &problem{code: "invalid_date", severity: warning, message: fmt.Sprintf("%q has a two-digit year; read as %s.", s, v)}
		}
		return v, nil
	}
}

func dateTimeCoercer(_ schema.Field, order, _ string) coercer {
	return func(s string, sc *scratch) (string, *problem) {
		t, twoDigit, ok := parseDateTime(s, order)
		if !ok {
			return "", invalidDate("invalid_datetime", "%q is not a valid date and time.", s)
		}
		mark := len(sc.buf)
		sc.buf = t.AppendFormat(sc.buf, time.RFC3339Nano)
		v := sc.since(mark)
		if twoDigit {
			return v, &problem{code: "invalid_datetime", severity: warning, message: fmt.Sprintf("%q has a two-digit year; read as %s.", s, v)}
		}
		return v, nil
	}
}

func timeCoercer(schema.Field, string, string) coercer {
	return func(s string, _ *scratch) (string, *problem) {
		hh, mm, ss, _, _, ok := parseTime(s)
		if !ok {
			return "", invalid("invalid_time", "%q is not a valid time of day.", s)
		}
		return fmt.Sprintf("%02d:%02d:%02d", hh, mm, ss), nil
	}
}

func yearCoercer(_ schema.Field, order, _ string) coercer {
	return func(s string, _ *scratch) (string, *problem) {
		if len(s) == 4 && allDigits(s) {
			// The calendar has no year 0: "0000" is a placeholder, not a year.
			if y := strings.TrimLeft(s, "0"); y != "" {
				return y, nil
			}
			return "", invalid("invalid_year", "%q is not a year.", s)
		}
		if d, ok := parseDate(s, order); ok {
			return strconv.Itoa(d.y), nil
		}
		return "", invalid("invalid_year", "%q is not a year.", s)
	}
}

func stringCoercer(format schema.Format, region string) coercer {
	try := func(parse func(*scratch, string) (string, bool), code, what string) coercer {
		return func(s string, sc *scratch) (string, *problem) {
			if v, ok := parse(sc, s); ok {
				return v, nil
			}
			return "", invalid(code, "%q is not %s.", s, what)
		}
	}
	switch format {
	case schema.Email:
		return try(parseEmail, "invalid_email", "an email address")
	case schema.URI:
		return try(func(_ *scratch, s string) (string, bool) { return parseURI(s) }, "invalid_uri", "an absolute URI")
	case schema.UUID:
		return try(func(_ *scratch, s string) (string, bool) { return parseUUID(s) }, "invalid_uuid", "a UUID")
	case schema.Phone:
		return try(func(sc *scratch, s string) (string, bool) { return parsePhone(sc, s, region) }, "invalid_phone", "a phone number")
	case schema.Country:
		return try(func(_ *scratch, s string) (string, bool) { return parseCountry(s) }, "invalid_country", "a country")
	case schema.Currency:
		return try(func(_ *scratch, s string) (string, bool) { return parseCurrency(s) }, "invalid_currency", "a currency")
	}
	return func(s string, _ *scratch) (string, *problem) { return s, nil }
}

// value coerces one trimmed, non-missing cell and checks the field's
// constraints. In validate mode the cell is kept as it is and any change
// the coercer would make is the problem. A value written to sc is valid
// until sc is emptied.
func (c *column) value(s string, sc *scratch) (string, *problem) {
	v, p := c.coerce(s, sc)
	if p != nil && p.severity != warning {
		return "", p
	}
	if c.validate && v != s {
		code := "invalid_" + string(c.field.Type)
		if c.field.Type == schema.String {
			code = "invalid_" + string(c.field.Format)
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

func (c *column) constraints(v string) *problem {
	k := c.field.Constraints
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
	if k.Minimum != nil && compare(v, *k.Minimum, c.kind) < 0 {
		return invalid("out_of_range", "%s is less than the minimum %s.", v, *k.Minimum)
	}
	if k.Maximum != nil && compare(v, *k.Maximum, c.kind) > 0 {
		return invalid("out_of_range", "%s is more than the maximum %s.", v, *k.Maximum)
	}
	return nil
}

// compare orders two canonical values: numbers numerically, ISO dates and
// times as text (their order is the text's).
func compare(a, b string, k kind) int {
	if k == kindRaw {
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
