package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/ports"
)

type quotaRow struct {
	bun.BaseModel `bun:"table:org_quotas"`
	OrgID         string    `bun:"org_id,pk"`
	RowsPerMonth  int64     `bun:"rows_per_month"`
	StorageBytes  int64     `bun:"storage_bytes"`
	UpdatedAt     time.Time `bun:"updated_at"`
}

// Quotas implements ports.Quotas.
type Quotas struct{ db *DB }

var _ ports.Quotas = (*Quotas)(nil)

// NewQuotas returns the quotas repository.
func NewQuotas(db *DB) *Quotas { return &Quotas{db: db} }

// Get returns the organization's quota; none set is the zero Quota.
func (s *Quotas) Get(ctx context.Context, orgID string) (job.Quota, error) {
	var r quotaRow
	err := s.db.conn(ctx).NewSelect().Model(&r).Where("org_id = ?", orgID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return job.Quota{}, nil
	}
	if err != nil {
		return job.Quota{}, fmt.Errorf("quota of %s: %w", orgID, err)
	}
	return job.Quota{RowsPerMonth: r.RowsPerMonth, StorageBytes: r.StorageBytes}, nil
}

// Set stores the organization's quota.
func (s *Quotas) Set(ctx context.Context, orgID string, q job.Quota, now time.Time) error {
	r := quotaRow{OrgID: orgID, RowsPerMonth: q.RowsPerMonth, StorageBytes: q.StorageBytes, UpdatedAt: now.UTC()}
	_, err := s.db.conn(ctx).NewInsert().Model(&r).
		On("CONFLICT (org_id) DO UPDATE").
		Set("rows_per_month = EXCLUDED.rows_per_month, storage_bytes = EXCLUDED.storage_bytes, updated_at = EXCLUDED.updated_at").Exec(ctx)
	return translate(err, "organization")
}

// Usage sums the organization's rows since since and its stored sources.
func (s *Quotas) Usage(ctx context.Context, orgID string, since time.Time) (rows, storage int64, err error) {
	conn := s.db.conn(ctx)
	err = conn.NewSelect().Table("jobs").ColumnExpr("coalesce(sum(rows_read), 0)").
		Where("org_id = ? AND finished_at >= ?", orgID, since.UTC()).Scan(ctx, &rows)
	if err != nil {
		return 0, 0, fmt.Errorf("rows used by %s: %w", orgID, err)
	}
	var uploads, library int64
	err = conn.NewSelect().Table("jobs").ColumnExpr("coalesce(sum(bytes_total), 0)").
		Where("org_id = ? AND source_type = 'upload' AND purged_at IS NULL", orgID).Scan(ctx, &uploads)
	if err != nil {
		return 0, 0, fmt.Errorf("storage used by %s: %w", orgID, err)
	}
	err = conn.NewSelect().Table("files").ColumnExpr("coalesce(sum(size_bytes), 0)").Where("org_id = ?", orgID).Scan(ctx, &library)
	if err != nil {
		return 0, 0, fmt.Errorf("storage used by %s: %w", orgID, err)
	}
	return rows, uploads + library, nil
}
