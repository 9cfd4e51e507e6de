package ports

import (
	"context"
	"io"
)

// BlobStore keeps uploaded files and job results, by key
// (org/<org>/jobs/<job>/source, …). Readers and writers stream; nothing is
// held whole in memory.
type BlobStore interface {
	// Create returns a writer for key; the blob exists once Close returns
	// nil. Canceling ctx before Close abandons the write.
	Create(ctx context.Context, key string) (io.WriteCloser, error)
	// Open reads key from offset to the end (length < 0) or for length bytes.
	Open(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error)
	Size(ctx context.Context, key string) (int64, error)
	// Delete removes key; a missing key is not an error.
	Delete(ctx context.Context, key string) error
	// DeletePrefix removes every key under prefix.
	DeletePrefix(ctx context.Context, prefix string) error
}

// Staging makes stored files readable as local files, which the table
// readers need: they seek, and may read a file twice.
type Staging interface {
	// Stage returns a local file holding key's bytes (the store's own file
	// when it is a local folder, else a copy) and a function that removes
	// the copy once the caller is done. A missing key is domain.ErrNotFound.
	Stage(ctx context.Context, key string) (path string, release func(), err error)
}
