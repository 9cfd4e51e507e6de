// Package blob is the BlobStore on gocloud.dev/blob: a local folder by
// default (file://), S3 or any S3-compatible store (s3://…), or memory
// (mem://, for tests).
package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/aws/smithy-go"
	gcblob "gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
	_ "gocloud.dev/blob/memblob" // registers mem://
	"gocloud.dev/gcerrors"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/ports"
)

// Store implements ports.BlobStore on a gocloud bucket.
type Store struct {
	bucket   *gcblob.Bucket
	dir      string // the folder of a file:// store, else ""
	s3Bucket string // the bucket of an s3:// store, else ""
}

var _ ports.BlobStore = (*Store)(nil)

// Open opens the bucket named by rawURL. file:// paths may be relative
// (file://./data/blobs) and are created when missing.
func Open(ctx context.Context, rawURL string, opts ...Option) (*Store, error) {
	o := options{log: slog.Default()}
	for _, opt := range opts {
		opt(&o)
	}
	if dir, ok := strings.CutPrefix(rawURL, "file://"); ok {
		if i := strings.IndexByte(dir, '?'); i >= 0 {
			dir = dir[:i]
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, err
		}
		if err := os.MkdirAll(abs, 0o750); err != nil {
			return nil, fmt.Errorf("create blob folder: %w", err)
		}
		// No sidecar metadata files, and temp files beside the target so a
		// rename never crosses filesystems.
		b, err := fileblob.OpenBucket(abs, &fileblob.Options{Metadata: fileblob.MetadataDontWrite, NoTempDir: true})
		if err != nil {
			return nil, fmt.Errorf("open blob folder %s: %w", abs, err)
		}
		return &Store{bucket: b, dir: abs}, nil
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, err
	}
	var b *gcblob.Bucket
	if u.Scheme == "s3" {
		b, err = openS3(ctx, u, o.log)
	} else {
		b, err = gcblob.OpenBucket(ctx, rawURL)
	}
	if err != nil {
		return nil, fmt.Errorf("open blob store: %w", err)
	}
	s := &Store{bucket: b}
	if u.Scheme == "s3" {
		s.s3Bucket = u.Host
	}
	return s, nil
}

// LocalPath returns the file holding key in a file:// store (keys made of
// safe characters map to paths one to one), so that a worker on the same
// machine reads it in place.
func (s *Store) LocalPath(key string) (string, bool) {
	if s.dir == "" || strings.Contains(key, "..") {
		return "", false
	}
	p := filepath.Join(s.dir, filepath.FromSlash(key))
	if _, err := os.Stat(p); err != nil {
		return "", false
	}
	return p, true
}

// Ready reports whether the bucket can be reached with the configured
// credentials. Its messages are safe to show to clients (no endpoint, no
// key) and say what an operator should check.
func (s *Store) Ready(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	ok, err := s.bucket.IsAccessible(ctx)
	var api smithy.APIError
	switch {
	case err == nil && !ok, gcerrors.Code(err) == gcerrors.NotFound:
		return errors.New("blob store bucket not found (check TABNORM_BLOB_URL)")
	case gcerrors.Code(err) == gcerrors.PermissionDenied,
		s.bucket.ErrorAs(err, &api) && badCredentials[api.ErrorCode()]:
		return errors.New("blob store refused the credentials (check the access key and secret)")
	case err != nil:
		return errors.New("blob store unreachable")
	}
	return nil
}

// badCredentials are the S3 error codes of a key or secret the server
// does not accept (gocloud reports them as Unknown).
var badCredentials = map[string]bool{"InvalidAccessKeyId": true, "SignatureDoesNotMatch": true,
	"AccessDenied": true, "InvalidToken": true, "ExpiredToken": true, "InvalidClientTokenId": true}

// Close releases the bucket.
func (s *Store) Close() error { return s.bucket.Close() }

// Create implements ports.BlobStore.
func (s *Store) Create(ctx context.Context, key string) (io.WriteCloser, error) {
	for attempt := 1; ; attempt++ {
		w, err := s.bucket.NewWriter(ctx, key, &gcblob.WriterOptions{ContentType: "application/octet-stream"})
		// A local store makes the key's folders, then its temporary file;
		// a Delete or a Sweep that removes one of them, empty, in between
		// fails a step, and the folders are made again. Sweeps in a row
		// can win several times: after the first tries, each waits a
		// little longer, so the sweeper moves on.
		if err != nil && s.dir != "" && attempt < 20 && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrExist)) {
			if attempt > 3 {
				select {
				case <-time.After(time.Duration(attempt) * time.Millisecond):
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			continue
		}
		return w, err
	}
}

// Open implements ports.BlobStore.
func (s *Store) Open(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error) {
	r, err := s.bucket.NewRangeReader(ctx, key, offset, length, nil)
	return r, translate(err, key)
}

// Size implements ports.BlobStore.
func (s *Store) Size(ctx context.Context, key string) (int64, error) {
	attrs, err := s.bucket.Attributes(ctx, key)
	if err != nil {
		return 0, translate(err, key)
	}
	return attrs.Size, nil
}

// Delete implements ports.BlobStore. A local store also removes the
// folders the blob leaves empty, so deleted jobs leave no folders behind.
func (s *Store) Delete(ctx context.Context, key string) error {
	if err := s.bucket.Delete(ctx, key); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
		return fmt.Errorf("delete blob %s: %w", key, err)
	}
	s.prune(key)
	return nil
}

// DeletePrefix implements ports.BlobStore.
func (s *Store) DeletePrefix(ctx context.Context, prefix string) error {
	it := s.bucket.List(&gcblob.ListOptions{Prefix: prefix})
	for {
		obj, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("list blobs under %s: %w", prefix, err)
		}
		if err := s.Delete(ctx, obj.Key); err != nil {
			return err
		}
	}
}

func translate(err error, key string) error {
	if err == nil {
		return nil
	}
	if gcerrors.Code(err) == gcerrors.NotFound {
		return fmt.Errorf("blob %s: %w", key, domain.ErrNotFound)
	}
	return fmt.Errorf("blob %s: %w", key, err)
}
