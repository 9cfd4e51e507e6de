package schema

import (
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/domain"
)

const contacts = `{"fields":[
  {"name":"email","type":"string","format":"email","constraints":{"required":true,"unique":true},"aliases":["e-mail","mail"]},
  {"name":"signup_date","type":"date","constraints":{"minimum":"2000-01-01"}},
  {"name":"amount","type":"number","decimalChar":",","groupChar":"."},
  {"name":"qty","type":"integer","constraints":{"minimum":0,"maximum":1000}},
  {"name":"active","type":"boolean","trueValues":["ja"],"falseValues":["nein"]},
  {"name":"country","type":"string","format":"country"},
  {"name":"phone","type":"string","format":"phone"},
  {"name":"plan","type":"string","constraints":{"enum":["free","pro","enterprise"],"pattern":"[a-z]+","maxLength":20}}],
 "missingValues":["","NA","N/A","null","-"],
 "primaryKey":["email"]}`

func TestParse_valid(t *testing.T) {
	t.Parallel()
	s, err := Parse([]byte(contacts))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Fields) != 8 || s.Fields[0].Format != Email || !s.Fields[0].Constraints.Unique || s.Fields[2].DecimalChar != "," {
		t.Fatalf("%+v", s)
	}
	if *s.Fields[3].Constraints.Maximum != "1000" || s.Fields[7].Constraints.Pattern.MatchString("pro1") || !s.Fields[7].Constraints.Pattern.MatchString("pro") {
		t.Fatal("constraints")
	}
	if len(s.MissingValues) != 5 || s.PrimaryKey[0] != "email" || s.Index("phone") != 6 || s.Index("nope") != -1 {
		t.Fatal("schema-level keys")
	}
	// The canonical document parses back to the same document.
	again, err := Parse(s.JSON())
	if err != nil {
		t.Fatalf("canonical JSON does not parse: %v\n%s", err, s.JSON())
	}
	if string(again.JSON()) != string(s.JSON()) {
		t.Fatalf("not stable:\n%s\n%s", s.JSON(), again.JSON())
	}
}

func TestParse_defaults(t *testing.T) {
	t.Parallel()
	s, err := Parse([]byte(`{"fields":[{"name":"x"}]}`))
	if err != nil || s.Fields[0].Type != String || s.Fields[0].Format != Default || len(s.MissingValues) != 1 || s.MissingValues[0] != "" {
		t.Fatalf("%+v %v", s, err)
	}
}

func TestParse_reportsEveryProblemWithItsPath(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, doc string
		want      []string // "path: message fragment"
	}{
		{"not json", `{`, []string{": not valid JSON"}},
		{"not an object", `[]`, []string{": must be an object"}},
		{"no fields", `{}`, []string{"fields: is required"}},
		{"empty fields", `{"fields":[]}`, []string{"fields: must have at least one"}},
		{"unknown top key", `{"fields":[{"name":"a"}],"extra":1}`, []string{`extra: unknown key "extra"`}},
		{"unknown field key", `{"fields":[{"name":"a","money":true}]}`, []string{`fields[0].money: unknown key`}},
		{"unknown type", `{"fields":[{"name":"a"},{"name":"b"},{"name":"c","type":"money"}]}`, []string{`fields[2].type: unknown type "money"`}},
		{"unknown format", `{"fields":[{"name":"a","format":"iban"}]}`, []string{`fields[0].format: unknown string format`}},
		{"format on number", `{"fields":[{"name":"a","type":"number","format":"email"}]}`, []string{`fields[0].format: type number has no format`}},
		{"missing name", `{"fields":[{"type":"string"}]}`, []string{`fields[0].name: is required`}},
		{"duplicate name", `{"fields":[{"name":"a"},{"name":"a"}]}`, []string{`fields[1].name: duplicates the name of fields[0]`}},
		{"bad pattern", `{"fields":[{"name":"a","constraints":{"pattern":"("}}]}`, []string{`fields[0].constraints.pattern: is not a valid regular expression`}},
		{"unknown constraint", `{"fields":[{"name":"a","constraints":{"length":3}}]}`, []string{`fields[0].constraints.length: unknown key`}},
		{"enum of wrong type", `{"fields":[{"name":"a","type":"integer","constraints":{"enum":[1,"two",3.5]}}]}`, []string{`fields[0].constraints.enum[1]: must be a number`, `fields[0].constraints.enum[2]: must be a whole number`}},
		{"minimum on string", `{"fields":[{"name":"a","constraints":{"minimum":1}}]}`, []string{`fields[0].constraints.minimum: does not apply`}},
		{"bad date minimum", `{"fields":[{"name":"a","type":"date","constraints":{"minimum":"01/02/2024"}}]}`, []string{`fields[0].constraints.minimum: must be a date`}},
		{"minLength > maxLength", `{"fields":[{"name":"a","constraints":{"minLength":5,"maxLength":2}}]}`, []string{`fields[0].constraints.minLength: is greater than maxLength`}},
		{"trueValues on string", `{"fields":[{"name":"a","trueValues":["y"]}]}`, []string{`fields[0].trueValues: only applies to boolean`}},
		{"decimalChar two chars", `{"fields":[{"name":"a","type":"number","decimalChar":",,"}]}`, []string{`fields[0].decimalChar: must be one character`}},
		{"primaryKey unknown", `{"fields":[{"name":"a"}],"primaryKey":["a","b"]}`, []string{`primaryKey[1]: names no field: "b"`}},
		{"missingValues not strings", `{"fields":[{"name":"a"}],"missingValues":[1]}`, []string{`missingValues[0]: must be a string`}},
		{"required not bool", `{"fields":[{"name":"a","constraints":{"required":"yes"}}]}`, []string{`fields[0].constraints.required: must be true or false`}},
		{"several at once", `{"fields":[{"name":"a","type":"x"},{"name":"b","format":"y"}],"z":1}`, []string{"fields[0].type", "fields[1].format", "z: unknown key"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse([]byte(c.doc))
			if domain.CodeOf(err) != "invalid_schema" {
				t.Fatalf("err = %v, want invalid_schema", err)
			}
			var got []string
			for _, f := range err.(*domain.Error).Fields {
				got = append(got, f.Field+": "+f.Message)
			}
			joined := strings.Join(got, "\n")
			for _, w := range c.want {
				if !strings.Contains(joined, w) {
					t.Errorf("missing %q in\n%s", w, joined)
				}
			}
		})
	}
}

func FuzzSchemaParse(f *testing.F) {
	f.Add(contacts)
	f.Add(`{"fields":[{"name":"a","type":"integer","constraints":{"enum":[1,2]}}]}`)
	f.Add(`{"fields":[{"name":"a","constraints":{"pattern":"(a|b)*"}}],"primaryKey":"a"}`)
	f.Fuzz(func(t *testing.T, doc string) {
		s, err := Parse([]byte(doc))
		if err != nil {
			if domain.CodeOf(err) != "invalid_schema" {
				t.Fatalf("error without invalid_schema: %v", err)
			}
			return
		}
		if _, err := Parse(s.JSON()); err != nil {
			t.Fatalf("canonical form of a valid schema is invalid: %v\n%s", err, s.JSON())
		}
	})
}
