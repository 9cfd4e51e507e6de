package formats

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/formats/internal/formatstest"
	"github.com/tabnorm/tabnorm/domain/table"
)

// TestReadersStopWithTheContext: every reader stops, with the context's
// error, once the job's context ends: at Open, and in the middle of a
// file within a buffer's reading.
func TestReadersStopWithTheContext(t *testing.T) {
	t.Parallel()
	var csv, jsonl, rows strings.Builder
	csv.WriteString("id,name\n")
	rows.WriteString(`<sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>id</t></is></c></row>`)
	for i := range 200_000 {
		fmt.Fprintf(&csv, "%d,name %d\n", i, i)
		fmt.Fprintf(&jsonl, "{\"id\":%d,\"name\":\"name %d\"}\n", i, i)
		fmt.Fprintf(&rows, `<row r="%d"><c r="A%d"><v>%d</v></c></row>`, i+2, i+2, i)
	}
	rows.WriteString(`</sheetData>`)
	files := map[string][]byte{"f.csv": []byte(csv.String()), "f.jsonl": []byte(jsonl.String()), "f.xlsx": formatstest.RawWorkbook(rows.String(), "", "", false)}
	for name, data := range files {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := formatstest.WriteFile(t, name, data)
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			if _, err := NewOpener().Open(ctx, p, name, table.ReadOptions{}); !errors.Is(err, context.Canceled) {
				t.Fatalf("Open with a canceled context: %v", err)
			}
			ctx, cancel = context.WithCancel(t.Context())
			defer cancel()
			r, err := NewOpener().Open(ctx, p, name, table.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			for range 100 {
				if _, err := r.Next(); err != nil {
					t.Fatal(err)
				}
			}
			cancel()
			n := 0
			for ; ; n++ {
				if _, err = r.Next(); err != nil {
					break
				}
			}
			if !errors.Is(err, context.Canceled) || n > 60_000 {
				t.Fatalf("after the cancel, %d more records, then %v", n, err)
			}
			if err == io.EOF {
				t.Fatal("read to the end")
			}
		})
	}
}
