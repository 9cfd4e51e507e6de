package normalize

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/normalize/coerce"
	"github.com/tabnorm/tabnorm/domain/normalize/match"
	"github.com/tabnorm/tabnorm/domain/schema"
	"github.com/tabnorm/tabnorm/domain/table"
)

// Source is one input file. Open may be called more than once: the engine
// reads a file's first records again to settle date orders.
type Source struct {
	FileID string // "" for a single-file job
	Open   func() (table.Reader, error)
	// OpenRaw, when set, opens the file as Open does but reading every
	// row as a record (no header, nothing skipped above it): where a
	// review's sample takes its first rows (Sample.FirstRows).
	OpenRaw func() (table.Reader, error)
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
	// Replacements are find-and-replace operations over fields' cells
	// (replace.go), applied with the edits in step order.
	Replacements []Replacement
	// Hooks are the validation hooks the schema names (hooks.go), in its
	// order, opened by the application.
	Hooks []HookUse
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
	Mapping         []match.Entry
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
	// Hooks is what each validation hook did, in the schema's order.
	Hooks []HookStats
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

// warning is the severity of an issue that refuses nothing.
const warning = coerce.Warning

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
	Hook       string // the hook's name, for the issues a validation hook returned
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
	// hookSkipWarned: the hooks whose on_error skip was warned of.
	hookSkipWarned []bool
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

	pl := newPipeline(ctx, p)
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

// take writes a processed batch in order, applying the checks that need
// the rows before it: uniqueness, dedupe, the row limit, max_errors.
func (w *writer) take(p *plan, b *batch) error {
	w.hooksTaken(p, b)
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
				fmt.Sprintf("The value of %s repeats an earlier row's.", p.columns[p.uniq[0]].Field.Name), nil))
		}
		return
	}
	for k, f := range p.uniq {
		hv := ro.uniques[k]
		if hv != 0 && w.uniqSeen[f].Has(hv) {
			ro.ok = false
			ro.issues = append(ro.issues, p.issue(int(ro.number), p.columnOf(f), f, "error", "not_unique",
				fmt.Sprintf("The value of %s repeats an earlier row's.", p.columns[f].Field.Name), nil))
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
	if is.Hook != "" {
		b = append(b, `,"hook":`...)
		b = appendJSONString(b, is.Hook)
	}
	b = append(b, "}\n"...)
	_, _ = w.issues.Write(b) // a failed write surfaces at flush
	w.line = b
}
