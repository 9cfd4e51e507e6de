package review

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/tabnorm/tabnorm/application/jobs"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/importsession"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/normalize"
	"github.com/tabnorm/tabnorm/domain/schema"
	"github.com/tabnorm/tabnorm/ports"
)

// Editor fixes the cells of a finished job (edits) and shows what it
// rejected: its rejected rows with their edits, and a field's invalid
// values (fix.go).
type Editor struct {
	cfg     Config
	jobs    ports.Jobs
	edits   ports.JobEdits
	history ports.JobHistory
	read    *jobs.Reader
	sources *jobs.Sources
	tx      ports.Transactor
	clock   ports.Clock
}

// NewEditor returns the editing of finished jobs.
func NewEditor(cfg Config, jobsRepo ports.Jobs, edits ports.JobEdits, history ports.JobHistory, read *jobs.Reader, sources *jobs.Sources, tx ports.Transactor,
	clock ports.Clock) *Editor {
	return &Editor{cfg: cfg, jobs: jobsRepo, edits: edits, history: history, read: read, sources: sources, tx: tx, clock: clock}
}

// Fixing cells: a person gives one row's cell of a succeeded job a value
// (an edit), sees at once whether the row is now valid, and reruns the job
// with its edits. The edits are stored with the job; a rerun holds a copy
// of them (and of the ones its request adds), which its run applies.

// EditCheck is a stored edit with its row as a run would now make it.
type EditCheck struct {
	Edit normalize.Edit
	Row  normalize.RowCheck
}

// EditsAdded is the answer to a request's edits.
type EditsAdded struct {
	// Edits are the request's edits as stored, one a cell (the last given
	// wins), each with its row checked again.
	Edits []EditCheck
	// Total is how many edits the job holds now.
	Total int
}

// editable returns the job a person may edit, and its schema: a succeeded
// job of mode normalize or validate.
func (s *Editor) editable(ctx context.Context, p identity.Principal, a importsession.Action, jobID string) (job.Job, *schema.Schema, error) {
	return editableJob(ctx, s.jobs, p, a, jobID)
}

func editableJob(ctx context.Context, jobsRepo ports.Jobs, p identity.Principal, a importsession.Action, jobID string) (job.Job, *schema.Schema, error) {
	j, err := jobsRepo.Get(ctx, p.OrgID, jobID)
	if err != nil {
		return j, nil, err
	}
	if err := importsession.CanPrincipalUseJob(p, a, j.ID, j.ImportSessionID); err != nil {
		return job.Job{}, nil, err
	}
	if j.Status != job.Succeeded {
		return j, nil, domain.Errorf(domain.ErrConflict, domain.CodeJobNotFinished, "The job is %s; its cells are edited once it has succeeded.", j.Status)
	}
	if j.Mode == normalize.ModeInfer || j.Schema == nil {
		return j, nil, domain.Invalid("A job in infer mode has no schema whose fields could be edited.")
	}
	sch, err := schema.Parse(j.Schema)
	if err != nil {
		return j, nil, fmt.Errorf("schema of job %s: %w", j.ID, err)
	}
	return j, sch, nil
}

// jobFiles are the names a job's issues and edits give its files: the
// library files' ids of a connect job, "" for an uploaded file.
func jobFiles(j job.Job) []string {
	if j.SourceType != job.SourceConnect {
		return []string{""}
	}
	out := make([]string, len(j.Files))
	for i, f := range j.Files {
		out[i] = f.ID
	}
	return out
}

func invalidEdits(errs []domain.FieldError) error {
	return &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidRequest, Message: "Some edits are not valid; see errors.", Fields: errs}
}

func tooManyEdits(n int) error {
	return domain.Errorf(domain.ErrConflict, domain.CodeEditLimitReached,
		"A job holds at most %d edits; these would make %d. Nothing was stored: fix a value everywhere with value_map instead.", normalize.MaxEdits, n)
}

