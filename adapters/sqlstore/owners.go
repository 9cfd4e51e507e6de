package sqlstore

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/tabnorm/tabnorm/ports"
)

// BlobOwners implements ports.BlobOwners.
type BlobOwners struct{ db *DB }

var _ ports.BlobOwners = (*BlobOwners)(nil)

// NewBlobOwners returns the records that own stored blobs.
func NewBlobOwners(db *DB) *BlobOwners { return &BlobOwners{db: db} }

// Jobs implements ports.BlobOwners.
func (s *BlobOwners) Jobs(ctx context.Context, ids []string) (map[string]bool, error) {
	return s.existing(ctx, "jobs", ids)
}

// Files implements ports.BlobOwners.
func (s *BlobOwners) Files(ctx context.Context, ids []string) (map[string]bool, error) {
	return s.existing(ctx, "files", ids)
}

func (s *BlobOwners) existing(ctx context.Context, table string, ids []string) (map[string]bool, error) {
	out := make(map[string]bool, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	var found []string
	if err := s.db.conn(ctx).NewSelect().Table(table).Column("id").Where("id IN (?)", bun.List(ids)).Scan(ctx, &found); err != nil {
		return nil, fmt.Errorf("which of %d ids are %s: %w", len(ids), table, err)
	}
	for _, id := range found {
		out[id] = true
	}
	return out, nil
}
