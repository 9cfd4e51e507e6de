package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/uptrace/bun"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/schema"
	"github.com/tabnorm/tabnorm/ports"
)

type listRow struct {
	bun.BaseModel `bun:"table:reference_lists"`
	ID            string    `bun:"id,pk"`
	OrgID         string    `bun:"org_id"`
	Name          string    `bun:"name"`
	ValueCount    int64     `bun:"value_count"`
	CreatedAt     time.Time `bun:"created_at"`
}

func toListDomain(r listRow) schema.List {
	return schema.List{ID: r.ID, OrgID: r.OrgID, Name: r.Name, Count: r.ValueCount, CreatedAt: r.CreatedAt.UTC()}
}

// Lists implements ports.Lists.
type Lists struct{ db *DB }

var _ ports.Lists = (*Lists)(nil)

// NewLists returns the reference lists repository.
func NewLists(db *DB) *Lists { return &Lists{db: db} }

// Create stores a list.
func (s *Lists) Create(ctx context.Context, l schema.List) error {
	row := listRow{ID: l.ID, OrgID: l.OrgID, Name: l.Name, ValueCount: l.Count, CreatedAt: l.CreatedAt.UTC()}
	_, err := s.db.conn(ctx).NewInsert().Model(&row).Exec(ctx)
	return translate(err, "list")
}

// Get returns an organization's list.
func (s *Lists) Get(ctx context.Context, orgID, id string) (schema.List, error) {
	var row listRow
	err := s.db.conn(ctx).NewSelect().Model(&row).Where("id = ? AND org_id = ?", id, orgID).Scan(ctx)
	return toListDomain(row), translate(err, "list")
}

// List returns an organization's lists, newest first.
func (s *Lists) List(ctx context.Context, orgID string, page ports.Page) ([]schema.List, string, error) {
	var rows []listRow
	next, err := listPage(ctx, s.db.conn(ctx).NewSelect().Model(&rows).Where("org_id = ?", orgID), page,
		func() int { return len(rows) }, func(i int) string { return rows[i].ID }, func(n int) { rows = rows[:n] })
	if err != nil {
		return nil, "", translate(err, "list")
	}
	out := make([]schema.List, len(rows))
	for i, r := range rows {
		out[i] = toListDomain(r)
	}
	return out, next, nil
}

// Delete removes a list unless an unfinished job's schema names it: the
// check and the delete are one transaction. (A job's schema is stored in
// its canonical form, where the list's id is a JSON string.)
func (s *Lists) Delete(ctx context.Context, orgID, id string) error {
	err := NewTransactor(s.db).InTx(ctx, func(ctx context.Context) error {
		tx := s.db.conn(ctx)
		var jobID string
		err := tx.NewSelect().Table("jobs").Column("id").
			Where("org_id = ? AND status IN ('queued', 'running', 'awaiting_review') AND schema LIKE ?", orgID, `%"`+id+`"%`).
			Limit(1).Scan(ctx, &jobID)
		switch {
		case err == nil:
			return domain.Errorf(domain.ErrConflict, domain.CodeConflict, "Job %s, which is not finished, uses the list; delete it when the job is done.", jobID)
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
		res, err := tx.NewDelete().Model((*listRow)(nil)).Where("id = ? AND org_id = ?", id, orgID).Exec(ctx)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return sql.ErrNoRows
		}
		return nil
	})
	var de *domain.Error
	if errors.As(err, &de) {
		return err
	}
	return translate(err, "list")
}
