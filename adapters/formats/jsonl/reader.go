// Package jsonl reads JSON lines: one object per line, its keys naming
// the columns. A strict fast parser (scan.go) reads nearly every line;
// encoding/json decides and explains the rest.
package jsonl

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/tabnorm/tabnorm/adapters/formats/detect"
	"github.com/tabnorm/tabnorm/domain/table"
)

// Reader reads JSON lines: one object per line. Decisions:
//   - Columns are the keys in first-seen order over the first
//     headerSampleLines objects (read ahead and replayed). A key first seen
//     later gets a warning issue on its row naming it, and its value is
//     not mapped.
//   - Strings are taken as they are; numbers keep their literal digits;
//     true/false as text; null is missing; nested objects and arrays
//     become their compact JSON text.
//   - A line that is not a JSON object is a row issue (malformed_json),
//     never a failed file. Blank lines are skipped but numbered, so record
//     n is line n of the file.
//   - A .json file holding one object per line is JSON lines; a JSON array
//     or a pretty-printed document is refused by Sniff with a message
//     saying so (it cannot be streamed line by line).
type Reader struct {
	f       *os.File
	counter *detect.CountingReader
	r       *bufio.Reader
	header  []string
	index   map[string]int
	pending [][]byte
	number  int
	cells   []string
	line    []byte   // the current line, reused
	unknown []string // keys of the current line that are not columns
	set     func(key []byte, val string)
	limits  table.Limits
	maxLine int
	det     table.Detection
}

var _ table.Describer = (*Reader)(nil)

const headerSampleLines = 1000

// Open starts reading the JSON-lines file f, whose encoding te the
// sniffing found (options override it), and learns its columns from the
// first headerSampleLines objects.
func Open(ctx context.Context, f *os.File, te detect.TextEncoding, opts table.ReadOptions) (*Reader, error) {
	limits := opts.Limits.WithDefaults()
	te, err := te.Given(opts.Encoding)
	if err != nil {
		return nil, err
	}
	enc, bom, conf := te.Name, te.BOM, te.Confidence
	if _, err := f.Seek(int64(bom), io.SeekStart); err != nil {
		return nil, err
	}
	counter := detect.NewCountingReader(detect.ContextReader(ctx, f), int64(bom))
	var src io.Reader = counter
	if enc != detect.UTF8 {
		src = detect.Decoder(bufio.NewReaderSize(counter, 64<<10), enc)
	}
	j := &Reader{f: f, counter: counter, r: bufio.NewReaderSize(src, 256<<10), index: map[string]int{},
		limits: limits, maxLine: limits.MaxCellBytes * 8,
		// JSON lines have no header row: the keys name the columns.
		det: table.Detection{Format: table.JSONL, Encoding: enc, EncodingConfidence: conf}}
	j.set = j.setCell
	for len(j.pending) < headerSampleLines {
		line, err := j.readLine()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		line = bytes.Clone(line) // kept until replayed
		j.pending = append(j.pending, line)
		j.learnKeys(line)
		if len(j.header) > limits.MaxColumns {
			return nil, fmt.Errorf("%w: the file has more than %d distinct keys; the limit is %d columns", table.ErrUnreadable, limits.MaxColumns, limits.MaxColumns)
		}
	}
	// Objects without keys ({}) give no column: the header is empty and
	// the records have no cells, which the engine refuses as a table with
	// no columns (no_columns), saying so.
	return j, nil
}

// Detection reports what the reader decided (table.Describer).
func (j *Reader) Detection() table.Detection { return j.det }

// learnKeys adds an object's keys to the header in order of appearance.
func (j *Reader) learnKeys(line []byte) {
	dec := json.NewDecoder(bytes.NewReader(line))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return
		}
		key, _ := t.(string)
		if _, ok := j.index[key]; !ok {
			j.index[key] = len(j.header)
			j.header = append(j.header, key)
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return
		}
	}
}

