package review

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/normalize"
	"github.com/tabnorm/tabnorm/domain/schema"
	"github.com/tabnorm/tabnorm/ports"
)

// A job's records index, in blob storage under
// org/<org>/jobs/<job>/records/<version>/, the version a hash of the
// job's edits' (ports.JobEdits.Version), so that an edit makes a new
// index and every node reads the same one:
//
//   - records.jsonl: every record, a JSON line each, in the files' order,
//     as the API writes a record (recordLine);
//   - lists/<name>.bin: a list of records, an entry of entrySize bytes
//     each (the line's byte offset, 8 bytes, its length, 4, and the
//     record's position in all, 4; little endian), in the list's order.
//     all, valid and rejected are written with records.jsonl; a filtered
//     or sorted list on first use, named by a hash of its query;
//   - search.txt: a line a record, its cells in lower case joined by
//     \x1f, which a search reads instead of the records;
//   - issues.txt: a line a record, its issues as field \x1f code, joined
//     by \x1e, which a filter by issue reads;
//   - fields/<i>.bin: field i's value of each record, as the JSON text of
//     values holds it, each after its length (4 bytes), which a sort by
//     the field reads;
//   - cells/<i>.bin: field i's cell of each record, its text as the
//     record's cells hold it, after its length plus one (4 bytes; 0 for
//     no cell), which a replacement's count reads (changes.go);
//   - keys.bin: each record's row (8 bytes) and file (4, its index in
//     the job's files), which a replacement of rejected rows reads;
//   - index.json: the counts, written last: an index without it is not
//     finished.
//
// A page at position n of a list is one read of its entries at
// n*entrySize and reads of the records' lines, neighbours joined: its
// cost does not depend on n. A new list reads only the columns its query
// needs, a few MB for a sort, the cells' text for a search.
type index struct {
	blobs  ports.BlobStore
	root   string // the job's indexes
	prefix string // this version's
}

const (
	// indexFormat changes the versions' names when the blobs an index
	// holds change: an index of an older format is built again.
	indexFormat  = "2\x00"
	indexKeys    = "keys.bin"
	indexMeta    = "index.json"
	indexRecords = "records.jsonl"
	entrySize    = 16
	indexSearch  = "search.txt"
	indexIssues  = "issues.txt"
	// joinGap is how far apart two lines of a page may be and still be
	// read in one read.
	joinGap = 64 << 10
)

func newIndex(blobs ports.BlobStore, j job.Job, editsVersion string) *index {
	sum := sha256.Sum256([]byte(indexFormat + editsVersion))
	root := "org/" + j.OrgID + "/jobs/" + j.ID + "/records/"
	return &index{blobs: blobs, root: root, prefix: root + hex.EncodeToString(sum[:8]) + "/"}
}

func (ix *index) key(name string) string { return ix.prefix + name }

func (ix *index) exists(name string) func(context.Context) (bool, error) {
	return func(ctx context.Context) (bool, error) {
		_, err := ix.blobs.Size(ctx, ix.key(name))
		if errors.Is(err, domain.ErrNotFound) {
			return false, nil
		}
		return err == nil, err
	}
}

// recordLine is a record as records.jsonl holds it; cells come last, so
// that a search finds them at the line's end.
type recordLine struct {
	Row        int64                 `json:"row"`
	SourceFile *string               `json:"source_file"`
	Valid      bool                  `json:"valid"`
	Edited     []string              `json:"edited"`
	Issues     []normalize.IssueJSON `json:"issues"`
	Values     json.RawMessage       `json:"values"`
	Cells      map[string]*string    `json:"cells"`
}

type entry struct {
	off int64
	n   uint32
	pos uint32 // in all
}

func putEntry(w io.Writer, e entry) error {
	var b [entrySize]byte
	binary.LittleEndian.PutUint64(b[:8], uint64(e.off))
	binary.LittleEndian.PutUint32(b[8:], e.n)
	binary.LittleEndian.PutUint32(b[12:], e.pos)
	_, err := w.Write(b[:])
	return err
}

