package review

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strconv"
	"strings"

	"github.com/tabnorm/tabnorm/application/connect"
	"github.com/tabnorm/tabnorm/application/jobs"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/id"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/importsession"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/normalize"
	"github.com/tabnorm/tabnorm/domain/schema"
	"github.com/tabnorm/tabnorm/ports"
)

// Rerunner runs a finished job again on its files, with other options,
// mapping or edits: an uploaded job's file is copied for the new job, a
// connect job's library files are read again.
type Rerunner struct {
	cfg     Config
	jobs    ports.Jobs
	schemas ports.Schemas
	edits   ports.JobEdits
	history ports.JobHistory
	blobs   ports.BlobStore
	create  *jobs.Creator
	connect *connect.Service
	tx      ports.Transactor
	clock   ports.Clock
	log     *slog.Logger
}

// NewRerunner returns the rerunning of jobs.
func NewRerunner(cfg Config, jobsRepo ports.Jobs, schemas ports.Schemas, edits ports.JobEdits, history ports.JobHistory, blobs ports.BlobStore, create *jobs.Creator,
	conn *connect.Service, tx ports.Transactor, clock ports.Clock, log *slog.Logger) *Rerunner {
	return &Rerunner{cfg: cfg, jobs: jobsRepo, schemas: schemas, edits: edits, history: history, blobs: blobs, create: create, connect: conn, tx: tx,
		clock: clock, log: log}
}

// Fixing values: a finished job's rejected values of a field are counted
// from its issues, a person chooses replacements, and the job is rerun on
// the same files with options.value_map.

// MaxInvalidValues is how many distinct values InvalidValues lists, the
// most frequent first.
const MaxInvalidValues = 1000

// Bounds of the counting: past them, values not yet seen are not counted
// (the listed counts stay exact) and the answer says it was capped.
const (
	maxDistinct      = 100_000
	maxDistinctBytes = 32 << 20
)

// InvalidValue is one distinct rejected value of a field.
type InvalidValue struct {
	Value string
	Count int64  // cells with this value whose issue rejected their row
	Code  string // the code of its first issue (invalid_boolean, …)
}

// InvalidValues is a page of a field's rejected values.
type InvalidValues struct {
	Field  string
	Values []InvalidValue
	Next   string // cursor of the next page; "" on the last
	// Distinct is how many distinct rejected values were counted.
	Distinct int
	// Capped says the field has more distinct values than were counted.
	Capped bool
}

var errInvalidCursor = domain.Errorf(domain.ErrInvalid, domain.CodeInvalidCursor, "The cursor is not one this list handed out; start again without it.")

// valuesCursor names where the next page of a field's values starts, with
// the job and (a digest of) the field it belongs to, so a cursor of
// another list is refused.
func valuesCursor(jobID, field string, offset int) string {
	return base64.RawURLEncoding.EncodeToString([]byte(jobID + "\x00invalid-values\x00" + fieldDigest(field) + "\x00" + strconv.Itoa(offset)))
}

func fieldDigest(field string) string {
	sum := sha256.Sum256([]byte(field))
	return hex.EncodeToString(sum[:6])
}

func valuesOffset(cursor, jobID, field string) (int, error) {
	if cursor == "" {
		return 0, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return 0, errInvalidCursor
	}
	parts := strings.Split(string(raw), "\x00")
	if len(parts) != 4 || parts[0] != jobID || parts[1] != "invalid-values" || parts[2] != fieldDigest(field) {
		return 0, errInvalidCursor
	}
	n, err := strconv.Atoi(parts[3])
	if err != nil || n < 0 || n > MaxInvalidValues {
		return 0, errInvalidCursor
	}
	return n, nil
}

