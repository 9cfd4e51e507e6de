// Package license is the self-hosted license token: base64url(payload
// JSON) "." base64url(Ed25519 signature of the payload bytes), with payload
// {"licensee","expires_at","products"}. Verification needs only the public
// key, so a self-hosted install cannot mint its own licenses.
package license

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/entitlement"
	"github.com/tabnorm/tabnorm/domain/identity"
)

// License is a verified license.
type License struct {
	Licensee  string
	ExpiresAt time.Time
	Products  []identity.Product
}

type payload struct {
	Licensee  string   `json:"licensee"`
	ExpiresAt string   `json:"expires_at"`
	Products  []string `json:"products"`
}

// ErrInvalid is any token that is malformed or not signed by the key.
var ErrInvalid = errors.New("license token is not valid")

var b64 = base64.RawURLEncoding

// Issue signs a license with the private key and returns the token.
func Issue(priv ed25519.PrivateKey, l License) (string, error) {
	if strings.TrimSpace(l.Licensee) == "" {
		return "", errors.New("licensee is required")
	}
	if l.ExpiresAt.IsZero() {
		return "", errors.New("expiry is required")
	}
	p := payload{Licensee: l.Licensee, ExpiresAt: l.ExpiresAt.UTC().Format(time.RFC3339)}
	for _, pr := range l.Products {
		p.Products = append(p.Products, string(pr))
	}
	body, err := json.Marshal(p)
	if err != nil {
		return "", err
	}
	return b64.EncodeToString(body) + "." + b64.EncodeToString(ed25519.Sign(priv, body)), nil
}

// Verify checks the token's signature and shape (not its expiry).
func Verify(token string, pub ed25519.PublicKey) (License, error) {
	head, sig, ok := strings.Cut(strings.TrimSpace(token), ".")
	if !ok || len(pub) != ed25519.PublicKeySize {
		return License{}, ErrInvalid
	}
	body, err1 := b64.DecodeString(head)
	signature, err2 := b64.DecodeString(sig)
	if err1 != nil || err2 != nil || !ed25519.Verify(pub, body, signature) {
		return License{}, ErrInvalid
	}
	var p payload
	if err := json.Unmarshal(body, &p); err != nil {
		return License{}, ErrInvalid
	}
	exp, err := time.Parse(time.RFC3339, p.ExpiresAt)
	if err != nil || p.Licensee == "" {
		return License{}, ErrInvalid
	}
	l := License{Licensee: p.Licensee, ExpiresAt: exp.UTC()}
	for _, s := range p.Products {
		pr, err := identity.ParseProduct(s)
		if err != nil {
			return License{}, ErrInvalid
		}
		l.Products = append(l.Products, pr)
	}
	return l, nil
}

// Gate is the license check of a self-hosted install, decided once at
// start from the settings.
type Gate struct {
	required bool
	license  License
	err      error // why the configured token is not valid
}

// NewGate builds the gate. A required license that is missing or invalid
// does not stop the server: every gated request answers license_invalid,
// so the operator sees why.
func NewGate(required bool, token string, pub ed25519.PublicKey) Gate {
	if !required {
		return Gate{}
	}
	if token == "" {
		return Gate{required: true, err: ErrInvalid}
	}
	l, err := Verify(token, pub)
	return Gate{required: true, license: l, err: err}
}

// Check tells whether requests may proceed at now.
func (g Gate) Check(now time.Time) error {
	if !g.required {
		return nil
	}
	if g.err != nil {
		return domain.Errorf(domain.ErrForbidden, domain.CodeLicenseInvalid, "The license token is missing or not valid.")
	}
	if !now.Before(g.license.ExpiresAt) {
		return domain.Errorf(domain.ErrForbidden, domain.CodeLicenseExpired, "The license expired at %s.", g.license.ExpiresAt.Format(time.RFC3339))
	}
	return nil
}

// Required tells whether the installation needs a license.
func (g Gate) Required() bool { return g.required }

// Entitlements are the license's products as grants that cover the whole
// installation, by the licensee, ending when the license expires; none
// when no license is required or the token is not valid.
func (g Gate) Entitlements() []entitlement.Entitlement {
	if !g.required || g.err != nil {
		return nil
	}
	return g.license.Entitlements()
}

// Entitlements are the license's products as grants (source license) of
// the installation, from the epoch to the license's expiry.
func (l License) Entitlements() []entitlement.Entitlement {
	out := make([]entitlement.Entitlement, 0, len(l.Products))
	until := l.ExpiresAt.UTC()
	for _, p := range l.Products {
		out = append(out, entitlement.Entitlement{ID: entitlement.IDPrefix + "_license_" + string(p), OrgID: entitlement.Installation,
			Product: p, Source: entitlement.License, GrantedBy: l.Licensee, GrantedAt: time.Unix(0, 0).UTC(), Until: &until})
	}
	return out
}

// Describe is a one-line summary for logs.
func (g Gate) Describe() string {
	switch {
	case !g.required:
		return "license gate off"
	case g.err != nil:
		return "license invalid: " + g.err.Error()
	}
	return fmt.Sprintf("licensed to %s until %s for %v", g.license.Licensee, g.license.ExpiresAt.Format(time.RFC3339), g.license.Products)
}
