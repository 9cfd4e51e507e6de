package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/sso"
	"github.com/tabnorm/tabnorm/ports"
)

type ssoConfigRow struct {
	bun.BaseModel  `bun:"table:sso_configs"`
	OrgID          string    `bun:"org_id,pk"`
	Issuer         string    `bun:"issuer"`
	ClientID       string    `bun:"client_id"`
	Sealed         []byte    `bun:"sealed"`
	AllowedDomains string    `bun:"allowed_domains"` // comma-separated, as listed
	DefaultRole    string    `bun:"default_role"`
	Required       bool      `bun:"required"`
	BreakGlass     string    `bun:"break_glass"`
	CreatedAt      time.Time `bun:"created_at"`
	UpdatedAt      time.Time `bun:"updated_at"`
}

type ssoDomainRow struct {
	bun.BaseModel `bun:"table:sso_domains"`
	Domain        string `bun:"domain,pk"`
	OrgID         string `bun:"org_id"`
}

func toSSOConfigRow(c sso.Config) ssoConfigRow {
	sealed := c.Sealed
	if sealed == nil {
		sealed = []byte{}
	}
	return ssoConfigRow{OrgID: c.OrgID, Issuer: c.Issuer, ClientID: c.ClientID, Sealed: sealed, AllowedDomains: strings.Join(c.AllowedDomains, ","),
		DefaultRole: string(c.DefaultRole), Required: c.Required, BreakGlass: c.BreakGlass, CreatedAt: c.CreatedAt.UTC(), UpdatedAt: c.UpdatedAt.UTC()}
}