// InvalidValues lists the distinct values of a field that made a
// succeeded job reject rows, with how often each did, the most frequent
// first (then by value), at most MaxInvalidValues of them, a page at a
// time. Only errors with a value count: a missing required value or a
// repeated unique one has no value to replace.
func (s *Editor) InvalidValues(ctx context.Context, p identity.Principal, jobID, field string, page ports.Page) (InvalidValues, error) {
	j, err := s.jobs.Get(ctx, p.OrgID, jobID)
	if err != nil {
		return InvalidValues{}, err
	}
	if err := importsession.CanPrincipalUseJob(p, importsession.ReadJob, j.ID, j.ImportSessionID); err != nil {
		return InvalidValues{}, err
	}
	if field == "" {
		return InvalidValues{}, &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidRequest, Message: "Name the field: ?field=…",
			Fields: []domain.FieldError{{Field: "field", Message: "required"}}}
	}
	var sch *schema.Schema
	if j.Schema != nil {
		if sch, err = schema.Parse(j.Schema); err != nil {
			return InvalidValues{}, err
		}
	}
	if sch == nil || sch.Index(field) < 0 {
		return InvalidValues{}, &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidRequest, Message: fmt.Sprintf("%q is not a field of the job's schema.", field),
			Fields: []domain.FieldError{{Field: "field", Message: "not a field of the job's schema"}}}
	}
	offset, err := valuesOffset(page.Cursor, jobID, field)
	if err != nil {
		return InvalidValues{}, err
	}
	_, rc, err := s.read.OpenResult(ctx, p, jobID, jobs.Issues, 0)
	if err != nil {
		return InvalidValues{}, err
	}
	defer func() { _ = rc.Close() }()
	all, distinct, capped, err := countValues(rc, field)
	if err != nil {
		return InvalidValues{}, fmt.Errorf("issues of job %s: %w", jobID, err)
	}
	out := InvalidValues{Field: field, Distinct: distinct, Capped: capped, Values: []InvalidValue{}}
	if offset < len(all) {
		end := min(len(all), offset+page.Limit)
		out.Values = all[offset:end]
		if end < len(all) {
			out.Next = valuesCursor(jobID, field, end)
		}
	}
	return out, nil
}

// countValues reads issues (JSON lines) and counts the error values of
// field, returning the most frequent MaxInvalidValues.
func countValues(r io.Reader, field string) ([]InvalidValue, int, bool, error) {
	type tally struct {
		count int64
		code  string
	}
	counts := map[string]*tally{}
	size := 0
	capped := false
	// A line of another field is skipped without decoding it.
	quoted, _ := json.Marshal(field)
	needle := append([]byte(`"field":`), quoted...)
	br := bufio.NewReaderSize(r, 256<<10)
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) { // a line over the buffer: read the rest of it
			head := bytes.Clone(line) // before the next read reuses the buffer
			rest, rerr := br.ReadBytes('\n')
			head = append(head, rest...)
			line, err = head, rerr
		}
		if len(line) > 0 && bytes.Contains(line, needle) {
			var is struct {
				Field    *string `json:"field"`
				Severity string  `json:"severity"`
				Code     string  `json:"code"`
				Value    *string `json:"value"`
			}
			if json.Unmarshal(line, &is) == nil && is.Field != nil && *is.Field == field && is.Severity == "error" && is.Value != nil {
				if t, ok := counts[*is.Value]; ok {
					t.count++
				} else if len(counts) < maxDistinct && size+len(*is.Value) <= maxDistinctBytes {
					counts[*is.Value] = &tally{count: 1, code: is.Code}
					size += len(*is.Value)
				} else {
					capped = true
				}
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, 0, false, err
		}
	}
	all := make([]InvalidValue, 0, len(counts))
	for v, t := range counts {
		all = append(all, InvalidValue{Value: v, Count: t.count, Code: t.code})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].Count != all[j].Count {
			return all[i].Count > all[j].Count
		}
		return all[i].Value < all[j].Value
	})
	if len(all) > MaxInvalidValues {
		all = all[:MaxInvalidValues]
	}
	return all, len(counts), capped, nil
}

// RerunRequest is what a rerun changes: options key by key, the mapping
// column by column (also when given as options.mapping), and the cells
// edited, cell by cell.
type RerunRequest struct {
	Options []byte // a JSON object, or nil
	Mapping map[string]*string
	Edits   []normalize.Edit
	// Review takes the rerun back to matching: it awaits its review with
	// the original's mapping proposed, as options.review does.
	Review bool
}

// Rerun is a rerun being made: its file is copied before the job exists,
// as an upload is stored before its job.
type Rerun struct {
	orig   job.Job
	jobID  string // the new job's id, for an upload job's copied file
	params jobs.Params
	copied bool
	// edits are the original's edits and the request's, which the rerun
	// holds and applies; steps the original's history's steps not undone,
	// and the request's edits as one more, which the rerun's history
	// holds, so its replacements apply and undo works as on the original.
	edits []normalize.Edit
	steps normalize.History
}

