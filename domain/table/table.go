// Package table describes a tabular file as the normalize engine sees it: a
// header and a stream of records of text cells. Format readers (in
// adapters/formats) produce it; the engine (domain/normalize) consumes it.
// Nothing here does I/O.
package table

import (
	"errors"
	"strconv"
)

// Format is a detected file format.
type Format string

// The formats the readers know.
const (
	CSV   Format = "csv"
	TSV   Format = "tsv"
	JSONL Format = "jsonl"
	XLSX  Format = "xlsx"
)

// ErrUnsupportedFormat is returned (wrapped) when the bytes are none of the
// supported formats.
var ErrUnsupportedFormat = errors.New("unsupported file format")

// ErrEncrypted is returned (wrapped) for a password-protected workbook or
// document: it cannot be read without its password. A job reading such a
// file fails with code encrypted_file.
var ErrEncrypted = errors.New("encrypted file")

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
	Encoding  string // "" = sniff; else a name LookupEncoding accepts
	Sheet     string // XLSX sheet name or 1-based index; "" = first sheet
	HeaderRow int    // 1-based row of the header, counted after SkipRows; 0 = detect (see NoHeader)
	// NoHeader says the file has no header row: every record is data and
	// the columns are named by position (PositionalName).
	NoHeader bool
	SkipRows int // rows to skip before looking for the header
	// Quote is the quote character of CSV/TSV: "" = sniff, `"` or `'`, or
	// QuoteNone (quoting off: a quote is a character like any other).
	Quote string
	// Escape is CSV/TSV's escape character inside quotes: "" = sniff, `\`,
	// or EscapeNone (a quote inside quotes is doubled, RFC 4180).
	Escape string
	// Comment is CSV/TSV's comment character: "" = auto (# when the
	// file's first non-blank line starts with it), CommentNone (no
	// comments: every line is data), or one character; a line starting
	// with it is skipped wherever it is.
	Comment string
	// FooterRows says how the records at the end of the file are read: 0
	// detects a block of notes below the table (after a blank record, to
	// the end of the file, records that do not fit the table) and skips
	// it; FooterNone reads every record; n > 0 skips the last n records.
	FooterRows int
	Limits     Limits
}

// FooterNone is ReadOptions.FooterRows for a file without notes below the
// table.
const FooterNone = -1

// MaxFooterRows bounds ReadOptions.FooterRows (the records are held until
// the end of the file) and how long a detected block of notes may be.
const MaxFooterRows = 1000

// QuoteNone and EscapeNone are the option values that turn quoting and
// backslash escapes off; a Detection reports them as "".
const (
	QuoteNone   = "none"
	EscapeNone  = "none"
	CommentNone = "none"
)

// MaxHeaderRow bounds ReadOptions.HeaderRow: a reader reads (and skips) the
// rows above the header, so an unbounded value would let a client make it
// read a whole file before the first record.
const MaxHeaderRow = 10_000

// PositionalName is the name of column i (0-based) of a file read without
// a header row: "column_1", "column_2", … (valid schema field names, so an
// inferred schema round-trips).
func PositionalName(i int) string { return "column_" + strconv.Itoa(i+1) }

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

// Detection is what a reader decided about its file, whether the caller
// gave it as an option or the reader sniffed it. It is reported to the
// caller (a job's result.detected, the CLI's --explain), and is shaped so
// that passing it back as the read options reproduces the same reading.
type Detection struct {
	Format   Format
	Encoding string // IANA name as accepted by ReadOptions.Encoding
	// EncodingConfidence is "given" (an option), "certain" (a BOM, or bytes
	// that are valid UTF-8 / the format's own rule) or "guessed" (chosen
	// among plausible single-byte or multi-byte encodings).
	EncodingConfidence string
	Delimiter          string // CSV/TSV only
	Quote              string // CSV/TSV only; "" when quoting is off
	Escape             string // CSV/TSV only; "" when quotes are doubled
	// RareEscapes, when over 0, counts the backslash-quote pairs of the
	// sniffed sample whose reading the first records did not decide: the
	// escape was taken on their evidence (Escape `\`), or they were left
	// as they are (Escape ""), reading no worse either way.
	RareEscapes int
	// Comment is CSV/TSV's comment character, "" when there is none; the
	// comment lines skipped are CommentLines (1-based physical lines, the
	// first 100) and CommentCount in all (complete once Next has returned
	// io.EOF).
	Comment      string
	CommentLines []int
	CommentCount int
	Sheet        string // XLSX only: the sheet read
	// HeaderRow is the 1-based physical row of the header; 0 means the file
	// has no header row (columns are named by position).
	HeaderRow int
	// SkippedRows are the 1-based physical rows skipped above the header
	// (a preamble), at most the first 100 of them; SkippedCount counts all.
	SkippedRows  []int
	SkippedCount int
	// RowLabels says the header was one cell short of (nearly) every
	// record, as a table written with row names is: the first column holds
	// the row labels and is named RowLabelColumn.
	RowLabels bool

	// What the reader let go of under the header, counted while reading
	// (complete once Next has returned io.EOF). Rows are data-record
	// numbers (table.Record.Number), the first 100 of each kind listed.
	// BlankRows are records whose cells are all empty or white space.
	BlankRows  []int
	BlankCount int
	// RepeatedHeaderRows are records equal to the header (cell by cell,
	// trimmed): files concatenated with their headers.
	RepeatedHeaderRows  []int
	RepeatedHeaderCount int
	// FooterRows are the records of the block of notes below the table
	// (ReadOptions.FooterRows).
	FooterRows  []int
	FooterCount int
	// StackedRow is the record where the header of another table starts
	// (sharing some of this table's column names, not all): it and every
	// record after it, StackedCount in all, are not read as this table's
	// rows. StackedHeader is that header. 0 when there is none.
	StackedRow    int
	StackedCount  int
	StackedHeader []string
	// MergedRanges are the merged ranges of an XLSX sheet that cover cells
	// of its data rows (below the header row), as A1 references, the first
	// 10 listed; MergedCount counts them. A merged range's value is in its
	// first cell only: the others read as empty.
	MergedRanges []string
	MergedCount  int
	// SheetPassedOver is the workbook's default sheet when the reader read
	// another (Sheet) in its place, no sheet being named: it holds notes
	// (mostly long text) where Sheet holds a regular table.
	SheetPassedOver string
	// OtherSheets are the workbook's other visible sheets with data, when
	// no sheet was named: their rows as a review lists them (FirstRow
	// left out), at most 10.
	OtherSheets []Sheet
}

// RowLabelColumn names the column of row labels (Detection.RowLabels).
const RowLabelColumn = "row_label"

// Describer is implemented by readers that report their Detection. It is
// valid once the reader has been opened (the header read).
type Describer interface {
	Detection() Detection
}

// Sheet is one sheet of a workbook, as a person choosing which sheet to
// read sees it.
type Sheet struct {
	Name string
	// Rows counts the rows that hold a value (a header and the lines of a
	// title included), as far as the sheet was read: all of them when
	// Complete, else at least so many.
	Rows int
	// Complete says the sheet was read to its end: Rows is all its rows
	// with a value, and a sheet of none is empty.
	Complete bool
	// FirstRow is the first row that holds a value (mostly the header),
	// cut short; nil when none was read.
	FirstRow []string
}

// SheetLister is implemented by readers of workbooks: the workbook's
// sheets, for a person choosing which one to read. A review asks for
// them; a run never does.
type SheetLister interface {
	Sheets() ([]Sheet, error)
}
