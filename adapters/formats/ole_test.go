package formats

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/tabnorm/tabnorm/adapters/formats/internal/formatstest"
	"github.com/tabnorm/tabnorm/domain/table"
)

// TestXLSXEncrypted: a password-protected workbook is an OLE container
// with an EncryptionInfo stream; it fails as encrypted, at sniffing and
// at opening, not as "an .xls or another OLE document".
func TestXLSXEncrypted(t *testing.T) {
	t.Parallel()
	f := excelize.NewFile()
	_ = f.SetSheetRow("Sheet1", "A1", &[]any{"a", "b"})
	p := filepath.Join(t.TempDir(), "locked.xlsx")
	if err := f.SaveAs(p, excelize.Options{Password: "secret"}); err != nil {
		t.Fatal(err)
	}
	_, err := NewOpener().Open(context.Background(), p, "locked.xlsx", table.ReadOptions{})
	if !errors.Is(err, table.ErrEncrypted) || !strings.Contains(err.Error(), "password-protected") {
		t.Fatalf("open: %v", err)
	}
	// The directory entry past the sniffed head is found when opening.
	far := append(append(append([]byte{}, oleMagic...), make([]byte, 2*SniffSize)...), oleEncryptionInfo...)
	if _, err := NewOpener().Sniff(far[:SniffSize], "x.xlsx"); errors.Is(err, table.ErrEncrypted) || !errors.Is(err, table.ErrUnsupportedFormat) {
		t.Fatalf("sniff of a head without the directory: %v", err)
	}
	if _, err := NewOpener().Open(context.Background(), formatstest.WriteFile(t, "far.xlsx", far), "far.xlsx", table.ReadOptions{}); !errors.Is(err, table.ErrEncrypted) {
		t.Fatalf("open with the directory past the head: %v", err)
	}
	// An unencrypted OLE document is still an .xls.
	xls := append(append([]byte{}, oleMagic...), utf16le("Workbook")...)
	if _, err := NewOpener().Open(context.Background(), formatstest.WriteFile(t, "old.xls", xls), "old.xls", table.ReadOptions{}); errors.Is(err, table.ErrEncrypted) || !strings.Contains(err.Error(), ".xls") {
		t.Fatalf("plain OLE: %v", err)
	}
}
