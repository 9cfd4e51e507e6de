package normalize

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/hook"
	"github.com/tabnorm/tabnorm/domain/schema"
	"github.com/tabnorm/tabnorm/domain/table"
)

// A person fixes one cell of a job's file with an edit: the value of a
// field in one row, which a run reads instead of the file's value. value_map
// fixes every occurrence of a value; an edit fixes one cell ("this e-mail
// has a typo"). Edits are applied before the cell is coerced and checked,
// in place of the file's value and of value_map, so the edited value is
// coerced and checked as any other.

// MaxEdits is how many edits one job may hold.
const MaxEdits = 100_000

// Edit is a person's value for one cell.
type Edit struct {
	// Row is the record's number in its file, 1-based, as issues number
	// rows (the header not counted).
	Row int64
	// SourceFile is the file's id in a connect job, as issues name it; ""
	// for an uploaded file.
	SourceFile string
	Field      string
	// Value is the cell's new text; nil clears the cell (a missing value).
	Value *string
	// At is when the edit was made.
	At time.Time
	// Step is the step of the job's history it was made in, which orders
	// it among the job's replacements (replace.go); 0 is before them all.
	Step int64
}

// EditKey is the cell an edit is about: one edit a cell, the last wins.
type EditKey struct {
	SourceFile string
	Row        int64
	Field      string
}

// Key returns the cell the edit is about.
func (e Edit) Key() EditKey { return EditKey{SourceFile: e.SourceFile, Row: e.Row, Field: e.Field} }

// MaxEditValueBytes bounds one edit's value (a cell of a file is bounded
// by TABNORM_MAX_CELL_BYTES; an edit is typed by a person or a program).
const MaxEditValueBytes = 64 << 10

// CheckEdits finds the problems of edits of a job with schema s and files
// (the files' ids as issues name them: one "" for an uploaded file): a row
// under 1, a field the schema does not have or computes, a file the job
// does not read, a value too long. path names the list (edits).
func CheckEdits(path string, edits []Edit, s *schema.Schema, files []string) []domain.FieldError {
	var errs []domain.FieldError
	known := map[string]bool{}
	for _, f := range files {
		known[f] = true
	}
	for i, e := range edits {
		at := fmt.Sprintf("%s[%d]", path, i)
		if e.Row < 1 {
			errs = append(errs, domain.FieldError{Field: at + ".row", Message: "must be a row number, from 1"})
		}
		switch k := s.Index(e.Field); {
		case e.Field == "":
			errs = append(errs, domain.FieldError{Field: at + ".field", Message: "required"})
		case k < 0:
			errs = append(errs, domain.FieldError{Field: at + ".field", Message: fmt.Sprintf("%q is not a field of the job's schema", e.Field)})
		case s.Fields[k].Compute != "":
			errs = append(errs, domain.FieldError{Field: at + ".field", Message: fmt.Sprintf("%q is computed from other fields; edit those", e.Field)})
		}
		if !known[e.SourceFile] {
			msg := "must be null: the job reads one uploaded file"
			if e.SourceFile != "" || len(files) > 1 || files[0] != "" {
				msg = fmt.Sprintf("must be one of the job's files: %q", files)
			}
			errs = append(errs, domain.FieldError{Field: at + ".source_file", Message: msg})
		}
		if e.Value != nil && len(*e.Value) > MaxEditValueBytes {
			errs = append(errs, domain.FieldError{Field: at + ".value", Message: fmt.Sprintf("is over %d bytes", MaxEditValueBytes)})
		}
		if e.Value != nil && strings.IndexByte(*e.Value, 0) >= 0 {
			errs = append(errs, domain.FieldError{Field: at + ".value", Message: "holds a NUL byte"})
		}
	}
	return errs
}

