// Package rules compiles and evaluates a target schema's row rules and
// computed fields, written in CEL (the Common Expression Language:
// typed, side-effect free, with cost limits). An expression sees the row's
// typed values as row.<field> and the source's cells as source["Header"].
// Expressions are compiled and type-checked once (at schema validation
// and once per job) and evaluated per row with a reused activation under
// a runtime cost budget, so no expression can make a row expensive.
package rules

import (
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/ext"
)

// Limits of a schema's expressions.
const (
	// MaxRules bounds a schema's rules.
	MaxRules = 100
	// MaxExpressionBytes bounds one expression's text.
	MaxExpressionBytes = 4096
	// CostLimit bounds one expression's cost on one row, in CEL's cost
	// units (roughly one unit per operation, a string function one per few
	// characters): both its estimate at compile time and, as CEL's runtime
	// cost budget, what an evaluation may spend before it stops with an
	// error. 10,000 units are a few tens of microseconds.
	CostLimit = 10_000
	// SizeHint is the length assumed for a string value, and the number of
	// entries of source, when the cost of an expression is estimated.
	SizeHint = 1024
)

// Kind is the CEL type a field's value has in row.
type Kind uint8

// The kinds of row values.
const (
	String    Kind = iota // string
	Int                   // int (integer and year fields)
	Double                // double (number fields)
	Bool                  // bool
	Timestamp             // timestamp (date and datetime fields)
)

// Var is one field as an expression sees it.
type Var struct {
	Name string
	Kind Kind
}

// Env is the compile environment of one schema's fields.
type Env struct {
	env    *cel.Env
	fields map[string]int // field name → index in the Var list
	// keys are the constant source keys compiled expressions read; slots
	// the results of their steps, kept in each activation's scratch.
	keys  []string
	slots int
}

// identifier is what row.<name> can select; a field with another name is
// not visible to expressions.
var identifier = regexp.MustCompile(`^[_a-zA-Z][_a-zA-Z0-9]*$`)

// reserved are CEL's reserved words, which cannot follow "row.".
var reserved = map[string]bool{"true": true, "false": true, "null": true, "in": true, "as": true, "break": true, "const": true,
	"continue": true, "else": true, "for": true, "function": true, "if": true, "import": true, "let": true, "loop": true,
	"package": true, "namespace": true, "return": true, "var": true, "void": true, "while": true}

// Visible reports whether an expression can name the field as row.<name>.
func Visible(name string) bool { return identifier.MatchString(name) && !reserved[name] }

func celType(k Kind) *cel.Type {
	switch k {
	case Int:
		return cel.NullableType(cel.IntType)
	case Double:
		return cel.NullableType(cel.DoubleType)
	case Bool:
		return cel.NullableType(cel.BoolType)
	case Timestamp:
		return cel.TimestampType
	default:
		return cel.NullableType(cel.StringType)
	}
}

// NewEnv makes the environment of a schema's fields.
func NewEnv(vars []Var) (*Env, error) {
	opts := []cel.EnvOption{
		cel.Variable("source", cel.MapType(cel.StringType, cel.StringType)),
		ext.Strings(),
		cel.Function("abs",
			cel.Overload("abs_double", []*cel.Type{cel.DoubleType}, cel.DoubleType,
				cel.UnaryBinding(func(v ref.Val) ref.Val { return types.Double(math.Abs(float64(v.(types.Double)))) })),
			cel.Overload("abs_int", []*cel.Type{cel.IntType}, cel.IntType,
				cel.UnaryBinding(absInt))),
		cel.Function("date",
			cel.Overload("date_string", []*cel.Type{cel.StringType}, cel.TimestampType,
				cel.UnaryBinding(dateOf))),
	}
	e := &Env{fields: make(map[string]int, len(vars))}
	for i, v := range vars {
		if !Visible(v.Name) {
			continue
		}
		e.fields[v.Name] = i
		opts = append(opts, cel.Variable("row."+v.Name, celType(v.Kind)))
	}
	env, err := cel.NewEnv(opts...)
	if err != nil {
		return nil, fmt.Errorf("expression environment: %w", err)
	}
	e.env = env
	return e, nil
}

func absInt(v ref.Val) ref.Val {
	i := int64(v.(types.Int))
	if i == math.MinInt64 {
		return types.NewErr("integer overflow in abs")
	}
	if i < 0 {
		i = -i
	}
	return types.Int(i)
}

func dateOf(v ref.Val) ref.Val {
	t, ok := isoDate(string(v.(types.String)))
	if !ok {
		return types.NewErr("date(%q): want YYYY-MM-DD", string(v.(types.String)))
	}
	return types.Timestamp{Time: t}
}

