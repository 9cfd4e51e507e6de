// Package delimited reads CSV and TSV files: it sniffs the dialect
// (delimiter, quote, escape; see Delimiter), finds the header row and
// reads the records with a scanner that bounds memory and repairs what
// real files get wrong in their quoting, counting what lies under the
// header but is not its rows (see tail.go).
package delimited

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/tabnorm/tabnorm/adapters/formats/detect"
	"github.com/tabnorm/tabnorm/domain/table"
)

// Reader reads CSV and TSV files. Decisions (API.md §7 leaves
// them open):
//   - Records before the header (title lines, notes, blank lines) are not
//     data and are not numbered.
//   - Blank lines and records whose cells are all empty (or white space)
//     after the header are skipped but numbered: record n is the n-th
//     record under the header, so for a file without line breaks inside
//     quotes, row n is the n-th line under the header in any editor. (A
//     line break inside quotes does not start a record.)
//   - An Excel "sep=;" first line sets the delimiter and is not a record.
//   - Quoting problems are warnings on the record (stray_quote,
//     unterminated_quote), never a failed file; see scanner.
type Reader struct {
	f       *os.File
	counter *detect.CountingReader
	sc      *scanner
	format  table.Format
	header  []string
	pending []scanned // records read while looking for the header
	number  int
	limits  table.Limits
	det     table.Detection
	tail    tail
	quote   byte // the quote character, 0 when quoting is off
}

var _ table.Describer = (*Reader)(nil)

// Open starts reading the delimited file f, whose first bytes are sample
// and whose encoding te the sniffing found (options override it), and
// finds its dialect and header row.
func Open(ctx context.Context, f *os.File, sample []byte, filename string, te detect.TextEncoding, opts table.ReadOptions) (*Reader, error) {
	limits := opts.Limits.WithDefaults()
	if opts.HeaderRow > table.MaxHeaderRow || opts.HeaderRow < 0 {
		return nil, fmt.Errorf("%w: header_row %d is out of range (1 to %d)", table.ErrUnreadable, opts.HeaderRow, table.MaxHeaderRow)
	}
	te, err := te.Given(opts.Encoding)
	if err != nil {
		return nil, err
	}
	enc, bom, conf := te.Name, te.BOM, te.Confidence
	text := detect.DecodeSample(sample, enc, bom)
	given, err := dialectOptions(opts)
	if err != nil {
		return nil, err
	}
	dia := sniffDialect(text, filename, given)
	if _, err := f.Seek(int64(bom), io.SeekStart); err != nil {
		return nil, err
	}
	counter := detect.NewCountingReader(detect.ContextReader(ctx, f), int64(bom))
	src := bufio.NewReaderSize(counter, 256<<10)
	d := &Reader{f: f, counter: counter, sc: newScanner(detect.Decoder(src, enc), dia.delim, limits), format: table.CSV, limits: limits}
	d.sc.setQuoting(dia.quote, dia.escape)
	d.sc.blankQuote = dia.blankQuote
	d.sc.comment = dia.comment
	// Bytes that are not UTF-8 in a UTF-8 file are read as Windows-1252,
	// given or detected alike, so that a Detection passed back reads the same.
	d.sc.fixUTF8 = enc == detect.UTF8
	if dia.delim == '\t' {
		d.format = table.TSV
	}
	d.det = table.Detection{Format: d.format, Encoding: enc, EncodingConfidence: conf, Delimiter: string(rune(dia.delim))}
	if dia.quote != 0 {
		d.det.Quote = string(rune(dia.quote))
		d.quote = dia.quote
	}
	if dia.escape != 0 {
		d.det.Escape = string(rune(dia.escape))
	}
	d.det.RareEscapes = dia.rareEscapes
	if dia.comment != 0 {
		d.det.Comment = string(rune(dia.comment))
	}
	if dia.sepLine {
		if _, err := d.sc.next(); err != nil {
			return nil, d.emptyOr(err)
		}
	}
	if err := d.findHeader(opts); err != nil {
		return nil, err
	}
	return d, nil
}

