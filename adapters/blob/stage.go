package blob

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/tabnorm/tabnorm/ports"
)

var _ ports.Staging = (*Store)(nil)

// Stage implements ports.Staging: a file:// store's own file is read in
// place; a blob of any other store is copied to a temporary file, which
// release removes.
func (s *Store) Stage(ctx context.Context, key string) (string, func(), error) {
	if p, ok := s.LocalPath(key); ok {
		return p, func() {}, nil
	}
	r, err := s.Open(ctx, key, 0, -1)
	if err != nil {
		return "", nil, err
	}
	defer r.Close()
	f, err := os.CreateTemp("", "tabnorm-source-*")
	if err != nil {
		return "", nil, fmt.Errorf("stage blob %s: %w", key, err)
	}
	release := func() { _ = os.Remove(f.Name()) }
	_, err = io.Copy(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		release()
		return "", nil, fmt.Errorf("stage blob %s: %w", key, err)
	}
	return f.Name(), release, nil
}