// PrepareRerun checks a rerun of a finished job and readies its files: an
// upload job's file is copied to the new job (no upload again; the
// original's deletion or purge later takes nothing from the rerun), a
// connect job reads the same library files. The new job inherits the
// original's options and its mapping (as confirmed, or as detected), and
// the request's options and mapping win over them key by key; options.review
// is not inherited. An original whose file was purged is 409 source_deleted.
func (s *Rerunner) PrepareRerun(ctx context.Context, p identity.Principal, jobID string, req RerunRequest) (*Rerun, error) {
	orig, err := s.jobs.Get(ctx, p.OrgID, jobID)
	if err != nil {
		return nil, err
	}
	if err := importsession.CanPrincipalUseJob(p, importsession.RerunJob, orig.ID, orig.ImportSessionID); err != nil {
		return nil, err
	}
	if !orig.Status.Terminal() {
		return nil, domain.Errorf(domain.ErrConflict, domain.CodeJobNotFinished, "The job is %s; a job is rerun once it has ended.", orig.Status)
	}
	options, err := rerunOptions(orig, req)
	if err != nil {
		return nil, err
	}
	edits, steps, err := s.rerunEdits(ctx, orig, req.Edits)
	if err != nil {
		return nil, err
	}
	r := &Rerun{orig: orig, edits: edits, steps: steps, params: jobs.Params{Mode: string(orig.Mode), Options: options, Name: orig.Name,
		ImportSessionID: orig.ImportSessionID, Metadata: orig.Metadata}} // a rerun stays in its import session
	switch {
	case orig.SchemaID != "":
		if _, err := s.schemas.Get(ctx, p.OrgID, orig.SchemaID); err == nil {
			r.params.SchemaID = orig.SchemaID // learned mappings keep applying
		} else if errors.Is(err, domain.ErrNotFound) {
			r.params.Schema = orig.Schema // the saved schema is gone: the job's own copy
		} else {
			return nil, err
		}
	case orig.Schema != nil:
		r.params.Schema = orig.Schema
	}
	if orig.SourceType != job.SourceConnect {
		r.jobID = id.New(id.Job)
		if err := s.copyBlob(ctx, jobs.SourceKey(p.OrgID, orig.ID), jobs.SourceKey(p.OrgID, r.jobID)); err != nil {
			if errors.Is(err, domain.ErrNotFound) {
				return nil, domain.Errorf(domain.ErrConflict, domain.CodeSourceDeleted, "The file of job %s was deleted (retention); upload it again as a new job.", orig.ID)
			}
			return nil, err
		}
		r.copied = true
	}
	return r, nil
}

