package portstest_test

// The worked example of docs/adapters.md: a blob store that keeps blobs
// in memory, small enough to read, proven by the BlobStore suite.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/ports"
	"github.com/tabnorm/tabnorm/ports/portstest"
)

// memStore keeps each blob as a byte slice under its key, with the time
// it was written.
type memStore struct {
	mu    sync.Mutex
	blobs map[string]memBlob
}

type memBlob struct {
	data    []byte
	written time.Time
}

var _ ports.BlobStore = (*memStore)(nil)

func newMemStore() *memStore { return &memStore{blobs: map[string]memBlob{}} }

// memWriter buffers a blob; Close stores it unless ctx was canceled first.
type memWriter struct {
	ctx   context.Context
	store *memStore
	key   string
	buf   bytes.Buffer
}

func (w *memWriter) Write(p []byte) (int, error) { return w.buf.Write(p) }

func (w *memWriter) Close() error {
	if err := w.ctx.Err(); err != nil {
		return fmt.Errorf("write %s abandoned: %w", w.key, err)
	}
	w.store.mu.Lock()
	defer w.store.mu.Unlock()
	w.store.blobs[w.key] = memBlob{data: bytes.Clone(w.buf.Bytes()), written: time.Now()}
	return nil
}

func (s *memStore) Create(ctx context.Context, key string) (io.WriteCloser, error) {
	return &memWriter{ctx: ctx, store: s, key: key}, nil
}

func (s *memStore) get(key string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.blobs[key]
	if !ok {
		return nil, fmt.Errorf("blob %s: %w", key, domain.ErrNotFound)
	}
	return b.data, nil
}

func (s *memStore) Open(_ context.Context, key string, offset, length int64) (io.ReadCloser, error) {
	b, err := s.get(key)
	if err != nil {
		return nil, err
	}
	b = b[min(offset, int64(len(b))):]
	if length >= 0 {
		b = b[:min(length, int64(len(b)))]
	}
	return io.NopCloser(bytes.NewReader(b)), nil
}

func (s *memStore) Size(_ context.Context, key string) (int64, error) {
	b, err := s.get(key)
	return int64(len(b)), err
}

func (s *memStore) Delete(_ context.Context, key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.blobs, key)
	return nil
}

func (s *memStore) DeletePrefix(_ context.Context, prefix string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for key := range s.blobs {
		if strings.HasPrefix(key, prefix) {
			delete(s.blobs, key)
		}
	}
	return nil
}

// List calls fn outside the lock, on a copy of the listing, so fn may use
// the store.
func (s *memStore) List(_ context.Context, prefix string, fn func(ports.BlobInfo) error) error {
	s.mu.Lock()
	var infos []ports.BlobInfo
	for key, b := range s.blobs {
		if strings.HasPrefix(key, prefix) {
			infos = append(infos, ports.BlobInfo{Key: key, Size: int64(len(b.data)), ModTime: b.written})
		}
	}
	s.mu.Unlock()
	for _, info := range infos {
		if err := fn(info); err != nil {
			return err
		}
	}
	return nil
}

// Sweep: an unfinished write lives in its writer only, so nothing is left.
func (s *memStore) Sweep(context.Context, string, time.Time) (int, error) { return 0, nil }

// TestMemStore_conformance proves the example with the suite, as every
// blob store adapter does in its own tests.
func TestMemStore_conformance(t *testing.T) {
	t.Parallel()
	portstest.BlobStore(t, func(*testing.T) ports.BlobStore { return newMemStore() })
}
