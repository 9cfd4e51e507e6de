package table

import (
	"strings"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/encoding/ianaindex"
	"golang.org/x/text/encoding/unicode"
)

// LookupEncoding resolves an encoding option to the character map that
// decodes it and its canonical IANA name (the name a Detection reports).
// Every encoding of golang.org/x/text is accepted by its IANA name or
// alias (ISO-8859-1…16, windows-1250…1258, KOI8-R, KOI8-U, Shift_JIS,
// EUC-JP, ISO-2022-JP, EUC-KR, GB18030, GBK, Big5, UTF-16LE/BE, …),
// case-insensitively, then by its WHATWG label; "latin-1" and "utf16le"
// style spellings of earlier versions still work. "utf-16" means
// little-endian unless a BOM says otherwise.
func LookupEncoding(name string) (encoding.Encoding, string, bool) {
	key := strings.ToLower(strings.TrimSpace(name))
	switch strings.ReplaceAll(key, "_", "-") {
	case "utf-8", "utf8":
		return unicode.UTF8, "UTF-8", true
	case "utf-16le", "utf16le", "utf-16", "utf16":
		return unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), "UTF-16LE", true
	case "utf-16be", "utf16be":
		return unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM), "UTF-16BE", true
	case "latin-1", "latin1":
		key = "iso-8859-1"
	}
	if key == "" {
		return nil, "", false
	}
	enc, err := ianaindex.IANA.Encoding(key)
	if err != nil || enc == nil {
		if enc, err = htmlindex.Get(key); err != nil || enc == nil {
			return nil, "", false
		}
	}
	// The MIME name is the familiar one (ISO-8859-1, not ISO_8859-1:1987).
	canon, err := ianaindex.MIME.Name(enc)
	if err != nil || canon == "" {
		canon, err = ianaindex.IANA.Name(enc)
	}
	if err != nil || canon == "" {
		return nil, "", false
	}
	if canon == "UTF-16LE" || canon == "UTF-16BE" || canon == "UTF-16" {
		return nil, "", false // handled above; the index's UTF-16 honours BOMs differently
	}
	return enc, canon, true
}
