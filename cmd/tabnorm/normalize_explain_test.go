package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestNormalizeCommand_explainPrintsTheMapping: --explain prints the
// mapping on its own line as the API's mapping[] (source column, field,
// method, confidence, evidence), an unmapped column with a null field.
func TestNormalizeCommand_explainPrintsTheMapping(t *testing.T) {
	dir := t.TempDir()
	input := write(t, dir, "a.csv", "data,deceduti,note\n2020-05-23,394,x\n2020-05-24,395,y\n2020-05-25,399,z\n")
	schemaFile := write(t, dir, "schema.json", `{"fields":[{"name":"report_date","type":"date"},{"name":"deaths","type":"integer"}]}`)
	var out, errOut bytes.Buffer
	root := newRoot(&out, &errOut)
	root.SetArgs([]string{"normalize", "--explain", "--schema", schemaFile, input})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(errOut.String(), "tabnorm: mapping: ")
	line, _, _ := strings.Cut(rest, "\n")
	var mapping []struct {
		SourceColumn string   `json:"source_column"`
		Field        *string  `json:"field"`
		Method       *string  `json:"method"`
		Confidence   *float64 `json:"confidence"`
		Evidence     *struct {
			Header  float64 `json:"header"`
			Matched string  `json:"matched"`
		} `json:"evidence"`
	}
	if !ok || json.Unmarshal([]byte(line), &mapping) != nil || len(mapping) != 3 {
		t.Fatalf("stderr %s", errOut.String())
	}
	d := mapping[1]
	if d.SourceColumn != "deceduti" || d.Field == nil || *d.Field != "deaths" || *d.Method != "synonym" || *d.Confidence < 0.85 ||
		d.Evidence == nil || d.Evidence.Matched != "integer" {
		t.Errorf("deceduti: %s", line)
	}
	if n := mapping[2]; n.SourceColumn != "note" || n.Field != nil || n.Method != nil || n.Evidence != nil {
		t.Errorf("note: %s", line)
	}
	if !strings.Contains(errOut.String(), "tabnorm: detected: ") {
		t.Errorf("the detected options are no longer printed: %s", errOut.String())
	}
}
