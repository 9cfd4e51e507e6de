package formats

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/tabnorm/tabnorm/domain/table"
)

// readFuzz reads a fuzzed file to its end: it must neither panic nor hang,
// and errors must be of the two kinds callers handle.
func readFuzz(t *testing.T, data []byte, name string) {
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	limits := table.Limits{MaxColumns: 200, MaxCellBytes: 64 << 10, MaxUnzipBytes: 64 << 20}
	r, err := NewOpener().Open(context.Background(), p, name, table.ReadOptions{Limits: limits})
	if err != nil {
		return
	}
	defer r.Close()
	deadline := time.Now().Add(5 * time.Second)
	for n := 0; ; n++ {
		rec, err := r.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			return
		}
		if len(rec.Cells) > limits.MaxColumns {
			t.Fatalf("record with %d cells passed a %d-column limit", len(rec.Cells), limits.MaxColumns)
		}
		if n%1000 == 0 && time.Now().After(deadline) {
			t.Fatal("reading did not finish in 5 s")
		}
	}
}

func FuzzCSV(f *testing.F) {
	for _, s := range []string{"a,b\n1,2\n", "a;b\r\n\"x;y\";2\r\n", "\"unterminated\n", "sep=|\na|b\n", "a\tb\n\"q\"\"\"\t\n", "\xEF\xBB\xBFid\n\x00\n", "\xFF\xFEa\x00,\x00b\x00\n\x00"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		readFuzz(t, data, "f.csv")
		sameWithDetection(t, data, "f.csv")
	})
}

// sameWithDetection reads a file, then reads it again with its Detection
// as options: the header and the records must be the same.
func sameWithDetection(t *testing.T, data []byte, name string) {
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	limits := table.Limits{MaxColumns: 200, MaxCellBytes: 64 << 10}
	read := func(opts table.ReadOptions) (string, table.Detection, bool) {
		opts.Limits = limits
		r, err := NewOpener().Open(context.Background(), p, name, opts)
		if err != nil {
			return "", table.Detection{}, false
		}
		defer r.Close()
		d, ok := r.(table.Describer)
		if !ok {
			return "", table.Detection{}, false
		}
		var out strings.Builder
		fmt.Fprintf(&out, "%q\n", r.Header())
		for n := 0; n < 10_000; n++ {
			rec, err := r.Next()
			if err != nil {
				fmt.Fprintf(&out, "%v", err == io.EOF)
				break
			}
			fmt.Fprintf(&out, "%d %q %v\n", rec.Number, rec.Cells, rec.RowIssue != nil)
		}
		return out.String(), d.Detection(), true
	}
	first, det, ok := read(table.ReadOptions{})
	if !ok {
		return
	}
	again, _, ok := read(optionsOf(det))
	if !ok || again != first {
		t.Fatalf("with the Detection %+v as options:\n%s\nwant\n%s", det, again, first)
	}
}

// FuzzJSONL reads fuzzed JSON lines through the Opener; the JSON-lines
// reader's object scanner is checked against encoding/json on its own
// (jsonl.FuzzObjectScanner).
func FuzzJSONL(f *testing.F) {
	for _, s := range []string{`{"a":1}` + "\n" + `{"b":[1,{"c":null}]}`, `{"a":"\u00e9\ud83d"}`, "{\n", `{"a":1}` + "\nnot json\n", `{"":""}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { readFuzz(t, data, "f.jsonl") })
}

func FuzzXLSX(f *testing.F) {
	wb := excelize.NewFile()
	_ = wb.SetSheetRow("Sheet1", "A1", &[]any{"a", "b"})
	_ = wb.SetSheetRow("Sheet1", "A2", &[]any{1.5, "x"})
	var buf bytes.Buffer
	if err := wb.Write(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte("PK\x03\x04xl/workbook.xml"))
	f.Fuzz(func(t *testing.T, data []byte) { readFuzz(t, data, "f.xlsx") })
}