func readEntries(b []byte) []entry {
	out := make([]entry, len(b)/entrySize)
	for i := range out {
		at := i * entrySize
		out[i] = entry{off: int64(binary.LittleEndian.Uint64(b[at:])), n: binary.LittleEndian.Uint32(b[at+8:]), pos: binary.LittleEndian.Uint32(b[at+12:])}
	}
	return out
}

// indexWriter is a buffered write of one blob.
type indexWriter struct {
	*bufio.Writer
	wc io.WriteCloser
}

func (ix *index) create(ctx context.Context, name string) (*indexWriter, error) {
	wc, err := ix.blobs.Create(ctx, ix.key(name))
	if err != nil {
		return nil, err
	}
	return &indexWriter{Writer: bufio.NewWriterSize(wc, 256<<10), wc: wc}, nil
}

func (w *indexWriter) close() error {
	if err := w.Flush(); err != nil {
		return err
	}
	return w.wc.Close()
}

type indexCounts struct {
	Count    int64 `json:"count"`
	Valid    int64 `json:"valid"`
	Rejected int64 `json:"rejected"`
}

func fieldColumn(i int) string { return "fields/" + strconv.Itoa(i) + ".bin" }

func cellColumn(i int) string { return "cells/" + strconv.Itoa(i) + ".bin" }

// indexBuild is the writing of an index: its blobs, and where the next
// record goes.
type indexBuild struct {
	sch    *schema.Schema
	files  map[string]uint32 // a file's index in the job's files
	keys   []string          // the fields as keys of values' JSON text
	w      map[string]*indexWriter
	counts indexCounts
	off    int64
	buf    bytes.Buffer
	enc    *json.Encoder
	text   []byte
}

func (ix *index) startBuild(ctx context.Context, sch *schema.Schema, files []string) (*indexBuild, error) {
	b := &indexBuild{sch: sch, w: map[string]*indexWriter{}, files: map[string]uint32{}}
	for i, f := range files {
		b.files[f] = uint32(i)
	}
	b.enc = json.NewEncoder(&b.buf)
	b.enc.SetEscapeHTML(false)
	names := []string{indexRecords, "lists/all.bin", "lists/valid.bin", "lists/rejected.bin", indexSearch, indexIssues, indexKeys}
	for i, f := range sch.Fields {
		names = append(names, fieldColumn(i), cellColumn(i))
		b.keys = append(b.keys, string(jsonText(f.Name)))
	}
	for _, n := range names {
		w, err := ix.create(ctx, n)
		if err != nil {
			return nil, err
		}
		b.w[n] = w
	}
	return b, nil
}

// add writes a record: its line, its entries, its columns.
func (b *indexBuild) add(c normalize.RowCheck) error {
	b.buf.Reset()
	if err := b.enc.Encode(recordLine{Row: c.Row, SourceFile: optional(c.SourceFile), Valid: c.Valid, Edited: c.Edited, Issues: c.Issues,
		Values: c.Values, Cells: c.Cells}); err != nil {
		return err
	}
	if _, err := b.w[indexRecords].Write(b.buf.Bytes()); err != nil {
		return err
	}
	e := entry{off: b.off, n: uint32(b.buf.Len()), pos: uint32(b.counts.Count)}
	b.off += int64(b.buf.Len())
	b.counts.Count++
	list := "lists/valid.bin"
	if c.Valid {
		b.counts.Valid++
	} else {
		b.counts.Rejected++
		list = "lists/rejected.bin"
	}
	if err := putEntry(b.w["lists/all.bin"], e); err != nil {
		return err
	}
	if err := putEntry(b.w[list], e); err != nil {
		return err
	}
	b.text = b.text[:0]
	for i, f := range b.sch.Fields {
		if i > 0 {
			b.text = append(b.text, 0x1f)
		}
		if v := c.Cells[f.Name]; v != nil {
			b.text = appendSearchText(b.text, *v)
		}
	}
	b.text = append(b.text, '\n')
	if _, err := b.w[indexSearch].Write(b.text); err != nil {
		return err
	}
	b.text = b.text[:0]
	for i, is := range c.Issues {
		if i > 0 {
			b.text = append(b.text, 0x1e)
		}
		if is.Field != nil {
			b.text = append(b.text, *is.Field...)
		}
		b.text = append(append(b.text, 0x1f), is.Code...)
	}
	b.text = append(b.text, '\n')
	if _, err := b.w[indexIssues].Write(b.text); err != nil {
		return err
	}
	if err := b.addCells(c); err != nil {
		return err
	}
	for i, k := range b.keys {
		v := memberOf(c.Values, k)
		var n [4]byte
		binary.LittleEndian.PutUint32(n[:], uint32(len(v)))
		w := b.w[fieldColumn(i)]
		if _, err := w.Write(n[:]); err != nil {
			return err
		}
		if _, err := w.Write(v); err != nil {
			return err
		}
	}
	return nil
}

