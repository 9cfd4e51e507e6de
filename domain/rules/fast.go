package rules

import (
	"math"
	"slices"
	"strings"

	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/overloads"
	"github.com/google/cel-go/common/types"
)

// The simplest expressions — comparisons of fields with constants or
// null, && and || of those, arithmetic and abs of numbers, strings
// joined from source columns — are also compiled to Go closures that
// read the activation's unboxed values, because CEL's interpreter,
// which boxes every value and intermediate result, is most of what such
// a rule costs on a row (BenchmarkEngineRules).
//
// A compiled expression is only a shortcut: it answers only where it
// knows CEL's answer, which is a value, never an error. Wherever CEL
// would fail — an operator applied to null, an integer overflow, a
// division by zero, a source header the file lacks — or where its
// answer is not certain, the closure says so and the row is evaluated
// by CEL, whose error is then the row's, word for word. The operators
// follow cel-go's runtime (common/types and the standard library's
// bindings): heterogeneous equality, ordering of ints against doubles,
// NaN ordered as false, errors absorbed by || and &&.
// TestFast_matchesCEL and FuzzFast_matchesCEL evaluate every shape both
// ways and require the same results.

// fastFn evaluates a compiled expression on the activation's row: its
// value, or nil when CEL must evaluate it. The value is the activation's
// (a field, or a result in its scratch) or a constant: read, never
// written.
type fastFn func(a *Activation) *Value

// Constant results.
var (
	trueValue  = boolValue(true)
	falseValue = boolValue(false)
)

func boolPtr(b bool) *Value {
	if b {
		return &trueValue
	}
	return &falseValue
}

// compileFast compiles a checked expression, or returns nil when some
// part of it is not one of the compiled shapes.
func (e *Env) compileFast(x ast.Expr, a *ast.AST) fastFn {
	switch x.Kind() {
	case ast.LiteralKind:
		return literal(x)
	case ast.IdentKind:
		name, isRow := strings.CutPrefix(x.AsIdent(), "row.")
		i, ok := e.fields[name]
		if !ok || !isRow {
			return nil
		}
		return func(a *Activation) *Value { return &a.vals[i] }
	case ast.CallKind:
		return e.compileCall(x, a)
	}
	return nil
}

func literal(x ast.Expr) fastFn {
	var v Value
	switch l := x.AsLiteral().(type) {
	case types.Null:
		v = Value{}
	case types.String:
		v = Value{k: vString, s: string(l)}
	case types.Int:
		v = Value{k: vInt, i: int64(l)}
	case types.Double:
		v = Value{k: vDouble, f: float64(l)}
	case types.Bool:
		v = boolValue(bool(l))
	default:
		return nil
	}
	return func(*Activation) *Value { return &v }
}

// slot reserves a place in every activation's scratch for a result.
func (e *Env) slot() int {
	e.slots++
	return e.slots - 1
}

func (e *Env) compileCall(x ast.Expr, a *ast.AST) fastFn {
	call := x.AsCall()
	if call.IsMemberFunction() {
		return nil
	}
	args := call.Args()
	ids := a.GetOverloadIDs(x.ID())
	if fn := e.compileSpecial(call.FunctionName(), args, ids); fn != nil {
		return fn
	}
	if call.FunctionName() == operators.Add && len(ids) == 1 && ids[0] == overloads.AddString {
		return e.concat(x, a)
	}
	fs := make([]fastFn, len(args))
	for i, arg := range args {
		if fs[i] = e.compileFast(arg, a); fs[i] == nil {
			return nil
		}
	}
	switch len(fs) {
	case 1:
		return e.unary(call.FunctionName(), ids, fs[0])
	case 2:
		return e.binary(call.FunctionName(), fs[0], fs[1])
	case 3:
		if call.FunctionName() == operators.Conditional {
			return conditional(fs[0], fs[1], fs[2])
		}
	}
	return nil
}