func toSSOConfigDomain(r ssoConfigRow) sso.Config {
	var domains []string
	if r.AllowedDomains != "" {
		domains = strings.Split(r.AllowedDomains, ",")
	}
	return sso.Config{OrgID: r.OrgID, Issuer: r.Issuer, ClientID: r.ClientID, Sealed: r.Sealed, AllowedDomains: domains,
		DefaultRole: identity.Role(r.DefaultRole), Required: r.Required, BreakGlass: r.BreakGlass, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
}

// SSOConfigs implements ports.SSOConfigs.
type SSOConfigs struct {
	db *DB
	tx *Transactor
}

var _ ports.SSOConfigs = (*SSOConfigs)(nil)

// NewSSOConfigs returns the single sign-on settings repository.
func NewSSOConfigs(db *DB) *SSOConfigs { return &SSOConfigs{db: db, tx: NewTransactor(db)} }

// Get implements ports.SSOConfigs.
func (s *SSOConfigs) Get(ctx context.Context, orgID string) (sso.Config, error) {
	var row ssoConfigRow
	err := s.db.conn(ctx).NewSelect().Model(&row).Where("org_id = ?", orgID).Scan(ctx)
	return toSSOConfigDomain(row), translate(err, "single sign-on configuration")
}

// ByDomain implements ports.SSOConfigs.
func (s *SSOConfigs) ByDomain(ctx context.Context, domain string) (sso.Config, error) {
	var row ssoConfigRow
	err := s.db.conn(ctx).NewSelect().Model(&row).
		Where("org_id = (SELECT org_id FROM sso_domains WHERE domain = ?)", strings.ToLower(domain)).Scan(ctx)
	return toSSOConfigDomain(row), translate(err, "single sign-on configuration")
}

// Put implements ports.SSOConfigs: the row and its domains are replaced
// in one transaction; a domain another organization holds is a conflict.
func (s *SSOConfigs) Put(ctx context.Context, c sso.Config) error {
	return s.tx.InTx(ctx, func(ctx context.Context) error {
		row := toSSOConfigRow(c)
		db := s.db.conn(ctx)
		if _, err := db.NewInsert().Model(&row).On("CONFLICT (org_id) DO UPDATE").
			Set("issuer = EXCLUDED.issuer, client_id = EXCLUDED.client_id, sealed = EXCLUDED.sealed, allowed_domains = EXCLUDED.allowed_domains").
			Set("default_role = EXCLUDED.default_role, required = EXCLUDED.required, break_glass = EXCLUDED.break_glass, updated_at = EXCLUDED.updated_at").
			Exec(ctx); err != nil {
			return translate(err, "single sign-on configuration")
		}
		if _, err := db.NewDelete().Model((*ssoDomainRow)(nil)).Where("org_id = ?", c.OrgID).Exec(ctx); err != nil {
			return translate(err, "single sign-on domain")
		}
		for _, d := range c.AllowedDomains {
			if _, err := db.NewInsert().Model(&ssoDomainRow{Domain: d, OrgID: c.OrgID}).Exec(ctx); err != nil {
				if isUniqueViolation(err) {
					return &domain.Error{Kind: domain.ErrConflict, Code: domain.CodeConflict,
						Message: "The e-mail domain " + d + " signs in through another organization.",
						Fields:  []domain.FieldError{{Field: "allowed_domains", Message: d + " belongs to another organization"}}}
				}
				return translate(err, "single sign-on domain")
			}
		}
		return nil
	})
}

// Delete implements ports.SSOConfigs; the domains go with the row.
func (s *SSOConfigs) Delete(ctx context.Context, orgID string) error {
	return s.tx.InTx(ctx, func(ctx context.Context) error {
		db := s.db.conn(ctx)
		// Deleted explicitly: SQLite enforces no foreign keys unless asked.
		if _, err := db.NewDelete().Model((*ssoDomainRow)(nil)).Where("org_id = ?", orgID).Exec(ctx); err != nil {
			return translate(err, "single sign-on domain")
		}
		res, err := db.NewDelete().Model((*ssoConfigRow)(nil)).Where("org_id = ?", orgID).Exec(ctx)
		if err != nil {
			return translate(err, "single sign-on configuration")
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return translate(sql.ErrNoRows, "single sign-on configuration")
		}
		return nil
	})
}

type ssoFlowRow struct {
	bun.BaseModel `bun:"table:sso_flows"`
	StateHash     string    `bun:"state_hash,pk"`
	BrowserHash   string    `bun:"browser_hash"`
	OrgID         string    `bun:"org_id"`
	Nonce         string    `bun:"nonce"`
	Verifier      string    `bun:"verifier"`
	RedirectURI   string    `bun:"redirect_uri"`
	CreatedAt     time.Time `bun:"created_at"`
}

// SSOFlows implements ports.SSOFlows.
type SSOFlows struct{ db *DB }

var _ ports.SSOFlows = (*SSOFlows)(nil)

// NewSSOFlows returns the store of sign-ins in flight.
func NewSSOFlows(db *DB) *SSOFlows { return &SSOFlows{db: db} }

// Create implements ports.SSOFlows; flows older than sso.FlowLifetime are
// deleted on the way, so abandoned sign-ins do not pile up.
func (s *SSOFlows) Create(ctx context.Context, f sso.Flow) error {
	db := s.db.conn(ctx)
	if _, err := db.NewDelete().Model((*ssoFlowRow)(nil)).Where("created_at < ?", f.CreatedAt.UTC().Add(-sso.FlowLifetime)).Exec(ctx); err != nil {
		return translate(err, "sign-in")
	}
	row := ssoFlowRow{StateHash: f.StateHash, BrowserHash: f.BrowserHash, OrgID: f.OrgID, Nonce: f.Nonce, Verifier: f.Verifier,
		RedirectURI: f.RedirectURI, CreatedAt: f.CreatedAt.UTC()}
	_, err := db.NewInsert().Model(&row).Exec(ctx)
	return translate(err, "sign-in")
}

// Take implements ports.SSOFlows with DELETE … RETURNING: of two racing
// callbacks with one state, one gets the row and the other none.
func (s *SSOFlows) Take(ctx context.Context, stateHash string) (sso.Flow, error) {
	var rows []ssoFlowRow
	err := s.db.conn(ctx).NewDelete().Model(&rows).Where("state_hash = ?", stateHash).Returning("*").Scan(ctx)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return sso.Flow{}, translate(err, "sign-in")
	}
	if len(rows) == 0 {
		return sso.Flow{}, domain.NotFound("sign-in")
	}
	r := rows[0]
	return sso.Flow{StateHash: r.StateHash, BrowserHash: r.BrowserHash, OrgID: r.OrgID, Nonce: r.Nonce, Verifier: r.Verifier,
		RedirectURI: r.RedirectURI, CreatedAt: r.CreatedAt.UTC()}, nil
}