// findHeader reads the first records and picks the header row. Only a
// bounded sample is held: rows above a given header_row are read and let
// go, not kept.
func (d *Reader) findHeader(opts table.ReadOptions) error {
	for range opts.SkipRows {
		rec, err := d.sc.next()
		if err != nil {
			return d.emptyOr(err)
		}
		d.skipped(rec, d.sc.line)
	}
	if opts.HeaderRow > 0 && !opts.NoHeader {
		return d.givenHeader(opts)
	}
	var sample []scanned
	for len(sample) < detect.SampleRecords {
		rec, err := d.sc.next()
		if err == io.EOF {
			d.tail.eof = true
			break
		}
		if err != nil {
			return err
		}
		sample = append(sample, scanned{cloneCells(rec), d.sc.issues, d.sc.line, d.sc.comments}) // kept past the next record
	}
	if len(sample) == 0 {
		return nil // an empty file: no header, no records
	}
	cells := make([][]string, len(sample))
	for i, s := range sample {
		cells[i] = s.cells
	}
	at, hasHeader := 0, false
	if !opts.NoHeader {
		at, hasHeader = detect.Header(cells)
	}
	if !hasHeader {
		// Without a header, nothing is skipped: lines above the first data
		// record are read as records too (ragged ones, for a title), and
		// header_row "none" reads the file the same way.
		at = 0
	}
	for _, s := range sample[:at] {
		d.skipped(s.cells, s.line)
	}
	if !hasHeader {
		width := 0
		for _, c := range cells[at:] {
			width = max(width, len(c))
		}
		d.header = make([]string, width)
		for i := range d.header {
			d.header[i] = table.PositionalName(i)
		}
		d.pending = sample[at:]
		d.setTail(nil, d.pending, opts.FooterRows)
		return d.checkWidth()
	}
	d.header = sample[at].cells
	d.det.HeaderRow = at + 1
	d.pending = sample[at+1:]
	return d.headerFound(opts)
}

// headerFound checks what the header row says about the records: one cell
// short of them (row labels), and what the records under it look like.
func (d *Reader) headerFound(opts table.ReadOptions) error {
	if err := d.readAhead(detect.SampleRecords); err != nil {
		return err
	}
	header := d.header
	d.rowLabels(d.pending)
	d.setTail(header, d.pending, opts.FooterRows)
	return d.checkWidth()
}

// givenHeader reads up to the header_row the options give, skipping the
// rows above it.
func (d *Reader) givenHeader(opts table.ReadOptions) error {
	row := opts.HeaderRow
	for i := 1; ; i++ {
		rec, err := d.sc.next()
		if err == io.EOF {
			return fmt.Errorf("%w: header_row %d is past the end of the file (%d rows)", table.ErrUnreadable, row, i-1)
		}
		if err != nil {
			return err
		}
		if i == row {
			d.header = cloneCells(rec)
			d.det.HeaderRow = i
			return d.headerFound(opts)
		}
		d.skipped(rec, d.sc.line)
	}
}

// skipped notes a record above the header: a non-blank one is a row the
// Detection reports (table.Detection.SkippedRows).
func (d *Reader) skipped(rec []string, line int) {
	if detect.Blank(rec) {
		return
	}
	d.det.SkippedCount++
	if len(d.det.SkippedRows) < detect.MaxSkippedRows {
		d.det.SkippedRows = append(d.det.SkippedRows, line)
	}
}

func (d *Reader) checkWidth() error {
	if len(d.header) > d.limits.MaxColumns {
		return fmt.Errorf("%w: the file has %d columns; the limit is %d", table.ErrUnreadable, len(d.header), d.limits.MaxColumns)
	}
	return nil
}

func (d *Reader) emptyOr(err error) error {
	if err == io.EOF {
		return nil
	}
	return err
}

// Detection reports what the reader decided (table.Describer), with the
// comment lines the scanner skipped so far.
func (d *Reader) Detection() table.Detection {
	det := d.det
	det.CommentCount, det.CommentLines = d.sc.commentCount, slices.Clone(d.sc.commentLines)
	return det
}

