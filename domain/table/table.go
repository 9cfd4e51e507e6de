// Package table describes a tabular file as the normalize engine sees it: a
// header and a stream of records of text cells. Format readers (in
// adapters/formats) produce it; the engine (domain/normalize) consumes it.
// Nothing here does I/O.
package table

import "errors"

// Format is a detected file format.
type Format string

const (
	CSV   Format = "csv"
	TSV   Format = "tsv"
	JSONL Format = "jsonl"
	XLSX  Format = "xlsx"
)

// ErrUnsupportedFormat is returned (wrapped) when the bytes are none of the
// supported formats.
var ErrUnsupportedFormat = errors.New("unsupported file format")

// ErrUnreadable is returned (wrapped, with the reason) when a file of a known
// format cannot be read: corrupt zip, zip bomb, over a limit, I/O failure.
// A job reading such a file fails with code unreadable_file.
var ErrUnreadable = errors.New("unreadable file")

// Limits bound what one file may make the reader hold. Zero means the default.
type Limits struct {
	MaxColumns       int   // default 1000
	MaxCellBytes     int   // default 1 MiB
	MaxUnzipBytes    int64 // XLSX: total decompressed size, default 4 GiB
	MaxCompressRatio int   // XLSX: decompressed/compressed, default 100
}

// WithDefaults returns l with zero fields set to the contract's defaults.
func (l Limits) WithDefaults() Limits {
	if l.MaxColumns == 0 {
		l.MaxColumns = 1000
	}
	if l.MaxCellBytes == 0 {
		l.MaxCellBytes = 1 << 20
	}
	if l.MaxUnzipBytes == 0 {
		l.MaxUnzipBytes = 4 << 30
	}
	if l.MaxCompressRatio == 0 {
		l.MaxCompressRatio = 100
	}
	return l
}

// ReadOptions are the reader-relevant job options (API.md section 7).
// Zero values mean "auto".
type ReadOptions struct {
	Delimiter rune   // 0 = sniff
	Encoding  string // "" = sniff; else "utf-8", "utf-16le", "utf-16be", "windows-1252", "latin-1"
	Sheet     string // XLSX sheet name or 1-based index; "" = first sheet
	HeaderRow int    // 1-based physical row of the header; 0 = detect
	SkipRows  int    // rows to skip before looking for the header
	Limits    Limits
}

// CellIssue is a problem the reader found in one cell (e.g. an XLSX error
// cell, which arrives as a missing value).
type CellIssue struct {
	Column  int // 0-based index into the record
	Code    string
	Message string
	Value   string
}

// Record is one data record. Unless Owned, Cells (the slice and the text of
// its strings) are only valid until the next call to Next; the engine
// copies what it keeps.
type Record struct {
	Number int      // 1-based data-record number in its file (header not counted)
	Cells  []string // may be shorter or longer than the header (ragged)
	// RowIssue, when set, means the record could not be parsed at all
	// (e.g. a malformed JSON line); Cells is then nil.
	RowIssue   *CellIssue
	CellIssues []CellIssue
	// Owned says Cells is a fresh slice of strings the consumer may keep;
	// otherwise the reader reuses the slice and the memory of its strings
	// for the next record, and a consumer copies what it keeps (with
	// strings.Clone: the text too, not just the slice).
	Owned bool
	// Text, when set, is the stretch of text every cell is a substring of
	// (the record as the reader holds it), so that a consumer can copy the
	// record's text with one copy instead of one a cell.
	Text string
}

// Reader streams one table. Next returns io.EOF after the last record.
type Reader interface {
	Format() Format
	Header() []string // source column names, in order
	Next() (Record, error)
	BytesRead() int64 // approximate position in the (compressed) file, for progress
	Close() error
}
