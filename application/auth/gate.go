package auth

import (
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/entitlement"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/license"
	"github.com/tabnorm/tabnorm/ports"
)

// Gate is the product check in front of every product's routes (API.md
// §3): the caller may use a product when the installation's grants cover
// it (the license's products, when a license is required) and the
// caller's organization holds a working grant of it, as authenticating
// the caller read them; staff outside impersonation pass the second part.
// The license's grants are entitlements like the organizations' and end
// when it expires.
type Gate struct {
	licensed     bool
	installation []entitlement.Entitlement
	clock        ports.Clock
}

// NewGate returns the gate of an installation with the license gate l.
func NewGate(l license.Gate, clock ports.Clock) *Gate {
	return &Gate{licensed: l.Required(), installation: l.Entitlements(), clock: clock}
}

// Check tells whether p may use product now.
func (g *Gate) Check(p identity.Principal, product identity.Product) error {
	if g.licensed && !entitlement.Covers(g.installation, entitlement.Installation, product, g.clock.Now()) {
		return domain.Errorf(domain.ErrForbidden, domain.CodeForbiddenEntitlementMissing, "This installation's license does not cover the %s product.", product)
	}
	return p.Entitled(product)
}
