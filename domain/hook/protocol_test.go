package hook

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func sentRows(nums ...int64) []Row {
	out := make([]Row, len(nums))
	for i, n := range nums {
		out[i] = Row{Row: n, Values: json.RawMessage(`{"email":"a@b.c"}`)}
	}
	return out
}

func TestParseAnswer_takes(t *testing.T) {
	body := `{"rows":[{"row":2,"issues":[{"field":"customer","severity":"error","code":"unknown_customer","message":"No such customer"}]},
	 {"row":3,"values":{"email":"x@y.z","age":42,"vip":true,"note":null}},{"row":4}]}`
	got, err := ParseAnswer([]byte(body), sentRows(2, 3, 4), []string{"email", "age", "vip", "note"}, []string{"customer", "email", "age", "vip", "note"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Row != 2 || got[0].Issues[0].Code != "unknown_customer" || got[1].Row != 3 || len(got[1].Corrections) != 4 {
		t.Fatalf("%+v", got)
	}
	want := map[string]Correction{"age": {Field: "age", Value: "42"}, "email": {Field: "email", Value: "x@y.z"}, "note": {Field: "note", Null: true}, "vip": {Field: "vip", Value: "true"}}
	for _, c := range got[1].Corrections {
		if want[c.Field] != c {
			t.Fatalf("correction %+v, want %+v", c, want[c.Field])
		}
	}
}

func TestParseAnswer_refuses(t *testing.T) {
	fields, schemaFields := []string{"email"}, []string{"email", "customer"}
	for name, body := range map[string]string{
		"not_json":        `rows`,
		"another_row":     `{"rows":[{"row":99,"issues":[]}]}`,
		"a_row_twice":     `{"rows":[{"row":1},{"row":1}]}`,
		"unlisted_field":  `{"rows":[{"row":1,"values":{"customer":"x"}}]}`,
		"bad_severity":    `{"rows":[{"row":1,"issues":[{"severity":"fatal","code":"x","message":"m"}]}]}`,
		"bad_code":        `{"rows":[{"row":1,"issues":[{"severity":"error","code":"Bad Code","message":"m"}]}]}`,
		"no_message":      `{"rows":[{"row":1,"issues":[{"severity":"error","code":"x","message":""}]}]}`,
		"long_message":    `{"rows":[{"row":1,"issues":[{"severity":"error","code":"x","message":"` + strings.Repeat("m", MaxMessage+1) + `"}]}]}`,
		"unknown_field":   `{"rows":[{"row":1,"issues":[{"field":"zip","severity":"error","code":"x","message":"m"}]}]}`,
		"an_object_value": `{"rows":[{"row":1,"values":{"email":{"a":1}}}]}`,
		"too_many_issues": `{"rows":[{"row":1,"issues":[` + strings.TrimSuffix(strings.Repeat(`{"severity":"warning","code":"x","message":"m"},`, MaxIssuesPerRow+1), ",") + `]}]}`,
	} {
		_, err := ParseAnswer([]byte(body), sentRows(1, 2), fields, schemaFields)
		if _, ok := errors.AsType[*ErrAnswer](err); !ok {
			t.Errorf("%s: err = %v, want the answer refused", name, err)
		}
	}
}

// TestBatch_Encode: the hand-written body decodes as json.Marshal's would,
// with each row's values as sent and a row without values as {}.
func TestBatch_Encode(t *testing.T) {
	b := Batch{Type: ValidateType, JobID: "job_1", Hook: "crm \"q\"", Rows: []Row{
		{Row: 2, Values: json.RawMessage(`{"email":"a@b.c","n":1.5,"ok":true,"x":null}`)}, {Row: 9}}}
	var back Batch
	if err := json.Unmarshal(b.Encode(), &back); err != nil {
		t.Fatalf("Encode wrote invalid JSON: %v\n%s", err, b.Encode())
	}
	if back.Type != ValidateType || back.JobID != "job_1" || back.Hook != b.Hook || len(back.Rows) != 2 || back.Rows[1].Row != 9 ||
		string(back.Rows[0].Values) != string(b.Rows[0].Values) || string(back.Rows[1].Values) != "{}" {
		t.Fatalf("decoded %+v, want %+v", back, b)
	}
	if v := back.Rows[0].Value("n"); string(v) != "1.5" || back.Rows[0].Value("none") != nil {
		t.Fatalf("Value(n) = %s, want 1.5 and nil for a field not sent", v)
	}
}
