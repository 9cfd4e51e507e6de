package normalize

import (
	"fmt"
	"slices"
	"strings"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/normalize/coerce"
	"github.com/tabnorm/tabnorm/domain/normalize/match"
	"github.com/tabnorm/tabnorm/domain/rules"
	"github.com/tabnorm/tabnorm/domain/schema"
)

// The rules stage runs after coercion, on each row's typed values:
// computed fields first (in schema order, each coerced to its own type),
// then reference list checks, then the schema's rules. Its programs are
// compiled once per job; each batch evaluates them with its own reused
// activation.

// ListLookup answers whether a value is in a reference list (the
// engine's Input.Lists): the list checks of the rules stage and the
// matcher's reading of a column as a list use it.
type ListLookup = match.ListLookup

// stage is a job's compiled computes, list checks and rules.
type stage struct {
	env      *rules.Env
	computes []computeStep
	lists    []listStep
	rules    []ruleStep
	// needed are the fields some program reads, which each row gives the
	// activation; kinds are every field's CEL kind.
	needed     []int
	read       []bool // the fields of needed, by index
	kinds      []rules.Kind
	usesSource bool
	// sourceKeys are the headers expressions read from source; nil with
	// allSource (some expression reads source with a computed key).
	sourceKeys []string
	allSource  bool
}

type computeStep struct {
	field int
	prg   *rules.Program
	reads []int
}

type listStep struct {
	field int
	id    string
	list  ListLookup
}

type ruleStep struct {
	rule    schema.Rule
	prg     *rules.Program
	reads   []int
	field   int // the first of rule.Fields, -1 when none
	message string
}

// newStage compiles the schema's expressions and finds its lists; nil
// when the schema has none.
func newStage(s *schema.Schema, lists map[string]ListLookup) (*stage, error) {
	st := &stage{kinds: make([]rules.Kind, len(s.Fields))}
	if err := st.findLists(s, lists); err != nil {
		return nil, err
	}
	if len(s.Rules) == 0 && len(st.lists) == 0 && !hasCompute(s) {
		return nil, nil
	}
	env, err := rules.NewEnv(s.Vars())
	if err != nil {
		return nil, fail(domain.CodeInvalidSchema, "The schema's expressions cannot be compiled: %v", err)
	}
	st.env = env
	needed := make([]bool, len(s.Fields))
	compile := func(expr, where string, wantBool bool) (*rules.Program, []int, error) {
		c, prob := env.Compile(expr, wantBool)
		if prob != nil {
			return nil, nil, fail(domain.CodeInvalidSchema, "%s: %s", where, prob.Message)
		}
		prg, err := env.Program(c)
		if err != nil {
			return nil, nil, fail(domain.CodeInvalidSchema, "%s: %v", where, err)
		}
		for _, f := range c.Fields {
			needed[f] = true
		}
		st.usesSource = st.usesSource || c.UsesSource
		st.allSource = st.allSource || c.UsesSource && c.SourceKeys == nil
		st.sourceKeys = append(st.sourceKeys, c.SourceKeys...)
		return prg, c.Fields, nil
	}
	for i, f := range s.Fields {
		if f.Compute == "" {
			continue
		}
		prg, reads, err := compile(f.Compute, fmt.Sprintf("fields[%d].compute", i), false)
		if err != nil {
			return nil, err
		}
		st.computes = append(st.computes, computeStep{field: i, prg: prg, reads: reads})
	}
	for i, r := range s.Rules {
		prg, reads, err := compile(r.Expression, fmt.Sprintf("rules[%d].expression", i), true)
		if err != nil {
			return nil, err
		}
		rs := ruleStep{rule: r, prg: prg, reads: reads, field: -1, message: r.Message}
		if len(r.Fields) > 0 {
			rs.field = s.Index(r.Fields[0])
		}
		if rs.message == "" {
			rs.message = fmt.Sprintf("The row breaks rule %s.", r.Name)
		}
		st.rules = append(st.rules, rs)
	}
	st.read = needed
	for f, n := range needed {
		if n {
			st.needed = append(st.needed, f)
		}
	}
	return st, nil
}

