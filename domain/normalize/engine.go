package normalize

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/rules"
	"github.com/tabnorm/tabnorm/domain/schema"
	"github.com/tabnorm/tabnorm/domain/table"
)

// Source is one input file. Open may be called more than once: the engine
// reads a file's first records again to settle date orders.
type Source struct {
	FileID string // "" for a single-file job
	Open   func() (table.Reader, error)
}

// Progress is what a run has done so far.
type Progress struct {
	RowsRead     int64
	RowsValid    int64
	RowsRejected int64
	BytesRead    int64
}

// Input is everything a run needs.
type Input struct {
	Mode    Mode
	Schema  *schema.Schema // required for normalize and validate
	Options Options
	Sources []Source
	// Learned maps a normalized header to a field name, from the
	// organization's earlier explicit mappings for the same saved schema.
	Learned map[string]string
	MaxRows int64 // 0: 10,000,000
	// MaxIssues bounds the issues written; past it they are counted and
	// the result says issues_truncated. 0: 1,000,000.
	MaxIssues  int64
	OnProgress func(Progress) // at most every ProgressEvery
	// NewIndex makes the indexes of unique values; nil keeps them in memory.
	NewIndex func() UniqueIndex
	// ProgressEvery is the least time between progress reports (250 ms).
	ProgressEvery time.Duration
	// Lists are the reference lists the schema's inList constraints name,
	// by id.
	Lists map[string]ListLookup
	// Edits are a person's values for single cells (edits.go), read
	// instead of the file's, before coercion, one a cell.
	Edits []Edit
}

// Output is where a run writes: valid rows and issues, as JSON lines.
type Output struct {
	Rows   io.Writer
	Issues io.Writer
}

// Result sums up a finished run.
type Result struct {
	RowCount        int64
	RejectedCount   int64
	IssueCount      int64
	IssuesTruncated bool
	Mapping         []MappingEntry
	InferredSchema  *schema.Schema
	Profile         []ColumnProfile
	Progress        Progress
	// Detected is what each file's reader decided (for readers that say).
	Detected []FileDetection
	// Decisions are the per-field date orders and decimal marks, per file.
	Decisions []Decision
	// EditsApplied counts the cells edits set; EditsNotApplied the edits
	// whose row no file had (each a warning edit_not_applied).
	EditsApplied, EditsNotApplied int64
	// FileIssues are the issues about a file rather than a row (what a
	// reader skipped, a decision to check, a mapping to confirm), the
	// first MaxFileIssues of them, kept also past the issues' limit: a
	// person reads them before the rows.
	FileIssues []Issue
}

// MaxFileIssues bounds Result.FileIssues.
const MaxFileIssues = 100

// keepFileIssue keeps an issue about a file in the result, a copy of its
// own (its text may share a worker's memory).
func (w *writer) keepFileIssue(is Issue) {
	if len(w.res.FileIssues) >= MaxFileIssues {
		return
	}
	is.Message = strings.Clone(is.Message)
	if is.Value != nil {
		v := strings.Clone(*is.Value)
		is.Value = &v
	}
	w.res.FileIssues = append(w.res.FileIssues, is)
}

// FileDetection is a reader's Detection for one source file.
type FileDetection struct {
	SourceFile string
	table.Detection
}

// Failure is a run that could not complete, with the job error code.
type Failure struct {
	Code    domain.Code
	Message string
	// Stack is where a panic happened (code internal_error): for the
	// operator's log, never for the client.
	Stack string
}

func (f *Failure) Error() string { return string(f.Code) + ": " + f.Message }

func fail(code domain.Code, format string, args ...any) *Failure {
	return &Failure{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Issue is one problem found in the data.
type Issue struct {
	Row        int64 // 0 when the issue is about the file, not a row
	SourceFile string
	Column     string
	Field      string
	Severity   string
	Code       string
	Message    string
	Value      *string
	Rule       string // the rule's name, for rule_violation and rule_error
}

const batchSize = 512

// Run reads every source, maps and coerces its rows and writes valid rows
// and issues. A *Failure error means the job fails with that code; a
// context error means it was stopped.
func Run(ctx context.Context, in Input, out Output) (res Result, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = panicFailure(v)
		}
	}()
	if in.Mode == ModeInfer {
		return runInfer(ctx, in, out)
	}
	if in.Schema == nil {
		return Result{}, fail(domain.CodeInvalidSchema, "mode %s needs a target schema", in.Mode)
	}
	if in.MaxRows <= 0 {
		in.MaxRows = 10_000_000
	}
	if in.MaxIssues <= 0 {
		in.MaxIssues = 1_000_000
	}
	if in.ProgressEvery <= 0 {
		in.ProgressEvery = 250 * time.Millisecond
	}
	w := newWriter(in, out)
	defer w.closeIndexes()
	for _, src := range in.Sources {
		if err := w.runSource(ctx, src); err != nil {
			_ = w.flush()
			return w.result(), err
		}
	}
	if err := w.flush(); err != nil {
		return w.result(), err
	}
	w.report(true)
	return w.result(), nil
}

// panicFailure turns a panic, which is always a bug, into the job's
// failure internal_error, keeping the stack for the log.
func panicFailure(v any) *Failure {
	return &Failure{Code: domain.CodeInternalError, Message: "The engine failed on this file; the failure was logged for the operator.",
		Stack: fmt.Sprintf("panic: %v\n%s", v, debug.Stack())}
}

// readerFailure turns a reader's error into the job's failure. Once the
// job's context has ended, the reader's error is that (a reader stopped
// by cancel, the job timeout or shutdown may say so in its own words):
// the file is not to blame.
func readerFailure(ctx context.Context, err error, fileID string) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var f *Failure
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.As(err, &f) {
		return err
	}
	where := ""
	if fileID != "" {
		where = " (" + fileID + ")"
	}
	if errors.Is(err, table.ErrEncrypted) {
		return fail(domain.CodeEncryptedFile, "The file%s is password-protected: %v", where, err)
	}
	if errors.Is(err, table.ErrUnsupportedFormat) {
		return fail(domain.CodeUnsupportedFileFormat, "The file%s is not CSV, TSV, JSON lines or XLSX: %v", where, err)
	}
	return fail(domain.CodeUnreadableFile, "The file%s cannot be read: %v", where, err)
}