// SubmitRerun queues the prepared rerun, with source.rerun_of naming the
// original, under the limits and checks of a new job, and stores its
// edits in the same transaction, before any worker can start it.
func (s *Rerunner) SubmitRerun(ctx context.Context, p identity.Principal, r *Rerun) (job.Job, error) {
	var out job.Job
	err := s.tx.InTx(ctx, func(ctx context.Context) error {
		var err error
		if out, err = s.submitRerun(ctx, p, r); err != nil {
			return err
		}
		if len(r.edits) > 0 {
			if _, err = s.edits.Put(ctx, p.OrgID, out.ID, r.edits, s.cfg.editLimits()); err != nil {
				return err
			}
		}
		for _, st := range r.steps {
			if err := s.history.Add(ctx, p.OrgID, out.ID, st); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return job.Job{}, err
	}
	return out, nil
}

func (s *Rerunner) submitRerun(ctx context.Context, p identity.Principal, r *Rerun) (job.Job, error) {
	if r.orig.SourceType == job.SourceConnect {
		ids := make([]string, len(r.orig.Files))
		for i, f := range r.orig.Files {
			ids[i] = f.ID
		}
		return s.connect.Rerun(ctx, p, ids, r.params, r.orig.ID)
	}
	return s.create.Submit(ctx, p, jobs.Submission{JobID: r.jobID, SourceType: r.orig.SourceType, Files: r.orig.Files, Params: r.params, RerunOf: r.orig.ID})
}

// DiscardRerun removes the file copied for a rerun that did not become a
// job (refused, or an idempotent replay).
func (s *Rerunner) DiscardRerun(ctx context.Context, r *Rerun) {
	if r == nil || !r.copied {
		return
	}
	if err := s.blobs.Delete(context.WithoutCancel(ctx), jobs.SourceKey(r.orig.OrgID, r.jobID)); err != nil {
		s.log.ErrorContext(ctx, "delete a rerun's copied file", "job_id", r.jobID, "error", err)
	}
}

func (s *Rerunner) copyBlob(ctx context.Context, from, to string) error {
	src, err := s.blobs.Open(ctx, from, 0, -1)
	if err != nil {
		return err
	}
	defer func() { _ = src.Close() }()
	copyCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	dst, err := s.blobs.Create(copyCtx, to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		cancel() // abandons the partial copy
		_ = dst.Close()
		return err
	}
	return dst.Close()
}

// rerunOptions is the rerun's options document: the original's effective
// options, the request's over them key by key, review off unless asked,
// and the mapping column by column: the original's explicit or confirmed
// mapping, then its detected one, then the request's.
func rerunOptions(orig job.Job, req RerunRequest) ([]byte, error) {
	doc, asked, err := rerunDocuments(orig, req)
	if err != nil {
		return nil, err
	}
	mc, err := newMappingChange(orig, doc)
	if err != nil {
		return nil, err
	}
	if raw, ok := asked["mapping"]; ok {
		if err := mc.options(raw); err != nil {
			return nil, err
		}
		delete(asked, "mapping")
	}
	mc.request(req.Mapping)
	if len(mc.errs) > 0 {
		return nil, invalidMapping(mc.errs)
	}
	for k, v := range asked {
		doc[k] = v
	}
	if _, ok := asked["review"]; !ok {
		doc["review"] = json.RawMessage("false")
	}
	if req.Review {
		doc["review"] = json.RawMessage("true")
	}
	b, err := json.Marshal(mc.mapping)
	if err != nil {
		return nil, err
	}
	doc["mapping"] = b
	return json.Marshal(doc)
}

// rerunDocuments reads the original's options and the request's, each an
// object of options by name.
func rerunDocuments(orig job.Job, req RerunRequest) (doc, asked map[string]json.RawMessage, err error) {
	doc = map[string]json.RawMessage{}
	if len(orig.Options) > 0 {
		if err := json.Unmarshal(orig.Options, &doc); err != nil {
			return nil, nil, fmt.Errorf("options of job %s: %w", orig.ID, err)
		}
	}
	asked = map[string]json.RawMessage{}
	if len(bytes.TrimSpace(req.Options)) > 0 {
		if err := json.Unmarshal(req.Options, &asked); err != nil || asked == nil {
			return nil, nil, &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidRequest, Message: "options must be a JSON object.",
				Fields: []domain.FieldError{{Field: "options", Message: "must be a JSON object"}}}
		}
	}
	return doc, asked, nil
}

// mappingChange is the rerun's mapping being made: the original's
// explicit or confirmed mapping, then its detected one, then the
// request's changes, each checked against the original's columns and
// schema.
type mappingChange struct {
	mapping normalize.Mapping
	known   map[string]bool // the headers of the original's files
	sch     *schema.Schema
	errs    []domain.FieldError
}

func newMappingChange(orig job.Job, doc map[string]json.RawMessage) (*mappingChange, error) {
	mc := &mappingChange{mapping: normalize.Mapping{}, known: map[string]bool{}}
	if raw, ok := doc["mapping"]; ok {
		if err := json.Unmarshal(raw, &mc.mapping); err != nil {
			return nil, fmt.Errorf("mapping of job %s: %w", orig.ID, err)
		}
	}
	for h, f := range detectedMapping(orig.Mapping) {
		mc.known[h] = true
		if _, ok := mc.mapping[h]; !ok {
			mc.mapping[h] = f
		}
	}
	if orig.Schema != nil {
		mc.sch, _ = schema.Parse(orig.Schema)
	}
	return mc, nil
}

// change maps column to field f ("" ignores it), or notes at path why not.
func (mc *mappingChange) change(path, column, f string) {
	if len(mc.known) > 0 && !mc.known[column] {
		mc.errs = append(mc.errs, domain.FieldError{Field: path, Message: "no column of the job's files has this header"})
		return
	}
	if f != "" && (mc.sch == nil || mc.sch.Index(f) < 0) {
		mc.errs = append(mc.errs, domain.FieldError{Field: path, Message: fmt.Sprintf("%q is not a field of the job's schema", f)})
		return
	}
	mc.mapping[column] = f
}

// options applies the request's options.mapping.
func (mc *mappingChange) options(raw json.RawMessage) error {
	var m normalize.Mapping
	if err := json.Unmarshal(raw, &m); err != nil {
		return &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidRequest, Message: "options.mapping must map source headers to field names or null.",
			Fields: []domain.FieldError{{Field: "options.mapping", Message: "must be an object of strings or nulls"}}}
	}
	for _, c := range sortedKeys(m) {
		mc.change("options.mapping."+c, c, m[c])
	}
	return nil
}

