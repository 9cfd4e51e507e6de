package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestNormalizeCommand(t *testing.T) {
	dir := t.TempDir()
	input := write(t, dir, "people.csv", "Name,E-mail,Joined\nAnn,ANN@x.io,31/01/2024\nBob,bob@,01/02/2024\n")
	schemaFile := write(t, dir, "schema.json", `{"fields":[{"name":"name"},{"name":"email","type":"string","format":"email"},{"name":"joined","type":"date"}]}`)
	errorsFile := filepath.Join(dir, "issues.jsonl")

	out, err := run(t, nil, "normalize", "--schema", schemaFile, "--errors", errorsFile, input)
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(out) != `{"name":"Ann","email":"ann@x.io","joined":"2024-01-31"}` {
		t.Fatalf("rows: %q", out)
	}
	issues, _ := os.ReadFile(errorsFile)
	var issue map[string]any
	if err := json.Unmarshal(issues, &issue); err != nil || issue["code"] != "invalid_email" || issue["row"] != 2.0 {
		t.Fatalf("issues: %s (%v)", issues, err)
	}

	outFile := filepath.Join(dir, "rows.jsonl")
	if _, err := run(t, nil, "normalize", "--mode", "validate", "--schema", schemaFile, "--out", outFile, input); err != nil {
		t.Fatal(err)
	}
	if rows, _ := os.ReadFile(outFile); len(rows) != 0 {
		t.Fatalf("validate kept rows that are not canonical: %s", rows)
	}

	out, err = run(t, nil, "normalize", "--mode", "infer", input)
	if err != nil {
		t.Fatal(err)
	}
	var inferred struct {
		InferredSchema struct {
			Fields []struct{ Name, Type, Format string }
		} `json:"inferred_schema"`
		Profile []map[string]any
	}
	if err := json.Unmarshal([]byte(out), &inferred); err != nil || len(inferred.InferredSchema.Fields) != 3 || inferred.InferredSchema.Fields[2].Type != "date" {
		t.Fatalf("infer printed %s (%v)", out, err)
	}
}

func TestNormalizeCommand_exitCodes(t *testing.T) {
	dir := t.TempDir()
	input := write(t, dir, "a.csv", "a\n1\n")
	schemaFile := write(t, dir, "schema.json", `{"fields":[{"name":"a"}]}`)
	cases := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no schema", []string{"normalize", input}, 2, "--schema is required"},
		{"bad schema", []string{"normalize", "--schema", write(t, dir, "bad.json", `{"fields":[{"name":"a","type":"money"}]}`), input}, 2, "fields[0].type"},
		{"bad options", []string{"normalize", "--schema", schemaFile, "--options", write(t, dir, "o.json", `{"colour":1}`), input}, 2, "options.colour"},
		{"bad mode", []string{"normalize", "--mode", "transform", "--schema", schemaFile, input}, 2, "Unknown mode"},
		{"missing input", []string{"normalize", "--schema", schemaFile, filepath.Join(dir, "nope.csv")}, 1, "no such file"},
		{"unreadable", []string{"normalize", "--schema", schemaFile, write(t, dir, "bin.csv", "\x00\x01\x02\x03\x04\x05\x06\x07\x08")}, 1, "unsupported_file_format"},
		{"unmapped required", []string{"normalize", "--schema", write(t, dir, "req.json", `{"fields":[{"name":"b","constraints":{"required":true}}]}`), input}, 1, "required_field_unmapped"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := run(t, nil, c.args...)
			if err == nil || exitCode(err) != c.code || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("err %v (exit %d), want exit %d mentioning %q", err, exitCode(err), c.code, c.msg)
			}
		})
	}
}

func TestNormalizeCommand_explainAndInferFailures(t *testing.T) {
	dir := t.TempDir()
	input := write(t, dir, "a.csv", "Amount,When\n\"0,5\",01/02/2024\n\"12,426\",13/02/2024\n")
	schemaFile := write(t, dir, "schema.json", `{"fields":[{"name":"amount","type":"number"},{"name":"when","type":"date"}]}`)
	var out, errOut bytes.Buffer
	root := newRoot(&out, &errOut)
	root.SetArgs([]string{"normalize", "--explain", "--schema", schemaFile, input})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	_, detected, ok := strings.Cut(errOut.String(), "tabnorm: detected: ")
	var d struct {
		Options struct {
			Columns map[string]struct{ Decimal, DateOrder string } `json:"columns"`
		} `json:"options"`
	}
	if !ok || json.Unmarshal([]byte(detected), &d) != nil || d.Options.Columns["Amount"].Decimal != "," {
		t.Fatalf("stderr %s", errOut.String())
	}
	if !strings.Contains(out.String(), `"amount":12.426`) {
		t.Fatalf("rows %s", out.String())
	}

	// A file infer cannot work on is exit 1 with its code, never a panic.
	_, err := run(t, nil, "normalize", "--mode", "infer", write(t, dir, "empty.jsonl", "{}\n{}\n"))
	if err == nil || exitCode(err) != 1 || !strings.Contains(err.Error(), "no columns") {
		t.Fatalf("err %v (exit %d)", err, exitCode(err))
	}
}
