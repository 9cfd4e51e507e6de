package ports

import (
	"context"
	"time"

	"github.com/tabnorm/tabnorm/domain/apikey"
	"github.com/tabnorm/tabnorm/domain/entitlement"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/session"
)

// APIKeys stores API keys by the SHA-256 of their plaintext.
type APIKeys interface {
	Create(ctx context.Context, k apikey.Key) error
	List(ctx context.Context, orgID string, page Page) (keys []apikey.Key, next string, err error)
	// Revoke sets revoked_at if unset and returns the key and whether this
	// call revoked it; another organization's key is not found.
	Revoke(ctx context.Context, orgID, id string, now time.Time) (k apikey.Key, changed bool, err error)
	// FindByHash returns the key with that hash, revoked or not.
	FindByHash(ctx context.Context, h apikey.Hash) (apikey.Key, error)
	// TouchLastUsed records the time and client address of a use.
	TouchLastUsed(ctx context.Context, id string, now time.Time, ip string) error
}

// Sessions stores dashboard sessions by the SHA-256 of their token.
type Sessions interface {
	Create(ctx context.Context, s session.Session) error
	Get(ctx context.Context, h session.Hash) (session.Session, error)
	Touch(ctx context.Context, h session.Hash, now time.Time) error
	// SetImpersonation starts (orgID set) or ends (orgID "") impersonation.
	SetImpersonation(ctx context.Context, h session.Hash, orgID string, at *time.Time) error
	Delete(ctx context.Context, h session.Hash) error
	// DeleteForUser ends every session of a user and says how many.
	DeleteForUser(ctx context.Context, userID string) (int, error)
}

// AuditLog keeps security-relevant actions, append-only: nothing changes
// an entry, and only retention (Purge) deletes.
type AuditLog interface {
	Record(ctx context.Context, e identity.AuditEntry) error
	// List returns an organization's entries matching the filter, newest first.
	List(ctx context.Context, orgID string, f identity.AuditFilter, page Page) (entries []identity.AuditEntry, next string, err error)
	// Purge deletes the entries of every organization older than before.
	Purge(ctx context.Context, before time.Time) (int, error)
}

// Credentials reads, in one round trip each, what authenticating a request
// needs: it runs on every request, so it must not cost several queries.
type Credentials interface {
	// KeyByHash returns the key with that hash (revoked or not) and the
	// current grants (not revoked, working or expired) of its
	// organization.
	KeyByHash(ctx context.Context, h apikey.Hash) (apikey.Key, []entitlement.Entitlement, error)
	// SessionByHash returns the session, its user, and the current grants
	// of the user's organization and of the impersonated one (each names
	// its organization).
	SessionByHash(ctx context.Context, h session.Hash) (session.Session, identity.User, []entitlement.Entitlement, error)
}