// MergeEdits returns one edit a cell, the last given winning, ordered by
// file, row and field.
func MergeEdits(lists ...[]Edit) []Edit {
	last := map[EditKey]Edit{}
	for _, l := range lists {
		for _, e := range l {
			last[e.Key()] = e
		}
	}
	out := make([]Edit, 0, len(last))
	for _, e := range last {
		out = append(out, e)
	}
	SortEdits(out)
	return out
}

// SortEdits orders edits by file, row and field.
func SortEdits(edits []Edit) {
	sort.Slice(edits, func(i, j int) bool {
		a, b := edits[i], edits[j]
		if a.SourceFile != b.SourceFile {
			return a.SourceFile < b.SourceFile
		}
		if a.Row != b.Row {
			return a.Row < b.Row
		}
		return a.Field < b.Field
	})
}

// cellEdit is an edit compiled for a plan: the field's index.
type cellEdit struct {
	field int
	value string
	null  bool
	hook  bool // a validation hook's correction, not a person's edit
	// step orders the edit among replacements; replaced says a
	// replacement made it, not a person's edit.
	step     int64
	replaced bool
}

// editOf returns the row's edit of field f, or nil.
func editOf(ed []cellEdit, f int) *cellEdit {
	for i := range ed {
		if ed[i].field == f {
			return &ed[i]
		}
	}
	return nil
}

// planEdits compiles the edits of the plan's file: by row, and a column
// for each edited field the file has none for, so the field's edits are
// read as its column would be (its cells in other rows stay null).
func (w *writer) planEdits(p *plan) {
	if len(w.in.Edits) == 0 {
		return
	}
	s := w.in.Schema
	for _, e := range w.in.Edits {
		if e.SourceFile != p.fileID {
			continue
		}
		f := s.Index(e.Field)
		if f < 0 || s.Fields[f].Compute != "" {
			continue // refused when made; reported as not applied below
		}
		if p.edits == nil {
			p.edits = map[int64][]cellEdit{}
			p.unapplied = map[int64]bool{}
		}
		ce := cellEdit{field: f, null: e.Value == nil, step: e.Step}
		if e.Value != nil {
			ce.value = *e.Value
		}
		p.edits[e.Row] = append(p.edits[e.Row], ce)
		p.unapplied[e.Row] = true
		if p.columnOf(f) < 0 {
			p.to = append(p.to, f) // a column beyond the header: only edits fill it
		}
	}
}

// editedCells are a record's cells with its edits in place, for the rules'
// source["…"]: a cleared cell is "".
func (p *plan) editedCells(cells []string, ed []cellEdit) []string {
	out := append(make([]string, 0, len(p.header)), cells...)
	for _, e := range ed {
		c := p.columnOf(e.field)
		if c < 0 || c >= len(p.header) {
			continue
		}
		for len(out) <= c {
			out = append(out, "")
		}
		out[c] = e.value
	}
	return out
}

// editsTaken notes a written row's applied edits.
func (w *writer) editsTaken(p *plan, ro *rowOut) {
	if ro.edited == 0 {
		return
	}
	w.res.EditsApplied += int64(ro.edited)
	delete(p.unapplied, ro.number)
}

// unappliedEdits warns of each edit of the file whose row the file does
// not have, or that could not be applied (a record that could not be read
// at all): edit_not_applied, never in silence.
func (w *writer) unappliedEdits(p *plan) {
	if len(p.unapplied) == 0 {
		return
	}
	var edits []Edit
	for _, e := range w.in.Edits {
		if e.SourceFile == p.fileID && p.unapplied[e.Row] {
			edits = append(edits, e)
		}
	}
	SortEdits(edits)
	for _, e := range edits {
		w.res.EditsNotApplied++
		w.issue(Issue{Row: e.Row, SourceFile: e.SourceFile, Field: e.Field, Severity: warning, Code: "edit_not_applied", Value: e.Value,
			Message: fmt.Sprintf("The edit of %s in row %d was not applied: %s has no such readable row.", e.Field, e.Row, where(e.SourceFile))})
	}
}