// rowOut is one processed record.
type rowOut struct {
	number  int64
	ok      bool // no error-severity issue
	start   int  // row JSON in batch.json[start:end]
	end     int
	issues  []Issue
	uniques []uint64 // hash per unique field, 0 for null (slices batch.hashes)
	pk      uint64   // primary key hash, 0 when any part is null
	hasPK   bool
	edited  int32 // cells set by edits (in the padding after hasPK)
}

type batch struct {
	seq    int
	recs   []table.Record
	cells  []string // the cells of records the reader did not hand over owned
	text   []byte   // and their text
	owned  bool     // some records are the reader's own (held until cleared)
	rows   []rowOut
	json   []byte
	hashes []uint64 // backing store of every row's uniques
	bytes  int64    // reader position after this batch
	sc     scratch  // the coerced values of the row being processed
	// act is the rules stage's activation, bad its unreadable fields
	// (rules.go); failure stops the job (a reference list unreadable).
	act     *rules.Activation
	bad     []bool
	failure *Failure
}

// plan is one source compiled: where each column goes and how.
type plan struct {
	fileID    string
	header    []string
	to        []int // source column → field index, -1 unmapped
	columns   []column
	fieldKey  [][]byte // `{"name":` for the first field, `,"name":` for the others
	uniq      []int    // field indexes with unique constraints
	pk        []int    // primary key field indexes
	missing   []string
	maxMiss   int       // longest missing value
	missEmpty bool      // "" is a missing value
	missFirst [256]bool // the first bytes of the others
	opts      Options
	// values are the fields' value_map replacements (nil: none at all;
	// a nil entry: none for that field).
	values []*valueMap
	// keepRejected writes rejected rows' JSON too, their refused cells
	// null: a review's preview shows them (review.go).
	keepRejected bool
	// stage computes fields and checks lists and rules (rules.go); nil
	// when the schema has none. computed are the computed fields'
	// columns, which coerce a computed value (never in validate mode).
	stage    *stage
	computed []column
	// sourceColumns are the columns expressions read as source["…"] (nil:
	// every column).
	sourceColumns []int
	// keyColumns are the columns of the source keys compiled expressions
	// read (rules.Env.KeyColumns).
	keyColumns []int
	// edits are the file's edits by row (nil: none), and unapplied the
	// rows whose edits no written row took yet (edits.go).
	edits     map[int64][]cellEdit
	unapplied map[int64]bool
}

type writer struct {
	in          Input
	rows        *bufio.Writer
	issues      *bufio.Writer
	seed        maphash.Seed
	uniqSeen    []UniqueIndex
	pkSeen      UniqueIndex
	res         Result
	errorsCount int64
	lastReport  time.Time
	line        []byte // an issue's JSON
	// stage is compiled once per job, by the first plan.
	stage      *stage
	stageReady bool
}

func newWriter(in Input, out Output) *writer {
	w := &writer{in: in, rows: bufio.NewWriterSize(out.Rows, 256<<10), issues: bufio.NewWriterSize(out.Issues, 64<<10),
		seed: maphash.MakeSeed(), lastReport: time.Now()}
	newIndex := in.NewIndex
	if newIndex == nil {
		newIndex = func() UniqueIndex { return NewMemoryIndex() }
	}
	w.uniqSeen = make([]UniqueIndex, len(in.Schema.Fields))
	for i, f := range in.Schema.Fields {
		if f.Constraints.Unique {
			w.uniqSeen[i] = newIndex()
		}
	}
	if len(in.Schema.PrimaryKey) > 0 {
		w.pkSeen = newIndex()
	}
	return w
}

func (w *writer) closeIndexes() {
	for _, ix := range w.uniqSeen {
		if ix != nil {
			_ = ix.Close()
		}
	}
	if w.pkSeen != nil {
		_ = w.pkSeen.Close()
	}
}

func (w *writer) flush() error {
	if err := w.rows.Flush(); err != nil {
		return fmt.Errorf("write rows: %w", err)
	}
	if err := w.issues.Flush(); err != nil {
		return fmt.Errorf("write issues: %w", err)
	}
	return nil
}

func (w *writer) result() Result {
	r := w.res
	r.RowCount, r.RejectedCount = r.Progress.RowsValid, r.Progress.RowsRejected
	return r
}

func (w *writer) report(force bool) {
	if w.in.OnProgress == nil {
		return
	}
	if now := time.Now(); force || now.Sub(w.lastReport) >= w.in.ProgressEvery {
		w.lastReport = now
		w.in.OnProgress(w.res.Progress)
	}
}

// runSource maps one file and streams it through the workers.
func (w *writer) runSource(ctx context.Context, src Source) error {
	r, err := src.Open()
	if err != nil {
		return readerFailure(ctx, err, src.FileID)
	}
	defer func() { _ = r.Close() }()
	p, err := w.plan(ctx, src, r)
	if err != nil {
		return err
	}
	bytesBefore := w.res.Progress.BytesRead

	pl := newPipeline(ctx)
	defer pl.cancel()
	go pl.read(r)
	pl.startWorkers(p, w.seed)
	stop := w.writeInOrder(pl, p, bytesBefore)
	if pl.panicked != nil {
		return pl.panicked
	}
	if stop != nil {
		return stop
	}
	if pl.readErr != nil {
		return readerFailure(ctx, pl.readErr, src.FileID)
	}
	w.res.Progress.BytesRead = bytesBefore + r.BytesRead()
	if err := pl.ctx.Err(); err != nil {
		return err
	}
	w.tailWarnings(src.FileID, r)
	w.currencyWarnings(p)
	w.unappliedEdits(p)
	return nil
}

