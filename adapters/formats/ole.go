package formats

import (
	"bytes"
	"fmt"
	"io"

	"github.com/tabnorm/tabnorm/domain/table"
)

// An OLE compound file (the container of .xls and old Office documents)
// holds a password-protected XLSX too: Office encrypts the zip into an
// "EncryptedPackage" stream beside an "EncryptionInfo" stream. The
// directory names its streams in UTF-16LE.
var (
	oleMagic          = []byte("\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1")
	oleEncryptionInfo = utf16le("EncryptionInfo")
)

func utf16le(s string) []byte {
	b := make([]byte, 0, 2*len(s))
	for _, c := range []byte(s) {
		b = append(b, c, 0)
	}
	return b
}

func errEncrypted() error {
	return fmt.Errorf("%w: a password-protected (encrypted) workbook; remove its password (File > Info > Protect Workbook in Excel) and send it again", table.ErrEncrypted)
}

// oleEncrypted tells whether an OLE file holds an EncryptionInfo stream,
// from its first bytes: the directory's first sector when the head holds
// it, else any directory entry the head shows.
func oleEncrypted(head []byte) bool {
	return bytes.HasPrefix(head, oleMagic) && bytes.Contains(head, oleEncryptionInfo)
}

// oleEncryptedFile looks for the EncryptionInfo stream's directory entry
// in the whole file (the directory can sit after a large encrypted
// package), reading it once in blocks.
func oleEncryptedFile(r io.Reader) (bool, error) {
	buf := make([]byte, 256<<10)
	keep := len(oleEncryptionInfo) - 1
	n := 0
	for {
		m, err := r.Read(buf[n:])
		n += m
		if bytes.Contains(buf[:n], oleEncryptionInfo) {
			return true, nil
		}
		if err == io.EOF {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if n > keep {
			n = copy(buf, buf[n-keep:n])
		}
	}
}
