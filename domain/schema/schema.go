// Package schema is the target schema of a job: a superset of the
// Frictionless Table Schema (API.md §6). Parse validates a JSON document
// completely and reports every problem with its JSON path, so a client
// can fix them all at once.
package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/tabnorm/tabnorm/domain"
)

// Type is a field's value type.
type Type string

// The value types of a field.
const (
	String   Type = "string"
	Integer  Type = "integer"
	Number   Type = "number"
	Boolean  Type = "boolean"
	Date     Type = "date"
	DateTime Type = "datetime"
	Time     Type = "time"
	Year     Type = "year"
)

var types = []Type{String, Integer, Number, Boolean, Date, DateTime, Time, Year}

// Format refines a string field.
type Format string

// The formats of a string field.
const (
	Default  Format = "default"
	Email    Format = "email"
	URI      Format = "uri"
	UUID     Format = "uuid"
	Phone    Format = "phone"
	Country  Format = "country"
	Currency Format = "currency"
)

var stringFormats = []Format{Default, Email, URI, UUID, Phone, Country, Currency}

// Constraints restrict a field's values. Nil pointers are absent.
type Constraints struct {
	Required  bool
	Unique    bool
	Enum      []string // canonical text of each allowed value
	Pattern   *regexp.Regexp
	Minimum   *string // canonical text (number, or ISO date/time/year)
	Maximum   *string
	MinLength *int
	MaxLength *int
	// InList is the id of a reference list the value must be in (also
	// what a Table Schema foreignKey to a list says).
	InList string
}

// Field is one column of the target.
type Field struct {
	Name        string
	Type        Type
	Format      Format
	Title       string
	Description string
	Constraints Constraints
	Aliases     []string
	TrueValues  []string
	FalseValues []string
	DecimalChar string // "" = auto ("." unless the column says otherwise)
	GroupChar   string // "" = auto
	// Compute is a CEL expression that derives the field's value from
	// the row after coercion (rules.go); "" for a field read from a column.
	Compute string
}

// Schema is a validated target schema.
type Schema struct {
	Fields        []Field
	MissingValues []string
	PrimaryKey    []string
	// Rules are CEL expressions each row must satisfy (rules.go).
	Rules []Rule
	// Hooks are the validation hooks the rows go through (hooks.go).
	Hooks []HookUse
}

// DefaultMissingValues is what counts as missing when the schema says nothing.
var DefaultMissingValues = []string{""}