// compileSpecial compiles the calls whose arguments are constants:
// source["Header"] and date("YYYY-MM-DD").
func (e *Env) compileSpecial(fn string, args []ast.Expr, ids []string) fastFn {
	switch {
	case fn == operators.Index && len(args) == 2 && args[0].Kind() == ast.IdentKind && args[0].AsIdent() == "source" &&
		args[1].Kind() == ast.LiteralKind:
		key, ok := args[1].AsLiteral().(types.String)
		if !ok {
			return nil
		}
		k, slot := e.sourceKey(string(key)), e.slot()
		return func(a *Activation) *Value {
			s, ok := a.sourceKey(k)
			if !ok {
				return nil
			}
			v := &a.scratch[slot]
			*v = Value{k: vString, s: s}
			return v
		}
	case fn == "date" && len(args) == 1 && args[0].Kind() == ast.LiteralKind && len(ids) == 1 && ids[0] == "date_string":
		s, ok := args[0].AsLiteral().(types.String)
		if !ok {
			return nil
		}
		sec, ok := isoSeconds(string(s))
		if !ok {
			return nil // CEL's error on every row
		}
		v := Value{k: vTime, i: sec}
		return func(*Activation) *Value { return &v }
	}
	return nil
}

// sourceKey is the index of a constant source key among the Env's.
func (e *Env) sourceKey(key string) int {
	for k, s := range e.keys {
		if s == key {
			return k
		}
	}
	e.keys = append(e.keys, key)
	return len(e.keys) - 1
}

// SourceKeys are the source headers compiled expressions read, in the
// order of the columns KeyColumns gives.
func (e *Env) SourceKeys() []string { return e.keys }

// concat compiles a chain of string +, a + b + c, to one concatenation
// written into the activation's text buffer (no allocation, where CEL
// makes one string a +). The result lives until the activation's next
// row (Activation.NewRow).
func (e *Env) concat(x ast.Expr, a *ast.AST) fastFn {
	var parts []fastFn
	var walk func(x ast.Expr) bool
	walk = func(x ast.Expr) bool {
		if x.Kind() == ast.CallKind && x.AsCall().FunctionName() == operators.Add && !x.AsCall().IsMemberFunction() &&
			len(x.AsCall().Args()) == 2 && slices.Equal(a.GetOverloadIDs(x.ID()), []string{overloads.AddString}) {
			return walk(x.AsCall().Args()[0]) && walk(x.AsCall().Args()[1])
		}
		fn := e.compileFast(x, a)
		parts = append(parts, fn)
		return fn != nil
	}
	if !walk(x) {
		return nil
	}
	slot := e.slot()
	return func(a *Activation) *Value {
		// Every part is evaluated before any is written: a part may
		// itself write into the buffer (a concatenation inside a
		// conditional), and each is evaluated once.
		var fixed [8]string
		texts := fixed[:0]
		for _, p := range parts {
			v := p(a)
			if v == nil || v.k != vString {
				return nil
			}
			texts = append(texts, v.s)
		}
		out := &a.scratch[slot]
		*out = Value{k: vString, s: a.appendText(texts)}
		return out
	}
}

func (e *Env) unary(fn string, ids []string, x fastFn) fastFn {
	if fn == overloads.TypeConvertDyn && len(ids) == 1 && ids[0] == overloads.ToDyn {
		return x // dyn(x) is x; only the type check reads it
	}
	if fn == operators.LogicalNot {
		return func(a *Activation) *Value {
			v := x(a)
			if v == nil || v.k != vBool {
				return nil
			}
			return boolPtr(v.i == 0)
		}
	}
	var op func(v, out *Value) bool
	switch {
	case fn == operators.Negate:
		op = negate
	case fn == "abs" && len(ids) == 1 && (ids[0] == "abs_double" || ids[0] == "abs_int"):
		want := vDouble
		if ids[0] == "abs_int" {
			want = vInt
		}
		op = func(v, out *Value) bool { return v.k == want && abs(v, out) }
	case fn == overloads.TypeConvertDouble && len(ids) == 1 && ids[0] == overloads.IntToDouble:
		op = func(v, out *Value) bool {
			*out = Value{k: vDouble, f: float64(v.i)}
			return v.k == vInt
		}
	case fn == overloads.TypeConvertDouble && len(ids) == 1 && ids[0] == overloads.DoubleToDouble:
		op = func(v, out *Value) bool {
			*out = *v
			return v.k == vDouble
		}
	default:
		return nil
	}
	slot := e.slot()
	return func(a *Activation) *Value {
		v := x(a)
		if v == nil {
			return nil
		}
		out := &a.scratch[slot]
		if !op(v, out) {
			return nil
		}
		return out
	}
}

func negate(v, out *Value) bool {
	switch v.k {
	case vInt:
		if v.i == math.MinInt64 {
			return false // overflow
		}
		*out = Value{k: vInt, i: -v.i}
		return true
	case vDouble:
		*out = Value{k: vDouble, f: -v.f}
		return true
	}
	return false
}

