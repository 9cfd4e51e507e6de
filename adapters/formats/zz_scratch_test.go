package formats

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/domain/table"
)

func TestScratchFile(t *testing.T) {
	p := os.Getenv("SCRATCH_FILE")
	if p == "" {
		t.Skip()
	}
	start := time.Now()
	r, err := NewOpener().Open(context.Background(), p, filepath.Base(p), table.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	var cells int
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		cells += len(rec.Cells)
		n++
	}
	t.Logf("%s: %d records %d cells header %q in %v, bytes %d", r.Format(), n, cells, r.Header(), time.Since(start), r.BytesRead())
}

func TestScratchDump(t *testing.T) {
	p := os.Getenv("SCRATCH_DUMP")
	if p == "" {
		t.Skip()
	}
	got := readAll(t, p, table.ReadOptions{Sheet: os.Getenv("SCRATCH_SHEET")})
	t.Logf("format %s err %v header %q", got.format, got.err, got.header)
	for _, r := range got.recs {
		t.Logf("%d %q issues=%v row=%v", r.Number, r.Cells, r.CellIssues, r.RowIssue)
	}
}