// addCells writes a record's key (row and file) and each field's cell.
func (b *indexBuild) addCells(c normalize.RowCheck) error {
	var key [12]byte
	binary.LittleEndian.PutUint64(key[:8], uint64(c.Row))
	binary.LittleEndian.PutUint32(key[8:], b.files[c.SourceFile])
	if _, err := b.w[indexKeys].Write(key[:]); err != nil {
		return err
	}
	for i, f := range b.sch.Fields {
		var n [4]byte
		v := c.Cells[f.Name]
		if v != nil {
			binary.LittleEndian.PutUint32(n[:], uint32(len(*v))+1)
		}
		w := b.w[cellColumn(i)]
		if _, err := w.Write(n[:]); err != nil {
			return err
		}
		if v != nil {
			if _, err := w.WriteString(*v); err != nil {
				return err
			}
		}
	}
	return nil
}

func (b *indexBuild) close() error {
	for _, w := range b.w {
		if err := w.close(); err != nil {
			return err
		}
	}
	return nil
}

// appendSearchText appends a cell's text as a search reads it: in lower
// case (as strings.ToLower has the query), its separators and line ends
// as spaces.
func appendSearchText(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			s = strings.ToLower(s)
			break
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		case c == 0x1f || c == 0x1e || c == '\n' || c == '\r':
			c = ' '
		}
		dst = append(dst, c)
	}
	return dst
}

// buildIndex runs every row of the job's files again with its edits and
// writes its records, the lists all, valid and rejected, and the columns
// new lists read; the issues only the job's run found (a repeated value)
// are carried onto their rows as the rejected-rows page carries them.
func (s *Records) buildIndex(ctx context.Context, p identity.Principal, j job.Job, sch *schema.Schema, ix *index) error {
	ctx, cancel := context.WithCancel(ctx) // an error abandons the writes
	defer cancel()
	began := time.Now() // storage times blobs by the wall clock, not ports.Clock
	edits, err := s.edits.All(ctx, j.OrgID, j.ID)
	if err != nil {
		return err
	}
	repl, err := s.edits.Replacements(ctx, j.OrgID, j.ID)
	if err != nil {
		return err
	}
	opts, err := checkOptions(j)
	if err != nil {
		return err
	}
	carried, err := s.runIssues(ctx, p, j, sch)
	if err != nil {
		return err
	}
	b, err := ix.startBuild(ctx, sch, jobFiles(j))
	if err != nil {
		return err
	}
	// The engine's pass and the writing of the index run side by side, a
	// batch of records apart: on two cores, the build takes the longer of
	// the two, not their sum.
	rows := make(chan []normalize.RowCheck, 4)
	written := make(chan error, 1)
	go func() {
		var err error
		for batch := range rows {
			for _, c := range batch {
				if err == nil {
					err = b.add(carryRunIssues(c, carried[rowKey{c.SourceFile, c.Row}], sch))
				}
			}
			if err != nil {
				cancel() // the pass stops at its next batch
			}
		}
		written <- err
	}()
	batch := make([]normalize.RowCheck, 0, indexBatch)
	err = s.sources.EachRow(ctx, j, opts, edits, repl, func(c normalize.RowCheck) error {
		if batch = append(batch, c); len(batch) == indexBatch {
			rows <- batch
			batch = make([]normalize.RowCheck, 0, indexBatch)
		}
		return nil
	})
	if err == nil && len(batch) > 0 {
		rows <- batch
	}
	close(rows)
	if werr := <-written; werr != nil {
		return werr
	}
	if err != nil {
		return err
	}
	if err := b.close(); err != nil {
		return err
	}
	meta, err := json.Marshal(b.counts)
	if err != nil {
		return err
	}
	if err := ix.put(ctx, indexMeta, meta); err != nil {
		return err
	}
	s.dropOtherVersions(ctx, ix, began)
	return nil
}

