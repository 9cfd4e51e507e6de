package ports

import (
	"context"
	"time"
)

// IdempotentResponse is a stored first answer to a POST with an
// Idempotency-Key.
type IdempotentResponse struct {
	OrgID       string
	Key         string
	RequestHash string
	Status      int
	Location    string
	Body        []byte
	CreatedAt   time.Time
}

// Idempotency stores first answers by organization and key.
type Idempotency interface {
	Get(ctx context.Context, orgID, key string) (IdempotentResponse, error)
	// Put stores an answer; an existing key of the organization is a conflict.
	Put(ctx context.Context, r IdempotentResponse) error
	// DeleteBefore forgets answers older than t.
	DeleteBefore(ctx context.Context, orgID, key string, t time.Time) error
}