// Format is CSV or TSV, as the delimiter says.
func (d *Reader) Format() table.Format { return d.format }

// Header is the header row's names, or positional names without one.
func (d *Reader) Header() []string { return d.header }

// BytesRead counts the bytes consumed from the file.
func (d *Reader) BytesRead() int64 { return d.counter.Count() }

// Close closes the file.
func (d *Reader) Close() error { return d.f.Close() }

// scanned is a record with the scanner's warnings about it and the
// physical line it starts on.
type scanned struct {
	cells    []string
	issues   []table.CellIssue
	line     int
	comments int // comment lines skipped right before it, numbered as rows
}

// Next returns the next data record: not blank, not the header again, not
// the notes below the table (see tail).
func (d *Reader) Next() (table.Record, error) {
	atBlank := false
	for {
		if d.tail.footer > 0 || atBlank {
			if end, err := d.footerNext(atBlank); err != nil || end {
				return table.Record{}, eofOr(err)
			}
		}
		rec, owned, text, err := d.read() // records read ahead are copies
		if err != nil {
			return table.Record{}, detect.Unreadable(err)
		}
		d.number += 1 + rec.comments
		if atBlank = detect.Blank(rec.cells) && len(rec.issues) == 0; atBlank {
			detect.Skip(&d.det.BlankRows, &d.det.BlankCount, d.number)
			d.tail.lastBlank = true
			continue
		}
		if d.headerAgain(rec.cells) {
			detect.Skip(&d.det.RepeatedHeaderRows, &d.det.RepeatedHeaderCount, d.number)
			continue
		}
		if d.otherTable(rec.cells) {
			return table.Record{}, eofOr(d.stack(rec.cells))
		}
		if d.quote != 0 && (text == "" || strings.IndexByte(text, d.quote) >= 0) {
			rec.issues = d.suspiciousQuoting(rec.cells, rec.issues)
		}
		d.tail.lastBlank = false
		d.tail.data++
		if len(rec.cells)*2 <= len(d.header) {
			d.tail.short++
		}
		// Other records share the scanner's buffer until the next call.
		return table.Record{Number: d.number, Cells: rec.cells, CellIssues: rec.issues, Owned: owned, Text: text}, nil
	}
}

// eofOr is err, else the end of the records.
func eofOr(err error) error {
	if err != nil {
		return detect.Unreadable(err)
	}
	return io.EOF
}

// cloneCells copies a record the scanner will reuse.
func cloneCells(cells []string) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = strings.Clone(c)
	}
	return out
}

// dialect is how a delimited file is split.
type dialect struct {
	delim, quote, escape byte
	blankQuote           bool // see scanner.blankQuote
	sepLine              bool // an Excel "sep=X" first line, not a record
	// rareEscapes counts the backslash-quote pairs of a sample whose
	// escape the first records did not decide (see wholeSampleEscape); 0
	// when there is nothing to warn of.
	rareEscapes int
	comment     byte // the comment character, 0 for none
}

// givenDialect is the part of the dialect the options fix; 0 fields are
// sniffed, except that a quote or escape of "none" is 0 and fixed.
type givenDialect struct {
	dialect
	delimSet, quoteSet, escapeSet, commentSet bool
}

