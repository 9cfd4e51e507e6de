// Package upload takes a client's file into blob storage as it streams
// in: hashed, its format told from its first bytes, never held whole in
// memory. Job uploads and the connect library both store files this way.
package upload

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/table"
	"github.com/tabnorm/tabnorm/ports"
)

// writeBuffer is how much of an upload is gathered before each write to
// the store.
const writeBuffer = 1 << 20

// maxFilename bounds a stored file name, in bytes.
const maxFilename = 255

// File is what storing an upload found out about it.
type File struct {
	Size   int64
	SHA256 string
	Format table.Format
}

// Upload is a client's file reserved under a blob key before it
// arrives; Store fills in File.
type Upload struct {
	Key      string
	Filename string // cut to maxFilename bytes on a character boundary
	File     File
}

// New reserves an upload under key.
func New(key, filename string) Upload {
	return Upload{Key: key, Filename: cutName(filename)}
}

// cutName shortens a name to maxFilename bytes without splitting a
// character, so a cut name is still valid UTF-8 in JSON and in both
// databases.
func cutName(name string) string {
	if len(name) <= maxFilename {
		return name
	}
	n := maxFilename
	for n > 0 && !utf8.RuneStart(name[n]) {
		n--
	}
	return name[:n]
}

// SHA256 is the stored file's hash.
func (u *Upload) SHA256() string { return u.File.SHA256 }

// Discard removes the bytes of an upload that did not become a record.
func Discard(ctx context.Context, blobs ports.BlobStore, u *Upload) {
	_ = blobs.Delete(context.WithoutCancel(ctx), u.Key)
}

// Store streams r into the upload's key while hashing it and keeping its
// first bytes to tell the format. A read error (the body over its limit, a
// dropped connection) abandons the blob and is returned as it is; a file
// of no supported format is removed again and refused with 415
// unsupported_file_format.
func Store(ctx context.Context, blobs ports.BlobStore, tables ports.TableOpener, u *Upload, r io.Reader) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := blobs.Create(ctx, u.Key)
	if err != nil {
		return fmt.Errorf("store upload: %w", err)
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
		return err
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("store upload: %w", err)
	}
	format, err := tables.Sniff(head.Bytes(), u.Filename)
	if err != nil {
		_ = blobs.Delete(context.WithoutCancel(ctx), u.Key)
		if errors.Is(err, table.ErrEncrypted) {
			return domain.Errorf(domain.ErrInvalid, domain.CodeEncryptedFile, "The file is a password-protected workbook; remove its password and upload it again.")
		}
		return domain.Errorf(domain.ErrInvalid, domain.CodeUnsupportedFileFormat, "The file is not CSV, TSV, JSON lines or XLSX.")
	}
	u.File = File{Size: n, SHA256: hex.EncodeToString(h.Sum(nil)), Format: format}
	return nil
}

// headBuffer keeps the first max bytes written to it. It has no other
// write method (an embedded bytes.Buffer's WriteString would take a
// whole string past the bound through io.MultiWriter).
type headBuffer struct {
	buf []byte
	max int
}

func (h *headBuffer) Write(p []byte) (int, error) {
	if room := h.max - len(h.buf); room > 0 {
		h.buf = append(h.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (h *headBuffer) Bytes() []byte { return h.buf }
