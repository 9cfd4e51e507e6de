package review

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/id"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/importsession"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/normalize"
	"github.com/tabnorm/tabnorm/domain/schema"
	"github.com/tabnorm/tabnorm/ports"
)

// Changes are a finished job's changes beyond single edits: a
// find-and-replace over a field's cells (a replacement), and the job's
// history of edit requests and replacements, with undo and redo. A
// replacement's count is read from the job's records index (the cells'
// text is in it), never from the files again.
type Changes struct {
	jobs    ports.Jobs
	edits   ports.JobEdits
	history ports.JobHistory
	records *Records
	tx      ports.Transactor
	clock   ports.Clock
	cfg     Config
}

// NewChanges returns the replacements and history of finished jobs.
func NewChanges(cfg Config, jobsRepo ports.Jobs, edits ports.JobEdits, history ports.JobHistory, records *Records, tx ports.Transactor, clock ports.Clock) *Changes {
	return &Changes{cfg: cfg, jobs: jobsRepo, edits: edits, history: history, records: records, tx: tx, clock: clock}
}

// The statuses of a replacement: the rows whose cells it changes.
const (
	ReplaceAll      = "all"
	ReplaceRejected = "rejected"
)

// ReplaceRequest is a replacement asked for.
type ReplaceRequest struct {
	Field, Find, Replace, Match string
	Status                      string // all (""), or rejected: the rows rejected now
	// Preview counts the cells it would change and stores nothing.
	Preview bool
}

// Replace stores a replacement over a succeeded job's field as a new step
// of its history (discarding the undone steps), or with Preview only
// counts: the step says how many cells it matched, in the records as they
// stand now. For status rejected the rows it may change are the rows
// rejected now that have a matching cell, kept with it: a rerun changes
// the same rows.
func (s *Changes) Replace(ctx context.Context, p identity.Principal, jobID string, req ReplaceRequest) (normalize.HistoryStep, error) {
	j, sch, err := editableJob(ctx, s.jobs, p, importsession.ReviewJob, jobID)
	if err != nil {
		return normalize.HistoryStep{}, err
	}
	if req.Match == "" {
		req.Match = normalize.MatchExact
	}
	r := normalize.Replacement{Field: req.Field, Find: req.Find, Replace: req.Replace, Match: req.Match}
	errs := normalize.CheckReplacement(r, sch)
	switch req.Status {
	case "":
		req.Status = ReplaceAll
	case ReplaceAll, ReplaceRejected:
	default:
		errs = append(errs, domain.FieldError{Field: "status", Message: "must be all or rejected"})
	}
	if len(errs) > 0 {
		return normalize.HistoryStep{}, &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidRequest, Message: "The replacement is not valid; see errors.", Fields: errs}
	}
	c, err := r.Compile()
	if err != nil {
		return normalize.HistoryStep{}, err
	}
	matched, rows, err := s.records.matched(ctx, p, j, sch, c, RecordStatus(req.Status))
	if err != nil {
		return normalize.HistoryStep{}, err
	}
	if req.Status == ReplaceRejected {
		r.Rows = rows
	}
	st := normalize.HistoryStep{Kind: normalize.StepReplacement, At: s.clock.Now(), Cells: matched, Summary: normalize.ReplacementSummary(r, matched),
		Replacement: &r, Status: req.Status}
	if req.Preview {
		return st, nil
	}
	err = s.tx.InTx(ctx, func(ctx context.Context) error {
		h, err := s.history.Steps(ctx, p.OrgID, j.ID)
		if err != nil {
			return err
		}
		st.Step, st.ID = h.NextStep(0), id.New(id.Replacement)
		r.Step = st.Step
		return s.history.Add(ctx, p.OrgID, j.ID, st)
	})
	if err != nil {
		return normalize.HistoryStep{}, err
	}
	return st, nil
}

// History returns a job's history, oldest first.
func (s *Changes) History(ctx context.Context, p identity.Principal, jobID string) (normalize.History, error) {
	j, err := s.jobs.Get(ctx, p.OrgID, jobID)
	if err != nil {
		return nil, err
	}
	if err := importsession.CanPrincipalUseJob(p, importsession.ReadJob, j.ID, j.ImportSessionID); err != nil {
		return nil, err
	}
	return s.history.Steps(ctx, p.OrgID, j.ID)
}

// Undo reverts the newest step of a succeeded job's history not undone:
// an edits step's cells take back their edits from before it (a cell
// that had none loses its edit), a replacement stops applying. It returns
// the step, undone; 409 nothing_to_undo when every step is undone.
func (s *Changes) Undo(ctx context.Context, p identity.Principal, jobID string) (normalize.HistoryStep, error) {
	return s.move(ctx, p, jobID, true)
}

// Redo applies again the oldest undone step of a job's history, and
// returns it; 409 nothing_to_redo when no step is undone.
func (s *Changes) Redo(ctx context.Context, p identity.Principal, jobID string) (normalize.HistoryStep, error) {
	return s.move(ctx, p, jobID, false)
}

