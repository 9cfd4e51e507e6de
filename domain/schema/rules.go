package schema

import (
	"fmt"
	"strings"
	"time"

	"github.com/tabnorm/tabnorm/domain/rules"
)

// Severity of a rule: an error rejects the row, a warning keeps it.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
)

// Rule is a CEL expression every row must satisfy.
type Rule struct {
	Name       string
	Expression string
	Message    string   // "" = a message naming the rule
	Fields     []string // the fields it is about; the first is its issues' field
	Severity   string   // SeverityError or SeverityWarning
}

// ListPrefix starts the id of a reference list.
const ListPrefix = "lst_"

// Vars are the schema's fields as expressions see them.
func (s *Schema) Vars() []rules.Var {
	vars := make([]rules.Var, len(s.Fields))
	for i, f := range s.Fields {
		vars[i] = rules.Var{Name: f.Name, Kind: KindOf(f.Type)}
	}
	return vars
}

// KindOf is the CEL kind of a field type's values.
func KindOf(t Type) rules.Kind {
	switch t {
	case Integer, Year:
		return rules.Int
	case Number:
		return rules.Double
	case Boolean:
		return rules.Bool
	case Date, DateTime:
		return rules.Timestamp
	default:
		return rules.String
	}
}

// Lists are the ids of the reference lists the schema's fields check.
func (s *Schema) Lists() []string {
	var ids []string
	for _, f := range s.Fields {
		if f.Constraints.InList != "" && !containsString(ids, f.Constraints.InList) {
			ids = append(ids, f.Constraints.InList)
		}
	}
	return ids
}

