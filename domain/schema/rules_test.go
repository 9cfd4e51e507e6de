package schema

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/domain"
)

const withRules = `{"fields":[
   {"name":"start_date","type":"date"},
   {"name":"end_date","type":"date"},
   {"name":"country","type":"string","format":"country"},
   {"name":"zip","type":"string"},
   {"name":"quantity","type":"integer"},
   {"name":"price","type":"number"},
   {"name":"total","type":"number"},
   {"name":"full_name","type":"string","compute":"source['first_name'] + ' ' + source['last_name']"},
   {"name":"sku","type":"string","constraints":{"inList":"lst_0123abc"}},
   {"name":"code","type":"string"}],
 "foreignKeys":[{"fields":"code","reference":{"resource":"lst_codes","fields":"value"}}],
 "rules":[
   {"name":"end_after_start","expression":"row.end_date == null || row.start_date == null || row.end_date >= row.start_date",
    "message":"End date is before the start date","fields":["end_date"],"severity":"error"},
   {"name":"us_zip","expression":"row.country != 'US' || row.zip != null","message":"US addresses need a zip","fields":["zip"]},
   {"name":"total_matches","expression":"row.total == null || abs(row.total - double(row.quantity) * row.price) < 0.01","severity":"warning","fields":["total"]}]}`

func TestParse_rulesComputeAndLists(t *testing.T) {
	t.Parallel()
	s, err := Parse([]byte(withRules))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Rules) != 3 || s.Rules[1].Severity != SeverityError || s.Rules[2].Severity != SeverityWarning || s.Rules[0].Fields[0] != "end_date" {
		t.Fatalf("rules: %+v", s.Rules)
	}
	if s.Fields[7].Compute == "" || s.Fields[8].Constraints.InList != "lst_0123abc" || s.Fields[9].Constraints.InList != "lst_codes" {
		t.Fatalf("fields: %+v", s.Fields)
	}
	if got := s.Lists(); len(got) != 2 {
		t.Fatalf("lists %v", got)
	}
	again, err := Parse(s.JSON())
	if err != nil {
		t.Fatalf("canonical JSON does not parse: %v\n%s", err, s.JSON())
	}
	if string(again.JSON()) != string(s.JSON()) || len(again.Rules) != 3 {
		t.Fatalf("not stable:\n%s\n%s", s.JSON(), again.JSON())
	}
}

func TestParse_refusesBadExpressionsWithPathAndColumn(t *testing.T) {
	t.Parallel()
	const fields = `{"name":"a","type":"integer"},{"name":"b","type":"string"},{"name":"d","type":"date"}`
	hostile := "[" + strings.Repeat("1,", 99) + "1].all(x, [" + strings.Repeat("1,", 99) + "1].all(y, [" + strings.Repeat("1,", 99) + "1].all(z, x + y + z > 0)))"
	cases := []struct {
		name, doc, path, want string
	}{
		{"syntax", `{"fields":[` + fields + `],"rules":[{"name":"r","expression":"row.a >"}]}`, "rules[0].expression", "column"},
		{"unknown field", `{"fields":[` + fields + `],"rules":[{"name":"r","expression":"row.a > 1 && row.nope == 2"}]}`, "rules[0].expression", "row.nope names no field of the schema (line 1, column 14)"},
		{"not boolean", `{"fields":[` + fields + `],"rules":[{"name":"r","expression":"row.a + 1"}]}`, "rules[0].expression", "a rule must return a bool"},
		{"type error", `{"fields":[` + fields + `],"rules":[{"name":"r","expression":"row.a + 'x' == 1"}]}`, "rules[0].expression", "no matching overload"},
		{"cost", `{"fields":[` + fields + `],"rules":[{"name":"r","expression":"` + hostile + `"}]}`, "rules[0].expression", "the limit is 10000"},
		{"too long", `{"fields":[` + fields + `],"rules":[{"name":"r","expression":"` + strings.Repeat("true && ", 520) + `true"}]}`, "rules[0].expression", "the limit is 4096"},
		{"compute syntax", `{"fields":[` + fields + `,{"name":"c","compute":"row.b +"}]}`, "fields[3].compute", "column"},
		{"severity", `{"fields":[` + fields + `],"rules":[{"name":"r","expression":"true","severity":"fatal"}]}`, "rules[0].severity", "error"},
		{"rule field", `{"fields":[` + fields + `],"rules":[{"name":"r","expression":"true","fields":["zz"]}]}`, "rules[0].fields[0]", "names no field"},
		{"duplicate", `{"fields":[` + fields + `],"rules":[{"name":"r","expression":"true"},{"name":"r","expression":"true"}]}`, "rules[1].name", "duplicates"},
		{"list id", `{"fields":[{"name":"s","constraints":{"inList":"sch_1"}}]}`, "fields[0].constraints.inList", "lst_"},
		{"foreign key", `{"fields":[{"name":"s"}],"foreignKeys":[{"fields":"s","reference":{"resource":"lst_a","fields":"id"}}]}`, "foreignKeys[0].reference.fields", "value"},
		{"foreign key field", `{"fields":[{"name":"s"}],"foreignKeys":[{"fields":"t","reference":{"resource":"lst_a","fields":"value"}}]}`, "foreignKeys[0].fields", "names no field"},
	}
	many := make([]string, 101)
	for i := range many {
		many[i] = fmt.Sprintf(`{"name":"r%d","expression":"true"}`, i)
	}
	cases = append(cases, struct{ name, doc, path, want string }{"too many", `{"fields":[` + fields + `],"rules":[` + strings.Join(many, ",") + `]}`, "rules", "the limit is 100"})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse([]byte(tc.doc))
			var de *domain.Error
			if !errors.As(err, &de) || de.Code != domain.CodeInvalidSchema {
				t.Fatalf("want invalid_schema, got %v", err)
			}
			for _, fe := range de.Fields {
				if fe.Field == tc.path && strings.Contains(fe.Message, tc.want) {
					return
				}
			}
			t.Fatalf("want %s: …%s…, got %+v", tc.path, tc.want, de.Fields)
		})
	}
}
