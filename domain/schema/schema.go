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
}

// Schema is a validated target schema.
type Schema struct {
	Fields        []Field
	MissingValues []string
	PrimaryKey    []string
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
	m := p.object(raw, "", "fields", "missingValues", "primaryKey")
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
	return s
}

var fieldKeys = []string{"name", "type", "format", "title", "description", "constraints", "aliases",
	"trueValues", "falseValues", "decimalChar", "groupChar"}

func (p *parser) field(raw any, path string) (Field, bool) {
	m := p.object(raw, path, fieldKeys...)
	if m == nil {
		return Field{}, false
	}
	before := len(p.errs)
	f := Field{Type: String, Format: Default}
	if v, ok := m["name"]; !ok {
		p.add(path+".name", "is required")
	} else if s, ok := p.str(v, path+".name"); ok {
		if strings.TrimSpace(s) == "" || len(s) > 200 {
			p.add(path+".name", "must be 1 to 200 characters")
		}
		if s == "_extra" {
			p.add(path+".name", "_extra is reserved for unmapped columns")
		}
		f.Name = s
	}
	if v, ok := m["type"]; ok {
		if s, ok := p.str(v, path+".type"); ok {
			if !slices.Contains(types, Type(s)) {
				p.add(path+".type", "unknown type %q (want one of string, integer, number, boolean, date, datetime, time, year)", s)
			}
			f.Type = Type(s)
		}
	}
	if v, ok := m["format"]; ok {
		if s, ok := p.str(v, path+".format"); ok {
			f.Format = Format(s)
			switch {
			case f.Type == String && !slices.Contains(stringFormats, f.Format):
				p.add(path+".format", "unknown string format %q (want default, email, uri, uuid, phone, country or currency)", s)
			case f.Type != String && f.Format != Default:
				p.add(path+".format", "type %s has no format %q (only \"default\")", f.Type, s)
			}
		}
	}
	for _, k := range []string{"title", "description"} {
		if v, ok := m[k]; ok {
			s, _ := p.str(v, path+"."+k)
			if k == "title" {
				f.Title = s
			} else {
				f.Description = s
			}
		}
	}
	if v, ok := m["aliases"]; ok {
		f.Aliases = p.strings(v, path+".aliases")
	}
	for _, k := range []string{"trueValues", "falseValues"} {
		if v, ok := m[k]; ok {
			if f.Type != Boolean {
				p.add(path+"."+k, "only applies to boolean fields")
			}
			vals := p.strings(v, path+"."+k)
			if k == "trueValues" {
				f.TrueValues = vals
			} else {
				f.FalseValues = vals
			}
		}
	}
	for _, k := range []string{"decimalChar", "groupChar"} {
		if v, ok := m[k]; ok {
			s, _ := p.str(v, path+"."+k)
			if f.Type != Number && f.Type != Integer {
				p.add(path+"."+k, "only applies to number and integer fields")
			}
			if len([]rune(s)) != 1 {
				p.add(path+"."+k, "must be one character")
			}
			if k == "decimalChar" {
				f.DecimalChar = s
			} else {
				f.GroupChar = s
			}
		}
	}
	if f.DecimalChar != "" && f.DecimalChar == f.GroupChar {
		p.add(path+".groupChar", "must differ from decimalChar")
	}
	if v, ok := m["constraints"]; ok {
		f.Constraints = p.constraints(v, path+".constraints", f)
	}
	return f, len(p.errs) == before
}

func (p *parser) constraints(raw any, path string, f Field) Constraints {
	m := p.object(raw, path, "required", "unique", "enum", "pattern", "minimum", "maximum", "minLength", "maxLength")
	var c Constraints
	if m == nil {
		return c
	}
	for _, k := range []string{"required", "unique"} {
		if v, ok := m[k]; ok {
			b, isBool := v.(bool)
			if !isBool {
				p.add(path+"."+k, "must be true or false")
			}
			if k == "required" {
				c.Required = b
			} else {
				c.Unique = b
			}
		}
	}
	if v, ok := m["enum"]; ok {
		arr, isArr := v.([]any)
		if !isArr || len(arr) == 0 {
			p.add(path+".enum", "must be a non-empty array")
		}
		for i, e := range arr {
			text, ok := p.value(e, f.Type, fmt.Sprintf("%s.enum[%d]", path, i))
			if ok {
				c.Enum = append(c.Enum, text)
			}
		}
	}
	if v, ok := m["pattern"]; ok {
		if s, ok := p.str(v, path+".pattern"); ok {
			re, err := regexp.Compile("^(?:" + s + ")$")
			if err != nil {
				p.add(path+".pattern", "is not a valid regular expression: %v", err)
			}
			c.Pattern = re
		}
	}
	for _, k := range []string{"minimum", "maximum"} {
		if v, ok := m[k]; ok {
			if f.Type == String || f.Type == Boolean {
				p.add(path+"."+k, "does not apply to %s fields (use minLength/maxLength)", f.Type)
				continue
			}
			if text, ok := p.value(v, f.Type, path+"."+k); ok {
				if k == "minimum" {
					c.Minimum = &text
				} else {
					c.Maximum = &text
				}
			}
		}
	}
	for _, k := range []string{"minLength", "maxLength"} {
		if v, ok := m[k]; ok {
			n, isNum := v.(json.Number)
			i, err := n.Int64()
			if !isNum || err != nil || i < 0 {
				p.add(path+"."+k, "must be a whole number ≥ 0")
				continue
			}
			ii := int(i)
			if k == "minLength" {
				c.MinLength = &ii
			} else {
				c.MaxLength = &ii
			}
		}
	}
	if c.MinLength != nil && c.MaxLength != nil && *c.MinLength > *c.MaxLength {
		p.add(path+".minLength", "is greater than maxLength")
	}
	return c
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
}