// indexBatch is how many records the pass hands the writing at once.
const indexBatch = 512

// carryRunIssues adds to a record the issues of the job's run about it
// that a pass over one row cannot find (a repeated value), unless an edit
// changed the value they are about.
func carryRunIssues(c normalize.RowCheck, run []normalize.IssueJSON, sch *schema.Schema) normalize.RowCheck {
	for _, is := range run {
		if !editedAny(c, issueFields(is, sch)) && !hasIssue(c, is) {
			c.Issues = append(c.Issues, is)
			c.Valid = c.Valid && is.Severity != "error"
		}
	}
	return c
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func (ix *index) put(ctx context.Context, name string, b []byte) error {
	w, err := ix.create(ctx, name)
	if err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		return err
	}
	return w.close()
}

// dropOtherVersions deletes the job's indexes of other versions of its
// edits that were last written before this one's build began: only the
// newest is read again, and an index another request is building for a
// newer version is left alone.
func (s *Records) dropOtherVersions(ctx context.Context, ix *index, began time.Time) {
	newest := map[string]time.Time{}
	err := s.blobs.List(ctx, ix.root, func(b ports.BlobInfo) error {
		if !strings.HasPrefix(b.Key, ix.prefix) {
			if v, _, ok := strings.Cut(strings.TrimPrefix(b.Key, ix.root), "/"); ok && b.ModTime.After(newest[v]) {
				newest[v] = b.ModTime
			}
		}
		return nil
	})
	for v, at := range newest {
		if err == nil && at.Before(began) {
			err = s.blobs.DeletePrefix(ctx, ix.root+v+"/")
		}
	}
	if err != nil { // the job's deletion, or retention, takes them later
		s.log.WarnContext(ctx, "delete old records indexes", "prefix", ix.root, "error", err)
	}
}

// runIssues are the issues of the job's run that a row checked alone
// cannot have (a value repeating an earlier row's), by row.
func (s *Records) runIssues(ctx context.Context, p identity.Principal, j job.Job, sch *schema.Schema) (map[rowKey][]normalize.IssueJSON, error) {
	out := map[rowKey][]normalize.IssueJSON{}
	if !hasUniqueness(sch) {
		return out, nil
	}
	_, rc, err := s.read.OpenResult(ctx, p, j.ID, "issues.jsonl", 0)
	if err != nil {
		return nil, err
	}
	defer func() { _ = rc.Close() }()
	br := bufio.NewReaderSize(rc, 256<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 && (bytes.Contains(line, runOnly[0]) || bytes.Contains(line, runOnly[1])) {
			var is normalize.IssueJSON
			if json.Unmarshal(line, &is) == nil && is.Row != nil {
				k := rowKey{row: *is.Row}
				if is.SourceFile != nil {
					k.file = *is.SourceFile
				}
				out[k] = append(out[k], is)
			}
		}
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("issues of job %s: %w", j.ID, err)
		}
	}
}

// listName is the list a query reads: a status's, or one named by a hash
// of the query.
func (q RecordQuery) listName() string {
	if q.Field == "" && q.Code == "" && q.Q == "" && q.Sort == "" {
		return "lists/" + string(q.Status) + ".bin"
	}
	sum := sha256.Sum256([]byte(strings.Join([]string{string(q.Status), q.Field, q.Code, strings.ToLower(q.Q), q.Sort, strconv.FormatBool(q.Desc)}, "\x00")))
	return "lists/q-" + hex.EncodeToString(sum[:12]) + ".bin"
}

func (ix *index) readAll(ctx context.Context, name string, offset, length int64) ([]byte, error) {
	rc, err := ix.blobs.Open(ctx, ix.key(name), offset, length)
	if errors.Is(err, domain.ErrNotFound) {
		return nil, errIndexGone
	}
	if err != nil {
		return nil, err
	}
	defer func() { _ = rc.Close() }()
	return io.ReadAll(rc)
}

