package ports

import (
	"context"
	"time"

	"github.com/tabnorm/tabnorm/domain/entitlement"
	"github.com/tabnorm/tabnorm/domain/identity"
)

// Entitlements stores the organizations' grants of products. A grant is
// never changed but to revoke it, so the rows are the history; at most one
// grant of a product per organization is current (not revoked).
type Entitlements interface {
	// Grant records e as its organization's current grant of its product;
	// the grant that was current, if any, is revoked at e.GrantedAt by
	// e.GrantedBy in the same transaction (the new grant replaces it). An
	// unknown organization is domain.ErrNotFound.
	Grant(ctx context.Context, e entitlement.Entitlement) error
	// Revoke revokes the organization's current grant of p at at, by by,
	// and returns it; without one it is domain.ErrNotFound.
	Revoke(ctx context.Context, orgID string, p identity.Product, at time.Time, by string) (entitlement.Entitlement, error)
	// Current returns the current grants (not revoked, working or expired)
	// of the organizations, by organization, then product.
	Current(ctx context.Context, orgIDs ...string) ([]entitlement.Entitlement, error)
	// History returns every grant of the organization, revoked or not,
	// newest first.
	History(ctx context.Context, orgID string) ([]entitlement.Entitlement, error)
}
