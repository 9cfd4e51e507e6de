// Package formats reads tabular files: CSV and TSV (any delimiter among
// , ; tab | and, when every record agrees, colon and space; double or
// single quotes; doubled or backslash-escaped quotes), JSON lines and XLSX,
// in UTF-8, UTF-16 and every encoding of golang.org/x/text. The format is
// told from the bytes; the file name is only a hint. Readers stream: memory
// does not grow with the file. The text readers report what they decided
// (table.Detection: encoding and how sure, dialect, header row, rows
// skipped above it), and that Detection passed back as options reproduces
// the same reading.
//
// This package tells the format and dispatches; each reader is a package
// of its own: delimited (CSV and TSV), jsonl (JSON lines) and xlsx. What
// they share — encoding and header detection, the bookkeeping of skipped
// records, the job's context on every read — is in detect, which imports
// none of them.
//
// Decisions the contract leaves open, kept the same in every format:
//   - Record numbers count data records under the header, 1-based. Blank
//     records (every cell empty or white space) are skipped but numbered,
//     so row n of an issue is the n-th line under the header in an editor
//     (for CSV without line breaks inside quotes), line n of a JSON-lines
//     file, and the n-th sheet row under the header in a spreadsheet.
//   - Encodings: a BOM decides; without one, NUL bytes in every other
//     position of the first 4 KiB mean UTF-16 (which half tells the byte
//     order); a first 64 KiB that is UTF-8 means UTF-8. Other bytes are
//     guessed (detect.Encoding) among Windows-1252 — which wins unless
//     another reads clearly better, and decodes Latin-1's printable range
//     identically, so © never becomes U+FFFD — and the Cyrillic, Greek and
//     CJK encodings. A file whose sample is UTF-8 but which has a stray
//     non-UTF-8 byte later gets that byte read as Windows-1252, record by
//     record. ReadOptions.Encoding overrides, by any IANA name.
//   - Header rows are found by comparing candidates with the records below
//     them (detect.Header); a file whose first record is data has no header
//     row and its columns are named by position (table.PositionalName).
//     Rows above the header are read and let go, never held beyond a
//     bounded sample, whatever header_row says (it is capped at
//     table.MaxHeaderRow).
//   - JSON lines: the columns are the keys of the first 1,000 objects in
//     first-seen order (see jsonl.Reader); objects without any key give no
//     column (an empty header, records without cells). A .json file that is a JSON array or a
//     pretty-printed document is refused as unsupported with a message
//     saying so: it cannot be read a line at a time.
//   - XLSX: BytesRead is an estimate (see xlsx.Reader); the text formats
//     count the bytes consumed from the file.
//   - Problems in one record (quoting, malformed JSON, spreadsheet error
//     cells) are issues on that record; only a file that cannot be read at
//     all, or breaks a limit (every cell is bounded, however it is read),
//     fails with table.ErrUnreadable.
package formats

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tabnorm/tabnorm/adapters/formats/delimited"
	"github.com/tabnorm/tabnorm/adapters/formats/detect"
	"github.com/tabnorm/tabnorm/adapters/formats/jsonl"
	"github.com/tabnorm/tabnorm/adapters/formats/xlsx"
	"github.com/tabnorm/tabnorm/domain/table"
	"github.com/tabnorm/tabnorm/ports"
)

// Opener implements ports.TableOpener.
type Opener struct{}

var _ ports.TableOpener = (*Opener)(nil)

// NewOpener returns the opener.
func NewOpener() *Opener { return &Opener{} }

// SniffSize is how many leading bytes Sniff wants.
const SniffSize = 64 << 10

var zipMagic = []byte("PK\x03\x04")

// Sniff tells the format from the first bytes of a file.
func (*Opener) Sniff(head []byte, filename string) (table.Format, error) {
	f, _, err := sniff(head, filename)
	return f, err
}