// checkOptions are the options that make a check of a few rows read them
// as the job's run did: its options, its mapping as the run decided it,
// and the date orders and decimal marks it decided from the first records.
func checkOptions(j job.Job) (normalize.Options, error) {
	opts, err := normalize.ParseOptions(j.Mode, j.Options)
	if err != nil {
		return opts, fmt.Errorf("options of job %s: %w", j.ID, err)
	}
	if m := detectedMapping(j.Mapping); len(m) > 0 {
		opts.Mapping = m
	}
	if opts.Columns == nil {
		opts.Columns = map[string]normalize.ColumnOptions{}
	}
	var detected []byte
	if j.Result != nil {
		detected = j.Result.Detected
	}
	for col, d := range normalize.DetectedColumns(detected) {
		co := opts.Columns[col]
		co.DateOrder = firstNonEmpty(co.DateOrder, d.DateOrder)
		co.Decimal = firstNonEmpty(co.Decimal, d.Decimal)
		opts.Columns[col] = co
	}
	return opts, nil
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// AddEdits stores edits of a succeeded job's cells, after checking each
// edited row again with the job's edits and these: an edit of a row the
// file does not have is refused, with nothing stored. The same cell given
// twice is one edit, the last value winning; a cell edited before takes
// the new value. A job holds at most normalize.MaxEdits edits. The
// request is one step of the job's history (changes.go), which keeps the
// cells' edits before it, for undo; it discards the undone steps.
func (s *Editor) AddEdits(ctx context.Context, p identity.Principal, jobID string, edits []normalize.Edit) (EditsAdded, error) {
	j, sch, err := s.editable(ctx, p, importsession.ReviewJob, jobID)
	if err != nil {
		return EditsAdded{}, err
	}
	if len(edits) == 0 {
		return EditsAdded{}, errMissingEdits
	}
	if len(edits) > normalize.MaxEdits {
		return EditsAdded{}, tooManyEdits(len(edits))
	}
	if errs := normalize.CheckEdits("edits", edits, sch, jobFiles(j)); len(errs) > 0 {
		return EditsAdded{}, invalidEdits(errs)
	}
	steps, err := s.history.Steps(ctx, p.OrgID, j.ID)
	if err != nil {
		return EditsAdded{}, err
	}
	at, step := s.clock.Now(), steps.NextStep(0)
	for i := range edits {
		edits[i].At, edits[i].Step = at, step
	}
	given := normalize.MergeEdits(edits)
	// Only the edited rows' stored edits are read: a check of a row needs
	// no other row's, and Put counts and measures them all in the database.
	stored, err := s.edits.OfRows(ctx, p.OrgID, j.ID, editedRows(given))
	if err != nil {
		return EditsAdded{}, err
	}
	checks, err := s.check(ctx, j, normalize.MergeEdits(stored, given), given)
	if err != nil {
		return EditsAdded{}, err
	}
	var errs []domain.FieldError
	for i, e := range edits {
		if c := checks[rowKey{e.SourceFile, e.Row}]; !c.Found {
			errs = append(errs, domain.FieldError{Field: fmt.Sprintf("edits[%d].row", i), Message: fmt.Sprintf("the file has no row %d", e.Row)})
		}
	}
	if len(errs) > 0 {
		return EditsAdded{}, invalidEdits(errs)
	}
	if err := s.carryRunIssues(ctx, p, j, sch, checks); err != nil {
		return EditsAdded{}, err
	}
	total := 0
	err = s.tx.InTx(ctx, func(ctx context.Context) error {
		var err error
		if total, err = s.edits.Put(ctx, p.OrgID, j.ID, given, s.cfg.editLimits()); err != nil {
			return err
		}
		return s.history.Add(ctx, p.OrgID, j.ID, normalize.HistoryStep{Step: step, Kind: normalize.StepEdits, At: at, Cells: int64(len(given)),
			Summary: normalize.EditsSummary(len(given)), Before: editsOfCells(stored, given), After: given})
	})
	if err != nil {
		return EditsAdded{}, err
	}
	out := EditsAdded{Total: total, Edits: make([]EditCheck, len(given))}
	for i, e := range given {
		out.Edits[i] = EditCheck{Edit: e, Row: checks[rowKey{e.SourceFile, e.Row}]}
	}
	return out, nil
}

var errMissingEdits = &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidRequest, Message: `Send the cells to change as edits: [{"row":3,"source_file":null,"field":"email","value":"…"}].`,
	Fields: []domain.FieldError{{Field: "edits", Message: "required, at least one"}}}

// editsOfCells are the edits of stored that are of the cells of given:
// what an edits step keeps to undo.
func editsOfCells(stored, given []normalize.Edit) []normalize.Edit {
	cells := map[normalize.EditKey]bool{}
	for _, e := range given {
		cells[e.Key()] = true
	}
	var out []normalize.Edit
	for _, e := range stored {
		if cells[e.Key()] {
			out = append(out, e)
		}
	}
	return out
}

type rowKey struct {
	file string
	row  int64
}

