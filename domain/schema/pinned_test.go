package schema

import (
	"errors"
	"slices"
	"testing"

	"github.com/tabnorm/tabnorm/domain"
)

// TestParse_pinned holds Parse to exact answers, every problem in order
// and the canonical JSON of what parses, over documents that use each key
// of a field and of its constraints, right and wrong.
func TestParse_pinned(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		doc, json string
		problems  []string
	}{
		{doc: "{\"fields\":[{\"name\":\"a\",\"type\":\"number\",\"format\":\"default\",\"title\":\"A\",\"description\":\"d\",\"aliases\":[\"x\",\"y\"],\"decimalChar\":\",\",\"groupChar\":\".\",\"constraints\":{\"required\":true,\"unique\":false,\"enum\":[1,2.5,\"3\"],\"minimum\":0,\"maximum\":\"10\"}}]}",
			json:     "{\"fields\":[{\"name\":\"a\",\"type\":\"number\",\"title\":\"A\",\"description\":\"d\",\"constraints\":{\"required\":true,\"enum\":[1,2.5,3],\"minimum\":0,\"maximum\":10},\"aliases\":[\"x\",\"y\"],\"decimalChar\":\",\",\"groupChar\":\".\"}],\"missingValues\":[\"\"]}",
			problems: []string(nil)},
		{doc: "{\"fields\":[{\"name\":\"b\",\"type\":\"boolean\",\"trueValues\":[\"y\"],\"falseValues\":[\"n\"],\"constraints\":{\"enum\":[true]}}]}",
			json:     "{\"fields\":[{\"name\":\"b\",\"type\":\"boolean\",\"constraints\":{\"enum\":[true]},\"trueValues\":[\"y\"],\"falseValues\":[\"n\"]}],\"missingValues\":[\"\"]}",
			problems: []string(nil)},
		{doc: "{\"fields\":[{\"name\":\"c\",\"type\":\"string\",\"format\":\"email\",\"constraints\":{\"pattern\":\"[a-z]+\",\"minLength\":1,\"maxLength\":5}}]}",
			json:     "{\"fields\":[{\"name\":\"c\",\"type\":\"string\",\"format\":\"email\",\"constraints\":{\"pattern\":\"[a-z]+\",\"minLength\":1,\"maxLength\":5}}],\"missingValues\":[\"\"]}",
			problems: []string(nil)},
		{doc: "{\"fields\":[{\"name\":\"d\",\"type\":\"date\",\"constraints\":{\"minimum\":\"2024-01-01\",\"maximum\":\"2024-12-31\",\"enum\":[\"2024-06-01\"]}}]}",
			json:     "{\"fields\":[{\"name\":\"d\",\"type\":\"date\",\"constraints\":{\"enum\":[\"2024-06-01\"],\"minimum\":\"2024-01-01\",\"maximum\":\"2024-12-31\"}}],\"missingValues\":[\"\"]}",
			problems: []string(nil)},
		{doc: "{\"fields\":[{\"name\":\"e\",\"type\":\"year\",\"constraints\":{\"minimum\":1900,\"enum\":[2000]}}]}",
			json:     "{\"fields\":[{\"name\":\"e\",\"type\":\"year\",\"constraints\":{\"enum\":[2000],\"minimum\":1900}}],\"missingValues\":[\"\"]}",
			problems: []string(nil)},
		{doc: "{\"fields\":[{\"name\":1,\"type\":2,\"format\":3,\"title\":4,\"description\":5,\"aliases\":6,\"trueValues\":7,\"falseValues\":8,\"decimalChar\":9,\"groupChar\":10,\"constraints\":11}]}",
			json:     "",
			problems: []string{"fields[0].name: must be a string", "fields[0].type: must be a string", "fields[0].format: must be a string", "fields[0].title: must be a string", "fields[0].description: must be a string", "fields[0].aliases: must be an array of strings", "fields[0].trueValues: only applies to boolean fields", "fields[0].trueValues: must be an array of strings", "fields[0].falseValues: only applies to boolean fields", "fields[0].falseValues: must be an array of strings", "fields[0].decimalChar: must be a string", "fields[0].decimalChar: only applies to number and integer fields", "fields[0].decimalChar: must be one character", "fields[0].groupChar: must be a string", "fields[0].groupChar: only applies to number and integer fields", "fields[0].groupChar: must be one character", "fields[0].constraints: must be an object"}},
		{doc: "{\"fields\":[{\"name\":\"\",\"type\":\"string\"},{\"name\":\"_extra\"},{\"name\":\"x\",\"type\":\"money\",\"format\":\"iban\"}]}",
			json:     "",
			problems: []string{"fields[0].name: must be 1 to 200 characters", "fields[1].name: _extra is reserved for unmapped columns", "fields[2].type: unknown type \"money\" (want one of string, integer, number, boolean, date, datetime, time, year)", "fields[2].format: type money has no format \"iban\" (only \"default\")"}},
		{doc: "{\"fields\":[{\"name\":\"f\",\"type\":\"integer\",\"decimalChar\":\".\",\"groupChar\":\".\"}]}",
			json:     "",
			problems: []string{"fields[0].groupChar: must differ from decimalChar"}},
		{doc: "{\"fields\":[{\"name\":\"g\",\"type\":\"string\",\"decimalChar\":\"ab\",\"groupChar\":\"\"}]}",
			json:     "",
			problems: []string{"fields[0].decimalChar: only applies to number and integer fields", "fields[0].decimalChar: must be one character", "fields[0].groupChar: only applies to number and integer fields", "fields[0].groupChar: must be one character"}},
		{doc: "{\"fields\":[{\"name\":\"h\",\"trueValues\":\"y\",\"falseValues\":[1]}]}",
			json:     "",
			problems: []string{"fields[0].trueValues: only applies to boolean fields", "fields[0].trueValues: must be an array of strings", "fields[0].falseValues: only applies to boolean fields", "fields[0].falseValues[0]: must be a string"}},
		{doc: "{\"fields\":[{\"name\":\"i\",\"type\":\"integer\",\"format\":\"email\"}]}",
			json:     "",
			problems: []string{"fields[0].format: type integer has no format \"email\" (only \"default\")"}},
		{doc: "{\"fields\":[{\"name\":\"j\",\"constraints\":{\"required\":\"yes\",\"unique\":1,\"enum\":[],\"pattern\":\"(\",\"minimum\":1,\"maximum\":2,\"minLength\":-1,\"maxLength\":1.5,\"other\":true}}]}",
			json:     "",
			problems: []string{"fields[0].constraints.other: unknown key \"other\"", "fields[0].constraints.required: must be true or false", "fields[0].constraints.unique: must be true or false", "fields[0].constraints.enum: must be a non-empty array", "fields[0].constraints.pattern: is not a valid regular expression: error parsing regexp: missing closing ): `^(?:()$`", "fields[0].constraints.minimum: does not apply to string fields (use minLength/maxLength)", "fields[0].constraints.maximum: does not apply to string fields (use minLength/maxLength)", "fields[0].constraints.minLength: must be a whole number ≥ 0", "fields[0].constraints.maxLength: must be a whole number ≥ 0"}},
		{doc: "{\"fields\":[{\"name\":\"k\",\"type\":\"integer\",\"constraints\":{\"enum\":\"x\",\"minimum\":\"1.5\",\"maximum\":\"abc\",\"minLength\":3,\"maxLength\":2}}]}",
			json:     "",
			problems: []string{"fields[0].constraints.enum: must be a non-empty array", "fields[0].constraints.minimum: must be a whole number", "fields[0].constraints.maximum: must be a number", "fields[0].constraints.minLength: is greater than maxLength"}},
		{doc: "{\"fields\":[{\"name\":\"l\",\"type\":\"boolean\",\"constraints\":{\"minimum\":true,\"enum\":[\"yes\"]}}]}",
			json:     "",
			problems: []string{"fields[0].constraints.enum[0]: must be true or false", "fields[0].constraints.minimum: does not apply to boolean fields (use minLength/maxLength)"}},
		{doc: "{\"fields\":[{\"name\":\"m\",\"type\":\"date\",\"constraints\":{\"enum\":[20240101],\"minimum\":\"2024/01/01\"}}]}",
			json:     "",
			problems: []string{"fields[0].constraints.enum[0]: must be a date as YYYY-MM-DD", "fields[0].constraints.minimum: must be a date as YYYY-MM-DD"}},
		{doc: "{\"fields\":[{\"name\":\"n\",\"type\":\"number\",\"constraints\":{\"enum\":[1e3,\"2E2\",{\"a\":1}]}}]}",
			json:     "",
			problems: []string{"fields[0].constraints.enum[2]: must be a number"}},
		{doc: "{\"fields\":[{\"name\":\"o\",\"type\":\"datetime\",\"constraints\":{\"enum\":[\"x\",1]}}]}",
			json:     "",
			problems: []string{"fields[0].constraints.enum[1]: must be a string"}},
		{doc: "{\"fields\":[{\"name\":\"p\",\"constraints\":[]}]}",
			json:     "",
			problems: []string{"fields[0].constraints: must be an object"}},
		{doc: "{\"fields\":[\"q\"]}",
			json:     "",
			problems: []string{"fields[0]: must be an object"}},
		{doc: "{\"fields\":[{\"name\":\"r\"},{\"name\":\"r\"},{\"name\":\"s\"}],\"primaryKey\":\"s\",\"missingValues\":[\"\",\"NA\"]}",
			json:     "",
			problems: []string{"fields[1].name: duplicates the name of fields[0]"}},
		{doc: "{\"fields\":[{\"name\":\"t\"}],\"primaryKey\":[\"t\",\"u\"],\"missingValues\":\"NA\"}",
			json:     "",
			problems: []string{"missingValues: must be an array of strings", "primaryKey[1]: names no field: \"u\""}},
		{doc: "{\"fields\":[{\"name\":\"v\",\"zz\":1,\"aa\":2}],\"z\":1,\"a\":2}",
			json:     "",
			problems: []string{"a: unknown key \"a\"", "z: unknown key \"z\"", "fields[0].aa: unknown key \"aa\"", "fields[0].zz: unknown key \"zz\""}},
		{doc: "{\"fields\":{}}",
			json:     "",
			problems: []string{"fields: must be an array of field objects"}},
		{doc: "{\"fields\":[{\"name\":\"w\",\"type\":\"number\",\"decimalChar\":\"،\"}]}",
			json:     "{\"fields\":[{\"name\":\"w\",\"type\":\"number\",\"decimalChar\":\"،\"}],\"missingValues\":[\"\"]}",
			problems: []string(nil)},
	} {
		s, err := Parse([]byte(c.doc))
		var problems []string
		var coded *domain.Error
		if errors.As(err, &coded) {
			for _, f := range coded.Fields {
				problems = append(problems, f.Field+": "+f.Message)
			}
		}
		got := ""
		if s != nil {
			got = string(s.JSON())
		}
		if got != c.json || !slices.Equal(problems, c.problems) {
			t.Errorf("%s:\n got %s %q\nwant %s %q", c.doc, got, problems, c.json, c.problems)
		}
	}
}
