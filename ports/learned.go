package ports

import (
	"context"
	"time"
)

// LearnedMappings remembers, per organization and saved schema, which
// field a normalized header was explicitly mapped to.
type LearnedMappings interface {
	Get(ctx context.Context, orgID, schemaID string) (map[string]string, error)
	Put(ctx context.Context, orgID, schemaID, header, field string, now time.Time) error
}
