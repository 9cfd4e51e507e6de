package sqlstore

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/entitlement"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/ports"
)

const entitlementWhat = "entitlement"

type entitlementRow struct {
	bun.BaseModel `bun:"table:entitlements"`
	ID            string     `bun:"id,pk"`
	OrgID         string     `bun:"org_id"`
	Product       string     `bun:"product"`
	Source        string     `bun:"source"`
	GrantedBy     string     `bun:"granted_by"`
	GrantedAt     time.Time  `bun:"granted_at"`
	EndsAt        *time.Time `bun:"ends_at"`
	RevokedAt     *time.Time `bun:"revoked_at"`
	RevokedBy     string     `bun:"revoked_by"`
}

func toEntitlementRow(e entitlement.Entitlement) entitlementRow {
	return entitlementRow{ID: e.ID, OrgID: e.OrgID, Product: string(e.Product), Source: string(e.Source), GrantedBy: e.GrantedBy,
		GrantedAt: e.GrantedAt.UTC(), EndsAt: utcPtr(e.Until), RevokedAt: utcPtr(e.RevokedAt), RevokedBy: e.RevokedBy}
}

func toEntitlementDomain(r entitlementRow) entitlement.Entitlement {
	return entitlement.Entitlement{ID: r.ID, OrgID: r.OrgID, Product: identity.Product(r.Product), Source: entitlement.Source(r.Source),
		GrantedBy: r.GrantedBy, GrantedAt: r.GrantedAt.UTC(), Until: utcPtr(r.EndsAt), RevokedAt: utcPtr(r.RevokedAt), RevokedBy: r.RevokedBy}
}

// Entitlements implements ports.Entitlements.
type Entitlements struct{ db *DB }

var _ ports.Entitlements = (*Entitlements)(nil)

// NewEntitlements returns the entitlements repository.
func NewEntitlements(db *DB) *Entitlements { return &Entitlements{db: db} }

// Grant implements ports.Entitlements: the current grant is revoked and
// the new one inserted in one transaction; the partial unique index on the
// current grants turns a grant made at the same moment into a conflict.
func (s *Entitlements) Grant(ctx context.Context, e entitlement.Entitlement) error {
	return NewTransactor(s.db).InTx(ctx, func(ctx context.Context) error {
		if _, err := s.db.conn(ctx).NewUpdate().Model((*entitlementRow)(nil)).
			Set("revoked_at = ?, revoked_by = ?", e.GrantedAt.UTC(), e.GrantedBy).
			Where("org_id = ? AND product = ? AND revoked_at IS NULL", e.OrgID, string(e.Product)).Exec(ctx); err != nil {
			return translate(err, entitlementWhat)
		}
		row := toEntitlementRow(e)
		_, err := s.db.conn(ctx).NewInsert().Model(&row).Exec(ctx)
		if isForeignKeyViolation(err) {
			return domain.NotFound("organization")
		}
		return translate(err, entitlementWhat)
	})
}

// Revoke implements ports.Entitlements.
func (s *Entitlements) Revoke(ctx context.Context, orgID string, p identity.Product, at time.Time, by string) (entitlement.Entitlement, error) {
	var row entitlementRow
	err := s.db.conn(ctx).NewUpdate().Model(&row).
		Set("revoked_at = ?, revoked_by = ?", at.UTC(), by).
		Where("org_id = ? AND product = ? AND revoked_at IS NULL", orgID, string(p)).
		Returning("*").Scan(ctx)
	return toEntitlementDomain(row), translate(err, entitlementWhat)
}

// Current implements ports.Entitlements.
func (s *Entitlements) Current(ctx context.Context, orgIDs ...string) ([]entitlement.Entitlement, error) {
	if len(orgIDs) == 0 {
		return nil, nil
	}
	var rows []entitlementRow
	err := s.db.conn(ctx).NewSelect().Model(&rows).Where("org_id IN (?) AND revoked_at IS NULL", bun.List(orgIDs)).
		Order("org_id", "product").Scan(ctx)
	return toEntitlements(rows), translate(err, entitlementWhat)
}

// History implements ports.Entitlements.
func (s *Entitlements) History(ctx context.Context, orgID string) ([]entitlement.Entitlement, error) {
	var rows []entitlementRow
	err := s.db.conn(ctx).NewSelect().Model(&rows).Where("org_id = ?", orgID).
		OrderExpr("granted_at DESC, id DESC").Scan(ctx)
	return toEntitlements(rows), translate(err, entitlementWhat)
}

func toEntitlements(rows []entitlementRow) []entitlement.Entitlement {
	out := make([]entitlement.Entitlement, len(rows))
	for i, r := range rows {
		out[i] = toEntitlementDomain(r)
	}
	return out
}