func containsString(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

func (p *parser) compute(v any, path string, f *Field) {
	s, ok := p.str(v, path)
	if !ok {
		return
	}
	if strings.TrimSpace(s) == "" {
		p.add(path, "must be a CEL expression")
	}
	f.Compute = s
}

func (p *parser) inList(v any, path string, _ Field, c *Constraints) {
	s, ok := p.str(v, path)
	if !ok {
		return
	}
	if !validListID(s) {
		p.add(path, "must be a reference list id (lst_…)")
		return
	}
	c.InList = s
}

func validListID(s string) bool {
	return strings.HasPrefix(s, ListPrefix) && len(s) > len(ListPrefix) && len(s) <= 64 &&
		strings.IndexFunc(s, func(r rune) bool {
			return !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
		}) < 0
}

// stringOrStrings reads a Table Schema key that is a string or an array
// of strings.
func (p *parser) stringOrStrings(v any, path string) []string {
	if s, ok := v.(string); ok {
		return []string{s}
	}
	return p.strings(v, path)
}

// foreignKeys reads Table Schema foreign keys. A key to a reference list
// ({"fields":"sku","reference":{"resource":"lst_…","fields":"value"}}) is
// the field's inList constraint; other references are not supported.
func (p *parser) foreignKeys(v any, s *Schema) {
	arr, ok := v.([]any)
	if !ok {
		p.add("foreignKeys", "must be an array")
		return
	}
	for i, raw := range arr {
		path := fmt.Sprintf("foreignKeys[%d]", i)
		m := p.object(raw, path, "fields", "reference")
		if m == nil {
			continue
		}
		fields := p.stringOrStrings(m["fields"], path+".fields")
		ref := p.object(m["reference"], path+".reference", "resource", "fields")
		if len(fields) != 1 {
			p.add(path+".fields", "must name exactly one field")
			continue
		}
		if ref == nil {
			continue
		}
		resource, _ := p.str(ref["resource"], path+".reference.resource")
		if !validListID(resource) {
			p.add(path+".reference.resource", "must be a reference list id (lst_…)")
			continue
		}
		if rf := p.stringOrStrings(ref["fields"], path+".reference.fields"); len(rf) != 1 || rf[0] != "value" {
			p.add(path+".reference.fields", `must be "value" (a list's one column)`)
			continue
		}
		j := s.Index(fields[0])
		switch {
		case j < 0:
			p.add(path+".fields", "names no field: %q", fields[0])
		case s.Fields[j].Constraints.InList != "" && s.Fields[j].Constraints.InList != resource:
			p.add(path+".reference.resource", "differs from the inList constraint of field %q", fields[0])
		default:
			s.Fields[j].Constraints.InList = resource
		}
	}
}

func (p *parser) rules(v any, s *Schema) []Rule {
	arr, ok := v.([]any)
	if !ok {
		p.add("rules", "must be an array of rule objects")
		return nil
	}
	if len(arr) > rules.MaxRules {
		p.add("rules", "has %d rules; the limit is %d", len(arr), rules.MaxRules)
		return nil
	}
	out := make([]Rule, 0, len(arr))
	seen := map[string]int{}
	for i, raw := range arr {
		path := fmt.Sprintf("rules[%d]", i)
		r, ok := p.rule(raw, path, s)
		if !ok {
			continue
		}
		if j, dup := seen[r.Name]; dup {
			p.add(path+".name", "duplicates the name of rules[%d]", j)
		}
		seen[r.Name] = i
		out = append(out, r)
	}
	return out
}

func (p *parser) rule(raw any, path string, s *Schema) (Rule, bool) {
	m := p.object(raw, path, "name", "expression", "message", "fields", "severity")
	if m == nil {
		return Rule{}, false
	}
	before := len(p.errs)
	r := Rule{Severity: SeverityError}
	if name, ok := p.str(m["name"], path+".name"); ok {
		if !rules.Visible(name) || len(name) > 100 {
			p.add(path+".name", "must be 1 to 100 letters, digits or underscores, not starting with a digit")
		}
		r.Name = name
	}
	r.Expression, _ = p.str(m["expression"], path+".expression")
	if v, ok := m["message"]; ok {
		r.Message, _ = p.str(v, path+".message")
		if len(r.Message) > 1000 {
			p.add(path+".message", "must be at most 1000 characters")
		}
	}
	if v, ok := m["fields"]; ok {
		r.Fields = p.strings(v, path+".fields")
		for i, f := range r.Fields {
			if s.Index(f) < 0 {
				p.add(fmt.Sprintf("%s.fields[%d]", path, i), "names no field: %q", f)
			}
		}
	}
	if v, ok := m["severity"]; ok {
		if sev, ok := p.str(v, path+".severity"); ok {
			if sev != SeverityError && sev != SeverityWarning {
				p.add(path+".severity", `must be "error" or "warning"`)
			}
			r.Severity = sev
		}
	}
	return r, len(p.errs) == before
}

// expressions compiles and type-checks every compute and rule against
// the schema's fields, so a job never starts with one that cannot run.
func (p *parser) expressions(s *Schema) {
	if len(s.Rules) == 0 && !s.hasCompute() {
		return
	}
	env, err := rules.NewEnv(s.Vars())
	if err != nil {
		p.add("fields", "cannot be given to expressions: %v", err)
		return
	}
	for i, f := range s.Fields {
		if f.Compute == "" {
			continue
		}
		if _, prob := env.Compile(f.Compute, false); prob != nil {
			p.add(fmt.Sprintf("fields[%d].compute", i), "%s", prob.Message)
		}
	}
	for i, r := range s.Rules {
		if _, prob := env.Compile(r.Expression, true); prob != nil {
			p.add(fmt.Sprintf("rules[%d].expression", i), "%s", prob.Message)
		}
	}
}

func (s *Schema) hasCompute() bool {
	for _, f := range s.Fields {
		if f.Compute != "" {
			return true
		}
	}
	return false
}

type ruleDoc struct {
	Name       string   `json:"name"`
	Expression string   `json:"expression"`
	Message    string   `json:"message,omitempty"`
	Fields     []string `json:"fields,omitempty"`
	Severity   string   `json:"severity"`
}

func rulesDoc(rs []Rule) []ruleDoc {
	if len(rs) == 0 {
		return nil
	}
	out := make([]ruleDoc, len(rs))
	for i, r := range rs {
		out[i] = ruleDoc(r)
	}
	return out
}

// List is an organization's reference list: a set of values an inList
// constraint checks against. Its values are kept in storage, sorted.
type List struct {
	ID        string
	OrgID     string
	Name      string
	Count     int64 // distinct values
	CreatedAt time.Time
}
