package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/tabnorm/tabnorm/domain/webhook"
	"github.com/tabnorm/tabnorm/ports"
)

type webhookEndpointRow struct {
	bun.BaseModel  `bun:"table:webhook_endpoints"`
	ID             string     `bun:"id,pk"`
	OrgID          string     `bun:"org_id"`
	URL            string     `bun:"url"`
	Description    string     `bun:"description"`
	Events         string     `bun:"events"`
	Enabled        bool       `bun:"enabled"`
	DisabledReason string     `bun:"disabled_reason"`
	Secret         string     `bun:"secret"`
	PreviousSecret string     `bun:"previous_secret"`
	PreviousUntil  *time.Time `bun:"previous_until"`
	FailingSince   *time.Time `bun:"failing_since"`
	Failures       int        `bun:"failures"`
	RetryAt        *time.Time `bun:"retry_at"`
	Paused         bool       `bun:"paused"`
	PausedReason   string     `bun:"paused_reason"`
	CreatedAt      time.Time  `bun:"created_at"`
	UpdatedAt      time.Time  `bun:"updated_at"`
}

func toEndpointRow(e webhook.Endpoint) webhookEndpointRow {
	events, _ := json.Marshal(e.Events)
	return webhookEndpointRow{ID: e.ID, OrgID: e.OrgID, URL: e.URL, Description: e.Description, Events: string(events), Enabled: e.Enabled,
		DisabledReason: e.DisabledReason, Secret: e.Secret, PreviousSecret: e.PreviousSecret, PreviousUntil: utcPtr(e.PreviousUntil),
		FailingSince: utcPtr(e.FailingSince), Failures: e.Failures, RetryAt: utcPtr(e.RetryAt), Paused: e.Paused, PausedReason: e.PausedReason,
		CreatedAt: e.CreatedAt.UTC(), UpdatedAt: e.UpdatedAt.UTC()}
}