// request applies the request's mapping, column by column.
func (mc *mappingChange) request(mapping map[string]*string) {
	columns := make([]string, 0, len(mapping))
	for c := range mapping {
		columns = append(columns, c)
	}
	sort.Strings(columns)
	for _, c := range columns {
		f := ""
		if mapping[c] != nil {
			f = *mapping[c]
		}
		mc.change("mapping."+c, c, f)
	}
}

func sortedKeys(m normalize.Mapping) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// detectedMapping reads a job's mapping (the job object's): header →
// field, "" for a column left unmapped. A header that two files mapped
// differently is left out.
func detectedMapping(raw []byte) normalize.Mapping {
	var entries []struct {
		SourceColumn string  `json:"source_column"`
		Field        *string `json:"field"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &entries) != nil {
		return nil
	}
	out := normalize.Mapping{}
	conflict := map[string]bool{}
	for _, e := range entries {
		f := ""
		if e.Field != nil {
			f = *e.Field
		}
		if prev, ok := out[e.SourceColumn]; ok && prev != f {
			conflict[e.SourceColumn] = true
		}
		out[e.SourceColumn] = f
	}
	for h := range conflict {
		delete(out, h)
	}
	return out
}

// rerunEdits are a rerun's edits: the original's, then the request's,
// which win cell by cell. The request's are checked against the schema and
// the files, not against the files' rows (the run reports an edit of a
// row no file has as edit_not_applied). The rerun's history is the
// original's steps not undone and the request's edits as a step after
// them.
func (s *Rerunner) rerunEdits(ctx context.Context, orig job.Job, asked []normalize.Edit) ([]normalize.Edit, normalize.History, error) {
	if orig.Mode == normalize.ModeInfer || orig.Schema == nil {
		if len(asked) > 0 {
			return nil, nil, domain.Invalid("A job in infer mode has no schema whose fields could be edited.")
		}
		return nil, nil, nil
	}
	h, err := s.history.Steps(ctx, orig.OrgID, orig.ID)
	if err != nil {
		return nil, nil, err
	}
	var steps normalize.History
	for _, st := range h {
		if !st.Undone {
			steps = append(steps, st)
		}
	}
	stored, err := s.edits.All(ctx, orig.OrgID, orig.ID)
	if err != nil {
		return nil, nil, err
	}
	if len(asked) > 0 {
		sch, err := schema.Parse(orig.Schema)
		if err != nil {
			return nil, nil, fmt.Errorf("schema of job %s: %w", orig.ID, err)
		}
		if errs := normalize.CheckEdits("edits", asked, sch, jobFiles(orig)); len(errs) > 0 {
			return nil, nil, invalidEdits(errs)
		}
		at, step := s.clock.Now(), steps.NextStep(0)
		for i := range asked {
			asked[i].At, asked[i].Step = at, step
		}
		given := normalize.MergeEdits(asked)
		steps = append(steps, normalize.HistoryStep{Step: step, Kind: normalize.StepEdits, At: at, Cells: int64(len(given)),
			Summary: normalize.EditsSummary(len(given)), Before: editsOfCells(stored, given), After: given})
	}
	all := normalize.MergeEdits(stored, asked)
	if len(all) > normalize.MaxEdits {
		return nil, nil, tooManyEdits(len(all))
	}
	return all, steps, nil
}
