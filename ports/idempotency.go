package ports

import (
	"context"
	"time"
)

// IdempotentAnswer is the first answer to a creating request, as the
// transport that received the request rendered it (for HTTP: the status,
// the Location header and the body). The use cases keep it and give it
// back on a replay without reading it.
type IdempotentAnswer struct {
	Status   int
	Location string
	Body     []byte
}

// IdempotentResponse is a stored first answer to a POST with an
// Idempotency-Key.
type IdempotentResponse struct {
	OrgID       string
	Key         string
	RequestHash string
	IdempotentAnswer
	CreatedAt time.Time
}

// Idempotency stores first answers by organization and key.
type Idempotency interface {
	Get(ctx context.Context, orgID, key string) (IdempotentResponse, error)
	// Put stores an answer; an existing key of the organization is a conflict.
	Put(ctx context.Context, r IdempotentResponse) error
	// DeleteBefore forgets answers older than t.
	DeleteBefore(ctx context.Context, orgID, key string, t time.Time) error
}
