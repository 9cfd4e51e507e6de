package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/tabnorm/tabnorm/domain/apikey"
	"github.com/tabnorm/tabnorm/domain/entitlement"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/session"
	"github.com/tabnorm/tabnorm/ports"
)

// Credentials implements ports.Credentials with one joined query each; the
// current grants come back as extra rows (at most one per organization
// and product) and are folded here.
type Credentials struct{ db *DB }

var _ ports.Credentials = (*Credentials)(nil)

// NewCredentials returns the credentials reader.
func NewCredentials(db *DB) *Credentials { return &Credentials{db: db} }

// KeyByHash implements ports.Credentials.
func (s *Credentials) KeyByHash(ctx context.Context, h apikey.Hash) (apikey.Key, []entitlement.Entitlement, error) {
	rows, err := s.db.queryPrepared(ctx, `
		SELECT k.id, k.org_id, k.name, k.last4, k.created_by, k.created_at, k.last_used_at, k.last_used_ip, k.revoked_at, k.scopes, k.expires_at, `+grantColumns+`
		FROM api_keys k LEFT JOIN entitlements e ON e.org_id = k.org_id AND e.revoked_at IS NULL
		WHERE k.hash = ?`, h[:])
	if err != nil {
		return apikey.Key{}, nil, translate(err, "API key")
	}
	defer func() { _ = rows.Close() }()
	var row apiKeyRow
	var grants []entitlement.Entitlement
	found := false
	for rows.Next() {
		var g grantCols
		if err := rows.Scan(append([]any{&row.ID, &row.OrgID, &row.Name, &row.Last4, &row.CreatedBy, &row.CreatedAt, &row.LastUsedAt, &row.LastUsedIP, &row.RevokedAt, &row.Scopes, &row.ExpiresAt}, g.dest()...)...); err != nil {
			return apikey.Key{}, nil, translate(err, "API key")
		}
		found = true
		grants = g.appendTo(grants)
	}
	if err := rows.Err(); err != nil {
		return apikey.Key{}, nil, translate(err, "API key")
	}
	if !found {
		return apikey.Key{}, nil, translate(sql.ErrNoRows, "API key")
	}
	row.Hash = h[:]
	return toKeyDomain(row), grants, nil
}

// SessionByHash implements ports.Credentials.
func (s *Credentials) SessionByHash(ctx context.Context, h session.Hash) (session.Session, identity.User, []entitlement.Entitlement, error) {
	rows, err := s.db.queryPrepared(ctx, `
		SELECT s.org_id, s.created_at, s.last_seen_at, s.ip, s.user_agent, s.impersonated_org, s.impersonated_at,
		       u.id, u.org_id, u.email, u.name, u.role, u.is_staff, u.created_at, u.disabled_at, `+grantColumns+`
		FROM sessions s JOIN users u ON u.id = s.user_id
		LEFT JOIN entitlements e ON (e.org_id = u.org_id OR e.org_id = s.impersonated_org) AND e.revoked_at IS NULL
		WHERE s.hash = ?`, h[:])
	if err != nil {
		return session.Session{}, identity.User{}, nil, translate(err, "session")
	}
	defer func() { _ = rows.Close() }()
	var ses sessionRow
	var user userRow
	var grants []entitlement.Entitlement
	found := false
	for rows.Next() {
		var g grantCols
		var impAt, disabledAt *time.Time
		if err := rows.Scan(append([]any{&ses.OrgID, &ses.CreatedAt, &ses.LastSeenAt, &ses.IP, &ses.UserAgent, &ses.ImpersonatedOrg, &impAt,
			&user.ID, &user.OrgID, &user.Email, &user.Name, &user.Role, &user.IsStaff, &user.CreatedAt, &disabledAt}, g.dest()...)...); err != nil {
			return session.Session{}, identity.User{}, nil, translate(err, "session")
		}
		ses.ImpersonatedAt, user.DisabledAt = impAt, disabledAt
		found = true
		grants = g.appendTo(grants)
	}
	if err := rows.Err(); err != nil {
		return session.Session{}, identity.User{}, nil, translate(err, "session")
	}
	if !found {
		return session.Session{}, identity.User{}, nil, translate(sql.ErrNoRows, "session")
	}
	out := session.Session{Hash: h, UserID: user.ID, OrgID: ses.OrgID, CreatedAt: ses.CreatedAt.UTC(), LastSeenAt: ses.LastSeenAt.UTC(),
		IP: ses.IP, UserAgent: ses.UserAgent, ImpersonatedAt: utcPtr(ses.ImpersonatedAt)}
	if ses.ImpersonatedOrg != nil {
		out.ImpersonatedOrgID = *ses.ImpersonatedOrg
	}
	return out, toUserDomain(user), grants, nil
}

// grantColumns are the columns of a current grant joined as e: NULL
// when the organization has none.
const grantColumns = "e.id, e.org_id, e.product, e.source, e.granted_by, e.granted_at, e.ends_at"

// grantCols scans grantColumns.
type grantCols struct {
	id, orgID, product, source, by sql.NullString
	at, until                      sql.NullTime
}

func (g *grantCols) dest() []any {
	return []any{&g.id, &g.orgID, &g.product, &g.source, &g.by, &g.at, &g.until}
}

// appendTo appends the grant, if the row joined one.
func (g *grantCols) appendTo(grants []entitlement.Entitlement) []entitlement.Entitlement {
	if !g.id.Valid {
		return grants
	}
	e := entitlement.Entitlement{ID: g.id.String, OrgID: g.orgID.String, Product: identity.Product(g.product.String),
		Source: entitlement.Source(g.source.String), GrantedBy: g.by.String, GrantedAt: g.at.Time.UTC()}
	if g.until.Valid {
		u := g.until.Time.UTC()
		e.Until = &u
	}
	return append(grants, e)
}
