package rules

import (
	"fmt"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// The fields every differential case can read: two of each kind.
var fastVars = []Var{{"n", Int}, {"m", Int}, {"d", Double}, {"e", Double}, {"s", String}, {"u", String},
	{"t", Timestamp}, {"w", Timestamp}, {"b", Bool}, {"c", Bool}}

// fastHeader is the source's header: "Dup" twice (the last one is the
// map's), no "Absent".
var fastHeader = []string{"First", "Last", "Dup", "Empty", "Dup"}

// fastRow is one row: a field's canonical text, or null when absent.
type fastRow struct {
	vals  map[string]string
	cells []string
}

// fastRows are values at the edges of what CEL does differently: nulls,
// int64's ends, doubles beyond them, NaN, infinities, -0, 2^53+1 against
// its double, the same instant in two time zones, unicode, empty
// strings, a short record.
var fastRows = []fastRow{
	{vals: map[string]string{}, cells: []string{"Ann", "Lee", "x", "", "y"}},
	{vals: map[string]string{"n": "0", "m": "0", "d": "0", "e": "-0", "s": "", "u": "", "t": "2000-01-01", "w": "2000-01-01T00:00:00Z", "b": "false", "c": "false"},
		cells: []string{"", "", "", "", ""}},
	{vals: map[string]string{"n": "3", "m": "-7", "d": "2.5", "e": "11", "s": "US", "u": "us", "t": "1999-12-31", "w": "2024-02-29", "b": "true", "c": "false"},
		cells: []string{"José", "Ñúñez", "a", "", "b"}},
	{vals: map[string]string{"n": "9223372036854775807", "m": "1", "d": "9.223372036854775807e18", "e": "1e300", "s": "b", "u": "a",
		"t": "2024-01-31T10:22:00+02:00", "w": "2024-01-31T08:22:00Z", "b": "true", "c": "true"}, cells: []string{"Zoë"}},
	{vals: map[string]string{"n": "-9223372036854775808", "m": "-1", "d": "-9.3e18", "e": "NaN", "s": "李", "u": "李", "t": "0001-01-01", "w": "9999-12-31T23:59:59.999999999Z"},
		cells: []string{"a,b", "\"q\"", "", "", ""}},
	{vals: map[string]string{"n": "9007199254740993", "m": "9007199254740992", "d": "9007199254740992", "e": "+Inf", "s": "abc", "u": "abd", "b": "false"},
		cells: []string{"First", "Last", "Dup", "Empty", "Dup", "beyond the header"}},
	{vals: map[string]string{"n": "-5", "m": "2", "d": "-Inf", "e": "-2.5", "s": "Abc", "u": "abc", "t": "2024-03-01", "w": "2024-03-01"},
		cells: []string{"x", "y", "z", "w", "v"}},
}

// fastExprs are every compiled shape, with the cases where CEL fails.
var fastExprs = []string{
	// comparisons with null and constants, of each kind
	"row.n == null", "row.n != null", "row.t == null", "row.s != null", "row.b == null", "null == row.d",
	"row.s == 'US'", "row.s != 'US'", "'US' == row.s", "row.s < 'b'", "row.s >= 'abc'", "row.s > row.u",
	"row.n == 3", "row.n != 3", "row.n < 3", "row.n <= 0", "row.n > -1", "row.n >= 9223372036854775807", "3 < row.n",
	"row.d == 2.5", "row.d < 0.0", "row.d <= 9.223372036854775807e18", "row.d > row.e", "row.e >= row.d", "row.e == row.e", "row.e != row.e",
	"row.t >= date('2000-01-01')", "row.t < date('2000-01-01')", "row.t == row.w", "row.t != row.w", "row.t <= row.w", "row.t > row.w",
	"row.b == true", "row.b != row.c", "row.b < row.c", "row.b >= row.c",
	"row.n == row.m", "row.n < row.m", "row.n == row.n",
	// numbers across int and double, as CEL compares them
	"double(row.n) == row.d", "double(row.n) < row.d", "double(row.m) == row.d", "row.d > double(row.n)",
	"dyn(row.n) == row.d", "dyn(row.d) == row.n", "dyn(row.n) < row.d", "dyn(row.d) <= row.n", "dyn(row.n) > row.e", "dyn(row.e) >= row.m",
	"dyn(row.n) == row.s", "dyn(row.s) != row.b", "dyn(row.s) < row.n", "dyn(row.e) < row.s", "dyn(row.b) < row.n",
	"dyn(row.t) == row.s", "dyn(row.t) < row.n", "dyn(row.n) + row.d", "dyn(row.s) + row.n", "-dyn(row.b)", "!dyn(row.n)",
	"dyn(row.n) || true", "dyn(row.s) && false", "dyn(row.d) ? 1 : 2",
	// && and ||, with errors on either side absorbed or not
	"row.n == null || row.n > 2", "row.n > 2 || row.n == null", "row.n > 2 && row.m > 0", "row.n != null && row.n > 2",
	"row.s != 'US' || row.u != null", "row.t == null || row.t >= date('2000-01-01')",
	"row.d == null || row.n == null || abs(row.d - double(row.n) * 11.0) < 100000.0",
	"abs(row.d - double(row.n) * 11.0) < 100000.0", "row.b || row.c", "row.b && row.c", "row.b || row.n > 0", "!row.b", "!(row.n > 0)",
	"row.n > 0 || row.n < 0 || row.n == 0", "(row.n > 0 && row.m > 0) || (row.d > 0.0 && row.e > 0.0)",
	"row.b ? row.n > 0 : row.m > 0", "row.n > 0 ? row.s : row.u",
	// arithmetic, with overflow and division by zero
	"row.n + row.m", "row.n - row.m", "row.n * row.m", "row.n / row.m", "row.n % row.m", "-row.n", "-row.d",
	"row.n + 1", "row.n * 2", "row.n - 1", "row.m / 0", "row.d / 0.0", "row.d * row.e", "row.d + row.e", "row.d - row.e", "row.e / row.d",
	"abs(row.n)", "abs(row.m)", "abs(row.d)", "abs(row.e)", "double(row.n)", "double(row.d)", "double(row.n) * 11.0",
	"row.n + row.m > 0", "row.d * 2.0 > row.e",
	// strings: source columns and fields joined
	"source['First'] + ' ' + source['Last']", "source['Dup']", "source['Empty'] + source['Dup']", "source['Absent'] + 'x'",
	"row.s + row.u", "row.s + ' ' + source['First']",
	"(row.b ? row.s + '-' : row.u) + source['First']", "row.s + (row.n > 0 ? row.u + '!' + row.s : '?') + row.s",
	"(row.s + row.u) + (row.u + row.s) == row.s + row.u + row.u + row.s", "row.s + 'a' + 'b' + 'c' + 'd' + 'e' + 'f' + 'g' + 'h' + row.u", "source['First'] == 'Ann'", "source['First'] + source['Last'] == row.s",
	// values as they are
	"row.n", "row.d", "row.s", "row.t", "row.b", "null", "1", "'x'", "2.5", "true", "date('2024-02-29')", "date('2024-02-30')",
	"row.t >= date('2024-02-30')",
}

// notCompiled are expressions CEL evaluates alone.
var notCompiled = []string{"row.s.size() > 2", "source['First'].contains('A')", "[1, 2].exists(x, x == row.n)",
	"row.n in [1, 2]", "int(row.d) > 0", "row.t + duration('1h') > row.w", "string(row.n) == '3'", "source.size() > 2",
	"source[row.s] == 'x'", "has(source.First)", "1u < 2u", "size(row.s) > 1"}

func fastEnv(t testing.TB) *Env {
	t.Helper()
	env, err := NewEnv(fastVars)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

func (r fastRow) load(t testing.TB, env *Env, a *Activation) {
	t.Helper()
	a.NewRow()
	for i, v := range fastVars {
		text, ok := r.vals[v.Name]
		if !ok {
			a.SetNull(i)
			continue
		}
		if err := a.Set(i, v.Kind, text); err != nil {
			t.Fatalf("%s = %q: %v", v.Name, text, err)
		}
	}
	a.SetSource(fastHeader, r.cells, nil, env.KeyColumns(fastHeader))
}

// same compares CEL's result with the compiled one's: same type, same
// value (NaN equal to NaN, -0 not equal to 0), same text for a field.
func same(cel ref.Val, fast Value) error {
	if want := cel.Type(); fast.CEL().Type() != want {
		return fmt.Errorf("CEL %v (%s), compiled %v (%s)", cel, want.TypeName(), fast.CEL(), fast.CEL().Type().TypeName())
	}
	if d, ok := cel.(types.Double); ok {
		if math.Float64bits(float64(d)) != math.Float64bits(fast.f) && !(math.IsNaN(float64(d)) && math.IsNaN(fast.f)) {
			return fmt.Errorf("CEL %v, compiled %v", cel, fast.f)
		}
	} else if fast.CEL().Equal(cel) != types.True {
		return fmt.Errorf("CEL %v, compiled %v", cel, fast.CEL())
	}
	for _, dateOnly := range []bool{false, true} {
		want, wantNull, err := Text(cel, dateOnly)
		got, null := fast.Text(dateOnly)
		if err != nil || want != got || wantNull != null {
			return fmt.Errorf("text: CEL %q %v %v, compiled %q %v", want, wantNull, err, got, null)
		}
	}
	return nil
}

// differ evaluates a program both ways on the activation and says how
// they differ: the compiled form must answer exactly when CEL has a
// value (never when CEL fails), and answer the same.
func differ(p *Program, a *Activation) (answered bool, err error) {
	fast, ok := p.Fast(a, true)
	out, celErr := p.Eval(a, true)
	switch {
	case ok && celErr != nil:
		return ok, fmt.Errorf("compiled %v where CEL fails: %v", fast.CEL(), celErr)
	case !ok && celErr == nil:
		return ok, fmt.Errorf("compiled has no answer where CEL has %v", out)
	case ok:
		return ok, same(out, fast)
	}
	return ok, nil
}

func TestFast_matchesCEL(t *testing.T) {
	t.Parallel()
	env := fastEnv(t)
	progs := make([]*Program, len(fastExprs))
	for i, expr := range fastExprs {
		c, prob := env.Compile(expr, false)
		if prob != nil {
			t.Fatalf("%s: %v", expr, prob)
		}
		p, err := env.Program(c)
		if err != nil {
			t.Fatal(err)
		}
		if !p.Compiled() && expr != "date('2024-02-30')" && expr != "row.t >= date('2024-02-30')" {
			t.Errorf("%s is not compiled", expr)
		}
		progs[i] = p
	}
	a := env.NewActivation(len(fastVars))
	answered, failed := 0, 0
	for ri, row := range fastRows {
		row.load(t, env, a)
		for i, p := range progs {
			ok, err := differ(p, a)
			if err != nil {
				t.Errorf("row %d, %s: %v", ri, fastExprs[i], err)
			}
			if ok {
				answered++
			} else {
				failed++
			}
		}
	}
	// Both kinds of case are exercised: values, and CEL's errors.
	if answered < 400 || failed < 100 {
		t.Errorf("%d answers, %d CEL errors", answered, failed)
	}
	for _, expr := range notCompiled {
		c, prob := env.Compile(expr, false)
		if prob != nil {
			t.Fatalf("%s: %v", expr, prob)
		}
		p, err := env.Program(c)
		if err != nil {
			t.Fatal(err)
		}
		if p.Compiled() {
			t.Errorf("%s is compiled", expr)
		}
	}
}

// A source header the file lacks is CEL's "no such key", as before; a
// record shorter than the header reads ""; another file's header does
// not leak its cells into this one's map.
func TestFast_sourceKeysOfTheFile(t *testing.T) {
	t.Parallel()
	env := fastEnv(t)
	c, prob := env.Compile("source['Last'] + '!'", false)
	if prob != nil {
		t.Fatal(prob)
	}
	p, err := env.Program(c)
	if err != nil {
		t.Fatal(err)
	}
	a := env.NewActivation(len(fastVars))
	first := []string{"First", "Last"}
	a.SetSource(first, []string{"a", "b"}, nil, env.KeyColumns(first))
	if v, ok := p.Fast(a, true); !ok || v.s != "b!" {
		t.Errorf("compiled %v %v", v, ok)
	}
	if out, err := p.Eval(a, true); err != nil || out != types.String("b!") {
		t.Errorf("CEL %v %v", out, err)
	}
	a.SetSource(first, []string{"a"}, nil, env.KeyColumns(first))
	if v, ok := p.Fast(a, true); !ok || v.s != "!" {
		t.Errorf("short record: compiled %v %v", v, ok)
	}
	second := []string{"First", "Other"}
	a.SetSource(second, []string{"c", "d"}, nil, env.KeyColumns(second))
	if _, ok := p.Fast(a, true); ok {
		t.Error("compiled answers for a header the file lacks")
	}
	if out, err := p.Eval(a, true); err == nil {
		t.Errorf("CEL reads the other file's Last: %v", out)
	}
}

// On a row larger than the cost estimate assumed, an expression whose
// cost grows with its values is left to CEL's runtime budget.
func TestFast_largeRowsAreCELs(t *testing.T) {
	t.Parallel()
	env := fastEnv(t)
	for expr, sized := range map[string]bool{"source['First'] + source['Last']": true, "row.n == null || row.n > 2": false} {
		c, _ := env.Compile(expr, false)
		p, err := env.Program(c)
		if err != nil {
			t.Fatal(err)
		}
		a := env.NewActivation(len(fastVars))
		fastRows[2].load(t, env, a)
		if _, ok := p.Fast(a, false); ok == sized {
			t.Errorf("%s on a large row: compiled answers %v", expr, ok)
		}
	}
}

// FuzzFast_matchesCEL evaluates expressions (the table's, mutated) on
// arbitrary values both ways.
func FuzzFast_matchesCEL(f *testing.F) {
	for i, expr := range fastExprs {
		f.Add(expr, int64(i-40), float64(i)/3-10, "US", int64(i)*86400*397, i%2 == 0, uint16(i*37), "Ann")
	}
	f.Add("row.d < row.e", int64(0), math.NaN(), "", int64(0), false, uint16(0), "")
	f.Add("row.n == row.d", int64(1<<53+1), float64(1<<53), "", int64(0), false, uint16(0), "")
	f.Fuzz(func(t *testing.T, expr string, n int64, d float64, s string, sec int64, b bool, nulls uint16, cell string) {
		env := fastEnv(t)
		c, prob := env.Compile(expr, false)
		if prob != nil {
			return
		}
		p, err := env.Program(c)
		if err != nil || !p.Compiled() {
			return
		}
		ts := time.Unix(sec%(400*365*86400), 0).UTC()
		row := fastRow{vals: map[string]string{
			"n": strconv.FormatInt(n, 10), "m": strconv.FormatInt(n/7-3, 10),
			"d": strconv.FormatFloat(d, 'g', -1, 64), "e": strconv.FormatFloat(float64(n), 'g', -1, 64),
			"s": s, "u": cell, "t": ts.Format(time.DateOnly), "w": ts.Format(time.RFC3339Nano),
			"b": strconv.FormatBool(b), "c": strconv.FormatBool(n%2 == 0),
		}, cells: []string{cell, s, "", "", cell}}
		for i, v := range fastVars {
			if nulls&(1<<i) != 0 {
				delete(row.vals, v.Name)
			}
		}
		a := env.NewActivation(len(fastVars))
		row.load(t, env, a)
		if _, err := differ(p, a); err != nil {
			t.Errorf("%s on %v: %v", expr, row, err)
		}
	})
}
