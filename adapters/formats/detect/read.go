package detect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tabnorm/tabnorm/domain/table"
)

// SampleRecords is how many records header detection looks at.
const SampleRecords = 50

// MaxSkippedRows is how many skipped rows a Detection lists by number.
const MaxSkippedRows = 100

// ctxReader stops a read when the job's context ends: cancel, the job
// timeout and shutdown. Every reader reads its file through one (the
// text readers through a CountingReader), so that however much work a
// file makes per byte, the reader stops within a buffer's work of the
// context ending (a buffer is 64 to 256 KiB, at most an XML tag's bound
// for one tag). Checking costs a context lookup a read, not one a record.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

// ContextReader reads r until ctx ends, then returns ctx's error.
func ContextReader(ctx context.Context, r io.Reader) io.Reader { return ctxReader{ctx, r} }

func (c ctxReader) Read(p []byte) (int, error) {
	if c.ctx != nil {
		if err := c.ctx.Err(); err != nil {
			return 0, err
		}
	}
	return c.r.Read(p)
}

// CountingReader counts the bytes read from the file, for progress.
type CountingReader struct {
	r io.Reader
	n int64
}

// NewCountingReader counts the bytes read through r, from n (the bytes
// of the file skipped before it, a BOM).
func NewCountingReader(r io.Reader, n int64) *CountingReader {
	return &CountingReader{r: r, n: n}
}

// Count is how many bytes of the file have been read.
func (c *CountingReader) Count() int64 { return c.n }

func (c *CountingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// Unreadable makes sure an error wraps one of the contract's two kinds:
// anything else (an I/O error) means the file cannot be read.
func Unreadable(err error) error {
	if err == nil || err == io.EOF || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, table.ErrUnreadable) || errors.Is(err, table.ErrUnsupportedFormat) || errors.Is(err, table.ErrEncrypted) {
		return err
	}
	return fmt.Errorf("%w: %v", table.ErrUnreadable, err)
}

// Blank tells a record whose cells are all empty or white space.
func Blank(rec []string) bool {
	for _, c := range rec {
		if strings.TrimSpace(c) != "" {
			return false
		}
	}
	return true
}

// Skip counts a record let go of under the header: count grows, and rows
// lists its number while it holds fewer than MaxSkippedRows.
func Skip(rows *[]int, count *int, number int) {
	*count++
	if len(*rows) < MaxSkippedRows {
		*rows = append(*rows, number)
	}
}