// findLists notes each field's kind and list check.
func (st *stage) findLists(s *schema.Schema, lists map[string]ListLookup) error {
	for i, f := range s.Fields {
		st.kinds[i] = schema.KindOf(f.Type)
		if id := f.Constraints.InList; id != "" {
			l, ok := lists[id]
			if !ok || l == nil {
				return fail(domain.CodeInvalidSchema, "Field %q checks reference list %s, which does not exist.", f.Name, id)
			}
			st.lists = append(st.lists, listStep{field: i, id: id, list: l})
		}
	}
	return nil
}

func hasCompute(s *schema.Schema) bool {
	for _, f := range s.Fields {
		if f.Compute != "" {
			return true
		}
	}
	return false
}

// rowState is what the stage needs of the row being processed.
type rowState struct {
	p     *plan
	b     *batch
	cells []string
	vals  []string
	kinds []int8
	ro    *rowOut
	// bad marks fields whose value CEL cannot hold (an integer beyond 64
	// bits): a program that reads one is that row's rule_error.
	bad []bool
	// small says the row's cells and computed values are no longer than
	// the cost estimate assumed (rules.Program.Eval).
	small bool
	// loaded says the activation holds this row (compute loaded it).
	loaded bool
}

// smallCells reports whether a record is within the sizes the cost
// estimate of expressions assumed.
func smallCells(cells []string) bool {
	if len(cells) > rules.SizeHint {
		return false
	}
	for _, c := range cells {
		if len(c) > rules.SizeHint {
			return false
		}
	}
	return true
}

// activation is the batch's reused activation, made on first use.
func (st *stage) activation(b *batch) *rules.Activation {
	if b.act == nil {
		b.act = st.env.NewActivation(len(st.kinds))
		b.bad = make([]bool, len(st.kinds))
	}
	return b.act
}

// load gives the activation the row's values of the fields programs
// read, and its cells. Values are parsed, not boxed: compiled
// expressions read them as they are, and CEL boxes what it reads.
func (st *stage) load(a *rules.Activation, rs *rowState) {
	a.NewRow()
	for _, f := range st.needed {
		st.set(a, rs, f)
	}
	if st.usesSource {
		a.SetSource(rs.p.header, rs.cells, rs.p.sourceColumns, rs.p.keyColumns)
	}
}

func (st *stage) set(a *rules.Activation, rs *rowState, f int) {
	rs.bad[f] = false
	if rs.kinds[f] <= 0 {
		a.SetNull(f)
		return
	}
	if a.Set(f, st.kinds[f], rs.vals[f]) != nil {
		rs.bad[f] = true
	}
}

// eval evaluates a program on the activation's row: its compiled form
// when it answers, else CEL.
func eval(prg *rules.Program, a *rules.Activation, small, wantBool bool) (fast rules.Value, out ref.Val, err error) {
	if v, ok := prg.Fast(a, small); ok {
		if _, isBool := v.Bool(); isBool || !wantBool {
			return v, nil, nil
		}
	}
	out, err = prg.Eval(a, small)
	return rules.Value{}, out, err
}

// unreadable names a field a program reads whose value CEL cannot hold.
func (rs *rowState) unreadable(reads []int) (int, bool) {
	for _, f := range reads {
		if rs.bad[f] {
			return f, true
		}
	}
	return -1, false
}

// compute derives the computed fields of a row and checks its list
// constraints; it runs whatever the row's other problems.
func (st *stage) compute(rs *rowState) {
	rs.loaded = false
	if len(st.computes) > 0 {
		a := st.activation(rs.b)
		rs.bad = rs.b.bad
		rs.small = smallCells(rs.cells)
		st.load(a, rs)
		rs.loaded = true
		for i := range st.computes {
			st.computeOne(a, rs, &st.computes[i])
		}
	}
	for i := range st.lists {
		st.checkList(rs, &st.lists[i])
	}
}