// currencyWarnings warns of a number column whose values carried several
// currencies when the schema has no currency field to keep them in: the
// amounts came out as numbers, and which currency each was in is lost.
func (w *writer) currencyWarnings(p *plan) {
	for _, f := range p.to {
		if f >= 0 && w.in.Schema.Fields[f].Format == schema.Currency {
			return // the file's currency column keeps it
		}
	}
	for c, f := range p.to {
		if f < 0 || !p.columns[f].currencies.mixed() {
			continue
		}
		name := p.columns[f].field.Name
		w.issue(Issue{SourceFile: p.fileID, Column: p.header[c], Field: name, Severity: warning, Code: "mixed_currencies",
			Message: fmt.Sprintf("The amounts of column %q are in several currencies: %s. They came out as numbers in field %q, which does not say the currency; add a field with format currency (mapped to a column that holds it) or read each currency separately.",
				p.header[c], p.columns[f].currencies, name)})
	}
}

// pipeline carries one source's batches from the reader through the
// workers to the writer. Batches go round: a fixed set is filled,
// processed, written and filled again, so their memory is reused and the
// garbage collector has little to do.
type pipeline struct {
	ctx    context.Context
	cancel context.CancelFunc
	free   chan *batch // empty batches for the reader
	work   chan *batch // filled batches for the workers
	done   chan *batch // processed batches for the writer, in any order
	// readErr is the reader's error, read once done is closed (the reader
	// has stopped by then: work is closed before the workers end).
	readErr error
	// panicked is the first worker's panic, read once done is closed.
	panicked  *Failure
	panicOnce sync.Once
}

func newPipeline(ctx context.Context) *pipeline {
	ctx, cancel := context.WithCancel(ctx)
	pl := &pipeline{ctx: ctx, cancel: cancel, work: make(chan *batch, 4), done: make(chan *batch, 4)}
	// There are enough batches for every place one can wait (the reader,
	// the two queues, each worker, the writer's reordering).
	pl.free = make(chan *batch, 2*cap(pl.work)+3*max(1, runtime.GOMAXPROCS(0))+2)
	for range cap(pl.free) {
		pl.free <- &batch{}
	}
	return pl
}

// read fills batches with the reader's records until its end, an error,
// or cancellation, and closes work.
func (pl *pipeline) read(r table.Reader) {
	defer close(pl.work)
	defer func() {
		if v := recover(); v != nil {
			pl.readErr = panicFailure(v)
		}
	}()
	for seq := 0; ; seq++ {
		var b *batch
		select {
		case b = <-pl.free:
		case <-pl.ctx.Done():
			return
		}
		b.seq, b.recs, b.cells, b.text = seq, b.recs[:0], b.cells[:0], b.text[:0]
		pl.readErr = b.fill(r)
		b.bytes = r.BytesRead()
		if len(b.recs) > 0 {
			select {
			case pl.work <- b:
			case <-pl.ctx.Done():
				return
			}
		}
		if len(b.recs) < batchSize || pl.readErr != nil || pl.ctx.Err() != nil {
			return // a short batch is the last
		}
	}
}

// fill reads up to batchSize records into the batch; it returns the
// reader's error, nil at the end of the file.
func (b *batch) fill(r table.Reader) error {
	for len(b.recs) < batchSize {
		rec, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if !rec.Owned {
			b.keep(&rec)
		} else {
			b.owned = true
		}
		b.recs = append(b.recs, rec)
	}
	return nil
}

// startWorkers processes batches on every processor, and closes done when
// all the workers have ended.
func (pl *pipeline) startWorkers(p *plan, seed maphash.Seed) {
	var wg sync.WaitGroup
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Go(func() { pl.process(p, seed) })
	}
	go func() { wg.Wait(); close(pl.done) }()
}

// process is one worker. A panic is the job's failure: it cancels the
// pipeline and lets the reader finish.
func (pl *pipeline) process(p *plan, seed maphash.Seed) {
	defer func() {
		if v := recover(); v != nil {
			pl.panicOnce.Do(func() { pl.panicked = panicFailure(v) })
			pl.cancel()
			for range pl.work { // let the reader finish
			}
		}
	}()
	for b := range pl.work {
		p.process(b, seed)
		select {
		case pl.done <- b:
		case <-pl.ctx.Done():
			return
		}
	}
}

// writeInOrder takes the processed batches in the order they were read,
// returns each to the reader, and drains the pipeline after a failure,
// which it returns.
func (w *writer) writeInOrder(pl *pipeline, p *plan, bytesBefore int64) error {
	pending := map[int]*batch{}
	next := 0
	var stop error
	for b := range pl.done {
		if stop != nil {
			continue // drain
		}
		pending[b.seq] = b
		for nb, ok := pending[next]; ok && stop == nil; nb, ok = pending[next] {
			delete(pending, next)
			next++
			if err := w.take(p, nb); err != nil {
				stop = err
				pl.cancel()
				break
			}
			w.res.Progress.BytesRead = bytesBefore + nb.bytes
			if nb.owned { // let go of the reader's records while the batch waits
				clear(nb.recs)
				nb.owned = false
			}
			pl.free <- nb
			w.report(false)
		}
		if stop == nil && pl.ctx.Err() != nil {
			stop = pl.ctx.Err()
		}
	}
	return stop
}

// keep copies a record the reader will reuse into the batch's own memory,
// which the batch reuses in turn once it is written. A string made here
// is valid only while the batch is: anything that outlives the batch (an
// entry in a cache) is cloned.
//
// When the reader gives the stretch of text the cells lie in (Record.Text,
// as the CSV reader does), the stretch is copied at once and the cells
// pointed into the copy, rather than copied one by one (BenchmarkBatchKeep:
// half the time).
func (b *batch) keep(rec *table.Record) {
	if rec.Text == "" || !b.keepText(rec) {
		b.keepCells(rec)
	}
}

// keepText copies rec.Text and re-points the cells into the copy; it
// returns false, keeping nothing, if a cell is not inside rec.Text.
func (b *batch) keepText(rec *table.Record) bool {
	if cap(b.text)-len(b.text) < len(rec.Text) {
		// A full buffer is left to the strings that use it.
		b.text = make([]byte, 0, max(2*cap(b.text), len(rec.Text), 64<<10))
	}
	at := len(b.text)
	b.text = append(b.text, rec.Text...)
	text := b.text[at:]
	start := len(b.cells)
	b.cells = slices.Grow(b.cells, len(rec.Cells))[:start+len(rec.Cells)]
	cells := b.cells[start:len(b.cells):len(b.cells)]
	from := uintptr(unsafe.Pointer(unsafe.StringData(rec.Text)))
	for i, c := range rec.Cells {
		if len(c) == 0 {
			cells[i] = ""
			continue
		}
		off := uintptr(unsafe.Pointer(unsafe.StringData(c))) - from
		if off > uintptr(len(text)) || uintptr(len(c)) > uintptr(len(text))-off {
			b.text, b.cells = b.text[:at], b.cells[:start]
			return false
		}
		cells[i] = unsafe.String(&text[off], len(c))
	}
	rec.Cells, rec.Text = cells, ""
	return true
}

