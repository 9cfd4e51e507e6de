package review

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/normalize"
)

func ptr(s string) *string { return &s }

func TestRerunOptions(t *testing.T) {
	t.Parallel()
	opts, _ := normalize.ParseOptions(normalize.ModeNormalize, []byte(`{"review":true,"date_order":"MDY","mapping":{"Aktiv":"active","Notes":null},"value_map":{"active":{"ja":"true"}}}`))
	orig := job.Job{ID: "job_1", Options: opts.JSON(), Schema: []byte(`{"fields":[{"name":"name"},{"name":"active","type":"boolean"},{"name":"joined","type":"date"}]}`),
		Mapping: []byte(`[{"source_column":"Name","field":"name","method":"normalized","confidence":1},{"source_column":"Aktiv","field":"active","method":"explicit","confidence":1},
			{"source_column":"Eintritt","field":null,"method":null,"confidence":null},{"source_column":"Notes","field":null,"method":null,"confidence":null}]`)}
	cases := []struct {
		name string
		req  RerunRequest
		want string // date_order review value_map mapping, or the error's code and first field
	}{
		{"inherits, review off", RerunRequest{}, `"MDY" false {"active":{"ja":"true"}} {"Aktiv":"active","Eintritt":null,"Name":"name","Notes":null}`},
		{"options key by key", RerunRequest{Options: []byte(`{"date_order":"DMY","value_map":{"joined":{"x":"2024-01-01"}}}`)},
			`"DMY" false {"joined":{"x":"2024-01-01"}} {"Aktiv":"active","Eintritt":null,"Name":"name","Notes":null}`},
		{"mapping column by column", RerunRequest{Options: []byte(`{"mapping":{"Eintritt":"joined"}}`), Mapping: map[string]*string{"Aktiv": nil}},
			`"MDY" false {"active":{"ja":"true"}} {"Aktiv":null,"Eintritt":"joined","Name":"name","Notes":null}`},
		{"review asked", RerunRequest{Options: []byte(`{"review":true}`)}, `"MDY" true {"active":{"ja":"true"}} {"Aktiv":"active","Eintritt":null,"Name":"name","Notes":null}`},
		{"unknown column", RerunRequest{Mapping: map[string]*string{"Nope": ptr("name")}}, "invalid_mapping mapping.Nope"},
		{"unknown field", RerunRequest{Options: []byte(`{"mapping":{"Name":"colour"}}`)}, "invalid_mapping options.mapping.Name"},
		{"options not an object", RerunRequest{Options: []byte(`[1]`)}, "invalid_request options"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			b, err := rerunOptions(orig, c.req)
			if err != nil {
				var coded *domain.Error
				if e, ok := err.(*domain.Error); ok {
					coded = e
				}
				if coded == nil || fmt.Sprintf("%s %s", coded.Code, coded.Fields[0].Field) != c.want {
					t.Fatalf("error %v, want %s", err, c.want)
				}
				return
			}
			var doc map[string]json.RawMessage
			if err := json.Unmarshal(b, &doc); err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprintf("%s %s %s %s", doc["date_order"], doc["review"], doc["value_map"], doc["mapping"]); got != c.want {
				t.Fatalf("got  %s\nwant %s", got, c.want)
			}
			if _, err := normalize.ParseOptions(normalize.ModeNormalize, b); err != nil {
				t.Fatalf("the rerun's options do not parse: %v", err)
			}
		})
	}
}

func TestDetectedMapping_filesThatDisagreeLeaveTheHeaderOut(t *testing.T) {
	t.Parallel()
	m := detectedMapping([]byte(`[{"source_file":"file_a","source_column":"Mail","field":"email"},{"source_file":"file_b","source_column":"Mail","field":null},
		{"source_file":"file_b","source_column":"Id","field":"id"},{"source_file":"file_a","source_column":"Id","field":"id"}]`))
	if fmt.Sprint(m) != "map[Id:id]" {
		t.Fatalf("%v", m)
	}
	if detectedMapping(nil) != nil {
		t.Fatal("no mapping yet should inherit nothing")
	}
}

func TestCountValues(t *testing.T) {
	t.Parallel()
	lines := []string{
		`{"row":1,"source_file":null,"column":"A","field":"active","severity":"error","code":"invalid_boolean","message":"m","value":"ja"}`,
		`{"row":2,"source_file":null,"column":"A","field":"active","severity":"error","code":"invalid_boolean","message":"m","value":"nein"}`,
		`{"row":3,"source_file":null,"column":"A","field":"active","severity":"error","code":"invalid_boolean","message":"m","value":"ja"}`,
		`{"row":3,"source_file":null,"column":"B","field":"activity","severity":"error","code":"invalid_boolean","message":"\"field\":\"active\"","value":"x"}`,
		`{"row":4,"source_file":null,"column":"A","field":"active","severity":"warning","code":"invalid_date","message":"m","value":"w"}`,
		`{"row":5,"source_file":null,"column":"A","field":"active","severity":"error","code":"required","message":"m","value":null}`,
		`{"row":6,"source_file":null,"column":"A","field":"active","severity":"error","code":"not_in_enum","message":"m","value":"` + strings.Repeat("z", 300<<10) + `"}`,
	}
	vals, distinct, capped, err := countValues(strings.NewReader(strings.Join(lines, "\n")+"\n"), "active")
	if err != nil || distinct != 3 || capped || len(vals) != 3 {
		t.Fatalf("%v %d %v %v", vals, distinct, capped, err)
	}
	if vals[0] != (InvalidValue{Value: "ja", Count: 2, Code: "invalid_boolean"}) || vals[1].Value != "nein" || len(vals[2].Value) != 300<<10 || vals[2].Code != "not_in_enum" {
		t.Fatalf("%+v", vals[:2])
	}
}

func TestValuesCursor(t *testing.T) {
	t.Parallel()
	c := valuesCursor("job_1", "active", 50)
	if n, err := valuesOffset(c, "job_1", "active"); err != nil || n != 50 {
		t.Fatalf("%d %v", n, err)
	}
	for _, bad := range []struct{ cursor, job, field string }{{c, "job_2", "active"}, {c, "job_1", "joined"}, {"%%%", "job_1", "active"},
		{valuesCursor("job_1", "active", MaxInvalidValues+1), "job_1", "active"}} {
		if _, err := valuesOffset(bad.cursor, bad.job, bad.field); domain.CodeOf(err) != "invalid_cursor" {
			t.Errorf("%+v: %v", bad, err)
		}
	}
	if len(valuesCursor("job_01m859mc02e009ytek98nn3yan", strings.Repeat("f", 500), 1000)) > 200 {
		t.Fatal("a long field name makes a cursor over the 200 characters a cursor may have")
	}
}
