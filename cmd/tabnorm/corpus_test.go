package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/test/corpus"
)

// TestNormalizeCommand_corpusRoundTrips runs shared corpus files through
// infer and then normalize with the proposed schema, as a new user would:
// files that crashed infer or lost rows to ragged records, missing-value
// spellings or decimal commas now keep every row.
func TestNormalizeCommand_corpusRoundTrips(t *testing.T) {
	dir := corpus.Dir(t)
	tmp := t.TempDir()
	for _, name := range []string{"commons-csv/test.csv", "messytables/weird_head_padding.csv", "phpspreadsheet/NumberFormatTest.de.csv", "rust-csv/strange.csv"} {
		t.Run(name, func(t *testing.T) {
			input := filepath.Join(dir, name)
			out, err := run(t, nil, "normalize", "--mode", "infer", input)
			if err != nil {
				t.Fatal(err)
			}
			var inferred struct {
				Schema json.RawMessage `json:"inferred_schema"`
			}
			if err := json.Unmarshal([]byte(out), &inferred); err != nil {
				t.Fatal(err)
			}
			schemaFile := write(t, tmp, strings.ReplaceAll(name, "/", "_")+".schema.json", string(inferred.Schema))
			issues := filepath.Join(tmp, strings.ReplaceAll(name, "/", "_")+".issues")
			if _, err := run(t, nil, "normalize", "--schema", schemaFile, "--errors", issues, "--out", os.DevNull, input); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(issues); strings.Contains(string(b), `"severity":"error"`) {
				t.Fatalf("rows rejected with the inferred schema:\n%s", b)
			}
		})
	}
	// A workbook with no sheet holding data fails infer with exit 1; one
	// whose first sheet is empty is read from its first sheet with data.
	if _, err := run(t, nil, "normalize", "--mode", "infer", filepath.Join(dir, "calamine/empty_sheet.xlsx")); err == nil || exitCode(err) != 1 {
		t.Errorf("calamine/empty_sheet.xlsx: %v (exit %d), want a failure with exit 1", err, exitCode(err))
	}
	if _, err := run(t, nil, "normalize", "--mode", "infer", filepath.Join(dir, "csvkit/sheets.xlsx")); err != nil {
		t.Errorf("csvkit/sheets.xlsx: %v, want its first sheet with data inferred", err)
	}
}