// DetectedColumns reads the date orders and decimal marks a run decided
// per source column from what it detected (Result.DetectedJSON, whose
// options.columns they are), so that checking a few of its rows again
// decides the same.
func DetectedColumns(detected []byte) map[string]ColumnOptions {
	var doc struct {
		Options struct {
			Columns map[string]ColumnOptions `json:"columns"`
		} `json:"options"`
	}
	if len(detected) == 0 || json.Unmarshal(detected, &doc) != nil {
		return nil
	}
	return doc.Options.Columns
}

// RowCheck is one row of a file as a run would now make it, its edits
// applied.
type RowCheck struct {
	Row        int64
	SourceFile string
	// Found says the file has the row.
	Found bool
	Valid bool
	// Values is the row as the run would write it, refused values null.
	Values json.RawMessage
	// Cells are the text the engine reads for each mapped field (the
	// file's, or the edit's; nil when missing or cleared).
	Cells map[string]*string
	// Edited names the fields the row's edits set.
	Edited []string
	// Issues are the row's issues, as the run would report them, but for
	// uniqueness against the other rows, which only a run checks.
	Issues []IssueJSON
}

// CheckRows runs some rows of the files again, as a run with in's settings
// would, with in.Edits applied: which rows, by file id ("" for an uploaded
// file), in rows. Sources are read up to the last row asked for; the
// options should carry the run's decided date orders and decimal marks
// (DetectedColumns), since the few rows read cannot decide them. Rows are
// checked on their own: uniqueness against the file's other rows is not.
func CheckRows(ctx context.Context, in Input, rows map[string][]int64) (out []RowCheck, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = panicFailure(v)
		}
	}()
	if in.Schema == nil || in.Mode == ModeInfer {
		return nil, fail(domain.CodeInvalidSchema, "checking rows needs a target schema")
	}
	w := newWriter(Input{Mode: in.Mode, Schema: in.Schema, Options: in.Options, Learned: in.Learned, Edits: in.Edits, Replacements: in.Replacements, MaxRows: 1 << 62, MaxIssues: 1 << 62,
		Lists: in.Lists, Hooks: checkHooks(in.Hooks)}, Output{Rows: io.Discard, Issues: io.Discard})
	defer w.closeIndexes()
	for _, src := range in.Sources {
		want := rows[src.FileID]
		if len(want) == 0 {
			continue
		}
		got, err := w.checkSource(ctx, src, want)
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	return out, nil
}

// checkSource reads the wanted rows of one file and processes them as a
// run does.
func (w *writer) checkSource(ctx context.Context, src Source, want []int64) ([]RowCheck, error) {
	wanted := map[int64]bool{}
	last := int64(0)
	for _, r := range want {
		wanted[r] = true
		last = max(last, r)
	}
	open := func() (table.Reader, error) {
		r, err := src.Open()
		if err != nil {
			return nil, err
		}
		return &rowFilter{Reader: r, wanted: wanted, last: last}, nil
	}
	fsrc := Source{FileID: src.FileID, Open: open}
	r, err := open()
	if err != nil {
		return nil, readerFailure(ctx, err, src.FileID)
	}
	defer func() { _ = r.Close() }()
	p, err := w.plan(ctx, fsrc, r)
	if err != nil {
		return nil, err
	}
	p.keepRejected = true
	found := map[int64]RowCheck{}
	b := &batch{}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		b.recs = b.recs[:0]
		if err := readRecords(r, b); err != nil {
			return nil, readerFailure(ctx, err, src.FileID)
		}
		if b.hooks.edits != nil {
			b.hooks.reset(len(p.hooks)) // the last batch's corrections
		}
		p.process(b, w.seed)
		if len(p.hooks) > 0 { // the rows checked go through the hooks again, as a run's
			p.runHooks(ctx, b, w.seed)
			if b.failure != nil {
				return nil, b.failure
			}
		}
		for i := range b.rows {
			found[b.rows[i].number] = p.rowCheck(b, &b.recs[i], &b.rows[i])
		}
		if len(b.recs) < batchSize {
			break
		}
	}
	out := make([]RowCheck, 0, len(want))
	for _, n := range want {
		rc, ok := found[n]
		if !ok {
			rc = RowCheck{Row: n, SourceFile: src.FileID, Issues: []IssueJSON{}}
		}
		out = append(out, rc)
	}
	return out, nil
}

