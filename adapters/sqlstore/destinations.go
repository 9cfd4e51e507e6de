package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/uptrace/bun"

	"github.com/tabnorm/tabnorm/domain/destination"
	"github.com/tabnorm/tabnorm/ports"
)

type destinationRow struct {
	bun.BaseModel `bun:"table:destinations"`
	ID            string    `bun:"id,pk"`
	OrgID         string    `bun:"org_id"`
	Name          string    `bun:"name"`
	Type          string    `bun:"type"`
	Config        string    `bun:"config"`
	Sealed        []byte    `bun:"sealed"`
	CreatedAt     time.Time `bun:"created_at"`
	UpdatedAt     time.Time `bun:"updated_at"`
}

func toDestinationRow(d destination.Destination) destinationRow {
	cfg, _ := json.Marshal(d.Config) // a map of strings always encodes
	sealed := d.Sealed
	if sealed == nil {
		sealed = []byte{}
	}
	return destinationRow{ID: d.ID, OrgID: d.OrgID, Name: d.Name, Type: d.Type, Config: string(cfg), Sealed: sealed,
		CreatedAt: d.CreatedAt.UTC(), UpdatedAt: d.UpdatedAt.UTC()}
}

func toDestinationDomain(r destinationRow) destination.Destination {
	cfg := map[string]string{}
	_ = json.Unmarshal([]byte(r.Config), &cfg) // written by toDestinationRow
	return destination.Destination{ID: r.ID, OrgID: r.OrgID, Name: r.Name, Type: r.Type, Config: cfg, Sealed: r.Sealed,
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
}

// Destinations implements ports.Destinations.
type Destinations struct{ db *DB }

var _ ports.Destinations = (*Destinations)(nil)

// NewDestinations returns the destinations repository.
func NewDestinations(db *DB) *Destinations { return &Destinations{db: db} }

// Create inserts a destination.
func (s *Destinations) Create(ctx context.Context, d destination.Destination) error {
	row := toDestinationRow(d)
	_, err := s.db.conn(ctx).NewInsert().Model(&row).Exec(ctx)
	return translate(err, "destination")
}

// Get implements ports.Destinations.
func (s *Destinations) Get(ctx context.Context, orgID, id string) (destination.Destination, error) {
	var row destinationRow
	q := s.db.conn(ctx).NewSelect().Model(&row).Where("id = ?", id)
	if orgID != "" {
		q = q.Where("org_id = ?", orgID)
	}
	err := q.Scan(ctx)
	return toDestinationDomain(row), translate(err, "destination")
}

// List returns an organization's destinations, newest first.
func (s *Destinations) List(ctx context.Context, orgID string, page ports.Page) ([]destination.Destination, string, error) {
	var rows []destinationRow
	q := s.db.conn(ctx).NewSelect().Model(&rows).Where("org_id = ?", orgID)
	next, err := listPage(ctx, q, page, func() int { return len(rows) }, func(i int) string { return rows[i].ID }, func(n int) { rows = rows[:n] })
	if err != nil {
		return nil, "", translate(err, "destination")
	}
	out := make([]destination.Destination, len(rows))
	for i, r := range rows {
		out[i] = toDestinationDomain(r)
	}
	return out, next, nil
}

// Update is a read-modify-write of one destination, the row locked on
// PostgreSQL.
func (s *Destinations) Update(ctx context.Context, orgID, id string, fn func(*destination.Destination) error) (destination.Destination, error) {
	return updateLocked(ctx, s.db, "destination", orgID, id, toDestinationDomain, toDestinationRow, fn)
}

// Delete removes an organization's destination; its deliveries go with it.
func (s *Destinations) Delete(ctx context.Context, orgID, id string) error {
	res, err := s.db.conn(ctx).NewDelete().Model((*destinationRow)(nil)).Where("id = ? AND org_id = ?", id, orgID).Exec(ctx)
	if err != nil {
		return translate(err, "destination")
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return translate(sql.ErrNoRows, "destination")
	}
	return nil
}

type pushRow struct {
	bun.BaseModel `bun:"table:destination_deliveries"`
	ID            string     `bun:"id,pk"`
	OrgID         string     `bun:"org_id"`
	JobID         string     `bun:"job_id"`
	DestinationID string     `bun:"destination_id"`
	Status        string     `bun:"status"`
	Attempts      int        `bun:"attempts"`
	Rows          int64      `bun:"rows_written"`
	Bytes         int64      `bun:"bytes_written"`
	LastError     string     `bun:"last_error"`
	NextAt        *time.Time `bun:"next_at"`
	CreatedAt     time.Time  `bun:"created_at"`
	UpdatedAt     time.Time  `bun:"updated_at"`
	DeliveredAt   *time.Time `bun:"delivered_at"`
}

func toPushRow(d destination.Delivery) pushRow {
	return pushRow{ID: d.ID, OrgID: d.OrgID, JobID: d.JobID, DestinationID: d.DestinationID, Status: d.Status, Attempts: d.Attempts,
		Rows: d.Rows, Bytes: d.Bytes, LastError: d.LastError, NextAt: utcPtr(d.NextAt), CreatedAt: d.CreatedAt.UTC(), UpdatedAt: d.UpdatedAt.UTC(),
		DeliveredAt: utcPtr(d.DeliveredAt)}
}

func toPushDomain(r pushRow) destination.Delivery {
	return destination.Delivery{ID: r.ID, OrgID: r.OrgID, JobID: r.JobID, DestinationID: r.DestinationID, Status: r.Status, Attempts: r.Attempts,
		Rows: r.Rows, Bytes: r.Bytes, LastError: r.LastError, NextAt: utcPtr(r.NextAt), CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
		DeliveredAt: utcPtr(r.DeliveredAt)}
}

func toPushes(rows []pushRow) []destination.Delivery {
	out := make([]destination.Delivery, len(rows))
	for i, r := range rows {
		out[i] = toPushDomain(r)
	}
	return out
}

// Pushes implements ports.Pushes.
type Pushes struct{ db *DB }

var _ ports.Pushes = (*Pushes)(nil)

// NewPushes returns the repository of deliveries to destinations.
func NewPushes(db *DB) *Pushes { return &Pushes{db: db} }

// Create inserts a delivery; a second of the same job and destination is
// a conflict.
func (s *Pushes) Create(ctx context.Context, d destination.Delivery) error {
	row := toPushRow(d)
	_, err := s.db.conn(ctx).NewInsert().Model(&row).Exec(ctx)
	return translate(err, "destination delivery")
}

// Get implements ports.Pushes.
func (s *Pushes) Get(ctx context.Context, orgID, id string) (destination.Delivery, error) {
	var row pushRow
	q := s.db.conn(ctx).NewSelect().Model(&row).Where("id = ?", id)
	if orgID != "" {
		q = q.Where("org_id = ?", orgID)
	}
	err := q.Scan(ctx)
	return toPushDomain(row), translate(err, "destination delivery")
}

// OfJob implements ports.Pushes.
func (s *Pushes) OfJob(ctx context.Context, orgID, jobID string) ([]destination.Delivery, error) {
	var rows []pushRow
	err := s.db.conn(ctx).NewSelect().Model(&rows).Where("org_id = ? AND job_id = ?", orgID, jobID).OrderExpr("id").Scan(ctx)
	if err != nil {
		return nil, translate(err, "destination delivery")
	}
	return toPushes(rows), nil
}

// Recent implements ports.Pushes.
func (s *Pushes) Recent(ctx context.Context, orgID, destinationID string, page ports.Page) ([]destination.Delivery, string, error) {
	var rows []pushRow
	q := s.db.conn(ctx).NewSelect().Model(&rows).Where("org_id = ? AND destination_id = ?", orgID, destinationID)
	next, err := listPage(ctx, q, page, func() int { return len(rows) }, func(i int) string { return rows[i].ID }, func(n int) { rows = rows[:n] })
	if err != nil {
		return nil, "", translate(err, "destination delivery")
	}
	return toPushes(rows), next, nil
}

// Due implements ports.Pushes.
func (s *Pushes) Due(ctx context.Context, t time.Time, limit int) ([]destination.Delivery, error) {
	var rows []pushRow
	err := s.db.conn(ctx).NewSelect().Model(&rows).Where("status IN (?, ?) AND next_at <= ?", destination.Pending, destination.Delivering, t.UTC()).
		OrderExpr("next_at").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, translate(err, "destination delivery")
	}
	return toPushes(rows), nil
}

// Update implements ports.Pushes.
func (s *Pushes) Update(ctx context.Context, orgID, id string, fn func(*destination.Delivery) error) (destination.Delivery, error) {
	return updateLocked(ctx, s.db, "destination delivery", orgID, id, toPushDomain, toPushRow, fn)
}