// editedRows are the rows edits are of, by file.
func editedRows(edits []normalize.Edit) map[string][]int64 {
	rows := map[string][]int64{}
	for _, e := range edits {
		rows[e.SourceFile] = append(rows[e.SourceFile], e.Row)
	}
	return rows
}

// check runs the rows of edits again with all the job's edits.
func (s *Editor) check(ctx context.Context, j job.Job, all, of []normalize.Edit) (map[rowKey]normalize.RowCheck, error) {
	rows := map[string][]int64{}
	seen := map[rowKey]bool{}
	for _, e := range of {
		k := rowKey{e.SourceFile, e.Row}
		if !seen[k] {
			seen[k] = true
			rows[e.SourceFile] = append(rows[e.SourceFile], e.Row)
		}
	}
	return s.checkRows(ctx, j, all, rows)
}

func (s *Editor) checkRows(ctx context.Context, j job.Job, all []normalize.Edit, rows map[string][]int64) (map[rowKey]normalize.RowCheck, error) {
	opts, err := checkOptions(j)
	if err != nil {
		return nil, err
	}
	repl, err := s.edits.Replacements(ctx, j.OrgID, j.ID)
	if err != nil {
		return nil, err
	}
	checks, err := s.sources.CheckRows(ctx, j, opts, all, repl, rows)
	if err != nil {
		return nil, err
	}
	out := make(map[rowKey]normalize.RowCheck, len(checks))
	for _, c := range checks {
		out[rowKey{c.SourceFile, c.Row}] = c
	}
	return out, nil
}

// Edits lists a job's edits, ordered by file, row and field, a page at a
// time. Any job may be asked (a rerun lists the edits it ran with).
func (s *Editor) Edits(ctx context.Context, p identity.Principal, jobID string, page ports.Page) ([]normalize.Edit, string, error) {
	j, err := s.jobs.Get(ctx, p.OrgID, jobID)
	if err != nil {
		return nil, "", err
	}
	if err := importsession.CanPrincipalUseJob(p, importsession.ReadJob, j.ID, j.ImportSessionID); err != nil {
		return nil, "", err
	}
	return s.edits.List(ctx, p.OrgID, jobID, page)
}

// RejectedRows is a page of a job's rejected rows, each as a run would now
// make it with the job's edits.
type RejectedRows struct {
	Fields []string // the schema's fields, in order
	Rows   []normalize.RowCheck
	Next   string
	// Total is how many rows the job rejected.
	Total int64
}

// RejectedRows lists the rows a succeeded job rejected (those with an
// error in its issues, in the file's order), a page at a time, each read
// from the file again and checked with the job's edits, so a row an edit
// fixed shows as valid.
func (s *Editor) RejectedRows(ctx context.Context, p identity.Principal, jobID string, page ports.Page) (RejectedRows, error) {
	j, sch, err := s.editable(ctx, p, importsession.ReadJob, jobID)
	if err != nil {
		return RejectedRows{}, err
	}
	offset, err := rejectedOffset(page.Cursor, j.ID)
	if err != nil {
		return RejectedRows{}, err
	}
	_, rc, err := s.read.OpenResult(ctx, p, jobID, jobs.Issues, 0)
	if err != nil {
		return RejectedRows{}, err
	}
	keys, more, err := rejectedKeys(rc, offset, page.Limit)
	_ = rc.Close()
	if err != nil {
		return RejectedRows{}, fmt.Errorf("issues of job %s: %w", jobID, err)
	}
	out := RejectedRows{Fields: make([]string, len(sch.Fields)), Rows: make([]normalize.RowCheck, 0, len(keys)), Total: j.Progress.RowsRejected}
	for i, f := range sch.Fields {
		out.Fields[i] = f.Name
	}
	if more {
		out.Next = rejectedCursor(j.ID, offset+len(keys))
	}
	if len(keys) == 0 {
		return out, nil
	}
	rows := map[string][]int64{}
	for _, k := range keys {
		rows[k.file] = append(rows[k.file], k.row)
	}
	pageEdits, err := s.edits.OfRows(ctx, p.OrgID, j.ID, rows) // the page's rows' edits, never all of them
	if err != nil {
		return RejectedRows{}, err
	}
	checks, err := s.checkRows(ctx, j, pageEdits, rows)
	if err != nil {
		return RejectedRows{}, err
	}
	if err := s.carryRunIssues(ctx, p, j, sch, checks); err != nil {
		return RejectedRows{}, err
	}
	for _, k := range keys {
		out.Rows = append(out.Rows, checks[k])
	}
	return out, nil
}

