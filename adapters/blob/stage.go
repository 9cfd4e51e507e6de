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
// place; a blob of any other store is copied into dir.
func (s *Store) Stage(ctx context.Context, key, dir string) (string, error) {
	if p, ok := s.LocalPath(key); ok {
		return p, nil
	}
	r, err := s.Open(ctx, key, 0, -1)
	if err != nil {
		return "", err
	}
	defer func() { _ = r.Close() }()
	f, err := os.CreateTemp(dir, "source-*")
	if err != nil {
		return "", fmt.Errorf("stage blob %s: %w", key, err)
	}
	_, err = io.Copy(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return "", fmt.Errorf("stage blob %s: %w", key, err)
	}
	return f.Name(), nil
}
