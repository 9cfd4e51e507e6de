package sqlstore

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/tabnorm/tabnorm/domain/apikey"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/session"
	"github.com/tabnorm/tabnorm/ports"
)

type apiKeyRow struct {
	bun.BaseModel `bun:"table:api_keys"`
	ID            string     `bun:"id,pk"`
	OrgID         string     `bun:"org_id"`
	Name          string     `bun:"name"`
	Hash          []byte     `bun:"hash"`
	Last4         string     `bun:"last4"`
	CreatedBy     string     `bun:"created_by"`
	CreatedAt     time.Time  `bun:"created_at"`
	LastUsedAt    *time.Time `bun:"last_used_at"`
	LastUsedIP    string     `bun:"last_used_ip"`
	RevokedAt     *time.Time `bun:"revoked_at"`
	Scopes        string     `bun:"scopes"`
	ExpiresAt     *time.Time `bun:"expires_at"`
}

func toKeyRow(k apikey.Key) apiKeyRow {
	return apiKeyRow{ID: k.ID, OrgID: k.OrgID, Name: k.Name, Hash: k.Hash[:], Last4: k.Last4, CreatedBy: k.CreatedBy,
		CreatedAt: k.CreatedAt.UTC(), LastUsedAt: utcPtr(k.LastUsedAt), LastUsedIP: k.LastUsedIP, RevokedAt: utcPtr(k.RevokedAt),
		Scopes: apikey.EncodeScopes(k.Scopes), ExpiresAt: utcPtr(k.ExpiresAt)}
}

