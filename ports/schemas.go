package ports

import (
	"context"

	"github.com/tabnorm/tabnorm/domain/schema"
)

// Schemas stores an organization's saved schemas.
type Schemas interface {
	Create(ctx context.Context, s schema.Saved) error
	Get(ctx context.Context, orgID, id string) (schema.Saved, error)
	List(ctx context.Context, orgID string, page Page) ([]schema.Saved, string, error)
	Delete(ctx context.Context, orgID, id string) error
}
