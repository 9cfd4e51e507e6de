package upload_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/mock"

	"github.com/tabnorm/tabnorm/application/upload"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/table"
	"github.com/tabnorm/tabnorm/test/mocks"
)

// blob records what a store's writer got, and whether its write was
// abandoned (its context canceled before Close) or kept.
type blob struct {
	ctx       context.Context
	buf       bytes.Buffer
	closed    bool
	abandoned bool
	closeErr  error
}

func (b *blob) Write(p []byte) (int, error) { return b.buf.Write(p) }
func (b *blob) Close() error {
	b.closed, b.abandoned = true, b.ctx.Err() != nil
	return b.closeErr
}

func newStore(t *testing.T, b *blob) (*mocks.BlobStore, *mocks.TableOpener) {
	blobs, tables := mocks.NewBlobStore(t), mocks.NewTableOpener(t)
	blobs.EXPECT().Create(mock.Anything, "org/o/jobs/j/source").RunAndReturn(func(ctx context.Context, _ string) (io.WriteCloser, error) {
		b.ctx = ctx
		return b, nil
	}).Maybe()
	return blobs, tables
}

// failingReader gives some bytes, then fails as a dropped connection does.
type failingReader struct {
	r   io.Reader
	err error
}

func (f *failingReader) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err == io.EOF {
		return n, f.err
	}
	return n, err
}

func TestStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	big := strings.Repeat("name,email\n", 20_000) // over the 64 KiB sniffed

	t.Run("the file is stored whole, hashed, measured and its format told from its first bytes", func(t *testing.T) {
		t.Parallel()
		var b blob
		blobs, tables := newStore(t, &b)
		var head []byte
		tables.EXPECT().Sniff(mock.Anything, "people.csv").Run(func(h []byte, _ string) { head = h }).
			Return(table.CSV, nil).Once()
		u := upload.New("org/o/jobs/j/source", "people.csv")
		if err := upload.Store(ctx, blobs, tables, &u, strings.NewReader(big)); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256([]byte(big))
		if b.buf.String() != big || !b.closed || b.abandoned {
			t.Fatalf("stored %d bytes, closed %v, abandoned %v", b.buf.Len(), b.closed, b.abandoned)
		}
		if u.File.Size != int64(len(big)) || u.SHA256() != hex.EncodeToString(sum[:]) || u.File.Format != table.CSV {
			t.Fatalf("file %+v", u.File)
		}
		if len(head) != 64<<10 || !strings.HasPrefix(big, string(head)) {
			t.Fatalf("sniffed %d bytes", len(head))
		}
	})

	t.Run("a read error abandons the blob and is returned as it is", func(t *testing.T) {
		t.Parallel()
		var b blob
		blobs, tables := newStore(t, &b)
		dropped := errors.New("connection reset")
		u := upload.New("org/o/jobs/j/source", "people.csv")
		err := upload.Store(ctx, blobs, tables, &u, &failingReader{r: strings.NewReader(big), err: dropped})
		if !errors.Is(err, dropped) || !b.closed || !b.abandoned {
			t.Fatalf("error %v, closed %v, abandoned %v", err, b.closed, b.abandoned)
		}
		// The table opener mock fails the test on a Sniff.
	})

	for _, c := range []struct {
		name     string
		sniffErr error
		code     domain.Code
	}{
		{"a file of no supported format", fmt.Errorf("%w: a PNG", table.ErrUnsupportedFormat), "unsupported_file_format"},
		{"a password-protected workbook", table.ErrEncrypted, "encrypted_file"},
	} {
		t.Run(c.name+" is removed again and refused", func(t *testing.T) {
			t.Parallel()
			var b blob
			blobs, tables := newStore(t, &b)
			tables.EXPECT().Sniff(mock.Anything, "people.csv").Return("", c.sniffErr).Once()
			blobs.EXPECT().Delete(mock.Anything, "org/o/jobs/j/source").Return(nil).Once()
			u := upload.New("org/o/jobs/j/source", "people.csv")
			err := upload.Store(ctx, blobs, tables, &u, strings.NewReader("\x89PNG"))
			if domain.CodeOf(err) != c.code || !errors.Is(err, domain.ErrInvalid) {
				t.Fatalf("error %v, want %s", err, c.code)
			}
		})
	}

	t.Run("storage failures are returned", func(t *testing.T) {
		t.Parallel()
		down := errors.New("store down")
		blobs, tables := mocks.NewBlobStore(t), mocks.NewTableOpener(t)
		blobs.EXPECT().Create(mock.Anything, "org/o/jobs/j/source").Return(nil, down).Once()
		u := upload.New("org/o/jobs/j/source", "people.csv")
		if err := upload.Store(ctx, blobs, tables, &u, strings.NewReader("a\n")); !errors.Is(err, down) {
			t.Fatalf("Create failing: %v", err)
		}
		b := blob{closeErr: down}
		blobs, tables = newStore(t, &b)
		if err := upload.Store(ctx, blobs, tables, &u, strings.NewReader("a\n")); !errors.Is(err, down) {
			t.Fatalf("Close failing: %v", err)
		}
	})
}

func TestDiscard(t *testing.T) {
	t.Parallel()
	blobs := mocks.NewBlobStore(t)
	blobs.EXPECT().Delete(mock.Anything, "org/o/jobs/j/source").Return(errors.New("store down")).Once() // best effort
	u := upload.New("org/o/jobs/j/source", "people.csv")
	upload.Discard(context.Background(), blobs, &u)
}