func toKeyDomain(r apiKeyRow) apikey.Key {
	k := apikey.Key{ID: r.ID, OrgID: r.OrgID, Name: r.Name, Last4: r.Last4, CreatedBy: r.CreatedBy,
		CreatedAt: r.CreatedAt.UTC(), LastUsedAt: utcPtr(r.LastUsedAt), LastUsedIP: r.LastUsedIP, RevokedAt: utcPtr(r.RevokedAt),
		Scopes: apikey.DecodeScopes(r.Scopes), ExpiresAt: utcPtr(r.ExpiresAt)}
	copy(k.Hash[:], r.Hash)
	return k
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// APIKeys implements ports.APIKeys.
type APIKeys struct{ db *DB }

var _ ports.APIKeys = (*APIKeys)(nil)

// NewAPIKeys returns the API keys repository.
func NewAPIKeys(db *DB) *APIKeys { return &APIKeys{db: db} }

// Create stores a key (its hash, never its plaintext).
func (s *APIKeys) Create(ctx context.Context, k apikey.Key) error {
	row := toKeyRow(k)
	_, err := s.db.conn(ctx).NewInsert().Model(&row).Exec(ctx)
	return translate(err, "API key")
}

// List returns an organization's keys, newest first.
func (s *APIKeys) List(ctx context.Context, orgID string, page ports.Page) ([]apikey.Key, string, error) {
	var rows []apiKeyRow
	next, err := listPage(ctx, s.db.conn(ctx).NewSelect().Model(&rows).Where("org_id = ?", orgID), page,
		func() int { return len(rows) }, func(i int) string { return rows[i].ID }, func(n int) { rows = rows[:n] })
	if err != nil {
		return nil, "", translate(err, "API key")
	}
	keys := make([]apikey.Key, len(rows))
	for i, r := range rows {
		keys[i] = toKeyDomain(r)
	}
	return keys, next, nil
}

// Revoke sets revoked_at once; revoking again returns the key unchanged.
func (s *APIKeys) Revoke(ctx context.Context, orgID, id string, now time.Time) (apikey.Key, bool, error) {
	res, err := s.db.conn(ctx).NewUpdate().Model((*apiKeyRow)(nil)).
		Set("revoked_at = ?", now.UTC()).
		Where("id = ? AND org_id = ? AND revoked_at IS NULL", id, orgID).Exec(ctx)
	if err != nil {
		return apikey.Key{}, false, translate(err, "API key")
	}
	changed, _ := res.RowsAffected()
	var row apiKeyRow
	err = s.db.conn(ctx).NewSelect().Model(&row).Where("id = ? AND org_id = ?", id, orgID).Scan(ctx)
	return toKeyDomain(row), changed > 0, translate(err, "API key")
}

// FindByHash looks a key up by the hash of its plaintext (indexed).
func (s *APIKeys) FindByHash(ctx context.Context, h apikey.Hash) (apikey.Key, error) {
	var row apiKeyRow
	err := s.db.conn(ctx).NewSelect().Model(&row).Where("hash = ?", h[:]).Scan(ctx)
	return toKeyDomain(row), translate(err, "API key")
}

// TouchLastUsed records use; callers limit it to once a minute per key
// and address.
func (s *APIKeys) TouchLastUsed(ctx context.Context, id string, now time.Time, ip string) error {
	_, err := s.db.conn(ctx).NewUpdate().Model((*apiKeyRow)(nil)).Set("last_used_at = ?", now.UTC()).Set("last_used_ip = ?", ip).
		Where("id = ?", id).Exec(ctx)
	return translate(err, "API key")
}

type sessionRow struct {
	bun.BaseModel   `bun:"table:sessions"`
	Hash            []byte     `bun:"hash,pk"`
	UserID          string     `bun:"user_id"`
	OrgID           string     `bun:"org_id"`
	CreatedAt       time.Time  `bun:"created_at"`
	LastSeenAt      time.Time  `bun:"last_seen_at"`
	IP              string     `bun:"ip"`
	UserAgent       string     `bun:"user_agent"`
	ImpersonatedOrg *string    `bun:"impersonated_org"`
	ImpersonatedAt  *time.Time `bun:"impersonated_at"`
}

// Sessions implements ports.Sessions.
type Sessions struct{ db *DB }

var _ ports.Sessions = (*Sessions)(nil)

// NewSessions returns the sessions repository.
func NewSessions(db *DB) *Sessions { return &Sessions{db: db} }

// Create stores a session under the hash of its token.
func (s *Sessions) Create(ctx context.Context, ses session.Session) error {
	row := sessionRow{Hash: ses.Hash[:], UserID: ses.UserID, OrgID: ses.OrgID, CreatedAt: ses.CreatedAt.UTC(),
		LastSeenAt: ses.LastSeenAt.UTC(), IP: ses.IP, UserAgent: ses.UserAgent}
	_, err := s.db.conn(ctx).NewInsert().Model(&row).Exec(ctx)
	return translate(err, "session")
}

// Get returns a session by hash.
func (s *Sessions) Get(ctx context.Context, h session.Hash) (session.Session, error) {
	var row sessionRow
	if err := s.db.conn(ctx).NewSelect().Model(&row).Where("hash = ?", h[:]).Scan(ctx); err != nil {
		return session.Session{}, translate(err, "session")
	}
	ses := session.Session{Hash: h, UserID: row.UserID, OrgID: row.OrgID, CreatedAt: row.CreatedAt.UTC(),
		LastSeenAt: row.LastSeenAt.UTC(), IP: row.IP, UserAgent: row.UserAgent, ImpersonatedAt: utcPtr(row.ImpersonatedAt)}
	if row.ImpersonatedOrg != nil {
		ses.ImpersonatedOrgID = *row.ImpersonatedOrg
	}
	return ses, nil
}

// Touch slides the idle timeout.
func (s *Sessions) Touch(ctx context.Context, h session.Hash, now time.Time) error {
	_, err := s.db.conn(ctx).NewUpdate().Model((*sessionRow)(nil)).Set("last_seen_at = ?", now.UTC()).
		Where("hash = ?", h[:]).Exec(ctx)
	return translate(err, "session")
}

// SetImpersonation starts or ends impersonation on a session.
func (s *Sessions) SetImpersonation(ctx context.Context, h session.Hash, orgID string, at *time.Time) error {
	var org *string
	if orgID != "" {
		org = &orgID
	}
	_, err := s.db.conn(ctx).NewUpdate().Model((*sessionRow)(nil)).
		Set("impersonated_org = ?", org).Set("impersonated_at = ?", utcPtr(at)).
		Where("hash = ?", h[:]).Exec(ctx)
	return translate(err, "session")
}

// Delete ends a session.
func (s *Sessions) Delete(ctx context.Context, h session.Hash) error {
	_, err := s.db.conn(ctx).NewDelete().Model((*sessionRow)(nil)).Where("hash = ?", h[:]).Exec(ctx)
	return translate(err, "session")
}

// DeleteForUser ends every session of a user.
func (s *Sessions) DeleteForUser(ctx context.Context, userID string) (int, error) {
	res, err := s.db.conn(ctx).NewDelete().Model((*sessionRow)(nil)).Where("user_id = ?", userID).Exec(ctx)
	if err != nil {
		return 0, translate(err, "session")
	}
	n, err := res.RowsAffected()
	return int(n), translate(err, "session")
}

type auditRow struct {
	bun.BaseModel        `bun:"table:audit_log"`
	ID                   string    `bun:"id,pk"`
	OrgID                string    `bun:"org_id"`
	ActorUserID          string    `bun:"actor_user_id"`
	ActorKeyID           string    `bun:"actor_key_id"`
	ActorImportSessionID string    `bun:"actor_import_session_id"`
	Impersonating        bool      `bun:"impersonating"`
	Action               string    `bun:"action"`
	TargetID             string    `bun:"target_id"`
	IP                   string    `bun:"ip"`
	UserAgent            string    `bun:"user_agent"`
	RequestID            string    `bun:"request_id"`
	At                   time.Time `bun:"at"`
}

func toAuditRow(e identity.AuditEntry) auditRow {
	return auditRow{ID: e.ID, OrgID: e.OrgID, ActorUserID: e.ActorUserID, ActorKeyID: e.ActorKeyID, ActorImportSessionID: e.ActorImportSessionID,
		Impersonating: e.Impersonating, Action: e.Action, TargetID: e.TargetID, IP: e.IP, UserAgent: e.UserAgent, RequestID: e.RequestID, At: e.At.UTC()}
}

func toAuditDomain(r auditRow) identity.AuditEntry {
	return identity.AuditEntry{ID: r.ID, OrgID: r.OrgID, ActorUserID: r.ActorUserID, ActorKeyID: r.ActorKeyID, ActorImportSessionID: r.ActorImportSessionID,
		Impersonating: r.Impersonating, Action: r.Action, TargetID: r.TargetID, IP: r.IP, UserAgent: r.UserAgent, RequestID: r.RequestID, At: r.At.UTC()}
}

// AuditLog implements ports.AuditLog. The table refuses UPDATE (a trigger
// on each database); Purge is the only delete.
type AuditLog struct{ db *DB }

var _ ports.AuditLog = (*AuditLog)(nil)

// NewAuditLog returns the audit log repository.
func NewAuditLog(db *DB) *AuditLog { return &AuditLog{db: db} }

// Record appends an entry.
func (s *AuditLog) Record(ctx context.Context, e identity.AuditEntry) error {
	row := toAuditRow(e)
	_, err := s.db.conn(ctx).NewInsert().Model(&row).Exec(ctx)
	return translate(err, "audit entry")
}

// List returns an organization's entries matching f, newest first (ids
// grow with time).
func (s *AuditLog) List(ctx context.Context, orgID string, f identity.AuditFilter, page ports.Page) ([]identity.AuditEntry, string, error) {
	var rows []auditRow
	q := s.db.conn(ctx).NewSelect().Model(&rows).Where("org_id = ?", orgID)
	if f.Actor != "" {
		q = q.Where("(actor_user_id = ? OR actor_key_id = ? OR actor_import_session_id = ?)", f.Actor, f.Actor, f.Actor)
	}
	if f.Action != "" {
		q = q.Where("action = ?", f.Action)
	}
	if f.Target != "" {
		q = q.Where("target_id = ?", f.Target)
	}
	if f.Since != nil {
		q = q.Where("at >= ?", f.Since.UTC())
	}
	if f.Until != nil {
		q = q.Where("at < ?", f.Until.UTC())
	}
	next, err := listPage(ctx, q, page,
		func() int { return len(rows) }, func(i int) string { return rows[i].ID }, func(n int) { rows = rows[:n] })
	if err != nil {
		return nil, "", translate(err, "audit entry")
	}
	out := make([]identity.AuditEntry, len(rows))
	for i, r := range rows {
		out[i] = toAuditDomain(r)
	}
	return out, next, nil
}

// Purge deletes every organization's entries older than before: the
// retention's delete, the only one the log knows.
func (s *AuditLog) Purge(ctx context.Context, before time.Time) (int, error) {
	res, err := s.db.conn(ctx).NewDelete().Model((*auditRow)(nil)).Where("at < ?", before.UTC()).Exec(ctx)
	if err != nil {
		return 0, translate(err, "audit entry")
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// listPage runs a newest-first keyset page over a query whose model is a
// slice of rows with sortable ids. The callbacks let it inspect and trim
// that slice without knowing its type.
func listPage(ctx context.Context, q *bun.SelectQuery, page ports.Page, n func() int, idAt func(int) string, trim func(int)) (string, error) {
	limit := clampLimit(page.Limit)
	table := q.GetTableName()
	after, err := decodeCursor(table, page.Cursor)
	if err != nil {
		return "", err
	}
	if after != "" {
		q = q.Where("id < ?", after)
	}
	if err := q.OrderExpr("id DESC").Limit(int64(limit + 1)).Scan(ctx); err != nil {
		return "", err
	}
	if n() <= limit {
		return "", nil
	}
	trim(limit)
	return encodeCursor(table, idAt(limit-1)), nil
}
