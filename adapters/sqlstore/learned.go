package sqlstore

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/tabnorm/tabnorm/ports"
)

type learnedRow struct {
	bun.BaseModel `bun:"table:learned_mappings"`
	OrgID         string    `bun:"org_id,pk"`
	SchemaID      string    `bun:"schema_id,pk"`
	Header        string    `bun:"header,pk"`
	Field         string    `bun:"field"`
	UpdatedAt     time.Time `bun:"updated_at"`
}

// LearnedMappings implements ports.LearnedMappings.
type LearnedMappings struct{ db *DB }

var _ ports.LearnedMappings = (*LearnedMappings)(nil)

// NewLearnedMappings returns the learned mappings repository.
func NewLearnedMappings(db *DB) *LearnedMappings { return &LearnedMappings{db: db} }

// Get returns normalized header → field for an organization's schema.
func (s *LearnedMappings) Get(ctx context.Context, orgID, schemaID string) (map[string]string, error) {
	var rows []learnedRow
	if err := s.db.conn(ctx).NewSelect().Model(&rows).Where("org_id = ? AND schema_id = ?", orgID, schemaID).Scan(ctx); err != nil {
		return nil, translate(err, "learned mapping")
	}
	out := make(map[string]string, len(rows))
	for _, r := range rows {
		out[r.Header] = r.Field
	}
	return out, nil
}

// Put records a mapping; the latest one for a header wins.
func (s *LearnedMappings) Put(ctx context.Context, orgID, schemaID, header, field string, now time.Time) error {
	row := learnedRow{OrgID: orgID, SchemaID: schemaID, Header: header, Field: field, UpdatedAt: now.UTC()}
	_, err := s.db.conn(ctx).NewInsert().Model(&row).
		On("CONFLICT (org_id, schema_id, header) DO UPDATE").Set("field = EXCLUDED.field, updated_at = EXCLUDED.updated_at").Exec(ctx)
	return translate(err, "learned mapping")
}
