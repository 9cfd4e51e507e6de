package rules

import (
	"fmt"
	"strconv"
	"time"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	"github.com/tabnorm/tabnorm/domain/calendar"
)

// vkind is what a Value holds.
type vkind uint8

const (
	vNull vkind = iota
	vString
	vInt
	vDouble
	vBool
	vTime
)

// Value is one value as expressions read it, unboxed: a row's field,
// a source cell, or what a compiled expression makes of them. CEL sees
// the same value boxed (CEL), made when an expression needs the
// interpreter, so both ways of evaluating read one conversion of the
// field's text.
//
// It is kept small (40 bytes), as it is copied on every evaluation: a
// time is its instant, seconds in i and nanoseconds in ns, and s holds
// its text when it has a zone other than UTC, from which CEL's value is
// made with that zone.
type Value struct {
	k  vkind
	ns int32
	s  string
	i  int64 // an int, a bool as 0 or 1, or a time's Unix seconds
	f  float64
}

// timeValue is the value of a time; text is where it was read from.
func timeValue(t time.Time, text string) Value {
	v := Value{k: vTime, i: t.Unix(), ns: int32(t.Nanosecond())}
	if t.Location() != time.UTC {
		v.s = text
	}
	return v
}

// time is a time value's time, in the zone it was read with.
func (v Value) time() time.Time {
	if v.s != "" {
		if t, err := time.Parse(time.RFC3339Nano, v.s); err == nil {
			return t
		}
	}
	return time.Unix(v.i, int64(v.ns)).UTC()
}

// compareTimes orders two time values by their instants.
func compareTimes(l, r *Value) int {
	if c := compareInts(l.i, r.i); c != 0 {
		return c
	}
	return compareInts(int64(l.ns), int64(r.ns))
}

// Parse is the value of a field's canonical text (what the engine writes
// for it: digits, true/false, YYYY-MM-DD, RFC 3339). An error says CEL
// cannot hold it (an integer beyond 64 bits).
func Parse(k Kind, text string) (Value, error) {
	switch k {
	case Int:
		if i, ok := smallInt(text); ok {
			return Value{k: vInt, i: i}, nil
		}
		i, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return Value{}, fmt.Errorf("%q is beyond a 64-bit integer", text)
		}
		return Value{k: vInt, i: i}, nil
	case Double:
		if f, ok := exactDecimal(text); ok {
			return Value{k: vDouble, f: f}, nil
		}
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return Value{}, fmt.Errorf("%q is beyond a double", text)
		}
		return Value{k: vDouble, f: f}, nil
	case Bool:
		return boolValue(text == "true"), nil
	case Timestamp:
		if sec, ok := isoSeconds(text); ok {
			return Value{k: vTime, i: sec}, nil
		}
		t, err := time.Parse(time.RFC3339Nano, text)
		if err != nil {
			return Value{}, fmt.Errorf("%q is not a date or time: %w", text, err)
		}
		return timeValue(t, text), nil
	default:
		return Value{k: vString, s: text}, nil
	}
}

// smallInt reads an integer of at most 18 digits, which int64 holds,
// with an optional minus: what the engine writes for most integers.
func smallInt(s string) (int64, bool) {
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		s = s[1:]
	}
	if len(s) == 0 || len(s) > 18 {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// pow10 are the powers of ten a double holds exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
	1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// exactDecimal reads a plain decimal (digits, at most one point, an
// optional minus) whose digits make an integer below 2^53 and which has
// at most 22 decimals: that integer and the power of ten are exact
// doubles, so one division is the correctly rounded value ParseFloat
// gives (Clinger's fast path). Anything else is left to ParseFloat.
func exactDecimal(s string) (float64, bool) {
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		s = s[1:]
	}
	if len(s) == 0 || len(s) > 17 {
		return 0, false
	}
	var m uint64
	point, digits := -1, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			m = m*10 + uint64(c-'0')
			digits++
		case c == '.' && point < 0:
			point = i
		default:
			return 0, false
		}
	}
	if digits == 0 || m >= 1<<53 {
		return 0, false
	}
	f := float64(m)
	if point >= 0 {
		f /= pow10[len(s)-1-point]
	}
	if neg {
		f = -f
	}
	return f, true
}