// readLine returns the next line without its line end. The bytes are only
// valid until the next call.
func (j *Reader) readLine() ([]byte, error) {
	j.line = j.line[:0]
	for {
		chunk, err := j.r.ReadSlice('\n')
		j.line = append(j.line, chunk...)
		if len(j.line) > j.maxLine {
			return nil, fmt.Errorf("%w: line %d is over %d bytes", table.ErrUnreadable, j.number+len(j.pending)+1, j.maxLine)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err == io.EOF && len(j.line) > 0 {
			break
		}
		if err != nil {
			return nil, err
		}
		break
	}
	return bytes.TrimRight(j.line, "\r\n"), nil
}

// Format is JSON lines.
func (j *Reader) Format() table.Format { return table.JSONL }

// Header is the keys of the first objects, in first-seen order.
func (j *Reader) Header() []string { return j.header }

// BytesRead counts the bytes consumed from the file.
func (j *Reader) BytesRead() int64 { return j.counter.Count() }

// Close closes the file.
func (j *Reader) Close() error { return j.f.Close() }

// Next returns the next object's values in header order.
func (j *Reader) Next() (table.Record, error) {
	for {
		var line []byte
		if len(j.pending) > 0 {
			line, j.pending = j.pending[0], j.pending[1:]
		} else {
			var err error
			if line, err = j.readLine(); err != nil {
				return table.Record{}, detect.Unreadable(err)
			}
		}
		j.number++
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		rec := j.record(line)
		for _, c := range rec.Cells {
			if len(c) > j.limits.MaxCellBytes {
				return table.Record{}, fmt.Errorf("%w: a value on line %d is over %d bytes", table.ErrUnreadable, j.number, j.limits.MaxCellBytes)
			}
		}
		return rec, nil
	}
}

func (j *Reader) record(line []byte) table.Record {
	rec := table.Record{Number: j.number}
	if cap(j.cells) < len(j.header) {
		j.cells = make([]string, len(j.header))
	}
	j.cells = j.cells[:len(j.header)]
	clear(j.cells)
	j.unknown = j.unknown[:0]
	if !utf8.Valid(line) || scanObject(line, j.set) != nil {
		// The slow path decides and explains: invalid UTF-8, escaped
		// keys, or a line that is no JSON object at all.
		clear(j.cells)
		j.unknown = j.unknown[:0]
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(line, &obj); err != nil || obj == nil {
			preview := string(line)
			if len(preview) > 200 {
				preview = strings.ToValidUTF8(preview[:200], "") + "…"
			}
			rec.RowIssue = &table.CellIssue{Column: -1, Code: "malformed_json", Message: "The line is not a JSON object: " + jsonProblem(err), Value: preview}
			return rec
		}
		for k, raw := range obj {
			j.set([]byte(k), jsonText(raw))
		}
	}
	for _, k := range j.unknown {
		rec.CellIssues = append(rec.CellIssues, table.CellIssue{Column: -1, Code: "unexpected_key",
			Message: fmt.Sprintf("Key %q first appears after the first %d lines, so it is not a column.", k, headerSampleLines)})
	}
	rec.Cells = j.cells
	return rec
}

// setCell puts one member's value in its column.
func (j *Reader) setCell(key []byte, val string) {
	if i, ok := j.index[string(key)]; ok {
		j.cells[i] = val
		return
	}
	j.unknown = append(j.unknown, string(key))
}

func jsonProblem(err error) string {
	if err == nil {
		return "it is not an object"
	}
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return fmt.Sprintf("syntax error at byte %d", syn.Offset)
	}
	return "it is not an object"
}

// jsonText turns a JSON value into cell text.
func jsonText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	switch raw[0] {
	case '"':
		if bytes.IndexByte(raw, '\\') < 0 {
			return string(raw[1 : len(raw)-1])
		}
		var v string
		_ = json.Unmarshal(raw, &v)
		return v
	case 'n':
		return ""
	case '{', '[':
		var buf bytes.Buffer
		if json.Compact(&buf, raw) == nil {
			return buf.String()
		}
	}
	return string(raw)
}
