package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/uptrace/bun"

	"github.com/tabnorm/tabnorm/domain/schema"
	"github.com/tabnorm/tabnorm/ports"
)

type schemaRow struct {
	bun.BaseModel `bun:"table:schemas"`
	ID            string    `bun:"id,pk"`
	OrgID         string    `bun:"org_id"`
	Name          string    `bun:"name"`
	Schema        string    `bun:"schema"`
	CreatedAt     time.Time `bun:"created_at"`
	Destinations  string    `bun:"destination_ids"`
}

func toSavedDomain(r schemaRow) schema.Saved {
	var dst []string
	_ = json.Unmarshal([]byte(r.Destinations), &dst) // written by Create
	return schema.Saved{ID: r.ID, OrgID: r.OrgID, Name: r.Name, Document: []byte(r.Schema), CreatedAt: r.CreatedAt.UTC(), DestinationIDs: dst}
}

// Schemas implements ports.Schemas.
type Schemas struct{ db *DB }

var _ ports.Schemas = (*Schemas)(nil)

// NewSchemas returns the saved schemas repository.
func NewSchemas(db *DB) *Schemas { return &Schemas{db: db} }

// Create stores a schema.
func (s *Schemas) Create(ctx context.Context, sv schema.Saved) error {
	dst, _ := json.Marshal(sv.DestinationIDs) // a list of strings always encodes
	if sv.DestinationIDs == nil {
		dst = []byte("[]")
	}
	row := schemaRow{ID: sv.ID, OrgID: sv.OrgID, Name: sv.Name, Schema: string(sv.Document), CreatedAt: sv.CreatedAt.UTC(), Destinations: string(dst)}
	_, err := s.db.conn(ctx).NewInsert().Model(&row).Exec(ctx)
	return translate(err, "schema")
}

// Get returns an organization's schema.
func (s *Schemas) Get(ctx context.Context, orgID, id string) (schema.Saved, error) {
	var row schemaRow
	err := s.db.conn(ctx).NewSelect().Model(&row).Where("id = ? AND org_id = ?", id, orgID).Scan(ctx)
	return toSavedDomain(row), translate(err, "schema")
}

// List returns an organization's schemas, newest first.
func (s *Schemas) List(ctx context.Context, orgID string, page ports.Page) ([]schema.Saved, string, error) {
	var rows []schemaRow
	next, err := listPage(ctx, s.db.conn(ctx).NewSelect().Model(&rows).Where("org_id = ?", orgID), page,
		func() int { return len(rows) }, func(i int) string { return rows[i].ID }, func(n int) { rows = rows[:n] })
	if err != nil {
		return nil, "", translate(err, "schema")
	}
	out := make([]schema.Saved, len(rows))
	for i, r := range rows {
		out[i] = toSavedDomain(r)
	}
	return out, next, nil
}

// Delete removes an organization's schema; jobs keep their own copy.
func (s *Schemas) Delete(ctx context.Context, orgID, id string) error {
	res, err := s.db.conn(ctx).NewDelete().Model((*schemaRow)(nil)).Where("id = ? AND org_id = ?", id, orgID).Exec(ctx)
	if err != nil {
		return translate(err, "schema")
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return translate(sql.ErrNoRows, "schema")
	}
	return nil
}