// keepCells copies the cells one by one.
func (b *batch) keepCells(rec *table.Record) {
	size := 0
	for _, c := range rec.Cells {
		size += len(c)
	}
	if cap(b.text)-len(b.text) < size {
		b.text = make([]byte, 0, max(2*cap(b.text), size, 64<<10))
	}
	at := len(b.text)
	b.text = b.text[:at+size]
	start := len(b.cells)
	b.cells = slices.Grow(b.cells, len(rec.Cells))[:start+len(rec.Cells)]
	cells := b.cells[start:len(b.cells):len(b.cells)]
	for i, c := range rec.Cells {
		if len(c) == 0 {
			cells[i] = ""
			continue
		}
		copy(b.text[at:], c)
		cells[i] = unsafe.String(&b.text[at], len(c))
		at += len(c)
	}
	rec.Cells, rec.Text = cells, ""
}

// fileWarnings reports what the reader decided that a person should
// check: records skipped above the header, an encoding it guessed.
func (w *writer) fileWarnings(fileID string, d table.Detection) {
	if d.SkippedCount > 0 {
		rows := make([]string, len(d.SkippedRows))
		for i, r := range d.SkippedRows {
			rows[i] = strconv.Itoa(r)
		}
		more := ""
		if d.SkippedCount > len(d.SkippedRows) {
			more = ", …"
		}
		w.issue(Issue{SourceFile: fileID, Severity: warning, Code: "skipped_preamble",
			Message: fmt.Sprintf("%d record(s) above the header (row %d) were skipped: rows %s%s. Set header_row to read them.",
				d.SkippedCount, d.HeaderRow, strings.Join(rows, ", "), more)})
	}
	if d.RareEscapes > 0 {
		taken := "were read as escaped quotes (set escape to none if the backslashes are text)"
		if d.Escape == "" {
			taken = "were kept as text: the file reads as well either way (set escape to \\ if they escape quotes)"
		}
		w.issue(Issue{SourceFile: fileID, Severity: warning, Code: "rare_escape",
			Message: fmt.Sprintf("The file has few backslash-quote pairs (%d in its first 64 KiB); they %s.", d.RareEscapes, taken)})
	}
	if d.EncodingConfidence == "guessed" {
		w.issue(Issue{SourceFile: fileID, Severity: warning, Code: "encoding_guessed",
			Message: fmt.Sprintf("The encoding was guessed as %s; if the text looks wrong, set the encoding option.", d.Encoding)})
	}
}

func where(fileID string) string {
	if fileID != "" {
		return "file " + fileID
	}
	return "the file"
}

// plan maps the source's header and compiles its columns.
func (w *writer) plan(ctx context.Context, src Source, r table.Reader) (*plan, error) {
	s := w.in.Schema
	header := r.Header()
	if d, ok := r.(table.Describer); ok {
		det := d.Detection()
		w.res.Detected = append(w.res.Detected, FileDetection{SourceFile: src.FileID, Detection: det})
		w.fileWarnings(src.FileID, det)
	}
	to, entries, mt := mapSourceColumns(matchInput{header: header, schema: s, explicit: w.in.Options.Mapping, learned: w.in.Learned, lists: w.in.Lists,
		values: func() [][]string { return columnValuesOf(ctx, src, len(header), s.MissingValues) }})
	for i := range entries {
		entries[i].SourceFile = src.FileID
		w.mappingWarning(src.FileID, entries[i])
	}
	w.ambiguousMappings(src.FileID, mt)
	w.res.Mapping = append(w.res.Mapping, entries...)
	for _, is := range readerWarnings(r, src.FileID, header) {
		w.issue(is)
	}
	mapped := make([]bool, len(s.Fields))
	some := false
	for _, f := range to {
		if f >= 0 {
			mapped[f], some = true, true
		}
	}
	for i, f := range s.Fields {
		if f.Constraints.Required && !mapped[i] && f.Compute == "" {
			return nil, fail(domain.CodeRequiredFieldUnmapped, "Required field %q matches no column of %s (columns: %q). Map it with options.mapping.", f.Name, where(src.FileID), header)
		}
	}
	if !some {
		return nil, fail(domain.CodeNoColumnsMapped, "No field of the schema matches a column of %s (columns: %q): every row would be empty. Map columns with options.mapping.",
			where(src.FileID), header)
	}
	w.unmappedFields(src.FileID, header, mapped)
	decisions, err := w.settle(ctx, src, header, to)
	if err != nil {
		return nil, err
	}
	w.res.Decisions = append(w.res.Decisions, decisions...)
	p := &plan{fileID: src.FileID, header: header, to: to, missing: s.MissingValues, opts: w.in.Options}
	for _, m := range s.MissingValues {
		p.maxMiss = max(p.maxMiss, len(m))
		if m == "" {
			p.missEmpty = true
		} else {
			p.missFirst[m[0]] = true
		}
	}
	for i, f := range s.Fields {
		if vm := compileValueMap(w.in.Options.ValueMap[f.Name], w.in.Options.Trim, w.in.Options.ValueMapCaseInsensitive); vm != nil {
			if p.values == nil {
				p.values = make([]*valueMap, len(s.Fields))
			}
			p.values[i] = vm
		}
		p.columns = append(p.columns, compile(withLocaleBooleans(f, w.in.Options.BooleanLocale), w.in.Mode, decisions[i].DateOrder, decisions[i].Decimal, w.in.Options.PhoneRegion))
		sep := byte(',')
		if i == 0 {
			sep = '{'
		}
		p.fieldKey = append(p.fieldKey, append(appendJSONString([]byte{sep}, f.Name), ':'))
		if f.Constraints.Unique {
			p.uniq = append(p.uniq, i)
		}
	}
	for _, k := range s.PrimaryKey {
		p.pk = append(p.pk, s.Index(k))
	}
	w.planEdits(p)
	if err := w.planStage(p); err != nil {
		return nil, err
	}
	return p, nil
}

