package ports

import (
	"context"

	"github.com/tabnorm/tabnorm/domain/schema"
)

// Lists stores an organization's reference lists (their values are blobs).
type Lists interface {
	Create(ctx context.Context, l schema.List) error
	Get(ctx context.Context, orgID, id string) (schema.List, error)
	List(ctx context.Context, orgID string, page Page) ([]schema.List, string, error)
	// Delete removes a list; a conflict while a job that is not finished
	// (queued, running, awaiting review) has a schema that names it.
	Delete(ctx context.Context, orgID, id string) error
}
