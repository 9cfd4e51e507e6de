// Package entitlement is the right of an organization to use a product:
// who granted it and how (an operator, the installation's license, a
// plan), when, until when, and whether it was revoked. A grant is never
// changed but to end it, so an organization's grants are its history;
// the current grant of a product is the one not revoked, and it works
// while its end is ahead.
package entitlement

import (
	"slices"
	"strings"
	"time"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/identity"
)

// Source is how a grant was made.
type Source string

// The sources of grants.
const (
	// Admin is an operator's grant (tabnorm admin create-org, grant).
	Admin Source = "admin"
	// License is a product of the self-hosted installation's license:
	// it covers the installation, not one organization, and ends when the
	// license expires.
	License Source = "license"
	// Plan is a grant that comes with a plan (billing).
	Plan Source = "plan"
)

// ParseSource validates a source name.
func ParseSource(s string) (Source, error) {
	switch src := Source(s); src {
	case Admin, License, Plan:
		return src, nil
	}
	return "", domain.Invalid("unknown entitlement source %q (want admin, license or plan)", s)
}

// Installation is the OrgID of the grants that cover the whole
// installation (the license's).
const Installation = ""

// IDPrefix starts the id of every grant.
const IDPrefix = "ent"

// Entitlement is one grant of a product.
type Entitlement struct {
	ID        string
	OrgID     string // Installation for the license's grants
	Product   identity.Product
	Source    Source
	GrantedBy string // who: the operator's tool, the licensee, the plan
	GrantedAt time.Time
	Until     *time.Time // nil: without end
	RevokedAt *time.Time
	RevokedBy string
}

// Grant makes a grant at now, ending at until (nil for none), after
// checking it: a grant that ends before it starts is refused.
func Grant(id, orgID string, product identity.Product, source Source, by string, now time.Time, until *time.Time) (Entitlement, error) {
	if _, err := identity.ParseProduct(string(product)); err != nil {
		return Entitlement{}, err
	}
	if _, err := ParseSource(string(source)); err != nil {
		return Entitlement{}, err
	}
	e := Entitlement{ID: id, OrgID: orgID, Product: product, Source: source, GrantedBy: strings.TrimSpace(by), GrantedAt: now.UTC()}
	if until != nil {
		if !until.After(now) {
			return Entitlement{}, domain.Invalid("the grant would end (%s) before it starts (%s)",
				until.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
		}
		u := until.UTC()
		e.Until = &u
	}
	return e, nil
}

// Revoked tells whether the grant was revoked (or replaced by a later
// grant of the same product).
func (e Entitlement) Revoked() bool { return e.RevokedAt != nil }

// Expired tells whether the grant's end has come at now.
func (e Entitlement) Expired(now time.Time) bool { return e.Until != nil && !now.Before(*e.Until) }

// Active tells whether the grant lets its holder use the product at now:
// not revoked and not expired.
func (e Entitlement) Active(now time.Time) bool { return !e.Revoked() && !e.Expired(now) }

// Status names the grant's state at now: active, expired or revoked.
func (e Entitlement) Status(now time.Time) string {
	switch {
	case e.Revoked():
		return "revoked"
	case e.Expired(now):
		return "expired"
	}
	return "active"
}

// Revoke ends the grant at now, by by; a revoked grant stays as it was.
func (e Entitlement) Revoke(now time.Time, by string) Entitlement {
	if e.Revoked() {
		return e
	}
	at := now.UTC()
	e.RevokedAt, e.RevokedBy = &at, strings.TrimSpace(by)
	return e
}

// Products returns the products that the grants of orgID make usable at
// now, in display order.
func Products(grants []Entitlement, orgID string, now time.Time) []identity.Product {
	out := []identity.Product{}
	for _, p := range identity.Products {
		if Covers(grants, orgID, p, now) {
			out = append(out, p)
		}
	}
	return out
}

// Covers tells whether one of the grants of orgID makes product usable
// at now.
func Covers(grants []Entitlement, orgID string, product identity.Product, now time.Time) bool {
	return slices.ContainsFunc(grants, func(e Entitlement) bool {
		return e.OrgID == orgID && e.Product == product && e.Active(now)
	})
}

// WithProducts sets each organization's Products to what the grants make
// usable at now.
func WithProducts(orgs []identity.Organization, grants []Entitlement, now time.Time) {
	for i := range orgs {
		orgs[i].Products = Products(grants, orgs[i].ID, now)
	}
}

// ParseUntil reads the end of a grant as a day (2027-01-01: its first
// instant, UTC) or an RFC 3339 time; "" is no end.
func ParseUntil(s string) (*time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	if d, err := time.Parse(time.DateOnly, s); err == nil {
		return &d, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return nil, domain.Invalid("%q is neither a day (2027-01-01) nor an RFC 3339 time (2027-01-01T00:00:00Z)", s)
	}
	t = t.UTC()
	return &t, nil
}