// mappingWarning warns of a mapping a person should check: one made by
// a header's likeness to the field's name, or by the column's values.
func (w *writer) mappingWarning(fileID string, e MappingEntry) {
	switch e.Method {
	case MethodFuzzy:
		w.issue(Issue{SourceFile: fileID, Column: e.SourceColumn, Field: e.Field, Severity: warning, Code: "fuzzy_mapping",
			Message: fmt.Sprintf("Column %q was mapped to field %q by similarity (%.2f); check it, or map it explicitly.", e.SourceColumn, e.Field, e.Confidence)})
	case MethodContent:
		w.issue(Issue{SourceFile: fileID, Column: e.SourceColumn, Field: e.Field, Severity: warning, Code: "content_mapping",
			Message: fmt.Sprintf("Column %q was mapped to field %q by its values (%.0f%% read as %s; confidence %.2f); check it, or map it explicitly.",
				e.SourceColumn, e.Field, 100*e.Evidence.Values, e.Evidence.Matched, e.Confidence)})
	}
}

// unmappedFields warns of each field (not computed) that matches no column
// of the file: it is null in every row, never in silence.
func (w *writer) unmappedFields(fileID string, header []string, mapped []bool) {
	for i, f := range w.in.Schema.Fields {
		if !mapped[i] && f.Compute == "" {
			w.issue(Issue{SourceFile: fileID, Field: f.Name, Severity: warning, Code: "unmapped_field",
				Message: fmt.Sprintf("Field %q matches no column of %s (columns: %q): it is null in every row. Map it with options.mapping, or leave it out of the schema.", f.Name, where(fileID), header)})
		}
	}
}

// Decision is what the engine settled for one field of one file before
// the main pass: its date order and decimal mark, with the evidence
// counted in the file's first records. The caller reports it; passing
// DateOrder and Decimal back as the column's options reproduces the run.
type Decision struct {
	SourceFile string
	Column     string // the source column ("" when unmapped)
	Field      string
	DateOrder  string // DMY, MDY or YMD; "" when the field reads no dates
	// DayFirst and MonthFirst count values only one order reads (31/01,
	// 01/31); DateAmbiguous those both read differently (01/02).
	DayFirst, MonthFirst, DateAmbiguous int
	Decimal                             string // "." or ","; "" when the field is not a number
	// PointVotes and CommaVotes count values whose decimal mark only one
	// reading allows (1.5, 1,234.5; 0,61, 1.234,5); DecimalAmbiguous
	// those both read (12,426 or 1.234).
	PointVotes, CommaVotes, DecimalAmbiguous int
	// Given says the order and mark came from the schema or the options,
	// not from the evidence.
	DateGiven, DecimalGiven bool
}

// settle decides, per field, the date order (date, datetime and year
// fields) and the decimal mark (number and integer fields): a field's
// schema (decimalChar), the column's options, the job's options, else the
// evidence of the column's values in the file's first 10,000 records:
// the majority of values that only one way reads; on a tie month-first and
// ".", with a warning when values the tie leaves ambiguous were seen.
func (w *writer) settle(ctx context.Context, src Source, header []string, to []int) ([]Decision, error) {
	st := w.given(src, header, to)
	if st.need {
		if err := st.gather(ctx, src, to); err != nil {
			return nil, err
		}
	}
	for i := range st.ds {
		if st.dateAuto[i] {
			w.decideDateOrder(src, &st.ds[i])
		}
		if st.decAuto[i] {
			w.decideDecimal(src, &st.ds[i])
		}
	}
	return st.ds, nil
}

// settling is settle's state: each field's decision, and whether its date
// order or decimal mark is still to be decided from the evidence.
type settling struct {
	ds                []Decision
	dateAuto, decAuto []bool
	need              bool // some mapped column needs evidence
}

// given fills in each field's decision from what the schema and the
// options say, and marks what the evidence must decide.
func (w *writer) given(src Source, header []string, to []int) *settling {
	s := w.in.Schema
	st := &settling{ds: make([]Decision, len(s.Fields)), dateAuto: make([]bool, len(s.Fields)), decAuto: make([]bool, len(s.Fields))}
	from := make([]int, len(s.Fields))
	for i := range from {
		from[i] = -1
	}
	for c, f := range to {
		if f >= 0 {
			from[f] = c
		}
	}
	for i, f := range s.Fields {
		d := &st.ds[i]
		d.SourceFile, d.Field = src.FileID, f.Name
		co := ColumnOptions{}
		if from[i] >= 0 {
			d.Column = header[from[i]]
			co = w.in.Options.Columns[d.Column]
		}
		switch f.Type {
		case schema.Date, schema.DateTime, schema.Year:
			d.DateOrder = firstSet(co.DateOrder, w.in.Options.DateOrder)
			d.DateGiven = d.DateOrder != orderAuto
			st.dateAuto[i] = !d.DateGiven
		case schema.Number, schema.Integer:
			d.Decimal = firstSet(f.DecimalChar, co.Decimal, w.in.Options.Decimal)
			d.DecimalGiven = d.Decimal != decimalAuto
			st.decAuto[i] = !d.DecimalGiven && f.GroupChar == ""
			if !st.decAuto[i] && !d.DecimalGiven { // the group mark says it
				d.Decimal, d.DecimalGiven = ",", true
				if f.GroupChar != "." {
					d.Decimal = "."
				}
			}
		}
		st.need = st.need || (from[i] >= 0 && (st.dateAuto[i] || st.decAuto[i]))
	}
	return st
}

// gather counts the evidence of the source's first 10,000 records.
func (st *settling) gather(ctx context.Context, src Source, to []int) error {
	r, err := src.Open()
	if err != nil {
		return readerFailure(ctx, err, src.FileID)
	}
	defer func() { _ = r.Close() }()
	for n := range 10_000 {
		if n%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		rec, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return readerFailure(ctx, err, src.FileID)
		}
		for c, f := range to {
			if f >= 0 && c < len(rec.Cells) {
				st.count(f, rec.Cells[c])
			}
		}
	}
	return nil
}