func dialectOptions(opts table.ReadOptions) (g givenDialect, err error) {
	bad := func(what string) error {
		return fmt.Errorf("%w: the %s must be one ASCII character other than a line end", table.ErrUnreadable, what)
	}
	if opts.Delimiter != 0 {
		if opts.Delimiter > 127 || opts.Delimiter == '\n' || opts.Delimiter == '\r' {
			return g, bad("delimiter")
		}
		g.delim, g.delimSet = byte(opts.Delimiter), true
	}
	switch opts.Quote {
	case "":
	case table.QuoteNone:
		g.quoteSet = true
	case `"`, "'":
		g.quote, g.quoteSet = opts.Quote[0], true
	default:
		return g, fmt.Errorf("%w: the quote must be \", ' or none", table.ErrUnreadable)
	}
	switch opts.Escape {
	case "":
	case table.EscapeNone:
		g.escapeSet = true
	case `\`:
		g.escape, g.escapeSet = '\\', true
	default:
		return g, fmt.Errorf("%w: the escape must be \\ or none", table.ErrUnreadable)
	}
	if g.delimSet && g.quoteSet && g.quote != 0 && g.delim == g.quote {
		return g, bad("delimiter (not the quote)")
	}
	switch c := opts.Comment; {
	case c == "":
	case c == table.CommentNone:
		g.commentSet = true
	case len(c) == 1 && c[0] > ' ' && c[0] < 0x7f && (!g.delimSet || c[0] != g.delim) && (!g.quoteSet || c[0] != g.quote):
		g.comment, g.commentSet = c[0], true
	default:
		return g, bad("comment character (not the delimiter, the quote or a blank)")
	}
	return g, nil
}

// Delimiter is the delimiter of a file whose decoded first bytes are text,
// as Open sniffs it without options (the format's sniffing tells TSV from
// CSV by it).
func Delimiter(text, filename string) byte {
	return sniffDialect(text, filename, givenDialect{}).delim
}

// sepDelimiter reports whether a "sep=X" line names a delimiter the reader
// takes: a printable ASCII character or tab. Any other line is data.
func sepDelimiter(c byte) bool { return c == '\t' || (c > ' ' && c < 0x7f) }

// sniffDialect reads the dialect from decoded sample text, within what
// the options fix. An Excel "sep=X" first line sets the delimiter. Else
// every candidate — delimiter among , ; tab | (then colon and space),
// quote " or ', escape none or backslash — reads the first records
// (parsed with quotes, so delimiters and line breaks inside quoted cells
// do not count), and the reading with the fewest quoting problems, then
// the most records that agree on their number of cells (more than one),
// then the most cells wins; but a reading that splits every record, the
// first included, into the same number of cells beats one that leaves the
// first record (the header) one cell. Quotes that do not pair up mean the quoting
// was read with the wrong delimiter or quote. A single quote or a
// backslash escape is chosen only when it reads the records better than
// the plain RFC 4180 reading, and colon or space only when every record
// splits into the same number of cells and no common delimiter splits
// most of them. A .tsv or .tab file name breaks ties toward tab.
func sniffDialect(text, filename string, given givenDialect) dialect {
	out := dialect{delim: ',', quote: '"', comment: commentChar(text, given)}
	if sep, ok := sepLine(text); ok {
		out.sepLine = true // not a record, whatever the delimiter option says
		if !given.delimSet {
			given.delim, given.delimSet = sep, true
		}
		out.delim = given.delim
	}
	name := strings.ToLower(filename)
	if strings.HasSuffix(name, ".tsv") || strings.HasSuffix(name, ".tab") {
		out.delim = '\t'
	}
	given.comment = out.comment
	best := bestReading(text, given)
	if best.freq > 0 {
		out.delim, out.quote, out.escape, out.blankQuote = best.d.delim, best.d.quote, best.d.escape, best.d.blankQuote
	} else {
		// Nothing splits: the given parts, else the defaults.
		if given.delimSet {
			out.delim = given.delim
		}
		if given.quoteSet {
			out.quote = given.quote
		}
		if given.escapeSet {
			out.escape = given.escape
		}
	}
	if out.quote == out.delim { // sep=" or a delimiter option of ": quoting is off
		out.quote, out.escape = 0, 0
	}
	if !given.escapeSet && best.freq > 0 && out.quote != 0 {
		out = wholeSampleEscape(text, out)
	}
	return out
}

// rareEscapes is how many backslash-quote pairs in a sample are few: a
// backslash escape taken on so little evidence is warned of.
const rareEscapes = 5

// wholeSampleEscape decides the escape from the whole sample, not only
// its first records (a file with few backslash escapes may have none
// there): the reading with fewer quoting problems wins; on a tie, doubled
// quotes. An escape taken on few pairs, or pairs left as they are on a
// tie, is noted (rareEscapes) for a warning.
func wholeSampleEscape(text string, d dialect) dialect {
	n := strings.Count(text, `\`+string(d.quote))
	if n == 0 {
		return d
	}
	none, bs := d, d
	none.escape, bs.escape = 0, '\\'
	all := strings.Count(text, "\n") + 1
	rn, rb := readRecords(text, none, all), readRecords(text, bs, all)
	switch {
	case rb.issues < rn.issues:
		if d.escape == 0 || n <= rareEscapes {
			bs.rareEscapes = n
		}
		return bs
	case rb.issues == rn.issues && d.escape == 0:
		none.rareEscapes = n
		return none
	case rn.issues < rb.issues:
		return none
	}
	return d
}

// commentChar is the comment character: the one given, else # when the
// first non-blank line of the sample (after a "sep=X" line) starts with
// it, else none.
func commentChar(text string, given givenDialect) byte {
	if given.commentSet {
		return given.comment
	}
	if _, ok := sepLine(text); ok {
		_, text, _ = strings.Cut(text, "\n")
	}
	for line := range strings.Lines(text) {
		if l := strings.TrimRight(line, "\r\n"); strings.TrimSpace(l) != "" {
			if l[0] == '#' {
				return '#'
			}
			return 0
		}
	}
	return 0
}

// sepLine returns the delimiter an Excel "sep=X" first line names.
func sepLine(text string) (byte, bool) {
	first, _, _ := strings.Cut(text, "\n")
	first = strings.TrimRight(first, "\r")
	if len(first) == 5 && strings.HasPrefix(strings.ToLower(first), "sep=") && sepDelimiter(first[4]) {
		return first[4], true
	}
	return 0, false
}

// dialectCandidates are the delimiters, quotes and escapes worth trying on the
// sample, within what the options fix.
func dialectCandidates(text string, given givenDialect) (delims, quotes, escapes []byte) {
	delims, quotes, escapes = []byte{',', ';', '\t', '|'}, []byte{'"'}, []byte{0}
	if strings.IndexByte(text, '\'') >= 0 {
		quotes = append(quotes, '\'')
	}
	if strings.Contains(text, `\"`) || strings.Contains(text, `\'`) {
		escapes = append(escapes, '\\')
	}
	if given.delimSet {
		delims = []byte{given.delim}
	}
	if given.quoteSet {
		quotes = []byte{given.quote}
	}
	if given.escapeSet {
		escapes = []byte{given.escape}
	}
	return delims, quotes, escapes
}

