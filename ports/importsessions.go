package ports

import (
	"context"
	"time"

	"github.com/tabnorm/tabnorm/domain/entitlement"
	"github.com/tabnorm/tabnorm/domain/importsession"
)

// ImportSessions stores import sessions by the SHA-256 of their secret.
// Reads and writes take the organization, so another organization's
// session is not found.
type ImportSessions interface {
	Create(ctx context.Context, s importsession.Session) error
	Get(ctx context.Context, orgID, id string) (importsession.Session, error)
	List(ctx context.Context, orgID string, page Page) (sessions []importsession.Session, next string, err error)
	// Update reads the session, lets fn change it and writes it back, in
	// one transaction holding the row; fn's error aborts and is returned.
	Update(ctx context.Context, orgID, id string, fn func(*importsession.Session) error) (importsession.Session, error)
	// ByHash returns the session with that secret's hash (revoked or not)
	// and its organization's current grants (not revoked, working or
	// expired), in one round trip: it runs on every request the secret
	// makes.
	ByHash(ctx context.Context, h importsession.Hash) (importsession.Session, []entitlement.Entitlement, error)
	// JobCount counts the session's jobs (for max_jobs and its summary).
	JobCount(ctx context.Context, orgID, id string) (int, error)
	// Hold returns the session and counts its jobs in the caller's
	// transaction (ctx carries it), holding the session until it ends:
	// a job's insertion and a submit serialize on it, so concurrent jobs
	// cannot pass max_jobs together and a submit sees every job made
	// before it.
	Hold(ctx context.Context, orgID, id string) (importsession.Session, int, error)
	// Framing returns a session by id alone, for the public page that
	// frames the importer: it shows only the session's origins.
	Framing(ctx context.Context, id string) (importsession.Session, error)
	// OriginInUse reports whether an open session, unexpired at now,
	// allows the origin (a browser's preflight carries no credential).
	OriginInUse(ctx context.Context, origin string, now time.Time) (bool, error)
	// Funnel reads the facts of the organization's sessions created at or
	// after since (every organization's when orgID is ""), for their
	// funnel: their times, and whether their jobs were made, confirmed
	// and rerun.
	Funnel(ctx context.Context, orgID string, since time.Time) ([]importsession.Facts, error)
}