func toEndpointDomain(r webhookEndpointRow) webhook.Endpoint {
	var events []string
	_ = json.Unmarshal([]byte(r.Events), &events) // written by toEndpointRow
	return webhook.Endpoint{ID: r.ID, OrgID: r.OrgID, URL: r.URL, Description: r.Description, Events: events, Enabled: r.Enabled,
		DisabledReason: r.DisabledReason, Secret: r.Secret, PreviousSecret: r.PreviousSecret, PreviousUntil: utcPtr(r.PreviousUntil),
		FailingSince: utcPtr(r.FailingSince), Failures: r.Failures, RetryAt: utcPtr(r.RetryAt), Paused: r.Paused, PausedReason: r.PausedReason,
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
}

// WebhookEndpoints implements ports.WebhookEndpoints.
type WebhookEndpoints struct{ db *DB }

var _ ports.WebhookEndpoints = (*WebhookEndpoints)(nil)

// NewWebhookEndpoints returns the webhook endpoints repository.
func NewWebhookEndpoints(db *DB) *WebhookEndpoints { return &WebhookEndpoints{db: db} }

// Create inserts an endpoint.
func (s *WebhookEndpoints) Create(ctx context.Context, e webhook.Endpoint) error {
	row := toEndpointRow(e)
	_, err := s.db.conn(ctx).NewInsert().Model(&row).Exec(ctx)
	return translate(err, "webhook")
}

// Get implements ports.WebhookEndpoints.
func (s *WebhookEndpoints) Get(ctx context.Context, orgID, id string) (webhook.Endpoint, error) {
	var row webhookEndpointRow
	q := s.db.conn(ctx).NewSelect().Model(&row).Where("id = ?", id)
	if orgID != "" {
		q = q.Where("org_id = ?", orgID)
	}
	err := q.Scan(ctx)
	return toEndpointDomain(row), translate(err, "webhook")
}

// List returns an organization's endpoints, newest first.
func (s *WebhookEndpoints) List(ctx context.Context, orgID string, page ports.Page) ([]webhook.Endpoint, string, error) {
	var rows []webhookEndpointRow
	q := s.db.conn(ctx).NewSelect().Model(&rows).Where("org_id = ?", orgID)
	next, err := listPage(ctx, q, page, func() int { return len(rows) }, func(i int) string { return rows[i].ID }, func(n int) { rows = rows[:n] })
	if err != nil {
		return nil, "", translate(err, "webhook")
	}
	out := make([]webhook.Endpoint, len(rows))
	for i, r := range rows {
		out[i] = toEndpointDomain(r)
	}
	return out, next, nil
}

// Enabled implements ports.WebhookEndpoints.
func (s *WebhookEndpoints) Enabled(ctx context.Context, orgID string) ([]webhook.Endpoint, error) {
	var rows []webhookEndpointRow
	err := s.db.conn(ctx).NewSelect().Model(&rows).Where("org_id = ? AND enabled", orgID).OrderExpr("id").Scan(ctx)
	if err != nil {
		return nil, translate(err, "webhook")
	}
	out := make([]webhook.Endpoint, len(rows))
	for i, r := range rows {
		out[i] = toEndpointDomain(r)
	}
	return out, nil
}

// Update is a read-modify-write of one endpoint, the row locked on
// PostgreSQL.
func (s *WebhookEndpoints) Update(ctx context.Context, orgID, id string, fn func(*webhook.Endpoint) error) (webhook.Endpoint, error) {
	return updateLocked(ctx, s.db, "webhook", orgID, id, toEndpointDomain, toEndpointRow, fn)
}

// Delete removes an organization's endpoint; its deliveries go with it.
func (s *WebhookEndpoints) Delete(ctx context.Context, orgID, id string) error {
	res, err := s.db.conn(ctx).NewDelete().Model((*webhookEndpointRow)(nil)).Where("id = ? AND org_id = ?", id, orgID).Exec(ctx)
	if err != nil {
		return translate(err, "webhook")
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return translate(sql.ErrNoRows, "webhook")
	}
	return nil
}

type webhookDeliveryRow struct {
	bun.BaseModel  `bun:"table:webhook_deliveries"`
	ID             string     `bun:"id,pk"`
	EndpointID     string     `bun:"endpoint_id"`
	OrgID          string     `bun:"org_id"`
	EventType      string     `bun:"event_type"`
	Payload        string     `bun:"payload"`
	Status         string     `bun:"status"`
	Attempts       int        `bun:"attempts"`
	NextAt         *time.Time `bun:"next_at"`
	CreatedAt      time.Time  `bun:"created_at"`
	LastAt         *time.Time `bun:"last_at"`
	LastStatusCode *int       `bun:"last_status_code"`
	LastLatencyMS  *int64     `bun:"last_latency_ms"`
	LastError      *string    `bun:"last_error"`
	LastResponse   *string    `bun:"last_response"`
}

func toDeliveryRow(d webhook.Delivery) webhookDeliveryRow {
	r := webhookDeliveryRow{ID: d.ID, EndpointID: d.EndpointID, OrgID: d.OrgID, EventType: d.EventType, Payload: string(d.Payload),
		Status: d.Status, Attempts: d.Attempts, NextAt: utcPtr(d.NextAt), CreatedAt: d.CreatedAt.UTC()}
	if a := d.Last; a != nil {
		at, code, ms, e, body := a.At.UTC(), a.StatusCode, a.Latency.Milliseconds(), a.Error, a.ResponseBody
		r.LastAt, r.LastStatusCode, r.LastLatencyMS, r.LastError, r.LastResponse = &at, &code, &ms, &e, &body
	}
	return r
}

func toDeliveryDomain(r webhookDeliveryRow) webhook.Delivery {
	d := webhook.Delivery{ID: r.ID, EndpointID: r.EndpointID, OrgID: r.OrgID, EventType: r.EventType, Payload: []byte(r.Payload),
		Status: r.Status, Attempts: r.Attempts, NextAt: utcPtr(r.NextAt), CreatedAt: r.CreatedAt.UTC()}
	if r.LastAt != nil {
		a := webhook.Attempt{At: r.LastAt.UTC()}
		if r.LastStatusCode != nil {
			a.StatusCode = *r.LastStatusCode
		}
		if r.LastLatencyMS != nil {
			a.Latency = time.Duration(*r.LastLatencyMS) * time.Millisecond
		}
		if r.LastError != nil {
			a.Error = *r.LastError
		}
		if r.LastResponse != nil {
			a.ResponseBody = *r.LastResponse
		}
		d.Last = &a
	}
	return d
}

// WebhookDeliveries implements ports.WebhookDeliveries.
type WebhookDeliveries struct{ db *DB }

var _ ports.WebhookDeliveries = (*WebhookDeliveries)(nil)

// NewWebhookDeliveries returns the webhook deliveries repository.
func NewWebhookDeliveries(db *DB) *WebhookDeliveries { return &WebhookDeliveries{db: db} }

// Create inserts a delivery.
func (s *WebhookDeliveries) Create(ctx context.Context, d webhook.Delivery) error {
	row := toDeliveryRow(d)
	_, err := s.db.conn(ctx).NewInsert().Model(&row).Exec(ctx)
	return translate(err, "webhook delivery")
}

// Get implements ports.WebhookDeliveries.
func (s *WebhookDeliveries) Get(ctx context.Context, orgID, id string) (webhook.Delivery, error) {
	var row webhookDeliveryRow
	q := s.db.conn(ctx).NewSelect().Model(&row).Where("id = ?", id)
	if orgID != "" {
		q = q.Where("org_id = ?", orgID)
	}
	err := q.Scan(ctx)
	return toDeliveryDomain(row), translate(err, "webhook delivery")
}

// List implements ports.WebhookDeliveries.
func (s *WebhookDeliveries) List(ctx context.Context, orgID, endpointID string, page ports.Page) ([]webhook.Delivery, string, error) {
	var rows []webhookDeliveryRow
	q := s.db.conn(ctx).NewSelect().Model(&rows).Where("org_id = ? AND endpoint_id = ?", orgID, endpointID)
	next, err := listPage(ctx, q, page, func() int { return len(rows) }, func(i int) string { return rows[i].ID }, func(n int) { rows = rows[:n] })
	if err != nil {
		return nil, "", translate(err, "webhook delivery")
	}
	out := make([]webhook.Delivery, len(rows))
	for i, r := range rows {
		out[i] = toDeliveryDomain(r)
	}
	return out, next, nil
}

// Due implements ports.WebhookDeliveries.
func (s *WebhookDeliveries) Due(ctx context.Context, t time.Time, limit int) ([]webhook.Delivery, error) {
	var rows []webhookDeliveryRow
	err := s.db.conn(ctx).NewSelect().Model(&rows).Where("status = ? AND next_at <= ?", webhook.Pending, t.UTC()).
		OrderExpr("next_at").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, translate(err, "webhook delivery")
	}
	out := make([]webhook.Delivery, len(rows))
	for i, r := range rows {
		out[i] = toDeliveryDomain(r)
	}
	return out, nil
}