func (st *stage) computeOne(a *rules.Activation, rs *rowState, c *computeStep) {
	p, ro, f := rs.p, rs.ro, c.field
	col := &p.computed[f]
	rs.kinds[f] = 0
	if st.read[f] {
		defer st.set(a, rs, f) // later computes and the rules see the value
	}
	if bf, bad := rs.unreadable(c.reads); bad {
		st.computeProblem(rs, f, "rule_error", fmt.Sprintf("The computed value cannot be derived: field %s holds %q, beyond what expressions can read.", p.columns[bf].Field.Name, rs.vals[bf]), nil)
		return
	}
	fast, out, err := eval(c.prg, a, rs.small, false)
	if err != nil {
		st.computeProblem(rs, f, "rule_error", fmt.Sprintf("The computed value cannot be derived: %v.", err), nil)
		return
	}
	var text string
	var null bool
	if out == nil {
		text, null = fast.Text(col.Field.Type == schema.Date)
	} else if text, null, err = rules.Text(out, col.Field.Type == schema.Date); err != nil {
		st.computeProblem(rs, f, "rule_error", fmt.Sprintf("The computed value cannot be derived: %v.", err), nil)
		return
	}
	if null {
		return
	}
	if len(text) > rules.SizeHint {
		rs.small = false
	}
	v, prob := col.Value(text, &rs.b.sc)
	if prob != nil {
		if prob.Severity != warning {
			st.computeProblem(rs, f, prob.Code, "The computed value: "+prob.Message, textRef(text))
			return
		}
		ro.issues = append(ro.issues, p.issue(int(ro.number), -1, f, warning, prob.Code, "The computed value: "+prob.Message, textRef(text)))
	}
	rs.vals[f] = v
	rs.kinds[f] = valueKind(col)
}

// textRef is a copy of s to point at, for an issue's value. It copies
// the bytes too: a value may lie in the row's scratch, which the next
// rows overwrite before the batch's issues are written. (&text of a
// variable would also put every row's text on the heap.)
func textRef(s string) *string {
	c := strings.Clone(s)
	return &c
}

// computeProblem reports a computed field that has no value: an error
// that rejects the row, or with on_error null_value (and the field not
// required) a warning and a null.
func (st *stage) computeProblem(rs *rowState, f int, code, message string, value *string) {
	p, ro := rs.p, rs.ro
	sev := "error"
	if p.opts.OnError == "null_value" && !p.columns[f].Field.Constraints.Required {
		sev, message = warning, message+" The value was set to null."
	} else {
		ro.ok = false
		if p.columns[f].Field.Constraints.Required {
			rs.kinds[f] = -1 // reported: not again as required
		}
	}
	ro.issues = append(ro.issues, p.issue(int(ro.number), -1, f, sev, code, message, value))
}

func valueKind(col *coerce.Column) int8 {
	switch {
	case col.Kind == coerce.KindRaw:
		return 2
	case col.Plain:
		return 3
	default:
		return 1
	}
}

// checkList rejects a value that is not in the field's reference list.
func (st *stage) checkList(rs *rowState, l *listStep) {
	if rs.kinds[l.field] <= 0 {
		return
	}
	p, ro := rs.p, rs.ro
	ok, err := l.list.Contains(rs.vals[l.field])
	if err != nil {
		if rs.b.failure == nil {
			rs.b.failure = fail(domain.CodeInternalError, "Reference list %s could not be read; the failure was logged for the operator.", l.id)
			rs.b.failure.Stack = err.Error()
		}
		return
	}
	if ok {
		return
	}
	v := strings.Clone(rs.vals[l.field]) // the row's coerce.Scratch is reused before issues are written
	if p.opts.OnError == "null_value" && !p.columns[l.field].Field.Constraints.Required {
		ro.issues = append(ro.issues, p.issue(int(ro.number), p.columnOf(l.field), l.field, warning, "not_in_list",
			fmt.Sprintf("%q is not in reference list %s. The value was set to null.", v, l.id), &v))
		rs.kinds[l.field] = 0
		if rs.loaded {
			st.set(rs.b.act, rs, l.field) // the rules see the null
		}
		return
	}
	ro.ok = false
	ro.issues = append(ro.issues, p.issue(int(ro.number), p.columnOf(l.field), l.field, "error", "not_in_list",
		fmt.Sprintf("%q is not in reference list %s.", v, l.id), &v))
}