// bestReading is the reading of the sample by the candidate that reads it
// best (see sniffDialect); its freq is 0 when nothing splits it.
func bestReading(text string, given givenDialect) reading {
	delims, quotes, escapes := dialectCandidates(text, given)
	var best reading
	for _, q := range quotes {
		for _, e := range escapes {
			for _, d := range delims {
				if q == 0 && e != 0 || d == q {
					continue
				}
				c := dialect{delim: d, quote: q, escape: e, comment: given.comment}
				if r := readSample(text, c); r.better(best, c) {
					best = r
				}
			}
		}
	}
	if !given.delimSet && (best.freq == 0 || best.freq*2 < best.records) {
		best = uncommonDelimiter(text, quotes, best)
	}
	if best.freq > 0 && best.d.quote != 0 && best.d.delim != ' ' && strings.Contains(text, string([]byte{best.d.delim, ' ', best.d.quote})) {
		// Blanks before opening quotes: dropped when that reads better.
		c := best.d
		c.blankQuote = true
		if r := readSample(text, c); r.issues < best.issues || r.issues == best.issues && r.freq > best.freq {
			best = r
		}
	}
	return best
}

// uncommonDelimiter tries colon and space, for a sample no common
// delimiter splits mostly: one wins when every record agrees. The colons
// of URLs (://) and clock times (12:30, 8:15:05) are the values' own: a
// colon wins only when the records agree with those colons left out too,
// so a list of URLs or times stays one column.
func uncommonDelimiter(text string, quotes []byte, best reading) reading {
	for _, d := range []byte{':', ' '} {
		for _, q := range quotes {
			r := readSample(text, dialect{delim: d, quote: q, comment: best.d.comment})
			if !r.splitsEvenly() || !r.better(best, r.d) {
				continue
			}
			if d == ':' && !readSample(maskValueColons(text), r.d).splitsEvenly() {
				continue
			}
			best = r
		}
	}
	return best
}

