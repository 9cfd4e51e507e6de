package blob

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tabnorm/tabnorm/domain"
)

// TestStore_stage: every store hands out a local file with the blob's
// bytes: a file:// store its own file, any other a copy in the folder
// given. A missing blob is not found.
func TestStore_stage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	data := bytes.Repeat([]byte("a,b\n1,2\n"), 50_000)
	for name, s := range stores(t) {
		t.Run(name, func(t *testing.T) {
			w, err := s.Create(ctx, "org/o/jobs/j/source")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.Write(data); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			path, err := s.Stage(ctx, "org/o/jobs/j/source", dir)
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(path)
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("staged %d bytes, want %d (%v)", len(got), len(data), err)
			}
			own, inPlace := s.LocalPath("org/o/jobs/j/source")
			if inPlace != (name == "file") || (inPlace && own != path) || (!inPlace && filepath.Dir(path) != dir) {
				t.Fatalf("%s store staged %s (its own file: %q, %v)", name, path, own, inPlace)
			}
			if _, err := s.Stage(ctx, "org/o/jobs/nope/source", dir); !errors.Is(err, domain.ErrNotFound) {
				t.Fatalf("a missing blob: %v", err)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != map[bool]int{true: 0, false: 1}[inPlace] {
				t.Fatalf("%d files left in the folder", len(entries))
			}
		})
	}
}
