package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The offline command runs rules and computed fields, and checks inList
// against --list files; a list the schema names but the command lacks is
// a failure, never an unchecked column.
func TestNormalizeCommand_rulesAndLists(t *testing.T) {
	dir := t.TempDir()
	input := write(t, dir, "orders.csv", "SKU,Qty,First,Last\nA1,2,Ada,Lovelace\nZZ,1,Alan,Turing\nB2,0,Grace,Hopper\n")
	skus := write(t, dir, "skus.txt", "B2\nA1\n")
	schemaFile := write(t, dir, "schema.json", `{"fields":[
	  {"name":"sku","constraints":{"inList":"lst_skus"}},
	  {"name":"qty","type":"integer"},
	  {"name":"name","compute":"source['First'] + ' ' + source['Last']"}],
	 "rules":[{"name":"positive","expression":"row.qty == null || row.qty > 0","fields":["qty"]}]}`)
	errorsFile := filepath.Join(dir, "issues.jsonl")
	out, err := run(t, nil, "normalize", "--schema", schemaFile, "--list", "lst_skus="+skus, "--errors", errorsFile, input)
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(out) != `{"sku":"A1","qty":2,"name":"Ada Lovelace"}` {
		t.Fatalf("rows: %q", out)
	}
	issues, _ := os.ReadFile(errorsFile)
	if !strings.Contains(string(issues), `"code":"not_in_list"`) || !strings.Contains(string(issues), `"rule":"positive"`) {
		t.Fatalf("issues: %s", issues)
	}
	if _, err := run(t, nil, "normalize", "--schema", schemaFile, input); err == nil || !strings.Contains(err.Error(), "lst_skus") {
		t.Fatalf("without --list: %v", err)
	}
	if _, err := run(t, nil, "normalize", "--schema", schemaFile, "--list", "skus="+skus, input); err == nil || exitCode(err) != 2 {
		t.Fatalf("a bad --list: %v", err)
	}
}