// rowCheck is a processed record's check.
func (p *plan) rowCheck(b *batch, rec *table.Record, ro *rowOut) RowCheck {
	rc := RowCheck{Row: ro.number, SourceFile: p.fileID, Found: true, Valid: ro.ok, Cells: map[string]*string{}, Edited: []string{}, Issues: make([]IssueJSON, 0, len(ro.issues))}
	if ro.end > ro.start {
		rc.Values = json.RawMessage(append([]byte(nil), b.json[ro.start:ro.end-1]...)) // without its newline
	} else {
		rc.Values = json.RawMessage("null")
	}
	for _, is := range ro.issues {
		rc.Issues = append(rc.Issues, issueJSON(is))
	}
	ed := p.edits[ro.number]
	if rec.RowIssue == nil {
		ed = p.replaced(ro.number, rec.Cells, ed)
	}
	for c, f := range p.to {
		if f < 0 {
			continue
		}
		name := p.columns[f].Field.Name
		if e := editOf(ed, f); e != nil {
			rc.Edited = append(rc.Edited, name)
			if !e.null {
				v := e.value
				rc.Cells[name] = &v
			} else {
				rc.Cells[name] = nil
			}
			continue
		}
		if c < len(rec.Cells) && rec.RowIssue == nil {
			v := rec.Cells[c]
			rc.Cells[name] = &v
		} else {
			rc.Cells[name] = nil
		}
	}
	sort.Strings(rc.Edited)
	return rc
}

// rowFilter hands out only the wanted records of a file, owned, and ends
// after the last of them.
type rowFilter struct {
	table.Reader
	wanted map[int64]bool
	last   int64
	done   bool
}

func (f *rowFilter) Next() (table.Record, error) {
	for !f.done {
		rec, err := f.Reader.Next()
		if err != nil {
			return rec, err
		}
		n := int64(rec.Number)
		if n >= f.last {
			f.done = true
		}
		if !f.wanted[n] {
			continue
		}
		kept := table.Record{Number: rec.Number, Owned: true, CellIssues: append([]table.CellIssue(nil), rec.CellIssues...)}
		if rec.RowIssue != nil {
			ri := *rec.RowIssue
			kept.RowIssue = &ri
		}
		if rec.Cells != nil {
			kept.Cells = make([]string, len(rec.Cells))
			for i, c := range rec.Cells {
				kept.Cells[i] = strings.Clone(c)
			}
		}
		return kept, nil
	}
	return table.Record{}, io.EOF
}

// Detection passes on the reader's decisions, when it reports them.
func (f *rowFilter) Detection() table.Detection {
	if d, ok := f.Reader.(table.Describer); ok {
		return d.Detection()
	}
	return table.Detection{}
}

// withHookEdits puts a row's hook corrections before its person's edits,
// so a field both change reads the hook's value (editOf takes the first).
func withHookEdits(ed, fromHooks []cellEdit) []cellEdit {
	if fromHooks == nil {
		return ed
	}
	return append(append(make([]cellEdit, 0, len(fromHooks)+len(ed)), fromHooks...), ed...)
}

// checkHooks are the hooks a check of rows sends them through: a batch
// that fails flags its rows (hook_unavailable) even under fail_job, as
// there is no job to fail, only rows to report on.
func checkHooks(hooks []HookUse) []HookUse {
	out := slices.Clone(hooks)
	for i := range out {
		if out[i].OnError == hook.FailJob {
			out[i].OnError = hook.FlagRows
		}
	}
	return out
}
