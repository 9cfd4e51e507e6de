package delimited

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/formats/detect"
	"github.com/tabnorm/tabnorm/adapters/formats/internal/formatstest"
	"github.com/tabnorm/tabnorm/domain/table"
)

// TestHeaderRowBounded: a header_row far down the file is reached without
// holding the rows above it, and a value over the cap is refused.
func TestHeaderRowBounded(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range 12_000 {
		fmt.Fprintf(&b, "%d,%s\n", i, strings.Repeat("x", 100))
	}
	path := formatstest.WriteFile(t, "f.csv", []byte(b.String()))
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	head := make([]byte, 64<<10) // what the Opener sniffs (formats.SniffSize)
	n, _ := f.Read(head)
	te := detect.Encoding(head[:n])
	d, err := Open(t.Context(), f, head[:n], "f.csv", te, table.ReadOptions{HeaderRow: table.MaxHeaderRow})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if d.header[0] != "9999" || len(d.pending) > detect.SampleRecords || d.det.SkippedCount != table.MaxHeaderRow-1 || len(d.det.SkippedRows) != detect.MaxSkippedRows {
		t.Fatalf("header %q, %d records held, %d skipped (%d listed)", d.header, len(d.pending), d.det.SkippedCount, len(d.det.SkippedRows))
	}
	if _, err := Open(t.Context(), f, head[:n], "f.csv", te, table.ReadOptions{HeaderRow: table.MaxHeaderRow + 1}); !errors.Is(err, table.ErrUnreadable) {
		t.Fatalf("header_row over the cap: %v", err)
	}
}
