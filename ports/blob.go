package ports

import (
	"context"
	"io"
	"time"
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
	// List calls fn with every blob under prefix, in no promised order,
	// and stops at fn's first error, which it returns. Writes not yet
	// closed are not blobs and are not listed.
	List(ctx context.Context, prefix string, fn func(BlobInfo) error) error
	// Sweep removes what writes that never closed (a killed process) left
	// under prefix and last changed before t — a local store's temporary
	// files and empty folders, an S3 store's unfinished multipart uploads —
	// and returns how many it removed.
	Sweep(ctx context.Context, prefix string, before time.Time) (int, error)
}

// BlobInfo is one stored blob.
type BlobInfo struct {
	Key     string
	Size    int64
	ModTime time.Time // when it was written
}

// BlobOwners tells which jobs and connect library files exist, so that
// the sweep of storage deletes only bytes no record owns.
type BlobOwners interface {
	// Jobs returns those of ids that are jobs.
	Jobs(ctx context.Context, ids []string) (map[string]bool, error)
	// Files returns those of ids that are library files.
	Files(ctx context.Context, ids []string) (map[string]bool, error)
}

// Staging makes stored files readable as local files, which the table
// readers need: they seek, and may read a file twice.
type Staging interface {
	// Stage returns a local file holding key's bytes: the store's own file
	// when it is a local folder, else a copy it makes in dir, a working
	// folder the caller removes. A missing key is domain.ErrNotFound.
	Stage(ctx context.Context, key, dir string) (path string, err error)
}
