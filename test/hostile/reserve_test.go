package hostile

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/formats"
	"github.com/tabnorm/tabnorm/domain/table"
)

// Opening a workbook whose shared strings part claims a gigabyte takes
// memory as its text comes, not what the part's size claims: a canceled
// open has allocated little. (Room reserved up front from the claim was
// zeroed, so paged in, whenever the heap reused freed memory, and that
// zeroing could not be canceled.)
func TestHostileWorkbooks_sharedStringsClaimNoMemory(t *testing.T) {
	p := filepath.Join(t.TempDir(), "book.xlsx")
	if err := os.WriteFile(p, []byte(longShapes(t)[0].file), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r, err := formats.NewOpener().Open(ctx, p, "book.xlsx", table.ReadOptions{})
	runtime.ReadMemStats(&after)
	if err == nil {
		_ = r.Close()
		t.Fatal("a canceled open of the workbook succeeded")
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
		t.Fatalf("the canceled open allocated %d MiB", got>>20)
	}
}