func (s *Changes) move(ctx context.Context, p identity.Principal, jobID string, undo bool) (normalize.HistoryStep, error) {
	j, _, err := editableJob(ctx, s.jobs, p, importsession.ReviewJob, jobID)
	if err != nil {
		return normalize.HistoryStep{}, err
	}
	var st normalize.HistoryStep
	err = s.tx.InTx(ctx, func(ctx context.Context) error {
		h, err := s.history.Steps(ctx, p.OrgID, j.ID)
		if err != nil {
			return err
		}
		var i int
		if undo {
			i, err = h.Undoable()
		} else {
			i, err = h.Redoable()
		}
		if err != nil {
			return err
		}
		st = h[i]
		if st.Kind == normalize.StepEdits {
			if err := s.restore(ctx, p.OrgID, j.ID, st, undo); err != nil {
				return err
			}
		}
		st.Undone = undo
		return s.history.SetUndone(ctx, p.OrgID, j.ID, st.Step, undo)
	})
	return st, err
}

// restore puts an edits step's cells as they were before it (undo) or
// after it (redo). The steps after it are undone (undo goes from the
// newest, redo from the oldest undone), so its cells are as it left
// them, or as they were before it.
func (s *Changes) restore(ctx context.Context, orgID, jobID string, st normalize.HistoryStep, undo bool) error {
	put := st.After
	var gone []normalize.EditKey
	if undo {
		put = st.Before
		had := map[normalize.EditKey]bool{}
		for _, e := range st.Before {
			had[e.Key()] = true
		}
		for _, e := range st.After {
			if !had[e.Key()] {
				gone = append(gone, e.Key())
			}
		}
	}
	if len(gone) > 0 {
		if err := s.edits.Delete(ctx, orgID, jobID, gone); err != nil {
			return err
		}
	}
	if len(put) == 0 {
		return nil
	}
	_, err := s.edits.Put(ctx, orgID, jobID, put, s.cfg.editLimits())
	return err
}

// matched counts the cells of a replacement's field that its find
// matches, in the records of a status (all, or rejected) as they stand
// now, reading the field's cells from the job's records index (built
// first if need be) in one of the node's check slots; for rejected, it
// returns the rows of those cells too.
func (s *Records) matched(ctx context.Context, p identity.Principal, j job.Job, sch *schema.Schema, r *normalize.Replacer, status RecordStatus) (int64, map[string][]int64, error) {
	n, rows, err := s.matchedOnce(ctx, p, j, sch, r, status)
	if errors.Is(err, errIndexGone) { // a newer index replaced it while it was read
		n, rows, err = s.matchedOnce(ctx, p, j, sch, r, status)
	}
	return n, rows, err
}

func (s *Records) matchedOnce(ctx context.Context, p identity.Principal, j job.Job, sch *schema.Schema, r *normalize.Replacer, status RecordStatus) (int64, map[string][]int64, error) {
	version, err := s.edits.Version(ctx, j.OrgID, j.ID)
	if err != nil {
		return 0, nil, err
	}
	ix := newIndex(s.blobs, j, version)
	if err := s.once(ctx, ix.key(indexMeta), func(ctx context.Context) error { return s.buildIndex(ctx, p, j, sch, ix) }, ix.exists(indexMeta)); err != nil {
		return 0, nil, err
	}
	release, err := s.sources.CheckSlot(ctx, j.OrgID)
	if err != nil {
		return 0, nil, err
	}
	defer release()
	raw, err := ix.readAll(ctx, "lists/"+string(status)+".bin", 0, -1)
	if err != nil {
		return 0, nil, err
	}
	open := func(name string, c *indexColumn) error {
		rc, err := ix.blobs.Open(ctx, ix.key(name), 0, -1)
		if errors.Is(err, domain.ErrNotFound) {
			return errIndexGone
		}
		if err != nil {
			return err
		}
		c.r, c.rc = bufio.NewReaderSize(rc, 1<<20), rc
		return nil
	}
	cells := &indexColumn{cells: true}
	if err := open(cellColumn(fieldIndex(sch, r.Field)), cells); err != nil {
		return 0, nil, err
	}
	defer func() { _ = cells.rc.Close() }()
	var keys *indexColumn
	var rows map[string][]int64
	files := jobFiles(j)
	if status == RejectedRecords {
		keys, rows = &indexColumn{fixed: 12}, map[string][]int64{}
		if err := open(indexKeys, keys); err != nil {
			return 0, nil, err
		}
		defer func() { _ = keys.rc.Close() }()
	}
	var n int64
	var scratch []byte
	for _, e := range readEntries(raw) {
		if err := cells.at(e.pos); err != nil {
			return 0, nil, fmt.Errorf("records index of job %s: %w", j.ID, err)
		}
		if cells.null || !r.Matches(cells.cur, &scratch) {
			continue
		}
		n++
		if keys != nil {
			if err := keys.at(e.pos); err != nil {
				return 0, nil, fmt.Errorf("records index of job %s: %w", j.ID, err)
			}
			row, f := int64(binary.LittleEndian.Uint64(keys.cur[:8])), int(binary.LittleEndian.Uint32(keys.cur[8:]))
			if f < len(files) {
				rows[files[f]] = append(rows[files[f]], row)
			}
		}
	}
	for f := range rows {
		slices.Sort(rows[f])
	}
	return n, rows, nil
}