// check evaluates the rules on a row that has no error so far.
func (st *stage) check(rs *rowState) {
	if len(st.rules) == 0 {
		return
	}
	a := st.activation(rs.b)
	rs.bad = rs.b.bad
	if !rs.loaded {
		rs.small = smallCells(rs.cells)
		st.load(a, rs)
	}
	for i := range st.rules {
		st.checkOne(a, rs, &st.rules[i])
	}
}

func (st *stage) checkOne(a *rules.Activation, rs *rowState, r *ruleStep) {
	p, ro := rs.p, rs.ro
	problem := func(code, message string) {
		var value *string
		if r.field >= 0 && rs.kinds[r.field] > 0 {
			value = textRef(rs.vals[r.field])
		}
		col := -1
		if r.field >= 0 {
			col = p.columnOf(r.field)
		}
		is := p.issue(int(ro.number), col, r.field, r.rule.Severity, code, message, value)
		is.Rule = r.rule.Name
		if r.rule.Severity != warning {
			ro.ok = false
		}
		ro.issues = append(ro.issues, is)
	}
	if bf, bad := rs.unreadable(r.reads); bad {
		problem("rule_error", fmt.Sprintf("Rule %s could not be evaluated: field %s holds %q, beyond what expressions can read.", r.rule.Name, p.columns[bf].Field.Name, rs.vals[bf]))
		return
	}
	fast, out, err := eval(r.prg, a, rs.small, true)
	if err != nil {
		problem("rule_error", fmt.Sprintf("Rule %s could not be evaluated on this row: %v.", r.rule.Name, err))
		return
	}
	if out == nil {
		if ok, _ := fast.Bool(); !ok {
			problem("rule_violation", r.message)
		}
		return
	}
	switch out {
	case types.True:
	case types.False:
		problem("rule_violation", r.message)
	default:
		problem("rule_error", fmt.Sprintf("Rule %s returned %s, not true or false.", r.rule.Name, describe(out)))
	}
}

func describe(v ref.Val) string {
	if v == types.NullValue {
		return "null"
	}
	return fmt.Sprint(v.Value())
}

// planStage gives the plan the job's stage, compiled on the first plan,
// and the computed fields' columns.
func (w *writer) planStage(p *plan) error {
	if !w.stageReady {
		st, err := newStage(w.in.Schema, w.in.Lists)
		if err != nil {
			return err
		}
		w.stage, w.stageReady = st, true
	}
	p.stage = w.stage
	if p.stage == nil {
		return nil
	}
	p.keyColumns = p.stage.env.KeyColumns(p.header)
	if p.stage.usesSource && !p.stage.allSource {
		p.sourceColumns = []int{} // only the headers expressions name (absent ones stay "")
		for c, h := range p.header {
			if slices.Contains(p.stage.sourceKeys, h) {
				p.sourceColumns = append(p.sourceColumns, c)
			}
		}
	}
	if len(p.stage.computes) == 0 {
		return nil
	}
	p.computed = make([]coerce.Column, len(p.columns))
	for _, c := range p.stage.computes {
		// A computed value is made here, never given, so it is never only
		// validated. Computed values are written ISO dates and "."
		// decimals, whatever the file's columns use.
		p.computed[c.field] = coerce.Compile(w.in.Schema.Fields[c.field], false, coerce.OrderYMD, ".", w.in.Options.PhoneRegion)
	}
	return nil
}
