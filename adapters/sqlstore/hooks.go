package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/uptrace/bun"

	"github.com/tabnorm/tabnorm/domain/hook"
	"github.com/tabnorm/tabnorm/ports"
)

type hookRow struct {
	bun.BaseModel  `bun:"table:hooks"`
	ID             string     `bun:"id,pk"`
	OrgID          string     `bun:"org_id"`
	Name           string     `bun:"name"`
	URL            string     `bun:"url"`
	TimeoutMS      int64      `bun:"timeout_ms"`
	Concurrency    int        `bun:"concurrency"`
	Enabled        bool       `bun:"enabled"`
	Secret         []byte     `bun:"secret"`
	PreviousSecret []byte     `bun:"previous_secret"`
	PreviousUntil  *time.Time `bun:"previous_until"`
	CreatedAt      time.Time  `bun:"created_at"`
	UpdatedAt      time.Time  `bun:"updated_at"`
}

func toHookRow(h hook.Hook) hookRow {
	return hookRow{ID: h.ID, OrgID: h.OrgID, Name: h.Name, URL: h.URL, TimeoutMS: h.Timeout.Milliseconds(), Concurrency: h.Concurrency,
		Enabled: h.Enabled, Secret: h.SealedSecret, PreviousSecret: h.SealedPrevious, PreviousUntil: utcPtr(h.PreviousUntil),
		CreatedAt: h.CreatedAt.UTC(), UpdatedAt: h.UpdatedAt.UTC()}
}

func toHookDomain(r hookRow) hook.Hook {
	return hook.Hook{ID: r.ID, OrgID: r.OrgID, Name: r.Name, URL: r.URL, Timeout: time.Duration(r.TimeoutMS) * time.Millisecond,
		Concurrency: r.Concurrency, Enabled: r.Enabled, SealedSecret: r.Secret, SealedPrevious: r.PreviousSecret,
		PreviousUntil: utcPtr(r.PreviousUntil), CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
}

// Hooks implements ports.Hooks.
type Hooks struct{ db *DB }

var _ ports.Hooks = (*Hooks)(nil)

// NewHooks returns the hooks repository.
func NewHooks(db *DB) *Hooks { return &Hooks{db: db} }

// Create inserts a hook; its name taken in the organization is a conflict.
func (s *Hooks) Create(ctx context.Context, h hook.Hook) error {
	row := toHookRow(h)
	_, err := s.db.conn(ctx).NewInsert().Model(&row).Exec(ctx)
	return translate(err, "hook")
}

// Get implements ports.Hooks.
func (s *Hooks) Get(ctx context.Context, orgID, id string) (hook.Hook, error) {
	var row hookRow
	err := s.db.conn(ctx).NewSelect().Model(&row).Where("id = ? AND org_id = ?", id, orgID).Scan(ctx)
	return toHookDomain(row), translate(err, "hook")
}

// Named implements ports.Hooks.
func (s *Hooks) Named(ctx context.Context, orgID string, names []string) ([]hook.Hook, error) {
	if len(names) == 0 {
		return nil, nil
	}
	var rows []hookRow
	err := s.db.conn(ctx).NewSelect().Model(&rows).Where("org_id = ? AND name IN (?)", orgID, bun.List(names)).OrderExpr("name").Scan(ctx)
	if err != nil {
		return nil, translate(err, "hook")
	}
	out := make([]hook.Hook, len(rows))
	for i, r := range rows {
		out[i] = toHookDomain(r)
	}
	return out, nil
}

// List returns an organization's hooks, newest first.
func (s *Hooks) List(ctx context.Context, orgID string, page ports.Page) ([]hook.Hook, string, error) {
	var rows []hookRow
	q := s.db.conn(ctx).NewSelect().Model(&rows).Where("org_id = ?", orgID)
	next, err := listPage(ctx, q, page, func() int { return len(rows) }, func(i int) string { return rows[i].ID }, func(n int) { rows = rows[:n] })
	if err != nil {
		return nil, "", translate(err, "hook")
	}
	out := make([]hook.Hook, len(rows))
	for i, r := range rows {
		out[i] = toHookDomain(r)
	}
	return out, next, nil
}

// Update is a read-modify-write of one hook, the row locked on PostgreSQL.
func (s *Hooks) Update(ctx context.Context, orgID, id string, fn func(*hook.Hook) error) (hook.Hook, error) {
	return updateLocked(ctx, s.db, "hook", orgID, id, toHookDomain, toHookRow, fn)
}

// Delete removes an organization's hook.
func (s *Hooks) Delete(ctx context.Context, orgID, id string) error {
	res, err := s.db.conn(ctx).NewDelete().Model((*hookRow)(nil)).Where("id = ? AND org_id = ?", id, orgID).Exec(ctx)
	if err != nil {
		return translate(err, "hook")
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return translate(sql.ErrNoRows, "hook")
	}
	return nil
}
