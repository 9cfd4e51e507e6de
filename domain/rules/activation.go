package rules

import (
	"fmt"
	"strconv"
	"time"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/interpreter"
)

// Activation is the row an expression reads. One is made per worker and
// reused for every row: Set and SetSource overwrite the previous row's
// values without allocating maps.
type Activation struct {
	names  map[string]int // "row.<field>" → field index
	values []ref.Val
	cells  map[string]string
	source traits.Mapper // a view of cells
}

var _ interpreter.Activation = (*Activation)(nil)

// NewActivation makes an activation for the environment's fields, all null.
func (e *Env) NewActivation(nFields int) *Activation {
	a := &Activation{names: make(map[string]int, len(e.fields)), values: make([]ref.Val, nFields), cells: map[string]string{}}
	for name, i := range e.fields {
		a.names["row."+name] = i
	}
	a.source = types.NewStringStringMap(types.DefaultTypeAdapter, a.cells)
	a.Reset()
	return a
}

// Reset makes every field null and the source empty.
func (a *Activation) Reset() {
	for i := range a.values {
		a.values[i] = types.NullValue
	}
}

// Set gives a field its value for the current row.
func (a *Activation) Set(field int, v ref.Val) { a.values[field] = v }

// SetSource gives the source's cells for the current row, by header.
// Cells past the header are left out; headers past the cells are "".
// columns, when not nil, are the only columns expressions read.
func (a *Activation) SetSource(header, cells []string, columns []int) {
	if columns != nil {
		for _, i := range columns {
			v := ""
			if i < len(cells) {
				v = cells[i]
			}
			a.cells[header[i]] = v
		}
		return
	}
	for i, h := range header {
		v := ""
		if i < len(cells) {
			v = cells[i]
		}
		a.cells[h] = v
	}
}

// ResolveName is CEL's lookup of a variable.
func (a *Activation) ResolveName(name string) (any, bool) {
	if name == "source" {
		return a.source, true
	}
	i, ok := a.names[name]
	if !ok {
		return nil, false
	}
	return a.values[i], true
}

// Parent is nil: an Activation holds every variable.
func (a *Activation) Parent() interpreter.Activation { return nil }

// Null is the value of a missing field.
func Null() ref.Val { return types.NullValue }

// Value is the CEL value of a field's canonical text (what the engine
// writes for it: digits, true/false, YYYY-MM-DD, RFC 3339).
func Value(k Kind, text string) (ref.Val, error) {
	switch k {
	case Int:
		i, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is beyond a 64-bit integer", text)
		}
		return types.Int(i), nil
	case Double:
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is beyond a double", text)
		}
		return types.Double(f), nil
	case Bool:
		return types.Bool(text == "true"), nil
	case Timestamp:
		if t, ok := isoDate(text); ok {
			return types.Timestamp{Time: t}, nil
		}
		t, err := time.Parse(time.RFC3339Nano, text)
		if err != nil {
			return nil, fmt.Errorf("%q is not a date or time: %w", text, err)
		}
		return types.Timestamp{Time: t}, nil
	default:
		return types.String(text), nil
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

// isoDate reads a canonical YYYY-MM-DD date without time.Parse's
// generality (a date field is read on every row a rule reads it).
func isoDate(s string) (time.Time, bool) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return time.Time{}, false
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
	if !ok1 || !ok2 || !ok3 || m < 1 || m > 12 || d < 1 || d > 31 {
		return time.Time{}, false
	}
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if t.Day() != d { // 2024-02-30 is no date
		return time.Time{}, false
	}
	return t, true
}
