// Package oidcrp is tabnorm's OpenID Connect relying party (ports.SignInProvider),
// on github.com/coreos/go-oidc and golang.org/x/oauth2: an organization's
// provider is discovered once and kept for CacheFor (its go-oidc Provider
// caches the signing keys, fetching them again when a token names a key it
// does not know); the authorization-code flow carries state, nonce and a
// PKCE S256 challenge; the ID token's signature, issuer, audience, expiry
// and nonce are checked before anything in it is believed.
package oidcrp

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/tabnorm/tabnorm/domain/sso"
	"github.com/tabnorm/tabnorm/ports"
)

// Config is the relying party's settings.
type Config struct {
	// Timeout bounds each request to a provider (discovery, keys, token).
	Timeout time.Duration
	// CacheFor is how long a provider's discovery document is kept.
	CacheFor time.Duration
}

// Provider implements ports.SignInProvider.
type Provider struct {
	cfg    Config
	client *http.Client
	clock  ports.Clock

	mu        sync.Mutex
	providers map[string]discovered // by issuer
}

type discovered struct {
	p  *oidc.Provider
	at time.Time
}

var _ ports.SignInProvider = (*Provider)(nil)

// New returns the relying party.
func New(cfg Config, clock ports.Clock) *Provider {
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Second
	}
	if cfg.CacheFor <= 0 {
		cfg.CacheFor = time.Hour
	}
	return &Provider{cfg: cfg, client: &http.Client{Timeout: cfg.Timeout}, clock: clock, providers: map[string]discovered{}}
}

// provider returns the issuer's discovered provider, from the cache while
// it is fresh. A failed discovery is not cached: the next sign-in tries
// again.
func (r *Provider) provider(ctx context.Context, issuer string) (*oidc.Provider, error) {
	now := r.clock.Now()
	r.mu.Lock()
	d, ok := r.providers[issuer]
	r.mu.Unlock()
	if ok && now.Sub(d.at) < r.cfg.CacheFor {
		return d.p, nil
	}
	p, err := oidc.NewProvider(oidc.ClientContext(ctx, r.client), issuer)
	if err != nil {
		return nil, sso.Failed(sso.ReasonProviderUnreachable, "Your identity provider could not be reached or did not describe itself ("+
			issuer+"/.well-known/openid-configuration); try again later, or ask your administrator to check the issuer URL.")
	}
	r.mu.Lock()
	r.providers[issuer] = discovered{p: p, at: now}
	r.mu.Unlock()
	return p, nil
}

func (r *Provider) oauth(p *oidc.Provider, c sso.Config, secret, redirect string) *oauth2.Config {
	return &oauth2.Config{ClientID: c.ClientID, ClientSecret: secret, Endpoint: p.Endpoint(), RedirectURL: redirect,
		Scopes: []string{oidc.ScopeOpenID, "email", "profile"}}
}

// AuthURL implements ports.SignInProvider.
func (r *Provider) AuthURL(ctx context.Context, c sso.Config, secret string, f sso.Flow, state string) (string, error) {
	p, err := r.provider(ctx, c.Issuer)
	if err != nil {
		return "", err
	}
	return r.oauth(p, c, secret, f.RedirectURI).AuthCodeURL(state, oidc.Nonce(f.Nonce), oauth2.S256ChallengeOption(f.Verifier)), nil
}

type claims struct {
	Email         string          `json:"email"`
	EmailVerified json.RawMessage `json:"email_verified"` // a boolean, or "true" from some providers
	Name          string          `json:"name"`
}

func verified(raw json.RawMessage) bool {
	var b bool
	if json.Unmarshal(raw, &b) == nil {
		return b
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		b, _ = strconv.ParseBool(s)
	}
	return b
}

// Exchange implements ports.SignInProvider.
func (r *Provider) Exchange(ctx context.Context, c sso.Config, secret string, f sso.Flow, code string) (ports.Identity, error) {
	p, err := r.provider(ctx, c.Issuer)
	if err != nil {
		return ports.Identity{}, err
	}
	tok, err := r.oauth(p, c, secret, f.RedirectURI).Exchange(oidc.ClientContext(ctx, r.client), code, oauth2.VerifierOption(f.Verifier))
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) {
			return ports.Identity{}, sso.Failed(sso.ReasonProviderError, fmt.Sprintf("Your identity provider refused the sign-in (%s); start again.", oauthError(re)))
		}
		return ports.Identity{}, sso.Failed(sso.ReasonProviderUnreachable, "Your identity provider's token endpoint could not be reached; try again later.")
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return ports.Identity{}, sso.Failed(sso.ReasonTokenInvalid, "Your identity provider sent no ID token.")
	}
	idt, err := p.Verifier(&oidc.Config{ClientID: c.ClientID, Now: r.clock.Now}).Verify(ctx, raw)
	if err != nil {
		var expired *oidc.TokenExpiredError
		if errors.As(err, &expired) {
			return ports.Identity{}, sso.Failed(sso.ReasonTokenInvalid, "The ID token from your identity provider had expired; start again.")
		}
		return ports.Identity{}, sso.Failed(sso.ReasonTokenInvalid, "The ID token from your identity provider did not pass the checks (signature, issuer, audience): "+
			truncate(err.Error(), 200))
	}
	if subtle.ConstantTimeCompare([]byte(idt.Nonce), []byte(f.Nonce)) != 1 {
		return ports.Identity{}, sso.Failed(sso.ReasonNonceMismatch, "The ID token was not issued for this sign-in; start again.")
	}
	var cl claims
	if err := idt.Claims(&cl); err != nil {
		return ports.Identity{}, sso.Failed(sso.ReasonTokenInvalid, "The ID token's claims could not be read.")
	}
	return ports.Identity{Subject: idt.Subject, Email: cl.Email, EmailVerified: verified(cl.EmailVerified), Name: cl.Name}, nil
}

func oauthError(re *oauth2.RetrieveError) string {
	if re.ErrorCode != "" {
		return truncate(re.ErrorCode, 100)
	}
	if re.Response != nil {
		return re.Response.Status
	}
	return "no answer"
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
