package formats

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tabnorm/tabnorm/domain/table"
)

// delimitedReader reads CSV and TSV files. Decisions (API.md §7 leaves
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
type delimitedReader struct {
	f       *os.File
	counter *countingReader
	sc      *scanner
	format  table.Format
	header  []string
	pending []scanned // records read while looking for the header
	number  int
	limits  table.Limits
}

// sampleRecords is how many records header detection looks at.
const sampleRecords = 30

func openDelimited(f *os.File, sample []byte, filename string, opts table.ReadOptions) (*delimitedReader, error) {
	limits := opts.Limits.WithDefaults()
	enc, bom := detectEncoding(sample)
	if opts.Encoding != "" {
		e, ok := normalizeEncoding(opts.Encoding)
		if !ok {
			return nil, fmt.Errorf("%w: unknown encoding %q", table.ErrUnreadable, opts.Encoding)
		}
		if e != enc {
			bom = 0
		}
		enc = e
	}
	text := decodeSample(sample, enc, bom)
	delim, sepLine := sniffDelimiter(text, filename)
	if opts.Delimiter != 0 {
		if opts.Delimiter > 127 {
			return nil, fmt.Errorf("%w: the delimiter must be one ASCII character", table.ErrUnreadable)
		}
		delim = byte(opts.Delimiter)
	}
	if _, err := f.Seek(int64(bom), io.SeekStart); err != nil {
		return nil, err
	}
	counter := &countingReader{r: f, n: int64(bom)}
	src := bufio.NewReaderSize(counter, 256<<10)
	d := &delimitedReader{f: f, counter: counter, sc: newScanner(decoder(src, enc), delim, limits), format: table.CSV, limits: limits}
	d.sc.fixUTF8 = enc == encUTF8 && opts.Encoding == ""
	if delim == '\t' {
		d.format = table.TSV
	}
	if sepLine {
		if _, err := d.sc.next(); err != nil {
			return nil, err
		}
	}
	if err := d.findHeader(opts); err != nil {
		return nil, err
	}
	return d, nil
}

// findHeader reads the first records and picks the header row.
func (d *delimitedReader) findHeader(opts table.ReadOptions) error {
	for range opts.SkipRows {
		if _, err := d.sc.next(); err != nil {
			return d.emptyOr(err)
		}
	}
	var sample []scanned
	want := sampleRecords
	if opts.HeaderRow > 0 {
		want = opts.HeaderRow
	}
	for len(sample) < want {
		rec, err := d.sc.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		sample = append(sample, scanned{cloneCells(rec), d.sc.issues}) // kept past the next record
	}
	if len(sample) == 0 {
		return nil // an empty file: no header, no records
	}
	at := opts.HeaderRow - 1
	if opts.HeaderRow == 0 {
		cells := make([][]string, len(sample))
		for i, s := range sample {
			cells[i] = s.cells
		}
		at = DetectHeader(cells)
	} else if at >= len(sample) {
		return fmt.Errorf("%w: header_row %d is past the end of the file (%d rows)", table.ErrUnreadable, opts.HeaderRow, len(sample))
	}
	d.header = sample[at].cells
	if len(d.header) > d.limits.MaxColumns {
		return fmt.Errorf("%w: the file has %d columns; the limit is %d", table.ErrUnreadable, len(d.header), d.limits.MaxColumns)
	}
	d.pending = sample[at+1:]
	return nil
}

func (d *delimitedReader) emptyOr(err error) error {
	if err == io.EOF {
		return nil
	}
	return err
}

func (d *delimitedReader) Format() table.Format { return d.format }
func (d *delimitedReader) Header() []string     { return d.header }
func (d *delimitedReader) BytesRead() int64     { return d.counter.n }
func (d *delimitedReader) Close() error         { return d.f.Close() }

// scanned is a record with the scanner's warnings about it.
type scanned struct {
	cells  []string
	issues []table.CellIssue
}

// Next returns the next non-blank data record.
func (d *delimitedReader) Next() (table.Record, error) {
	for {
		var rec scanned
		owned := len(d.pending) > 0 // records read ahead for the header are copies
		text := ""
		if owned {
			rec, d.pending = d.pending[0], d.pending[1:]
		} else {
			cells, err := d.sc.next()
			if err != nil {
				return table.Record{}, unreadable(err)
			}
			rec, text = scanned{cells, d.sc.issues}, d.sc.text
		}
		d.number++
		if blank(rec.cells) && len(rec.issues) == 0 {
			continue
		}
		// Other records share the scanner's buffer until the next call.
		return table.Record{Number: d.number, Cells: rec.cells, CellIssues: rec.issues, Owned: owned, Text: text}, nil
	}
}

// cloneCells copies a record the scanner will reuse.
func cloneCells(cells []string) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = strings.Clone(c)
	}
	return out
}

func blank(rec []string) bool {
	for _, c := range rec {
		if strings.TrimSpace(c) != "" {
			return false
		}
	}
	return true
}

// sniffDelimiter picks , ; tab or | from decoded sample text: the one
// that splits the first records (parsed with quotes, so delimiters and
// line breaks inside quoted cells do not count) into the same, largest
// number of cells. An Excel "sep=X" first line wins; a .tsv or .tab file
// name breaks ties toward tab.
func sniffDelimiter(text, filename string) (delim byte, sepLine bool) {
	first, _, _ := strings.Cut(text, "\n")
	first = strings.TrimRight(first, "\r")
	if len(first) == 5 && strings.HasPrefix(strings.ToLower(first), "sep=") {
		return first[4], true
	}
	name := strings.ToLower(filename)
	best, bestScore := byte(','), -1
	if strings.HasSuffix(name, ".tsv") || strings.HasSuffix(name, ".tab") {
		best = '\t'
	}
	limits := table.Limits{MaxColumns: 100_000, MaxCellBytes: len(text) + 1}
	bestIssues := 0
	for _, c := range []byte{',', ';', '\t', '|'} {
		sc := newScanner(strings.NewReader(text), c, limits)
		counts := map[int]int{}
		issues := 0
		for range 40 {
			rec, err := sc.next()
			if err != nil {
				break
			}
			issues += len(sc.issues)
			if len(rec) > 1 {
				counts[len(rec)]++
			}
		}
		mode, freq := 0, 0
		for n, f := range counts {
			if f > freq || (f == freq && n > mode) {
				mode, freq = n, f
			}
		}
		// Quotes that do not pair up mean the quoting was read with the
		// wrong delimiter; then records that agree matter most, and more
		// cells break ties.
		score := freq*100_000 + mode
		if freq > 0 && (bestScore < 0 || issues < bestIssues || issues == bestIssues && score > bestScore) {
			best, bestScore, bestIssues = c, score, issues
		}
	}
	return best, false
}

// countingReader counts the bytes read from the file, for progress.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