func boolValue(b bool) Value {
	if b {
		return Value{k: vBool, i: 1}
	}
	return Value{k: vBool}
}

// IsNull says the value is null.
func (v Value) IsNull() bool { return v.k == vNull }

// Bool is a bool value's truth; ok is false for any other value.
func (v Value) Bool() (b, ok bool) { return v.i != 0, v.k == vBool }

// CEL is the value boxed for CEL's interpreter.
func (v Value) CEL() ref.Val {
	switch v.k {
	case vString:
		return types.String(v.s)
	case vInt:
		return types.Int(v.i)
	case vDouble:
		return types.Double(v.f)
	case vBool:
		return types.Bool(v.i != 0)
	case vTime:
		return types.Timestamp{Time: v.time()}
	default:
		return types.NullValue
	}
}

// Text is the value as text for a field's coercion, as Text makes CEL's.
func (v Value) Text(dateOnly bool) (text string, null bool) {
	switch v.k {
	case vString:
		return v.s, false
	case vInt:
		return strconv.FormatInt(v.i, 10), false
	case vDouble:
		return strconv.FormatFloat(v.f, 'f', -1, 64), false
	case vBool:
		return strconv.FormatBool(v.i != 0), false
	case vTime:
		if dateOnly {
			return time.Unix(v.i, int64(v.ns)).UTC().Format(time.DateOnly), false
		}
		return time.Unix(v.i, int64(v.ns)).UTC().Format(time.RFC3339Nano), false
	default:
		return "", true
	}
}

// Text is a computed value as text for the field's coercion: null is
// null; a timestamp is YYYY-MM-DD for a date field, RFC 3339 otherwise.
func Text(v ref.Val, dateOnly bool) (text string, null bool, err error) {
	switch x := v.(type) {
	case types.Null:
		return "", true, nil
	case types.String:
		return string(x), false, nil
	case types.Int:
		return strconv.FormatInt(int64(x), 10), false, nil
	case types.Uint:
		return strconv.FormatUint(uint64(x), 10), false, nil
	case types.Double:
		return strconv.FormatFloat(float64(x), 'f', -1, 64), false, nil
	case types.Bool:
		return strconv.FormatBool(bool(x)), false, nil
	case types.Timestamp:
		if dateOnly {
			return x.UTC().Format(time.DateOnly), false, nil
		}
		return x.UTC().Format(time.RFC3339Nano), false, nil
	}
	return "", false, fmt.Errorf("the result is a %s, which a field cannot hold", v.Type().TypeName())
}

// isoDate reads a canonical YYYY-MM-DD date as a time at midnight UTC.
func isoDate(s string) (time.Time, bool) {
	sec, ok := isoSeconds(s)
	if !ok {
		return time.Time{}, false
	}
	return time.Unix(sec, 0).UTC(), true
}

// isoSeconds reads a canonical YYYY-MM-DD date without time.Parse's
// generality (a date field is read on every row a rule reads it): the
// Unix seconds of its midnight UTC.
func isoSeconds(s string) (int64, bool) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return 0, false
	}
	n := func(s string) (int, bool) {
		v := 0
		for i := 0; i < len(s); i++ {
			if s[i] < '0' || s[i] > '9' {
				return 0, false
			}
			v = v*10 + int(s[i]-'0')
		}
		return v, true
	}
	y, ok1 := n(s[:4])
	m, ok2 := n(s[5:7])
	d, ok3 := n(s[8:])
	if !ok1 || !ok2 || !ok3 || m < 1 || m > 12 || d < 1 || d > calendar.DaysIn(y, m) {
		return 0, false // 2024-02-30 is no date
	}
	return calendar.DaysFromCivil(y, m, d) * 86400, true
}