// rejectedKeys reads issues (JSON lines, in the files' order) and returns
// the rows past the first offset rejected ones that had an error, at most
// limit, and whether there are more.
func rejectedKeys(r io.Reader, offset, limit int) ([]rowKey, bool, error) {
	seen := map[rowKey]bool{}
	var keys []rowKey
	br := bufio.NewReaderSize(r, 256<<10)
	for {
		line, err := br.ReadBytes('\n')
		if k, ok := errorRow(line); ok && !seen[k] {
			seen[k] = true
			if len(seen) > offset {
				if len(keys) == limit {
					return keys, true, nil
				}
				keys = append(keys, k)
			}
		}
		if errors.Is(err, io.EOF) {
			return keys, false, nil
		}
		if err != nil {
			return nil, false, err
		}
	}
}

// errorRow is the row of an issue line that is an error about a row.
func errorRow(line []byte) (rowKey, bool) {
	if !bytes.Contains(line, []byte(`"severity":"error"`)) {
		return rowKey{}, false
	}
	var is struct {
		Row        *int64  `json:"row"`
		SourceFile *string `json:"source_file"`
		Severity   string  `json:"severity"`
	}
	if json.Unmarshal(line, &is) != nil || is.Row == nil || is.Severity != "error" {
		return rowKey{}, false
	}
	k := rowKey{row: *is.Row}
	if is.SourceFile != nil {
		k.file = *is.SourceFile
	}
	return k, true
}

func rejectedCursor(jobID string, offset int) string {
	return base64.RawURLEncoding.EncodeToString([]byte(jobID + "\x00rejected-rows\x00" + strconv.Itoa(offset)))
}

func rejectedOffset(cursor, jobID string) (int, error) {
	if cursor == "" {
		return 0, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return 0, errInvalidCursor
	}
	parts := strings.Split(string(raw), "\x00")
	if len(parts) != 3 || parts[0] != jobID || parts[1] != "rejected-rows" {
		return 0, errInvalidCursor
	}
	n, err := strconv.Atoi(parts[2])
	if err != nil || n < 0 {
		return 0, errInvalidCursor
	}
	return n, nil
}

// runOnly are the issue codes only a run over the whole file finds: a
// value, or a primary key, that repeats an earlier row's.
var runOnly = [][]byte{[]byte(`"code":"not_unique"`), []byte(`"code":"duplicate_row"`)}

// carryRunIssues adds to each checked row the issues of the job's run that
// a check of the row alone cannot find (a value repeating an earlier
// row's), unless an edit of the row changed the value it is about: such a
// row stays rejected until an edit or a rerun says otherwise.
func (s *Editor) carryRunIssues(ctx context.Context, p identity.Principal, j job.Job, sch *schema.Schema, checks map[rowKey]normalize.RowCheck) error {
	if len(checks) == 0 || !hasUniqueness(sch) {
		return nil
	}
	_, rc, err := s.read.OpenResult(ctx, p, j.ID, jobs.Issues, 0)
	if err != nil {
		return err
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
				if c, ok := checks[k]; ok && !editedAny(c, issueFields(is, sch)) && !hasIssue(c, is) {
					c.Issues = append(c.Issues, is)
					c.Valid = c.Valid && is.Severity != "error"
					checks[k] = c
				}
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("issues of job %s: %w", j.ID, err)
		}
	}
}

func hasUniqueness(sch *schema.Schema) bool {
	if len(sch.PrimaryKey) > 0 {
		return true
	}
	for _, f := range sch.Fields {
		if f.Constraints.Unique {
			return true
		}
	}
	return false
}

// issueFields are the fields an issue is about: its field, or the
// primary key's for a repeated key.
func issueFields(is normalize.IssueJSON, sch *schema.Schema) []string {
	if is.Field != nil {
		return []string{*is.Field}
	}
	return sch.PrimaryKey
}

func editedAny(c normalize.RowCheck, fields []string) bool {
	for _, e := range c.Edited {
		for _, f := range fields {
			if e == f {
				return true
			}
		}
	}
	return false
}

func hasIssue(c normalize.RowCheck, is normalize.IssueJSON) bool {
	for _, x := range c.Issues {
		if x.Code == is.Code && (x.Field == nil) == (is.Field == nil) && (x.Field == nil || *x.Field == *is.Field) {
			return true
		}
	}
	return false
}
