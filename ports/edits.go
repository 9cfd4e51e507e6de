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
	// transaction), and returns how many edits the job holds. Past limit
	// edits nothing is stored: a conflict coded edit_limit_reached. A job
	// of another organization is not found.
	Put(ctx context.Context, orgID, jobID string, edits []normalize.Edit, limit int) (total int, err error)
	// List returns a page of a job's edits ordered by file, row and field.
	List(ctx context.Context, orgID, jobID string, page Page) (edits []normalize.Edit, next string, err error)
	// All returns every edit of a job, ordered by file, row and field.
	All(ctx context.Context, orgID, jobID string) ([]normalize.Edit, error)
}
