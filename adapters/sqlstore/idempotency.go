package sqlstore

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/tabnorm/tabnorm/ports"
)

type idempotencyRow struct {
	bun.BaseModel `bun:"table:idempotency_keys"`
	OrgID         string    `bun:"org_id,pk"`
	Key           string    `bun:"key,pk"`
	RequestHash   string    `bun:"request_hash"`
	Status        int       `bun:"status"`
	Location      string    `bun:"location"`
	Body          string    `bun:"body"`
	CreatedAt     time.Time `bun:"created_at"`
}

// Idempotency implements ports.Idempotency.
type Idempotency struct{ db *DB }

var _ ports.Idempotency = (*Idempotency)(nil)

// NewIdempotency returns the idempotency repository.
func NewIdempotency(db *DB) *Idempotency { return &Idempotency{db: db} }

// Get returns a stored answer.
func (s *Idempotency) Get(ctx context.Context, orgID, key string) (ports.IdempotentResponse, error) {
	var r idempotencyRow
	err := s.db.conn(ctx).NewSelect().Model(&r).Where("org_id = ? AND key = ?", orgID, key).Scan(ctx)
	return ports.IdempotentResponse{OrgID: r.OrgID, Key: r.Key, RequestHash: r.RequestHash,
		IdempotentAnswer: ports.IdempotentAnswer{Status: r.Status, Location: r.Location, Body: []byte(r.Body)}, CreatedAt: r.CreatedAt.UTC()}, translate(err, "idempotency key")
}

// Put stores an answer.
func (s *Idempotency) Put(ctx context.Context, r ports.IdempotentResponse) error {
	row := idempotencyRow{OrgID: r.OrgID, Key: r.Key, RequestHash: r.RequestHash, Status: r.Status, Location: r.Location,
		Body: string(r.Body), CreatedAt: r.CreatedAt.UTC()}
	_, err := s.db.conn(ctx).NewInsert().Model(&row).Exec(ctx)
	return translate(err, "idempotency key")
}

// DeleteBefore forgets an expired answer.
func (s *Idempotency) DeleteBefore(ctx context.Context, orgID, key string, t time.Time) error {
	_, err := s.db.conn(ctx).NewDelete().Model((*idempotencyRow)(nil)).
		Where("org_id = ? AND key = ? AND created_at < ?", orgID, key, t.UTC()).Exec(ctx)
	return translate(err, "idempotency key")
}