// sortKey is a record's place in a sorted list: 24 bytes, a text's bytes
// kept in one arena (sorter), so that a sort of a million records holds
// some 30 MB.
type sortKey struct {
	num        float64
	at         uint32 // the record's index in the base list
	text, size uint32 // where its text is in the arena
	kind       uint8  // 0 number, 1 text, 2 boolean, 3 null
}

// sorter orders records by one field's values.
type sorter struct {
	keys  []sortKey
	arena []byte
	desc  bool
}

// add reads a value's JSON text as what it sorts by.
func (s *sorter) add(at uint32, v []byte) {
	k := sortKey{at: at, kind: 3}
	switch {
	case len(v) == 0 || string(v) == "null":
	case v[0] == '"':
		text := v[1 : len(v)-1]
		if bytes.IndexByte(v, '\\') >= 0 {
			var t string
			if json.Unmarshal(v, &t) != nil {
				break
			}
			text = []byte(t)
		}
		k.kind, k.text, k.size = 1, uint32(len(s.arena)), uint32(len(text))
		s.arena = append(s.arena, text...)
	case string(v) == "true" || string(v) == "false":
		k.kind = 2
		if string(v) == "true" {
			k.num = 1
		}
	default:
		n, err := strconv.ParseFloat(string(v), 64)
		if err == nil {
			k.kind, k.num = 0, n
		}
	}
	s.keys = append(s.keys, k)
}

func (s *sorter) sort() {
	slices.SortFunc(s.keys, func(a, b sortKey) int {
		if c := s.compare(a, b); c != 0 {
			return c
		}
		return cmp.Compare(a.at, b.at) // ties in the files' order
	})
}

// buildList writes a filtered or sorted list, from the status's list and
// one pass over the columns its query reads, in one of the node's check
// slots.
func (s *Records) buildList(ctx context.Context, j job.Job, sch *schema.Schema, ix *index, q RecordQuery, name string) error {
	if q.listName() == "lists/"+string(q.Status)+".bin" {
		return errIndexGone // written with the index, which is there
	}
	release, err := s.sources.CheckSlot(ctx, j.OrgID)
	if err != nil {
		return err
	}
	defer release()
	raw, err := ix.readAll(ctx, "lists/"+string(q.Status)+".bin", 0, -1)
	if err != nil {
		return err
	}
	base := readEntries(raw)
	sc := &listScan{q: q, want: appendSearchText(nil, strings.ToLower(q.Q))}
	defer sc.close()
	if err := sc.open(ctx, ix, sch); err != nil {
		return err
	}
	kept, sorted, err := sc.scan(base)
	if err != nil {
		return fmt.Errorf("records index of job %s: %w", j.ID, err)
	}
	w, err := ix.create(ctx, name)
	if err != nil {
		return err
	}
	for _, e := range kept {
		if err := putEntry(w, e); err != nil {
			return err
		}
	}
	if sorted != nil {
		for _, k := range sorted.keys {
			if err := putEntry(w, base[k.at]); err != nil {
				return err
			}
		}
	}
	return w.close()
}

// listScan is a pass over the columns a query reads.
type listScan struct {
	q                      RecordQuery
	want                   []byte // the search as the cells' text has it
	cols                   []*indexColumn
	search, issues, sortBy *indexColumn
}

func (sc *listScan) open(ctx context.Context, ix *index, sch *schema.Schema) error {
	open := func(name string, lines bool) (*indexColumn, error) {
		rc, err := ix.blobs.Open(ctx, ix.key(name), 0, -1)
		if errors.Is(err, domain.ErrNotFound) {
			return nil, errIndexGone
		}
		if err != nil {
			return nil, err
		}
		c := &indexColumn{r: bufio.NewReaderSize(rc, 1<<20), rc: rc, lines: lines}
		sc.cols = append(sc.cols, c)
		return c, nil
	}
	var err error
	if sc.q.Q != "" {
		if sc.search, err = open(indexSearch, true); err != nil {
			return err
		}
	}
	if sc.q.Field != "" || sc.q.Code != "" {
		if sc.issues, err = open(indexIssues, true); err != nil {
			return err
		}
	}
	if sc.q.Sort != "" {
		if sc.sortBy, err = open(fieldColumn(fieldIndex(sch, sc.q.Sort)), false); err != nil {
			return err
		}
	}
	return nil
}

