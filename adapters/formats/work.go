package formats

import (
	"context"
	"io"
)

// ctxReader stops a read when the job's context ends: cancel, the job
// timeout and shutdown. Every reader reads its file through one (the
// text readers through countingReader), so that however much work a file
// makes per byte, the reader stops within a buffer's work of the context
// ending (a buffer is 64 to 256 KiB, at most maxXMLTag for one tag).
// Checking costs a context lookup a read, not one a record.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if c.ctx != nil {
		if err := c.ctx.Err(); err != nil {
			return 0, err
		}
	}
	return c.r.Read(p)
}