// count adds one value's evidence to field f's decision.
func (st *settling) count(f int, v string) {
	d := &st.ds[f]
	if st.dateAuto[f] {
		switch dateEvidence(v) {
		case +1:
			d.DayFirst++
		case -1:
			d.MonthFirst++
		case 2:
			d.DateAmbiguous++
		}
	}
	if st.decAuto[f] {
		switch decimalEvidence(trimSpace(v)) {
		case '.':
			d.PointVotes++
		case ',':
			d.CommaVotes++
		case '?':
			d.DecimalAmbiguous++
		}
	}
}

// decideDateOrder takes the order most values read only one way; on a tie
// month-first, with a warning when some values read either way.
func (w *writer) decideDateOrder(src Source, d *Decision) {
	d.DateOrder = orderMDY
	if d.DayFirst > d.MonthFirst {
		d.DateOrder = orderDMY
	}
	if d.DayFirst == d.MonthFirst && d.DateAmbiguous > 0 {
		w.issue(Issue{SourceFile: src.FileID, Column: d.Column, Field: d.Field, Severity: warning, Code: "ambiguous_date_order",
			Message: fmt.Sprintf("Nothing in column %q decides between day-first and month-first (%d values read either way, %d day-first only, %d month-first only); they were read month-first (MDY). Set date_order, or columns[%q].date_order, if that is wrong.",
				d.Column, d.DateAmbiguous, d.DayFirst, d.MonthFirst, d.Column)})
	}
}

// decideDecimal takes the mark most values read only one way; on a tie
// ".", with a warning when some values read either way.
func (w *writer) decideDecimal(src Source, d *Decision) {
	d.Decimal = "."
	if d.CommaVotes > d.PointVotes {
		d.Decimal = ","
	}
	if d.CommaVotes == d.PointVotes && d.DecimalAmbiguous > 0 {
		w.issue(Issue{SourceFile: src.FileID, Column: d.Column, Field: d.Field, Severity: warning, Code: "ambiguous_decimal_separator",
			Message: fmt.Sprintf("Nothing in column %q decides its decimal mark (%d values such as 12,426 read either way, %d with a decimal point only, %d with a decimal comma only); \".\" was taken, so 12,426 is twelve thousand. Set decimal, or columns[%q].decimal, if that is wrong.",
				d.Column, d.DecimalAmbiguous, d.PointVotes, d.CommaVotes, d.Column)})
	}
}

