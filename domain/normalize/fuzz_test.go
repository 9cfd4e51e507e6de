package normalize

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/domain/schema"
)

// FuzzJSONString: any text from any file is written as a valid JSON
// string.
func FuzzJSONString(f *testing.F) {
	for _, s := range []string{"Ann@Example.com", "a\"b\\c", "tab\there", "\x00\x1f\u2028", "\xff\xfe", "México"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !json.Valid(appendJSONString(nil, s)) {
			t.Fatalf("JSON string of %q is invalid", s)
		}
	})
}

// FuzzInfer: whatever the header and cells, infer fails with a code or
// proposes a schema that parses and that normalizes the same records.
func FuzzInfer(f *testing.F) {
	f.Add("a,b,a", "1,x,2024-01-31\nNULL,y,31/01/2024")
	f.Add("", "")
	f.Add(strings.Repeat("h", 300)+","+strings.Repeat("h", 301), "1,2")
	f.Add("Amount,Price", "\"1,5\",£68,486.66\nn/a,None")
	f.Fuzz(func(t *testing.T, header, body string) {
		rows := [][]string{splitCells(header)}
		for _, line := range strings.Split(body, "\n") {
			rows = append(rows, splitCells(line))
		}
		if len(rows) > 50 {
			rows = rows[:50]
		}
		r := execute(t, ModeInfer, nil, "", source("", rows...))
		if r.err != nil {
			var fl *Failure
			if !errors.As(r.err, &fl) || fl.Code == "internal_error" {
				t.Fatalf("%v", r.err)
			}
			return
		}
		if _, err := schema.Parse(r.res.InferredSchema.JSON()); err != nil {
			t.Fatalf("proposed schema does not parse: %v", err)
		}
	})
}

func splitCells(line string) []string {
	if line == "" {
		return nil
	}
	return strings.Split(line, ",")
}
