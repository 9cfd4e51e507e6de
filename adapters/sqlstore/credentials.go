package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/tabnorm/tabnorm/domain/apikey"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/session"
	"github.com/tabnorm/tabnorm/ports"
)

// Credentials implements ports.Credentials with one joined query each; the
// entitlements come back as extra rows (at most one per product) and are
// folded here.
type Credentials struct{ db *DB }

var _ ports.Credentials = (*Credentials)(nil)

// NewCredentials returns the credentials reader.
func NewCredentials(db *DB) *Credentials { return &Credentials{db: db} }

// KeyByHash implements ports.Credentials.
func (s *Credentials) KeyByHash(ctx context.Context, h apikey.Hash) (apikey.Key, []identity.Product, error) {
	rows, err := s.db.queryPrepared(ctx, `
		SELECT k.id, k.org_id, k.name, k.last4, k.created_by, k.created_at, k.last_used_at, k.revoked_at, e.product
		FROM api_keys k LEFT JOIN entitlements e ON e.org_id = k.org_id
		WHERE k.hash = ?`, h[:])
	if err != nil {
		return apikey.Key{}, nil, translate(err, "API key")
	}
	defer func() { _ = rows.Close() }()
	var row apiKeyRow
	var products []identity.Product
	found := false
	for rows.Next() {
		var product sql.NullString
		if err := rows.Scan(&row.ID, &row.OrgID, &row.Name, &row.Last4, &row.CreatedBy, &row.CreatedAt, &row.LastUsedAt, &row.RevokedAt, &product); err != nil {
			return apikey.Key{}, nil, translate(err, "API key")
		}
		found = true
		if product.Valid {
			products = append(products, identity.Product(product.String))
		}
	}
	if err := rows.Err(); err != nil {
		return apikey.Key{}, nil, translate(err, "API key")
	}
	if !found {
		return apikey.Key{}, nil, translate(sql.ErrNoRows, "API key")
	}
	row.Hash = h[:]
	return toKeyDomain(row), ordered(products), nil
}

// SessionByHash implements ports.Credentials.
func (s *Credentials) SessionByHash(ctx context.Context, h session.Hash) (session.Session, identity.User, map[string][]identity.Product, error) {
	rows, err := s.db.queryPrepared(ctx, `
		SELECT s.org_id, s.created_at, s.last_seen_at, s.ip, s.user_agent, s.impersonated_org, s.impersonated_at,
		       u.id, u.org_id, u.email, u.name, u.role, u.is_staff, u.created_at, u.disabled_at, e.org_id, e.product
		FROM sessions s JOIN users u ON u.id = s.user_id
		LEFT JOIN entitlements e ON e.org_id = u.org_id OR e.org_id = s.impersonated_org
		WHERE s.hash = ?`, h[:])
	if err != nil {
		return session.Session{}, identity.User{}, nil, translate(err, "session")
	}
	defer func() { _ = rows.Close() }()
	var ses sessionRow
	var user userRow
	products := map[string][]identity.Product{}
	found := false
	for rows.Next() {
		var entOrg, product sql.NullString
		var impAt, disabledAt *time.Time
		if err := rows.Scan(&ses.OrgID, &ses.CreatedAt, &ses.LastSeenAt, &ses.IP, &ses.UserAgent, &ses.ImpersonatedOrg, &impAt,
			&user.ID, &user.OrgID, &user.Email, &user.Name, &user.Role, &user.IsStaff, &user.CreatedAt, &disabledAt, &entOrg, &product); err != nil {
			return session.Session{}, identity.User{}, nil, translate(err, "session")
		}
		ses.ImpersonatedAt, user.DisabledAt = impAt, disabledAt
		found = true
		if entOrg.Valid && product.Valid {
			products[entOrg.String] = append(products[entOrg.String], identity.Product(product.String))
		}
	}
	if err := rows.Err(); err != nil {
		return session.Session{}, identity.User{}, nil, translate(err, "session")
	}
	if !found {
		return session.Session{}, identity.User{}, nil, translate(sql.ErrNoRows, "session")
	}
	for org, ps := range products {
		products[org] = ordered(ps)
	}
	out := session.Session{Hash: h, UserID: user.ID, OrgID: ses.OrgID, CreatedAt: ses.CreatedAt.UTC(), LastSeenAt: ses.LastSeenAt.UTC(),
		IP: ses.IP, UserAgent: ses.UserAgent, ImpersonatedAt: utcPtr(ses.ImpersonatedAt)}
	if ses.ImpersonatedOrg != nil {
		out.ImpersonatedOrgID = *ses.ImpersonatedOrg
	}
	return out, toUserDomain(user), products, nil
}

// ordered puts products in display order.
func ordered(ps []identity.Product) []identity.Product {
	var out []identity.Product
	for _, p := range identity.Products {
		for _, q := range ps {
			if p == q {
				out = append(out, p)
				break
			}
		}
	}
	return out
}