func (sc *listScan) close() {
	for _, c := range sc.cols {
		_ = c.rc.Close()
	}
}

// scan returns the base's entries the query keeps, or, for a sort, their
// keys sorted. A sort holds a key per record (at most the base's), a
// filter only the entries it keeps.
func (sc *listScan) scan(base []entry) ([]entry, *sorter, error) {
	var kept []entry
	var sorted *sorter
	if sc.sortBy != nil {
		sorted = &sorter{keys: make([]sortKey, 0, len(base)), desc: sc.q.Desc}
	}
	for i, e := range base {
		for _, c := range sc.cols {
			if err := c.at(e.pos); err != nil {
				return nil, nil, err
			}
		}
		if sc.search != nil && !bytes.Contains(sc.search.cur, sc.want) || sc.issues != nil && !hasIssueText(sc.issues.cur, sc.q.Field, sc.q.Code) {
			continue
		}
		if sorted != nil {
			sorted.add(uint32(i), sc.sortBy.cur)
		} else {
			kept = append(kept, e)
		}
	}
	if sorted != nil {
		sorted.sort()
	}
	return kept, sorted, nil
}

func fieldIndex(sch *schema.Schema, name string) int {
	for i, f := range sch.Fields {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// indexColumn reads a column of an index, a record at a time in the order of
// all: a line each (lines), or a value after its length.
type indexColumn struct {
	r     *bufio.Reader
	rc    io.Closer
	lines bool
	// cells reads a cell column (a length plus one, 0 for no cell: null
	// says so); fixed a column of values of that many bytes.
	cells bool
	null  bool
	fixed int
	next  uint32 // the position of the record read next
	cur   []byte // the record at the position asked for last
	buf   []byte
}

// at reads the column up to the record at pos.
func (c *indexColumn) at(pos uint32) error {
	for c.next <= pos {
		var err error
		if c.lines {
			err = c.line(c.next == pos)
		} else {
			err = c.value(c.next == pos)
		}
		if err != nil {
			return err
		}
		c.next++
	}
	return nil
}

func (c *indexColumn) line(keep bool) error {
	c.buf = c.buf[:0]
	for {
		part, err := c.r.ReadSlice('\n')
		if keep || errors.Is(err, bufio.ErrBufferFull) {
			c.buf = append(c.buf, part...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			return err
		}
		if keep {
			c.cur = c.buf[:len(c.buf)-1]
		}
		return nil
	}
}

func (c *indexColumn) value(keep bool) error {
	size := c.fixed
	if size == 0 {
		var n [4]byte
		if _, err := io.ReadFull(c.r, n[:]); err != nil {
			return err
		}
		size = int(binary.LittleEndian.Uint32(n[:]))
	}
	if c.cells {
		c.null = size == 0
		size = max(size-1, 0)
	}
	if !keep {
		_, err := c.r.Discard(size)
		return err
	}
	c.buf = slices.Grow(c.buf[:0], size)[:size]
	_, err := io.ReadFull(c.r, c.buf)
	c.cur = c.buf
	return err
}

// hasIssueText says whether a record's issues line has an issue of the
// field and code ("": any).
func hasIssueText(line []byte, field, code string) bool {
	for len(line) > 0 {
		item, rest, _ := bytes.Cut(line, []byte{0x1e})
		line = rest
		f, c, _ := bytes.Cut(item, []byte{0x1f})
		if (field == "" || string(f) == field) && (code == "" || string(c) == code) && len(c) > 0 {
			return true
		}
	}
	return false
}

func jsonText(s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	b := bytes.TrimSpace(buf.Bytes())
	return b[1 : len(b)-1]
}

// memberOf is the JSON text of key's value in obj, a JSON object (nil
// when it has none): a scan of its bytes, no decoding.
func memberOf(obj []byte, key string) []byte {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return nil
	}
	i++
	for {
		i = skipSpace(obj, i)
		if i >= len(obj) || obj[i] != '"' {
			return nil
		}
		end := skipValue(obj, i)
		k := obj[i+1 : end-1]
		i = skipSpace(obj, end)
		if i >= len(obj) || obj[i] != ':' {
			return nil
		}
		start := skipSpace(obj, i+1)
		i = skipValue(obj, start)
		if string(k) == key {
			return obj[start:i]
		}
		i = skipSpace(obj, i)
		if i >= len(obj) || obj[i] != ',' {
			return nil
		}
		i++
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns where the JSON value starting at i ends.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	depth := 0
	for ; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
			if depth == 0 {
				return i + 1
			}
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			if depth == 0 {
				return i
			}
			depth--
			if depth == 0 {
				return i + 1
			}
		case depth == 0 && (c == ',' || c == ' ' || c == '\n'):
			return i
		}
	}
	return i
}

// compare orders numbers, then texts, then booleans, each upwards (all
// downwards when desc), and nulls last either way.
func (s *sorter) compare(a, b sortKey) int {
	if an, bn := a.kind == 3, b.kind == 3; an || bn {
		switch {
		case an && bn:
			return 0
		case an:
			return 1
		default:
			return -1
		}
	}
	c := cmp.Compare(a.kind, b.kind)
	if c == 0 && a.kind == 1 {
		c = bytes.Compare(s.arena[a.text:a.text+a.size], s.arena[b.text:b.text+b.size])
	} else if c == 0 {
		c = cmp.Compare(a.num, b.num)
	}
	if s.desc {
		return -c
	}
	return c
}

// page reads the records at positions offset to offset+limit of a list,
// and how many the list holds.
func (ix *index) page(ctx context.Context, list string, offset int64, limit int) (int64, []normalize.RowCheck, error) {
	size, err := ix.blobs.Size(ctx, ix.key(list))
	if errors.Is(err, domain.ErrNotFound) {
		return 0, nil, errIndexGone
	}
	if err != nil {
		return 0, nil, err
	}
	total := size / entrySize
	if offset >= total {
		return total, []normalize.RowCheck{}, nil
	}
	n := min(int64(limit), total-offset)
	raw, err := ix.readAll(ctx, list, offset*entrySize, n*entrySize)
	if err != nil {
		return 0, nil, err
	}
	entries := readEntries(raw)
	lines, err := ix.lines(ctx, entries)
	if err != nil {
		return 0, nil, err
	}
	out := make([]normalize.RowCheck, len(lines))
	for i, l := range lines {
		var rec recordLine
		if err := json.Unmarshal(l, &rec); err != nil {
			return 0, nil, fmt.Errorf("records index %s: %w", ix.prefix, err)
		}
		out[i] = normalize.RowCheck{Row: rec.Row, Found: true, Valid: rec.Valid, Values: rec.Values, Cells: rec.Cells, Edited: rec.Edited, Issues: rec.Issues}
		if rec.SourceFile != nil {
			out[i].SourceFile = *rec.SourceFile
		}
	}
	return total, out, nil
}

// lines reads the lines of entries, in their order: by offset, each run
// of lines no further than joinGap apart in one read.
func (ix *index) lines(ctx context.Context, entries []entry) ([][]byte, error) {
	order := make([]int, len(entries))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(entries[a].off, entries[b].off) })
	out := make([][]byte, len(entries))
	for start := 0; start < len(order); {
		first := entries[order[start]]
		end := start + 1
		last := first.off + int64(first.n)
		for end < len(order) && entries[order[end]].off <= last+joinGap {
			last = max(last, entries[order[end]].off+int64(entries[order[end]].n))
			end++
		}
		buf, err := ix.readAll(ctx, indexRecords, first.off, last-first.off)
		if err != nil {
			return nil, err
		}
		for _, i := range order[start:end] {
			e := entries[i]
			at := e.off - first.off
			if at+int64(e.n) > int64(len(buf)) {
				return nil, errIndexGone
			}
			out[i] = buf[at : at+int64(e.n)]
		}
		start = end
	}
	return out, nil
}
