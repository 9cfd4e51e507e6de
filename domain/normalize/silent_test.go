package normalize

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"testing"
)

// csvSource reads a small test file with the standard library's reader
// (this package does not read files itself).
func csvSource(t *testing.T, name string) Source {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return source("", rows...)
}

// TestBlankHeaderMapsByPosition: a column with a blank header cell (a
// dataframe's index) is named column_1 by infer, and normalize with that
// schema maps it by position: its values come through, never null.
func TestBlankHeaderMapsByPosition(t *testing.T) {
	t.Parallel()
	inf := execute(t, ModeInfer, nil, "", csvSource(t, "blank-header.csv"))
	if inf.err != nil || inf.res.InferredSchema == nil || inf.res.InferredSchema.Fields[0].Name != "column_1" {
		t.Fatalf("infer: %v %+v", inf.err, inf.res.InferredSchema)
	}
	got := execute(t, ModeNormalize, inf.res.InferredSchema, "", csvSource(t, "blank-header.csv"))
	if got.err != nil || len(got.rows) != 3 {
		t.Fatalf("%v %d rows", got.err, len(got.rows))
	}
	for i, r := range got.rows {
		if r["column_1"] == nil || r["city"] == nil {
			t.Fatalf("row %d: %v", i+1, r)
		}
	}
	m := got.res.Mapping[0]
	if m.SourceColumn != "" || m.Field != "column_1" || m.Method != "position" {
		t.Fatalf("mapping %+v", m)
	}
}
