package ports

import (
	"context"

	"github.com/tabnorm/tabnorm/domain/sso"
)

// SSOConfigs stores organizations' single sign-on settings: at most one
// per organization, and each e-mail domain claimed by one organization
// only (Put of a domain another organization lists is a conflict).
type SSOConfigs interface {
	// Get returns an organization's settings (ErrNotFound: none).
	Get(ctx context.Context, orgID string) (sso.Config, error)
	// ByDomain returns the settings that list an e-mail domain.
	ByDomain(ctx context.Context, domain string) (sso.Config, error)
	// Put creates or replaces an organization's settings and domains.
	Put(ctx context.Context, c sso.Config) error
	// Delete removes them (ErrNotFound: there were none).
	Delete(ctx context.Context, orgID string) error
}

// SSOFlows keeps the sign-ins in flight between the redirect to the
// provider and its answer.
type SSOFlows interface {
	Create(ctx context.Context, f sso.Flow) error
	// Take returns and deletes the flow of a state's hash in one step, so
	// that a state is used once however many callbacks race
	// (ErrNotFound: unknown or already taken).
	Take(ctx context.Context, stateHash string) (sso.Flow, error)
}

// Identity is who a provider signed in, from its verified ID token.
type Identity struct {
	Subject       string
	Email         string
	EmailVerified bool
	Name          string
}

// SignInProvider speaks OpenID Connect to an organization's provider, as
// its relying party: discovery and keys are fetched and cached by issuer.
type SignInProvider interface {
	// AuthURL is where the browser goes to sign in, carrying state, the
	// nonce and the PKCE challenge of verifier.
	AuthURL(ctx context.Context, c sso.Config, secret string, f sso.Flow, state string) (string, error)
	// Exchange trades the code for tokens and verifies the ID token
	// (signature, issuer, audience, expiry and nonce).
	Exchange(ctx context.Context, c sso.Config, secret string, f sso.Flow, code string) (Identity, error)
}
