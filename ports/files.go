package ports

import (
	"context"

	"github.com/tabnorm/tabnorm/domain/connect"
)

// Files stores the connect product's library of files. Reads take the
// organization, so another organization's file is simply not found.
type Files interface {
	Create(ctx context.Context, f connect.File) error
	Get(ctx context.Context, orgID, id string) (connect.File, error)
	List(ctx context.Context, orgID string, page Page) (files []connect.File, next string, err error)
	// Hold returns those of the organization's files with these ids that
	// exist, in no particular order, and keeps them from being deleted
	// until the transaction carried by ctx ends.
	Hold(ctx context.Context, orgID string, ids []string) ([]connect.File, error)
	// Link records that a job reads these files, in this order.
	Link(ctx context.Context, jobID string, fileIDs []string) error
	// ActiveJobs locks the organization's file for deletion and returns the
	// ids of the queued or running jobs that read it.
	ActiveJobs(ctx context.Context, orgID, id string) ([]string, error)
	Delete(ctx context.Context, orgID, id string) error
}
