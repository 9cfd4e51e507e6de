package ports

import (
	"context"

	"github.com/tabnorm/tabnorm/domain/table"
)

// TableOpener recognises and opens tabular files (CSV, TSV, JSON lines, XLSX).
type TableOpener interface {
	// Sniff tells the format from the first bytes of a file (at least 8 KiB
	// when the file has them); filename is only a hint. Returns an error
	// wrapping table.ErrUnsupportedFormat when it is none of them, or
	// table.ErrEncrypted for a password-protected workbook.
	Sniff(head []byte, filename string) (table.Format, error)
	// Open starts reading the file at path. Errors wrap
	// table.ErrUnsupportedFormat, table.ErrEncrypted or table.ErrUnreadable.
	Open(ctx context.Context, path, filename string, opts table.ReadOptions) (table.Reader, error)
}