func abs(v, out *Value) bool {
	if v.k == vDouble {
		*out = Value{k: vDouble, f: math.Abs(v.f)}
		return true
	}
	if v.i == math.MinInt64 {
		return false // overflow
	}
	*out = Value{k: vInt, i: v.i}
	if v.i < 0 {
		out.i = -v.i
	}
	return true
}

func (e *Env) binary(fn string, l, r fastFn) fastFn {
	switch fn {
	case operators.LogicalOr:
		return or(l, r)
	case operators.LogicalAnd:
		return and(l, r)
	case operators.Equals, operators.NotEquals:
		ne := fn == operators.NotEquals
		return func(a *Activation) *Value {
			lv := l(a)
			if lv == nil {
				return nil
			}
			rv := r(a)
			if rv == nil {
				return nil
			}
			return boolPtr(equal(lv, rv) != ne)
		}
	case operators.Less, operators.LessEquals, operators.Greater, operators.GreaterEquals:
		return ordering(fn, l, r)
	case operators.Add, operators.Subtract, operators.Multiply, operators.Divide, operators.Modulo:
		op, slot := arithmetic[fn], e.slot()
		return func(a *Activation) *Value {
			lv := l(a)
			if lv == nil {
				return nil
			}
			rv := r(a)
			if rv == nil {
				return nil
			}
			out := &a.scratch[slot]
			if !op(lv, rv, out) {
				return nil
			}
			return out
		}
	}
	return nil
}

// truth is a value's truth: known says it is a bool.
func truth(v *Value) (b, known bool) {
	if v == nil || v.k != vBool {
		return false, false
	}
	return v.i != 0, true
}

// or is CEL's ||: true when either side is true, whatever the other (an
// error included); false when both are false; else CEL's error.
func or(l, r fastFn) fastFn {
	return func(a *Activation) *Value {
		lb, lok := truth(l(a))
		if lok && lb {
			return &trueValue
		}
		rb, rok := truth(r(a))
		if rok && rb {
			return &trueValue
		}
		if lok && rok {
			return &falseValue
		}
		return nil
	}
}

// and is CEL's &&, the dual of or.
func and(l, r fastFn) fastFn {
	return func(a *Activation) *Value {
		lb, lok := truth(l(a))
		if lok && !lb {
			return &falseValue
		}
		rb, rok := truth(r(a))
		if rok && !rb {
			return &falseValue
		}
		if lok && rok {
			return &trueValue
		}
		return nil
	}
}

func conditional(c, t, f fastFn) fastFn {
	return func(a *Activation) *Value {
		b, ok := truth(c(a))
		if !ok {
			return nil
		}
		if b {
			return t(a)
		}
		return f(a)
	}
}

// equal is CEL's heterogeneous equality (types.Equal): null equals only
// null, numbers compare by value across int and double, NaN equals
// nothing, values of different types are not equal.
func equal(l, r *Value) bool {
	if l.k == vNull || r.k == vNull {
		return l.k == r.k
	}
	switch l.k {
	case vString:
		return r.k == vString && l.s == r.s
	case vBool:
		return r.k == vBool && l.i == r.i
	case vTime:
		return r.k == vTime && compareTimes(l, r) == 0
	case vInt:
		switch r.k {
		case vInt:
			return l.i == r.i
		case vDouble:
			return !math.IsNaN(r.f) && compareDoubleInt(r.f, l.i) == 0
		}
	case vDouble:
		switch r.k {
		case vDouble:
			return l.f == r.f
		case vInt:
			return !math.IsNaN(l.f) && compareDoubleInt(l.f, r.i) == 0
		}
	}
	return false
}

// compareDoubleInt is cel-go's: a double beyond int64's range is below
// or above every int; else the int is compared as a double.
func compareDoubleInt(d float64, i int64) int {
	if d < math.MinInt64 {
		return -1
	}
	if d > math.MaxInt64 {
		return 1
	}
	return compareFloat(d, float64(i))
}

func compareFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// ordering is CEL's <, <=, > and >=: an error when the left side is null
// (it has no order), false when either side is NaN, else the values'
// order when CEL has one for their types.
func ordering(fn string, l, r fastFn) fastFn {
	var want func(int) bool
	switch fn {
	case operators.Less:
		want = func(c int) bool { return c < 0 }
	case operators.LessEquals:
		want = func(c int) bool { return c <= 0 }
	case operators.Greater:
		want = func(c int) bool { return c > 0 }
	default:
		want = func(c int) bool { return c >= 0 }
	}
	return func(a *Activation) *Value {
		lv := l(a)
		if lv == nil || lv.k == vNull {
			return nil
		}
		rv := r(a)
		if rv == nil {
			return nil
		}
		if lv.k == vDouble && math.IsNaN(lv.f) || rv.k == vDouble && math.IsNaN(rv.f) {
			return &falseValue
		}
		c, ok := compare(lv, rv)
		if !ok {
			return nil
		}
		return boolPtr(want(c))
	}
}

// compare is the Compare of cel-go's types, NaN excluded; ok is false
// where CEL has no order (an error).
func compare(l, r *Value) (int, bool) {
	switch {
	case l.k == vInt && r.k == vInt:
		return compareInts(l.i, r.i), true
	case l.k == vInt && r.k == vDouble:
		return -compareDoubleInt(r.f, l.i), true
	case l.k == vDouble && r.k == vDouble:
		return compareFloat(l.f, r.f), true
	case l.k == vDouble && r.k == vInt:
		return compareDoubleInt(l.f, r.i), true
	case l.k == vString && r.k == vString:
		return strings.Compare(l.s, r.s), true
	case l.k == vBool && r.k == vBool:
		return compareInts(l.i, r.i), true
	case l.k == vTime && r.k == vTime:
		return compareTimes(l, r), true
	}
	return 0, false
}

func compareInts(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// arithmetic are CEL's +, -, *, / and % on ints (checked: an overflow
// or a division by zero is CEL's error), doubles (IEEE 754) and strings
// (+ joins them).
var arithmetic = map[string]func(l, r, out *Value) bool{
	operators.Add: func(l, r, out *Value) bool {
		switch {
		case l.k == vInt && r.k == vInt:
			if (r.i > 0 && l.i > math.MaxInt64-r.i) || (r.i < 0 && l.i < math.MinInt64-r.i) {
				return false
			}
			*out = Value{k: vInt, i: l.i + r.i}
		case l.k == vDouble && r.k == vDouble:
			*out = Value{k: vDouble, f: l.f + r.f}
		case l.k == vString && r.k == vString:
			*out = Value{k: vString, s: l.s + r.s}
		default:
			return false
		}
		return true
	},
	operators.Subtract: func(l, r, out *Value) bool {
		switch {
		case l.k == vInt && r.k == vInt:
			if (r.i < 0 && l.i > math.MaxInt64+r.i) || (r.i > 0 && l.i < math.MinInt64+r.i) {
				return false
			}
			*out = Value{k: vInt, i: l.i - r.i}
		case l.k == vDouble && r.k == vDouble:
			*out = Value{k: vDouble, f: l.f - r.f}
		default:
			return false
		}
		return true
	},
	operators.Multiply: func(l, r, out *Value) bool {
		switch {
		case l.k == vInt && r.k == vInt:
			x, y := l.i, r.i
			if (x == -1 && y == math.MinInt64) || (y == -1 && x == math.MinInt64) ||
				(x > 0 && y > 0 && x > math.MaxInt64/y) || (x > 0 && y < 0 && y < math.MinInt64/x) ||
				(x < 0 && y > 0 && x < math.MinInt64/y) || (x < 0 && y < 0 && y < math.MaxInt64/x) {
				return false
			}
			*out = Value{k: vInt, i: x * y}
		case l.k == vDouble && r.k == vDouble:
			*out = Value{k: vDouble, f: l.f * r.f}
		default:
			return false
		}
		return true
	},
	operators.Divide: func(l, r, out *Value) bool {
		switch {
		case l.k == vInt && r.k == vInt:
			if r.i == 0 || (l.i == math.MinInt64 && r.i == -1) {
				return false
			}
			*out = Value{k: vInt, i: l.i / r.i}
		case l.k == vDouble && r.k == vDouble:
			*out = Value{k: vDouble, f: l.f / r.f}
		default:
			return false
		}
		return true
	},
	operators.Modulo: func(l, r, out *Value) bool {
		if l.k != vInt || r.k != vInt || r.i == 0 || (l.i == math.MinInt64 && r.i == -1) {
			return false
		}
		*out = Value{k: vInt, i: l.i % r.i}
		return true
	},
}