// splitsEvenly tells a reading without quoting problems that splits
// every record, two or more, into the same number of cells.
func (r reading) splitsEvenly() bool {
	return r.records >= 2 && r.freq == r.records && r.issues == 0
}

// maskValueColons replaces with a dot the colons that belong to values:
// those of "://" and those between one or two digits and two digits
// (a clock time).
func maskValueColons(text string) string {
	b := []byte(text)
	for i := range b {
		if b[i] != ':' {
			continue
		}
		if strings.HasPrefix(text[i+1:], "//") || clockColon(text, i) {
			b[i] = '.'
		}
	}
	return string(b)
}

// clockColon tells a colon at i between one or two digits and exactly
// two digits.
func clockColon(text string, i int) bool {
	digit := func(j int) bool { return j >= 0 && j < len(text) && text[j] >= '0' && text[j] <= '9' }
	before := 0
	for j := i - 1; digit(j); j-- {
		before++
	}
	return before >= 1 && before <= 2 && digit(i+1) && digit(i+2) && !digit(i+3)
}

// reading is how one dialect reads the sample.
type reading struct {
	d       dialect
	ok      bool
	issues  int // quoting problems
	records int // non-blank records
	freq    int // records with the most common number of cells (over 1)
	mode    int // that number
	quoted  int // cells read as quoted
	first   int // the first non-blank record's number of cells
}

func readSample(text string, c dialect) reading { return readRecords(text, c, sniffRecords) }

// sniffRecords is how many records of the sample a candidate dialect reads.
const sniffRecords = 40

// readRecords reads up to n records of the sample with dialect c.
func readRecords(text string, c dialect, n int) reading {
	limits := table.Limits{MaxColumns: 100_000, MaxCellBytes: len(text) + 1}
	sc := newScanner(strings.NewReader(text), c.delim, limits)
	sc.r = bufio.NewReaderSize(strings.NewReader(text), len(text)+1) // not the file reader's 256 KiB, once per candidate
	sc.setQuoting(c.quote, c.escape)
	sc.blankQuote = c.blankQuote
	sc.comment = c.comment
	r := reading{d: c, ok: true}
	counts := map[int]int{}
	last := 0 // the last record's quoting problems, not counted: the sample may cut it
	for range n {
		rec, err := sc.next()
		if err != nil {
			break
		}
		r.issues += last
		last = len(sc.issues)
		r.quoted += sc.quotedCells
		if !detect.Blank(rec) {
			if r.records == 0 {
				r.first = len(rec)
			}
			r.records++
		}
		if len(rec) > 1 {
			counts[len(rec)]++
		}
	}
	for n, f := range counts {
		if f > r.freq || (f == r.freq && n > r.mode) {
			r.mode, r.freq = n, f
		}
	}
	return r
}

// better tells whether r (read with dialect c) beats the best so far. A
// reading that splits nothing never wins.
func (r reading) better(best reading, c dialect) bool {
	if r.freq == 0 {
		return false
	}
	if !best.ok || best.freq == 0 {
		return true
	}
	// A single quote must quote more cells than the double quote does
	// (apostrophes are common in text); a backslash escape must have
	// fewer quoting problems.
	if c.quote != best.d.quote && c.quote != '"' && r.quoted <= best.quoted {
		return false
	}
	// A reading that splits the header and every record alike beats one
	// that leaves the header one cell (a record over many lines holding
	// another delimiter makes more, but fragments).
	if r.splitsEvenly() && best.first == 1 {
		return true
	}
	if best.splitsEvenly() && r.first == 1 {
		return false
	}
	if r.issues != best.issues {
		return r.issues < best.issues
	}
	if c.escape != best.d.escape && c.escape != 0 {
		return false
	}
	if r.freq != best.freq {
		return r.freq > best.freq
	}
	return r.mode > best.mode
}
