// Package upload takes a client's file into blob storage as it streams
// in: hashed, its format told from its first bytes, never held whole in
// memory. Job uploads and the connect library both store files this way.
package upload

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/table"
	"github.com/tabnorm/tabnorm/ports"
)

// writeBuffer is how much of an upload is gathered before each write to
// the store.
const writeBuffer = 1 << 20

// MaxFilename bounds a stored file name, in bytes.
const MaxFilename = 255

// File is a stored upload.
type File struct {
	Key      string
	Filename string
	Size     int64
	SHA256   string
	Format   table.Format
}

// Filename trims a client's file name to MaxFilename bytes.
func Filename(name string) string {
	if len(name) > MaxFilename {
		return name[:MaxFilename]
	}
	return name
}

// Upload is a client's file reserved under a blob key before it
// arrives; Store fills in File.
type Upload struct {
	Key      string
	Filename string
	File     File
}

// New reserves an upload under key.
func New(key, filename string) Upload { return Upload{Key: key, Filename: Filename(filename)} }

// SHA256 is the stored file's hash.
func (u *Upload) SHA256() string { return u.File.SHA256 }

// Store streams r into the upload's key (see Put).
func Store(ctx context.Context, blobs ports.BlobStore, tables ports.TableOpener, u *Upload, r io.Reader) error {
	f, err := Put(ctx, blobs, tables, u.Key, u.Filename, r)
	u.File = f
	return err
}

// Discard removes the bytes of an upload that did not become a record.
func Discard(ctx context.Context, blobs ports.BlobStore, u *Upload) {
	_ = blobs.Delete(context.WithoutCancel(ctx), u.Key)
}

// Put streams r into the blob key while hashing it and keeping its first
// bytes to tell the format. A read error (the body over its limit, a
// dropped connection) abandons the blob and is returned as it is; a file
// of no supported format is removed again and refused with 415
// unsupported_file_format.
func Put(ctx context.Context, blobs ports.BlobStore, tables ports.TableOpener, key, filename string, r io.Reader) (File, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := blobs.Create(ctx, key)
	if err != nil {
		return File{}, fmt.Errorf("store upload: %w", err)
	}
	h := sha256.New()
	head := &headBuffer{max: 64 << 10}
	// Multipart parts arrive in pieces of about 4 KiB: buffered, the
	// store gets a few large writes instead of one system call a piece.
	bw := bufio.NewWriterSize(w, writeBuffer)
	n, err := io.Copy(io.MultiWriter(bw, h, head), r)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		cancel()
		_ = w.Close()
		return File{}, err
	}
	if err := w.Close(); err != nil {
		return File{}, fmt.Errorf("store upload: %w", err)
	}
	f := File{Key: key, Filename: Filename(filename), Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}
	if f.Format, err = tables.Sniff(head.Bytes(), f.Filename); err != nil {
		_ = blobs.Delete(context.WithoutCancel(ctx), key)
		return File{}, domain.Errorf(domain.ErrInvalid, "unsupported_file_format", "The file is not CSV, TSV, JSON lines or XLSX.")
	}
	return f, nil
}

// headBuffer keeps the first max bytes written to it.
type headBuffer struct {
	bytes.Buffer
	max int
}

func (h *headBuffer) Write(p []byte) (int, error) {
	if room := h.max - h.Len(); room > 0 {
		h.Buffer.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}
