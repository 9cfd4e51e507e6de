package schema

import (
	"encoding/json"
	"strings"
)

type constraintsDoc struct {
	Required  bool              `json:"required,omitempty"`
	Unique    bool              `json:"unique,omitempty"`
	Enum      []json.RawMessage `json:"enum,omitempty"`
	Pattern   string            `json:"pattern,omitempty"`
	Minimum   json.RawMessage   `json:"minimum,omitempty"`
	Maximum   json.RawMessage   `json:"maximum,omitempty"`
	MinLength *int              `json:"minLength,omitempty"`
	MaxLength *int              `json:"maxLength,omitempty"`
	InList    string            `json:"inList,omitempty"`
}

type fieldDoc struct {
	Name        string          `json:"name"`
	Type        Type            `json:"type"`
	Format      Format          `json:"format,omitempty"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	Constraints *constraintsDoc `json:"constraints,omitempty"`
	Aliases     []string        `json:"aliases,omitempty"`
	TrueValues  []string        `json:"trueValues,omitempty"`
	FalseValues []string        `json:"falseValues,omitempty"`
	DecimalChar string          `json:"decimalChar,omitempty"`
	GroupChar   string          `json:"groupChar,omitempty"`
	Compute     string          `json:"compute,omitempty"`
}

type schemaDoc struct {
	Fields        []fieldDoc   `json:"fields"`
	MissingValues []string     `json:"missingValues"`
	PrimaryKey    []string     `json:"primaryKey,omitempty"`
	Rules         []ruleDoc    `json:"rules,omitempty"`
	Hooks         []hookUseDoc `json:"hooks,omitempty"`
}

// JSON returns the canonical document of the schema: keys in a fixed
// order, defaults left out, so equal schemas have equal bytes. Parse
// accepts it back unchanged.
func (s *Schema) JSON() []byte {
	doc := schemaDoc{MissingValues: s.MissingValues, PrimaryKey: s.PrimaryKey}
	if doc.MissingValues == nil {
		doc.MissingValues = []string{}
	}
	for _, f := range s.Fields {
		fd := fieldDoc{Name: f.Name, Type: f.Type, Title: f.Title, Description: f.Description, Aliases: f.Aliases,
			TrueValues: f.TrueValues, FalseValues: f.FalseValues, DecimalChar: f.DecimalChar, GroupChar: f.GroupChar, Compute: f.Compute}
		if f.Format != Default && f.Format != "" {
			fd.Format = f.Format
		}
		c := f.Constraints
		cd := constraintsDoc{Required: c.Required, Unique: c.Unique, MinLength: c.MinLength, MaxLength: c.MaxLength, InList: c.InList}
		for _, e := range c.Enum {
			cd.Enum = append(cd.Enum, literal(e, f.Type))
		}
		if c.Pattern != nil {
			cd.Pattern = strings.TrimSuffix(strings.TrimPrefix(c.Pattern.String(), "^(?:"), ")$")
		}
		if c.Minimum != nil {
			cd.Minimum = literal(*c.Minimum, f.Type)
		}
		if c.Maximum != nil {
			cd.Maximum = literal(*c.Maximum, f.Type)
		}
		if cd.Required || cd.Unique || cd.Enum != nil || cd.Pattern != "" || cd.Minimum != nil || cd.Maximum != nil || cd.MinLength != nil || cd.MaxLength != nil || cd.InList != "" {
			fd.Constraints = &cd
		}
		doc.Fields = append(doc.Fields, fd)
	}
	doc.Rules = rulesDoc(s.Rules)
	doc.Hooks = hooksDoc(s.Hooks)
	b, err := json.Marshal(doc)
	if err != nil {
		panic(err) // only plain values above
	}
	return b
}

// literal writes a constraint value as the JSON type of its field.
func literal(text string, t Type) json.RawMessage {
	switch t {
	case Integer, Number, Year, Boolean:
		return json.RawMessage(text)
	}
	b, _ := json.Marshal(text)
	return b
}