// Index returns the position of the named field, or -1.
func (s *Schema) Index(name string) int {
	for i, f := range s.Fields {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// MaxFields bounds a schema's width, like the column limit of files.
const MaxFields = 1000

// Parse validates a schema document. Its error is a *domain.Error with
// code invalid_schema and one FieldError per problem, paths relative to
// the schema (prefix them with "schema." in an API answer).
func Parse(data []byte) (*Schema, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var raw any
	if err := dec.Decode(&raw); err != nil {
		return nil, invalid([]domain.FieldError{{Field: "", Message: "not valid JSON: " + err.Error()}})
	}
	if dec.More() {
		return nil, invalid([]domain.FieldError{{Field: "", Message: "more than one JSON document"}})
	}
	p := &parser{}
	s := p.schema(raw)
	if len(p.errs) > 0 {
		return nil, invalid(p.errs)
	}
	return s, nil
}

func invalid(errs []domain.FieldError) *domain.Error {
	return &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidSchema,
		Message: fmt.Sprintf("The target schema has %d problem(s); see errors.", len(errs)), Fields: errs}
}

type parser struct{ errs []domain.FieldError }

func (p *parser) add(path, format string, args ...any) {
	p.errs = append(p.errs, domain.FieldError{Field: path, Message: fmt.Sprintf(format, args...)})
}

func (p *parser) object(v any, path string, allowed ...string) map[string]any {
	m, ok := v.(map[string]any)
	if !ok {
		p.add(path, "must be an object")
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !slices.Contains(allowed, k) {
			p.add(join(path, k), "unknown key %q", k)
		}
	}
	return m
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func (p *parser) str(v any, path string) (string, bool) {
	s, ok := v.(string)
	if !ok {
		p.add(path, "must be a string")
	}
	return s, ok
}

func (p *parser) strings(v any, path string) []string {
	arr, ok := v.([]any)
	if !ok {
		p.add(path, "must be an array of strings")
		return nil
	}
	out := make([]string, 0, len(arr))
	for i, e := range arr {
		if s, ok := p.str(e, fmt.Sprintf("%s[%d]", path, i)); ok {
			out = append(out, s)
		}
	}
	return out
}

func (p *parser) schema(raw any) *Schema {
	m := p.object(raw, "", "fields", "missingValues", "primaryKey", "rules", "foreignKeys", "hooks")
	if m == nil {
		return nil
	}
	s := &Schema{MissingValues: DefaultMissingValues}
	fieldsRaw, ok := m["fields"].([]any)
	switch {
	case m["fields"] == nil:
		p.add("fields", "is required")
	case !ok:
		p.add("fields", "must be an array of field objects")
	case len(fieldsRaw) == 0:
		p.add("fields", "must have at least one field")
	case len(fieldsRaw) > MaxFields:
		p.add("fields", "has %d fields; the limit is %d", len(fieldsRaw), MaxFields)
	default:
		seen := map[string]int{}
		for i, fr := range fieldsRaw {
			path := fmt.Sprintf("fields[%d]", i)
			f, ok := p.field(fr, path)
			if !ok {
				continue
			}
			if j, dup := seen[f.Name]; dup {
				p.add(path+".name", "duplicates the name of fields[%d]", j)
			}
			seen[f.Name] = i
			s.Fields = append(s.Fields, f)
		}
	}
	if v, ok := m["missingValues"]; ok {
		s.MissingValues = p.strings(v, "missingValues")
	}
	if v, ok := m["primaryKey"]; ok {
		var keys []string
		if one, isStr := v.(string); isStr {
			keys = []string{one}
		} else {
			keys = p.strings(v, "primaryKey")
		}
		for i, k := range keys {
			if s.Index(k) < 0 && len(s.Fields) > 0 {
				p.add(fmt.Sprintf("primaryKey[%d]", i), "names no field: %q", k)
			}
		}
		s.PrimaryKey = keys
	}
	if v, ok := m["foreignKeys"]; ok {
		p.foreignKeys(v, s)
	}
	if v, ok := m["rules"]; ok {
		s.Rules = p.rules(v, s)
	}
	if v, ok := m["hooks"]; ok {
		s.Hooks = p.hooks(v, s)
	}
	p.expressions(s)
	return s
}

// fieldRule reads one key of a field object into the field.
type fieldRule struct {
	key string
	// read is called with the key's value when the key is present.
	read func(p *parser, v any, path string, f *Field)
	// missing, when set, is the problem of a field without the key.
	missing string
}

// fieldRules are a field's keys in the order they are read: a key's rule
// may look at the keys read before it (format, the type-specific keys and
// the constraints all depend on type).
var fieldRules = []fieldRule{
	{key: "name", read: (*parser).fieldName, missing: "is required"},
	{key: "type", read: (*parser).fieldType},
	{key: "format", read: (*parser).fieldFormat},
	{key: "title", read: func(p *parser, v any, path string, f *Field) { f.Title, _ = p.str(v, path) }},
	{key: "description", read: func(p *parser, v any, path string, f *Field) { f.Description, _ = p.str(v, path) }},
	{key: "aliases", read: func(p *parser, v any, path string, f *Field) { f.Aliases = p.strings(v, path) }},
	{key: "trueValues", read: booleanValues(func(f *Field) *[]string { return &f.TrueValues })},
	{key: "falseValues", read: booleanValues(func(f *Field) *[]string { return &f.FalseValues })},
	{key: "decimalChar", read: numberChar(func(f *Field) *string { return &f.DecimalChar })},
	{key: "groupChar", read: func(p *parser, v any, path string, f *Field) {
		numberChar(func(f *Field) *string { return &f.GroupChar })(p, v, path, f)
		if f.DecimalChar != "" && f.DecimalChar == f.GroupChar {
			p.add(path, "must differ from decimalChar")
		}
	}},
	{key: "constraints", read: func(p *parser, v any, path string, f *Field) { f.Constraints = p.constraints(v, path, *f) }},
	{key: "compute", read: (*parser).compute},
}

var fieldKeys = func() []string {
	keys := make([]string, len(fieldRules))
	for i, r := range fieldRules {
		keys[i] = r.key
	}
	return keys
}()

func (p *parser) field(raw any, path string) (Field, bool) {
	m := p.object(raw, path, fieldKeys...)
	if m == nil {
		return Field{}, false
	}
	before := len(p.errs)
	f := Field{Type: String, Format: Default}
	for _, r := range fieldRules {
		v, ok := m[r.key]
		switch {
		case ok:
			r.read(p, v, path+"."+r.key, &f)
		case r.missing != "":
			p.add(path+"."+r.key, "%s", r.missing)
		}
	}
	return f, len(p.errs) == before
}

func (p *parser) fieldName(v any, path string, f *Field) {
	s, ok := p.str(v, path)
	if !ok {
		return
	}
	if strings.TrimSpace(s) == "" || len(s) > 200 {
		p.add(path, "must be 1 to 200 characters")
	}
	if s == "_extra" {
		p.add(path, "_extra is reserved for unmapped columns")
	}
	f.Name = s
}

func (p *parser) fieldType(v any, path string, f *Field) {
	s, ok := p.str(v, path)
	if !ok {
		return
	}
	if !slices.Contains(types, Type(s)) {
		p.add(path, "unknown type %q (want one of string, integer, number, boolean, date, datetime, time, year)", s)
	}
	f.Type = Type(s)
}

func (p *parser) fieldFormat(v any, path string, f *Field) {
	s, ok := p.str(v, path)
	if !ok {
		return
	}
	f.Format = Format(s)
	switch {
	case f.Type == String && !slices.Contains(stringFormats, f.Format):
		p.add(path, "unknown string format %q (want default, email, uri, uuid, phone, country or currency)", s)
	case f.Type != String && f.Format != Default:
		p.add(path, "type %s has no format %q (only \"default\")", f.Type, s)
	}
}

// booleanValues reads trueValues or falseValues, which only a boolean
// field has.
func booleanValues(field func(*Field) *[]string) func(*parser, any, string, *Field) {
	return func(p *parser, v any, path string, f *Field) {
		if f.Type != Boolean {
			p.add(path, "only applies to boolean fields")
		}
		*field(f) = p.strings(v, path)
	}
}

// numberChar reads decimalChar or groupChar, which only a number or an
// integer field has.
func numberChar(field func(*Field) *string) func(*parser, any, string, *Field) {
	return func(p *parser, v any, path string, f *Field) {
		s, _ := p.str(v, path)
		if f.Type != Number && f.Type != Integer {
			p.add(path, "only applies to number and integer fields")
		}
		if len([]rune(s)) != 1 {
			p.add(path, "must be one character")
		}
		*field(f) = s
	}
}

// constraintRule reads one key of a field's constraints.
type constraintRule struct {
	key  string
	read func(p *parser, v any, path string, f Field, c *Constraints)
}

// constraintRules are the constraints' keys in the order they are read.
var constraintRules = []constraintRule{
	{"required", flag(func(c *Constraints) *bool { return &c.Required })},
	{"unique", flag(func(c *Constraints) *bool { return &c.Unique })},
	{"enum", (*parser).enum},
	{"pattern", (*parser).pattern},
	{"minimum", bound(func(c *Constraints) **string { return &c.Minimum })},
	{"maximum", bound(func(c *Constraints) **string { return &c.Maximum })},
	{"minLength", length(func(c *Constraints) **int { return &c.MinLength })},
	{"maxLength", length(func(c *Constraints) **int { return &c.MaxLength })},
	{"inList", (*parser).inList},
}

var constraintKeys = func() []string {
	keys := make([]string, len(constraintRules))
	for i, r := range constraintRules {
		keys[i] = r.key
	}
	return keys
}()

func (p *parser) constraints(raw any, path string, f Field) Constraints {
	m := p.object(raw, path, constraintKeys...)
	var c Constraints
	if m == nil {
		return c
	}
	for _, r := range constraintRules {
		if v, ok := m[r.key]; ok {
			r.read(p, v, path+"."+r.key, f, &c)
		}
	}
	if c.MinLength != nil && c.MaxLength != nil && *c.MinLength > *c.MaxLength {
		p.add(path+".minLength", "is greater than maxLength")
	}
	return c
}

// flag reads required or unique.
func flag(field func(*Constraints) *bool) func(*parser, any, string, Field, *Constraints) {
	return func(p *parser, v any, path string, _ Field, c *Constraints) {
		b, isBool := v.(bool)
		if !isBool {
			p.add(path, "must be true or false")
		}
		*field(c) = b
	}
}

func (p *parser) enum(v any, path string, f Field, c *Constraints) {
	arr, isArr := v.([]any)
	if !isArr || len(arr) == 0 {
		p.add(path, "must be a non-empty array")
	}
	for i, e := range arr {
		if text, ok := p.value(e, f.Type, fmt.Sprintf("%s[%d]", path, i)); ok {
			c.Enum = append(c.Enum, text)
		}
	}
}

func (p *parser) pattern(v any, path string, _ Field, c *Constraints) {
	s, ok := p.str(v, path)
	if !ok {
		return
	}
	re, err := regexp.Compile("^(?:" + s + ")$")
	if err != nil {
		p.add(path, "is not a valid regular expression: %v", err)
	}
	c.Pattern = re
}

// bound reads minimum or maximum, a value of the field's type; strings
// and booleans have none.
func bound(field func(*Constraints) **string) func(*parser, any, string, Field, *Constraints) {
	return func(p *parser, v any, path string, f Field, c *Constraints) {
		if f.Type == String || f.Type == Boolean {
			p.add(path, "does not apply to %s fields (use minLength/maxLength)", f.Type)
			return
		}
		if text, ok := p.value(v, f.Type, path); ok {
			*field(c) = &text
		}
	}
}

// length reads minLength or maxLength.
func length(field func(*Constraints) **int) func(*parser, any, string, Field, *Constraints) {
	return func(p *parser, v any, path string, _ Field, c *Constraints) {
		n, isNum := v.(json.Number)
		i, err := n.Int64()
		if !isNum || err != nil || i < 0 {
			p.add(path, "must be a whole number ≥ 0")
			return
		}
		ii := int(i)
		*field(c) = &ii
	}
}

// value checks a constraint value against the field type and returns its
// canonical text.
func (p *parser) value(v any, t Type, path string) (string, bool) {
	switch t {
	case Integer, Number, Year:
		n, ok := v.(json.Number)
		if !ok {
			if s, isStr := v.(string); isStr {
				n, ok = json.Number(s), true
			}
		}
		if !ok {
			p.add(path, "must be a number")
			return "", false
		}
		if t != Number && strings.ContainsAny(n.String(), ".eE") {
			p.add(path, "must be a whole number")
			return "", false
		}
		if _, err := n.Float64(); err != nil {
			p.add(path, "must be a number")
			return "", false
		}
		return n.String(), true
	case Boolean:
		b, ok := v.(bool)
		if !ok {
			p.add(path, "must be true or false")
			return "", false
		}
		return fmt.Sprint(b), true
	case Date:
		s, ok := v.(string)
		if !ok || !isoDate.MatchString(s) {
			p.add(path, "must be a date as YYYY-MM-DD")
			return "", false
		}
		return s, true
	default:
		s, ok := v.(string)
		if !ok {
			p.add(path, "must be a string")
		}
		return s, ok
	}
}

var isoDate = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

// Saved is a schema an organization stored under a name for later jobs.
type Saved struct {
	ID        string
	OrgID     string
	Name      string
	Document  []byte // canonical JSON
	CreatedAt time.Time
	// DestinationIDs are where the rows of a job made with this schema
	// go when its options name no destination (application/destinations).
	DestinationIDs []string
}