// Waiting implements ports.WebhookDeliveries.
func (s *WebhookDeliveries) Waiting(ctx context.Context, endpointID string, limit int) ([]webhook.Delivery, error) {
	var rows []webhookDeliveryRow
	err := s.db.conn(ctx).NewSelect().Model(&rows).Where("endpoint_id = ? AND status = ?", endpointID, webhook.Pending).
		OrderExpr("created_at, id").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, translate(err, "webhook delivery")
	}
	out := make([]webhook.Delivery, len(rows))
	for i, r := range rows {
		out[i] = toDeliveryDomain(r)
	}
	return out, nil
}

// Update implements ports.WebhookDeliveries.
func (s *WebhookDeliveries) Update(ctx context.Context, orgID, id string, fn func(*webhook.Delivery) error) (webhook.Delivery, error) {
	return updateLocked(ctx, s.db, "webhook delivery", orgID, id, toDeliveryDomain, toDeliveryRow, fn)
}

// updateLocked is a read-modify-write of the row id (of the organization
// orgID, or of any when it is ""), locked on PostgreSQL until the
// transaction ends; what names the row in a not-found error.
func updateLocked[R, D any](ctx context.Context, db *DB, what, orgID, id string, toDomain func(R) D, toRow func(D) R, fn func(*D) error) (D, error) {
	var out D
	err := NewTransactor(db).InTx(ctx, func(ctx context.Context) error {
		var row R
		q := db.conn(ctx).NewSelect().Model(&row).Where("id = ?", id)
		if orgID != "" {
			q = q.Where("org_id = ?", orgID)
		}
		if db.Dialect == Postgres {
			q = q.For("UPDATE")
		}
		if err := q.Scan(ctx); err != nil {
			return translate(err, what)
		}
		d := toDomain(row)
		if err := fn(&d); err != nil {
			return err
		}
		updated := toRow(d)
		if _, err := db.conn(ctx).NewUpdate().Model(&updated).WherePK().Exec(ctx); err != nil {
			return translate(err, what)
		}
		out = d
		return nil
	})
	return out, err
}

// CountPending counts the deliveries not yet ended, for the operator's
// metrics.
func (s *WebhookDeliveries) CountPending(ctx context.Context) (int64, error) {
	n, err := s.db.Bun.NewSelect().Table("webhook_deliveries").Where("status = ?", "pending").Count(ctx)
	if err != nil {
		return 0, fmt.Errorf("count pending webhook deliveries: %w", err)
	}
	return int64(n), nil
}

// CountPaused counts the enabled endpoints that are paused, for the
// operator's metrics.
func (s *WebhookEndpoints) CountPaused(ctx context.Context) (int64, error) {
	n, err := s.db.Bun.NewSelect().Table("webhook_endpoints").Where("paused AND enabled").Count(ctx)
	if err != nil {
		return 0, fmt.Errorf("count paused webhook endpoints: %w", err)
	}
	return int64(n), nil
}
