package ports

import (
	"context"

	"github.com/tabnorm/tabnorm/domain/normalize"
)

// JobEdits stores a person's values for single cells of jobs' files
// (normalize.Edit): one edit a cell of a job, the last stored wins.
type JobEdits interface {
	// Put stores edits of an organization's job, each replacing the
	// cell's earlier edit, all or none (joining the context's
	// transaction), and returns how many edits the job holds. Past one of
	// limits nothing is stored: a conflict coded edit_limit_reached. A job
	// of another organization is not found.
	Put(ctx context.Context, orgID, jobID string, edits []normalize.Edit, limits EditLimits) (total int, err error)
	// List returns a page of a job's edits ordered by file, row and field.
	List(ctx context.Context, orgID, jobID string, page Page) (edits []normalize.Edit, next string, err error)
	// OfRows returns the edits of some rows of a job, ordered by file, row
	// and field: rows maps a file ("" for an uploaded file) to its rows.
	// Reading some rows never reads the others' edits.
	OfRows(ctx context.Context, orgID, jobID string, rows map[string][]int64) ([]normalize.Edit, error)
	// All returns every edit of a job, ordered by file, row and field.
	All(ctx context.Context, orgID, jobID string) ([]normalize.Edit, error)
	// Delete removes the edits of some cells of a job, if it has them
	// (joining the context's transaction): how undo restores a cell that
	// had no edit.
	Delete(ctx context.Context, orgID, jobID string, cells []normalize.EditKey) error
	// Replacements returns a job's replacements in force (the replacement
	// steps of its history not undone), in step order: what a run applies
	// with its edits.
	Replacements(ctx context.Context, orgID, jobID string) ([]normalize.Replacement, error)
	// Version is an opaque token that changes whenever a job's edits or
	// replacements in force do (one stored, replaced, removed, undone or
	// redone): what a job's records index is keyed by. A job of another
	// organization, or with no edits, has the version of no edits.
	Version(ctx context.Context, orgID, jobID string) (string, error)
}

// JobHistory stores the steps of finished jobs' histories
// (normalize.History): each edit request and each replacement.
type JobHistory interface {
	// Steps returns a job's steps, oldest first; a job of another
	// organization has none.
	Steps(ctx context.Context, orgID, jobID string) (normalize.History, error)
	// Add stores a new step of a job, after deleting its undone steps,
	// joining the context's transaction. A job of another organization is
	// not found.
	Add(ctx context.Context, orgID, jobID string, step normalize.HistoryStep) error
	// SetUndone marks a step undone or not (joining the context's
	// transaction); a step the job does not have is not found.
	SetUndone(ctx context.Context, orgID, jobID string, step int64, undone bool) error
}

// EditLimits bound what Put may leave stored. An edit's bytes are those
// of its value, field and file name.
type EditLimits struct {
	Count int   // edits one job may hold
	Bytes int64 // bytes one job's edits may hold (0: no bound)
	// SessionBytes is the bytes the edits of all the jobs of the job's
	// import session may hold together (0, or a job of no session: no bound).
	SessionBytes int64
}