// Compiled is one expression compiled and checked: what it returns and
// which fields and whether the source it reads.
type Compiled struct {
	ast *cel.Ast
	// Fields are the indexes (in the Env's Var list) of the fields it reads.
	Fields []int
	// UsesSource says it reads source["…"].
	UsesSource bool
	// SourceKeys are the headers it reads as source["Header"] with a
	// constant; nil when it also reads source otherwise (every header).
	SourceKeys []string
	// Output is the CEL type of its result.
	Output *cel.Type
	// sized says its cost grows with the sizes of the values it reads
	// (string functions, comprehensions over source): only then can a
	// row cost more than the estimate, and the runtime budget is tracked.
	sized bool
}

// Problem is why an expression was refused, as a person reads it: CEL's
// message with the line and column.
type Problem struct{ Message string }

func (p *Problem) Error() string { return p.Message }

// Compile parses and type-checks one expression, and estimates its cost.
// wantBool says it is a rule, which must return a bool.
func (e *Env) Compile(expr string, wantBool bool) (*Compiled, *Problem) {
	if len(expr) > MaxExpressionBytes {
		return nil, &Problem{fmt.Sprintf("is %d bytes long; the limit is %d", len(expr), MaxExpressionBytes)}
	}
	if strings.TrimSpace(expr) == "" {
		return nil, &Problem{"is empty"}
	}
	parsed, iss := e.env.Parse(expr)
	if iss.Err() != nil {
		return nil, issuesProblem(iss)
	}
	c := &Compiled{}
	if p := e.references(parsed, c); p != nil {
		return nil, p
	}
	checked, iss := e.env.Check(parsed)
	if iss.Err() != nil {
		return nil, issuesProblem(iss)
	}
	c.ast, c.Output = checked, checked.OutputType()
	if wantBool && !c.Output.IsExactType(cel.BoolType) && !c.Output.IsExactType(cel.NullableType(cel.BoolType)) {
		return nil, &Problem{fmt.Sprintf("returns %s; a rule must return a bool", c.Output)}
	}
	est, err := e.env.EstimateCost(checked, estimator{size: SizeHint})
	if err != nil {
		return nil, &Problem{"cannot be costed: " + err.Error()}
	}
	if est.Max > CostLimit {
		return nil, &Problem{fmt.Sprintf("may cost up to %d units on a row (strings taken as %d characters); the limit is %d", est.Max, SizeHint, CostLimit)}
	}
	// The same estimate with values a thousand times larger: an
	// expression whose cost does not change is bounded by it on every row.
	big, err := e.env.EstimateCost(checked, estimator{size: 1000 * SizeHint})
	c.sized = err != nil || big.Max != est.Max
	return c, nil
}

// references notes the fields and the source an expression reads, and
// refuses row.<name> for a name that is no field (CEL would only say
// that "row" is undeclared).
func (e *Env) references(parsed *cel.Ast, c *Compiled) *Problem {
	native := parsed.NativeRep()
	r := &referenceVisit{env: e, c: c, info: native.SourceInfo(), seen: map[int]bool{}, constant: map[int64]bool{}, keys: []string{}}
	ast.PreOrderVisit(native.Expr(), ast.NewExprVisitor(r.visit))
	if c.UsesSource && !r.dynamic {
		c.SourceKeys = r.keys
	}
	return r.bad
}

// referenceVisit is the state of references' walk over an expression.
type referenceVisit struct {
	env      *Env
	c        *Compiled
	info     *ast.SourceInfo
	bad      *Problem
	seen     map[int]bool
	constant map[int64]bool // source idents indexed by a constant
	keys     []string
	dynamic  bool // source is read with a key that is not a constant
}

func (r *referenceVisit) visit(x ast.Expr) {
	switch x.Kind() {
	case ast.CallKind:
		r.index(x.AsCall())
	case ast.IdentKind:
		if x.AsIdent() == "source" {
			r.c.UsesSource = true
			r.dynamic = r.dynamic || !r.constant[x.ID()] // a call is visited before its arguments
		}
	case ast.SelectKind:
		r.field(x.AsSelect())
	}
}

// index notes source["Header"] with a constant header.
func (r *referenceVisit) index(call ast.CallExpr) {
	if call.FunctionName() != operators.Index || len(call.Args()) != 2 {
		return
	}
	src, key := call.Args()[0], call.Args()[1]
	if src.Kind() != ast.IdentKind || src.AsIdent() != "source" || key.Kind() != ast.LiteralKind {
		return
	}
	if k, ok := key.AsLiteral().(types.String); ok {
		r.constant[src.ID()] = true
		r.keys = append(r.keys, string(k))
	}
}

