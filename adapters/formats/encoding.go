package formats

import (
	"bytes"
	"io"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// Text encodings the readers understand.
const (
	encUTF8    = "utf-8"
	encUTF16LE = "utf-16le"
	encUTF16BE = "utf-16be"
	encCP1252  = "windows-1252"
	encLatin1  = "latin-1"
)

// detectEncoding tells the encoding of a text sample and how many BOM
// bytes to skip. Without a BOM: NUL bytes at every other position mean
// UTF-16 (which half tells the byte order); bytes that are not valid
// UTF-8 mean Windows-1252 (a superset of Latin-1's printable range, so a
// Latin-1 file decodes the same). sample may end mid-character.
func detectEncoding(sample []byte) (enc string, bom int) {
	switch {
	case bytes.HasPrefix(sample, []byte{0xEF, 0xBB, 0xBF}):
		return encUTF8, 3
	case bytes.HasPrefix(sample, []byte{0xFF, 0xFE}):
		return encUTF16LE, 2
	case bytes.HasPrefix(sample, []byte{0xFE, 0xFF}):
		return encUTF16BE, 2
	}
	if enc := utf16ByNULs(sample); enc != "" {
		return enc, 0
	}
	if !validUTF8Prefix(sample) {
		return encCP1252, 0
	}
	return encUTF8, 0
}

// utf16ByNULs recognises BOM-less UTF-16 of mostly Latin text: nearly
// every high byte is zero.
func utf16ByNULs(b []byte) string {
	n := min(len(b), 4096) &^ 1
	if n < 4 {
		return ""
	}
	var evenNUL, oddNUL int
	for i := 0; i < n; i += 2 {
		if b[i] == 0 {
			evenNUL++
		}
		if b[i+1] == 0 {
			oddNUL++
		}
	}
	pairs := n / 2
	switch {
	case oddNUL*10 >= pairs*7 && evenNUL*10 < pairs:
		return encUTF16LE
	case evenNUL*10 >= pairs*7 && oddNUL*10 < pairs:
		return encUTF16BE
	}
	return ""
}

// validUTF8Prefix is utf8.Valid allowing a character cut at the end.
func validUTF8Prefix(b []byte) bool {
	for i := 0; i < 3 && len(b) > 0; i++ {
		if utf8.Valid(b) {
			return true
		}
		r, _ := utf8.DecodeLastRune(b)
		if r != utf8.RuneError {
			return false
		}
		b = b[:len(b)-1]
	}
	return utf8.Valid(b)
}

// normalizeEncoding maps the encoding option's accepted spellings.
func normalizeEncoding(s string) (string, bool) {
	switch strings.ToLower(strings.ReplaceAll(s, "_", "-")) {
	case "utf-8", "utf8":
		return encUTF8, true
	case "utf-16le", "utf16le", "utf-16":
		return encUTF16LE, true
	case "utf-16be", "utf16be":
		return encUTF16BE, true
	case "windows-1252", "cp1252":
		return encCP1252, true
	case "latin-1", "latin1", "iso-8859-1":
		return encLatin1, true
	}
	return "", false
}

// decoder wraps r so it yields UTF-8.
func decoder(r io.Reader, enc string) io.Reader {
	switch enc {
	case encUTF16LE:
		return transform.NewReader(r, unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM).NewDecoder())
	case encUTF16BE:
		return transform.NewReader(r, unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM).NewDecoder())
	case encCP1252:
		return transform.NewReader(r, charmap.Windows1252.NewDecoder())
	case encLatin1:
		return transform.NewReader(r, charmap.ISO8859_1.NewDecoder())
	}
	return r
}

// decodeSample decodes a sample for sniffing (invalid tails are dropped).
func decodeSample(sample []byte, enc string, bom int) string {
	out, _ := io.ReadAll(io.LimitReader(decoder(bytes.NewReader(sample[bom:]), enc), int64(len(sample))*3))
	return string(out)
}