func firstSet(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// process turns a batch of records into row JSON, issues and hashes.
//
//nolint:gocognit // the engine's per-row loop (BenchmarkEngine): one pass over a batch's records and fields that calls nothing it can do inline
func (p *plan) process(b *batch, seed maphash.Seed) {
	b.json = b.json[:0]
	b.rows = b.rows[:0]
	if need := len(b.recs) * len(p.uniq); cap(b.hashes) < need {
		b.hashes = make([]uint64, need)
	}
	b.hashes = b.hashes[:len(b.recs)*len(p.uniq)]
	var h maphash.Hash
	h.SetSeed(seed)
	nFields := len(p.columns)
	vals := make([]string, nFields)
	// 0 null, 1 string, 2 raw, 3 string that needs no escaping, -1 null
	// with its error reported (the row is rejected)
	kinds := make([]int8, nFields)
	sc := &b.sc
	rs := rowState{p: p, b: b, vals: vals, kinds: kinds}
	for i := range b.recs {
		rec := &b.recs[i]
		sc.buf = sc.buf[:0] // the previous row's values are written out
		ro := rowOut{number: int64(rec.Number), ok: true, start: len(b.json)}
		var ed []cellEdit
		if p.edits != nil {
			ed = p.edits[ro.number]
		}
		if rec.RowIssue != nil {
			ro.ok = false
			ro.issues = append(ro.issues, p.issue(rec.Number, rec.RowIssue.Column, -1, "error", rec.RowIssue.Code, rec.RowIssue.Message, &rec.RowIssue.Value))
			ro.end = ro.start
			b.rows = append(b.rows, ro)
			continue
		}
		for _, ci := range rec.CellIssues {
			field := -1
			if ci.Column >= 0 && ci.Column < len(p.to) {
				field = p.to[ci.Column]
			}
			v := ci.Value
			ro.issues = append(ro.issues, p.issue(rec.Number, ci.Column, field, warning, ci.Code, ci.Message, &v))
		}
		if len(rec.Cells) != len(p.header) {
			ro.issues = append(ro.issues, p.ragged(rec))
			if ro.issues[len(ro.issues)-1].Severity == "error" {
				ro.ok = false
			}
		}
		clear(kinds)
		for c, f := range p.to {
			if f < 0 {
				continue
			}
			s, present, edited := "", c < len(rec.Cells), false
			if present {
				s = rec.Cells[c]
			}
			if ed != nil { // an edit, instead of the file's value and value_map
				if e := editOf(ed, f); e != nil {
					s, present, edited = e.value, !e.null, true
					ro.edited++
				}
			}
			if !present {
				continue
			}
			orig := s // as the file (or the edit) has it, for an issue
			if p.opts.Trim {
				s = trimSpace(s)
			}
			if !edited && p.values != nil && p.values[f] != nil { // value_map, before coercion
				s = p.values[f].apply(s)
			}
			if p.isMissing(s) {
				continue
			}
			col := &p.columns[f]
			v, prob := col.value(s, sc)
			if prob != nil {
				raw := orig
				sev := prob.severity
				if sev != warning && p.opts.OnError == "null_value" && !col.field.Constraints.Required {
					sev = warning
					prob.message += " The value was set to null."
				} else if sev != warning {
					sev = "error"
					ro.ok = false
				}
				ro.issues = append(ro.issues, p.issue(rec.Number, c, f, sev, prob.code, prob.message, &raw))
				if prob.severity != warning {
					if col.field.Constraints.Required {
						kinds[f] = -1 // reported: not again as required
					}
					continue // the cell stays null
				}
			}
			vals[f] = v
			switch {
			case col.kind == kindRaw:
				kinds[f] = 2
			case col.plain:
				kinds[f] = 3
			default:
				kinds[f] = 1
			}
		}
		if p.stage != nil {
			rs.cells, rs.ro = rec.Cells, &ro
			if ed != nil {
				rs.cells = p.editedCells(rec.Cells, ed)
			}
			p.stage.compute(&rs)
		}
		for f := range p.columns {
			if kinds[f] == 0 && p.columns[f].field.Constraints.Required {
				ro.ok = false
				ro.issues = append(ro.issues, p.issue(rec.Number, p.columnOf(f), f, "error", "required", "A value is required.", nil))
			}
		}
		if p.stage != nil && ro.ok {
			p.stage.check(&rs)
		}
		if !ro.ok {
			ro.end = ro.start
			if p.keepRejected {
				b.json = p.appendRow(b.json, rec.Cells, vals, kinds)
				ro.end = len(b.json)
			}
			b.rows = append(b.rows, ro)
			continue
		}
		ro.uniques = b.hashes[len(b.rows)*len(p.uniq) : (len(b.rows)+1)*len(p.uniq)]
		for k, f := range p.uniq {
			var hv uint64
			if kinds[f] != 0 {
				h.Reset()
				h.WriteString(vals[f])
				hv = h.Sum64() | 1
			}
			ro.uniques[k] = hv
		}
		if len(p.pk) > 0 {
			h.Reset()
			ro.hasPK = true
			for _, f := range p.pk {
				if kinds[f] == 0 {
					ro.hasPK = false
				}
				h.WriteString(vals[f])
				h.WriteByte(0)
			}
			ro.pk = h.Sum64() | 1
		}
		b.json = p.appendRow(b.json, rec.Cells, vals, kinds)
		ro.end = len(b.json)
		b.rows = append(b.rows, ro)
	}
}

// ragged is the issue of a record whose cells do not match the header: a
// warning when nothing is lost or shifted (missing trailing cells are
// missing values; extra cells are empty, as after a trailing delimiter),
// an error when extra cells hold data or ragged_rows is "reject".
func (p *plan) ragged(rec *table.Record) Issue {
	n, h := len(rec.Cells), len(p.header)
	sev, msg := warning, ""
	if n < h {
		msg = fmt.Sprintf("The record has %d cells; the header has %d. The missing cells were read as missing values.", n, h)
	} else {
		msg = fmt.Sprintf("The record has %d cells; the header has %d. The extra cells are empty and were dropped.", n, h)
		for _, c := range rec.Cells[h:] {
			if trimSpace(c) != "" {
				sev, msg = "error", fmt.Sprintf("The record has %d cells; the header has %d, and the extra cells hold data.", n, h)
				break
			}
		}
	}
	if p.opts.RaggedRows == raggedReject && sev != "error" {
		sev, msg = "error", fmt.Sprintf("The record has %d cells; the header has %d (ragged_rows is reject).", n, h)
	}
	return p.issue(rec.Number, -1, -1, sev, "ragged_row", msg, nil)
}

// appendRow appends a valid row's JSON line. (The slice is a local
// variable here, not the batch's field, so appending keeps its length in a
// register: the keys and values are a dozen appends a row.)
func (p *plan) appendRow(js []byte, cells, vals []string, kinds []int8) []byte {
	if len(p.columns) == 0 {
		js = append(js, '{')
	}
	for f, key := range p.fieldKey {
		js = append(js, key...)
		switch kinds[f] {
		case 0, -1:
			js = append(js, "null"...)
		case 1:
			js = appendJSONString(js, vals[f])
		case 2:
			js = append(js, vals[f]...)
		default:
			js = append(js, '"')
			js = append(js, vals[f]...)
			js = append(js, '"')
		}
	}
	if p.opts.KeepUnmapped {
		js = append(js, `,"_extra":{`...)
		first := true
		for c, f := range p.to {
			if f >= 0 || c >= len(cells) {
				continue
			}
			if !first {
				js = append(js, ',')
			}
			first = false
			js = appendJSONString(js, p.header[c])
			js = append(js, ':')
			js = appendJSONString(js, cells[c])
		}
		js = append(js, '}')
	}
	return append(js, '}', '\n')
}

// isMissing compares with the schema's few missing values (a map costs
// more than a short scan), only when the first byte could start one.
func (p *plan) isMissing(s string) bool {
	if len(s) > p.maxMiss {
		return false
	}
	if len(s) == 0 {
		return p.missEmpty
	}
	if !p.missFirst[s[0]] {
		return false
	}
	for _, m := range p.missing {
		if len(m) == len(s) && m == s {
			return true
		}
	}
	return false
}

func (p *plan) columnOf(field int) int {
	for c, f := range p.to {
		if f == field {
			return c
		}
	}
	return -1
}

func (p *plan) issue(row, col, field int, severity, code, message string, value *string) Issue {
	is := Issue{Row: int64(row), SourceFile: p.fileID, Severity: severity, Code: code, Message: message, Value: value}
	if col >= 0 && col < len(p.header) {
		is.Column = p.header[col]
	}
	if field >= 0 {
		is.Field = p.columns[field].field.Name
	}
	return is
}

// take writes a processed batch in order, applying the checks that need
// the rows before it: uniqueness, dedupe, the row limit, max_errors.
func (w *writer) take(p *plan, b *batch) error {
	if b.failure != nil {
		f := b.failure
		b.failure = nil
		return f
	}
	for i := range b.rows {
		ro := &b.rows[i]
		w.res.Progress.RowsRead++
		if w.res.Progress.RowsRead > w.in.MaxRows {
			return fail(domain.CodeRowLimitExceeded, "The job has more than %d rows.", w.in.MaxRows)
		}
		if ro.ok {
			w.checkUnique(p, ro)
		}
		for _, is := range ro.issues {
			if is.Severity == "error" {
				if w.in.Options.OnError == "fail_job" {
					w.issue(is)
					return fail(domain.CodeInvalidRow, "Row %d has an error (%s: %s) and on_error is fail_job.", is.Row, is.Code, is.Message)
				}
				w.errorsCount++
			}
			w.issue(is)
		}
		w.editsTaken(p, ro)
		if ro.ok {
			w.res.Progress.RowsValid++
			if _, err := w.rows.Write(b.json[ro.start:ro.end]); err != nil {
				return fmt.Errorf("write rows: %w", err)
			}
		} else {
			w.res.Progress.RowsRejected++
		}
		if limit := w.in.Options.MaxErrors; limit > 0 && w.errorsCount > limit {
			w.res.IssuesTruncated = true
			return fail(domain.CodeTooManyErrors, "More than %d errors (max_errors); the report stops at row %d.", limit, ro.number)
		}
	}
	return nil
}

// checkUnique rejects a row whose unique values or primary key were seen
// in an earlier accepted row (64-bit hashes: a collision, about one in
// 10^19 per pair, would reject a row wrongly; it cannot accept a duplicate).
func (w *writer) checkUnique(p *plan, ro *rowOut) {
	// Values enter the sets only when the whole row is accepted, so a
	// rejected row's values do not make a later row a duplicate. A row with
	// two unique fields is rare enough to check them before adding.
	if len(p.uniq) == 1 && !ro.hasPK { // the common case: one lookup-and-insert
		if hv := ro.uniques[0]; hv != 0 && !w.uniqSeen[p.uniq[0]].Add(hv) {
			ro.ok = false
			ro.issues = append(ro.issues, p.issue(int(ro.number), p.columnOf(p.uniq[0]), p.uniq[0], "error", "not_unique",
				fmt.Sprintf("The value of %s repeats an earlier row's.", p.columns[p.uniq[0]].field.Name), nil))
		}
		return
	}
	for k, f := range p.uniq {
		hv := ro.uniques[k]
		if hv != 0 && w.uniqSeen[f].Has(hv) {
			ro.ok = false
			ro.issues = append(ro.issues, p.issue(int(ro.number), p.columnOf(f), f, "error", "not_unique",
				fmt.Sprintf("The value of %s repeats an earlier row's.", p.columns[f].field.Name), nil))
		}
	}
	if ro.hasPK && ro.ok && w.pkSeen.Has(ro.pk) {
		ro.ok = false
		if w.in.Options.Dedupe {
			ro.issues = append(ro.issues, p.issue(int(ro.number), -1, -1, "error", "duplicate_row", "The primary key repeats an earlier row's; the row was dropped (dedupe).", nil))
		} else {
			ro.issues = append(ro.issues, p.issue(int(ro.number), -1, -1, "error", "not_unique", "The primary key repeats an earlier row's.", nil))
		}
	}
	if !ro.ok {
		return
	}
	for k, f := range p.uniq {
		if hv := ro.uniques[k]; hv != 0 {
			w.uniqSeen[f].Add(hv)
		}
	}
	if ro.hasPK {
		w.pkSeen.Add(ro.pk)
	}
}

// issue writes one issue line, or counts it past the report's limit.
func (w *writer) issue(is Issue) {
	if is.Row == 0 {
		w.keepFileIssue(is)
	}
	w.res.IssueCount++
	if w.res.IssueCount > w.in.MaxIssues {
		w.res.IssuesTruncated = true
		return
	}
	b := w.line[:0]
	b = append(b, `{"row":`...)
	if is.Row > 0 {
		b = strconv.AppendInt(b, is.Row, 10)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"source_file":`...)
	b = appendOptString(b, is.SourceFile)
	b = append(b, `,"column":`...)
	b = appendOptString(b, is.Column)
	b = append(b, `,"field":`...)
	b = appendOptString(b, is.Field)
	b = append(b, `,"severity":`...)
	b = appendJSONString(b, is.Severity)
	b = append(b, `,"code":`...)
	b = appendJSONString(b, is.Code)
	b = append(b, `,"message":`...)
	b = appendJSONString(b, is.Message)
	b = append(b, `,"value":`...)
	if is.Value != nil {
		b = appendJSONString(b, *is.Value)
	} else {
		b = append(b, "null"...)
	}
	if is.Rule != "" {
		b = append(b, `,"rule":`...)
		b = appendJSONString(b, is.Rule)
	}
	b = append(b, "}\n"...)
	_, _ = w.issues.Write(b) // a failed write surfaces at flush
	w.line = b
}

func appendOptString(b []byte, s string) []byte {
	if s == "" {
		return append(b, "null"...)
	}
	return appendJSONString(b, s)
}

// trimSpace trims ASCII and Unicode spaces (including no-break spaces)
// without allocating.
func trimSpace(s string) string {
	if len(s) == 0 || !mayBeSpace[s[0]] && !mayBeSpace[s[len(s)-1]] {
		return s // the usual cell: nothing to trim
	}
	for len(s) > 0 {
		c := s[0]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' {
			s = s[1:]
			continue
		}
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s)
			if r == 0xA0 || r == 0x2007 || r == 0x202F || r == 0x3000 || r == 0xFEFF {
				s = s[n:]
				continue
			}
		}
		break
	}
	for len(s) > 0 {
		c := s[len(s)-1]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' {
			s = s[:len(s)-1]
			continue
		}
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeLastRuneInString(s)
			if r == 0xA0 || r == 0x2007 || r == 0x202F || r == 0x3000 || r == 0xFEFF {
				s = s[:len(s)-n]
				continue
			}
		}
		break
	}
	return s
}

// mayBeSpace marks the bytes that can start or end a space trimSpace
// trims: ASCII white space, and the first and last bytes of the UTF-8 of
// U+00A0, U+2007, U+202F, U+3000 and U+FEFF.
var mayBeSpace = func() (t [256]bool) {
	for _, c := range " \t\n\r\v\f" {
		t[c] = true
	}
	for _, r := range "\u00a0\u2007\u202f\u3000\ufeff" {
		b := []byte(string(r))
		t[b[0]], t[b[len(b)-1]] = true, true
	}
	return t
}()

// jsonPlain marks the bytes a JSON string holds as they are: printable
// ASCII but the quote and the backslash.
var jsonPlain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string; invalid UTF-8 becomes U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if jsonPlain[s[i]] {
			i++
			continue
		}
		c := s[i]
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