// field notes row.<name>, or refuses a name that is no field.
func (r *referenceVisit) field(sel ast.SelectExpr) {
	if op := sel.Operand(); op.Kind() != ast.IdentKind || op.AsIdent() != "row" {
		return
	}
	i, ok := r.env.fields[sel.FieldName()]
	if !ok {
		if r.bad == nil {
			loc := r.info.GetStartLocation(sel.Operand().ID())
			r.bad = &Problem{fmt.Sprintf("row.%s names no field of the schema (line %d, column %d)", sel.FieldName(), loc.Line(), loc.Column()+1)}
		}
		return
	}
	if !r.seen[i] {
		r.seen[i] = true
		r.c.Fields = append(r.c.Fields, i)
	}
}

func issuesProblem(iss *cel.Issues) *Problem {
	msgs := make([]string, 0, len(iss.Errors()))
	for _, e := range iss.Errors() {
		msgs = append(msgs, fmt.Sprintf("%s (line %d, column %d)", e.Message, e.Location.Line(), e.Location.Column()+1))
	}
	return &Problem{strings.Join(msgs, "; ")}
}

// estimator sizes the values CEL cannot: strings and the source map.
type estimator struct{ size uint64 }

func (e estimator) EstimateSize(checker.AstNode) *checker.SizeEstimate {
	return &checker.SizeEstimate{Min: 0, Max: e.size}
}

func (estimator) EstimateCallCost(string, string, *checker.AstNode, []checker.AstNode) *checker.CallEstimate {
	return nil
}

// Program is a compiled expression ready to evaluate. It is safe for
// concurrent use; each goroutine evaluates with its own Activation.
type Program struct {
	prg cel.Program
	// tracked is the same program under the runtime cost budget, for rows
	// whose values are larger than the estimate assumed; nil when the
	// expression's cost does not depend on the sizes of values.
	tracked cel.Program
	// fast is the expression compiled to Go (fast.go); nil when it is not
	// one of the compiled shapes.
	fast  fastFn
	slots int // the scratch it needs
}

// Program makes the runnable program of a compiled expression, with the
// runtime cost budget when its cost depends on the sizes of values (the
// others are bounded by their estimate, and tracking the cost of every
// step would make them several times slower: BenchmarkEngineRules).
func (e *Env) Program(c *Compiled) (*Program, error) {
	prg, err := e.env.Program(c.ast, cel.EvalOptions(cel.OptOptimize))
	if err != nil {
		return nil, fmt.Errorf("program: %w", err)
	}
	native := c.ast.NativeRep()
	p := &Program{prg: prg, fast: e.compileFast(native.Expr(), native), slots: e.slots}
	if c.sized {
		if p.tracked, err = e.env.Program(c.ast, cel.EvalOptions(cel.OptOptimize), cel.CostLimit(CostLimit)); err != nil {
			return nil, fmt.Errorf("program: %w", err)
		}
	}
	return p, nil
}

// Compiled says the expression has a compiled form (fast.go).
func (p *Program) Compiled() bool { return p.fast != nil }

// Fast evaluates the expression's compiled form on the activation's row,
// when it has one and CEL's answer is a value; ok false says to Eval.
// small is Eval's: on a row larger than the cost estimate assumed, an
// expression whose cost grows with values is left to CEL's budget.
func (p *Program) Fast(a *Activation, small bool) (v Value, ok bool) {
	if p.fast == nil || !small && p.tracked != nil || len(a.scratch) < p.slots {
		return Value{}, false
	}
	if v := p.fast(a); v != nil {
		return *v, true
	}
	return Value{}, false
}

// Eval evaluates the program on the activation's row. small says every
// string the row gives it is at most SizeHint bytes and source has at
// most SizeHint entries, as the cost estimate assumed: the estimate then
// bounds the cost, and it is not tracked. An error is the expression's
// failure on this row (division by zero, a null where a value is needed,
// the cost budget spent), with CEL's message.
func (p *Program) Eval(a *Activation, small bool) (ref.Val, error) {
	prg := p.prg
	if !small && p.tracked != nil {
		prg = p.tracked
	}
	out, _, err := prg.Eval(a)
	if err != nil {
		return nil, err
	}
	if types.IsError(out) {
		return nil, fmt.Errorf("%v", out)
	}
	return out, nil
}