// sniff tells the format and, for text, the encoding (guessing it costs
// a few milliseconds, so Open passes it on rather than guess again).
func sniff(head []byte, filename string) (table.Format, detect.TextEncoding, error) {
	var te detect.TextEncoding
	if len(head) == 0 {
		return "", te, fmt.Errorf("%w: the file is empty", table.ErrUnsupportedFormat)
	}
	if bytes.HasPrefix(head, zipMagic) {
		if xlsx.HasWorkbook(head) {
			return table.XLSX, te, nil
		}
		return "", te, fmt.Errorf("%w: a zip file that is not an XLSX workbook", table.ErrUnsupportedFormat)
	}
	if oleEncrypted(head) {
		return "", te, errEncrypted()
	}
	if what := binaryKind(head); what != "" {
		return "", te, fmt.Errorf("%w: %s", table.ErrUnsupportedFormat, what)
	}
	te = detect.Encoding(head)
	text := detect.DecodeSample(head, te.Name, te.BOM)
	if !looksLikeText(text) {
		return "", te, fmt.Errorf("%w: the file is neither CSV, TSV, JSON lines nor XLSX", table.ErrUnsupportedFormat)
	}
	if isJSONLines(text) {
		return table.JSONL, te, nil
	}
	if t := strings.TrimSpace(text); strings.HasPrefix(t, "[") || strings.HasPrefix(t, "{") {
		return "", te, fmt.Errorf("%w: a JSON document (an array or a multi-line object), not JSON lines; send one object per line", table.ErrUnsupportedFormat)
	}
	if delimited.Delimiter(text, filename) == '\t' {
		return table.TSV, te, nil
	}
	return table.CSV, te, nil
}

// binaryKind names well-known binary formats by their magic bytes, so that
// the message says what was sent (an old .xls most of all).
func binaryKind(head []byte) string {
	for _, m := range []struct{ magic, what string }{
		{"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1", "an Excel 97-2003 workbook (.xls) or another OLE document; save it as .xlsx or CSV"},
		{"%PDF-", "a PDF document"},
		{"\x89PNG\r\n\x1a\n", "a PNG image"},
		{"\xFF\xD8\xFF", "a JPEG image"},
		{"GIF8", "a GIF image"},
		{"\x1F\x8B", "a gzip file; send it unpacked"},
		{"Rar!\x1A\x07", "a RAR archive"},
		{"7z\xBC\xAF\x27\x1C", "a 7-Zip archive"},
		{"PAR1", "a Parquet file"},
	} {
		if bytes.HasPrefix(head, []byte(m.magic)) {
			return m.what
		}
	}
	return ""
}

// looksLikeText refuses binary files: control characters other than tab,
// line ends and the odd NUL are rare in text.
func looksLikeText(s string) bool {
	if s == "" {
		return false
	}
	bad, n := 0, 0
	for _, r := range s {
		n++
		switch {
		case r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '\v':
		case r < 0x20 || r == 0x7f:
			bad++
		}
	}
	return bad <= 2 || bad*100 <= n // a stray NUL is text with a flaw; binary has many
}

// isJSONLines: the first non-blank line is a JSON object (or, when it is
// longer than the sample, at least starts like one).
func isJSONLines(text string) bool {
	for _, line := range strings.SplitAfter(text, "\n") {
		t := strings.TrimSpace(line)
		if t == "" {
			continue
		}
		if !strings.HasPrefix(t, "{") {
			return false
		}
		if !strings.HasSuffix(line, "\n") { // cut by the sample's end
			return true
		}
		var obj map[string]json.RawMessage
		return json.Unmarshal([]byte(t), &obj) == nil
	}
	return false
}

// Open starts reading the file at path.
func (o *Opener) Open(ctx context.Context, path, filename string, opts table.ReadOptions) (table.Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", table.ErrUnreadable, err)
	}
	head := make([]byte, SniffSize)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		_ = f.Close()
		return nil, fmt.Errorf("%w: %v", table.ErrUnreadable, err)
	}
	head = head[:n]
	format, te, err := sniff(head, filename)
	if err != nil {
		if bytes.HasPrefix(head, oleMagic) && !errors.Is(err, table.ErrEncrypted) {
			if _, serr := f.Seek(0, io.SeekStart); serr == nil {
				if yes, _ := oleEncryptedFile(f); yes {
					err = errEncrypted()
				}
			}
		}
		_ = f.Close()
		return nil, err
	}
	var r table.Reader
	switch format {
	case table.XLSX:
		_ = f.Close()
		r, err = xlsx.Open(ctx, path, opts)
	case table.JSONL:
		r, err = jsonl.Open(ctx, f, te, opts)
	default:
		r, err = delimited.Open(ctx, f, head, filename, te, opts)
	}
	if err != nil {
		if format != table.XLSX {
			_ = f.Close()
		}
		return nil, detect.Unreadable(err)
	}
	return r, nil
}
