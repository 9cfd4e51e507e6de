// Package sso is single sign-on with OpenID Connect, per organization:
// its admins set the provider (Get, Put, Delete; the client secret is
// sealed before it is stored and never read back), and people sign in
// through it (Start sends the browser to the provider with a flow kept
// server-side; Finish takes that flow once, has the ID token verified,
// admits verified addresses of the allowed domains, creates the account
// on first sign-in with the default role, and starts the same cookie
// session a password does). Every change and every sign-in, failed or
// not, is in the organization's audit log. The refusal of passwords when
// an organization requires SSO is auth.Service.Login's (sso.Config.PasswordAllowed).
package sso

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/tabnorm/tabnorm/application/audit"
	"github.com/tabnorm/tabnorm/application/auth"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/id"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/sso"
	"github.com/tabnorm/tabnorm/ports"
)

// Config is the service's settings.
type Config struct {
	// AllowHTTPIssuer accepts http:// issuers on loopback addresses (a
	// provider run beside the service, in development and tests).
	AllowHTTPIssuer bool
}

// Service is the single sign-on use cases.
type Service struct {
	cfg     Config
	configs ports.SSOConfigs
	flows   ports.SSOFlows
	rp      ports.SignInProvider
	sealer  ports.Sealer
	users   ports.Users
	auth    *auth.Service
	audit   ports.AuditLog
	tx      ports.Transactor
	clock   ports.Clock
	log     *slog.Logger
}

// NewService returns the single sign-on service.
func NewService(cfg Config, configs ports.SSOConfigs, flows ports.SSOFlows, rp ports.SignInProvider, sealer ports.Sealer, users ports.Users,
	authn *auth.Service, log ports.AuditLog, tx ports.Transactor, clock ports.Clock, logger *slog.Logger) *Service {
	return &Service{cfg: cfg, configs: configs, flows: flows, rp: rp, sealer: sealer, users: users, auth: authn, audit: log, tx: tx, clock: clock, log: logger}
}

// Get returns the organization's settings (sso_not_configured: none).
func (s *Service) Get(ctx context.Context, p identity.Principal) (sso.Config, error) {
	if err := sso.CanManage(p); err != nil {
		return sso.Config{}, err
	}
	c, err := s.configs.Get(ctx, p.OrgID)
	if errors.Is(err, domain.ErrNotFound) {
		return sso.Config{}, notConfigured()
	}
	return c, err
}

func notConfigured() error {
	return domain.Errorf(domain.ErrNotFound, domain.CodeSSONotConfigured, "Your organization has no single sign-on settings.")
}

// Put creates or replaces the organization's settings. The secret may be
// left out of a change (the stored one stays), not out of the first one.
// The break-glass user must be an admin of the organization.
func (s *Service) Put(ctx context.Context, p identity.Principal, in sso.Input) (sso.Config, error) {
	if err := sso.CanManage(p); err != nil {
		return sso.Config{}, err
	}
	c, err := sso.Parse(p.OrgID, in, s.cfg.AllowHTTPIssuer)
	if err != nil {
		return sso.Config{}, err
	}
	if c.BreakGlass != "" {
		u, err := s.users.GetByEmail(ctx, c.BreakGlass)
		if err != nil && !errors.Is(err, domain.ErrNotFound) {
			return sso.Config{}, err
		}
		if err != nil || u.OrgID != p.OrgID || u.Role != identity.Admin || u.Disabled() {
			return sso.Config{}, &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidRequest,
				Message: "break_glass_user must be an admin of your organization.", Fields: []domain.FieldError{{Field: "break_glass_user", Message: "not an admin of the organization"}}}
		}
	}
	now := s.clock.Now()
	err = s.tx.InTx(ctx, func(ctx context.Context) error {
		old, err := s.configs.Get(ctx, p.OrgID)
		found := err == nil
		if err != nil && !errors.Is(err, domain.ErrNotFound) {
			return err
		}
		c.CreatedAt, c.UpdatedAt = now, now
		if found {
			c.CreatedAt = old.CreatedAt
		}
		switch {
		case in.ClientSecret != "":
			if c.Sealed, err = s.sealer.Seal([]byte(in.ClientSecret), c.Associated()); errors.Is(err, ports.ErrNoSecretKey) {
				return domain.Errorf(domain.ErrConflict, domain.CodeSecretKeyRequired,
					"The service has no secret key to store a sign-in provider's client secret with; the operator sets TABNORM_SECRET_KEY.")
			} else if err != nil {
				return err
			}
		case found:
			c.Sealed = old.Sealed
		default:
			return &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidRequest, Message: "client_secret is required the first time.",
				Fields: []domain.FieldError{{Field: "client_secret", Message: "required"}}}
		}
		if err := s.configs.Put(ctx, c); err != nil {
			return err
		}
		action := "sso.configured"
		if found {
			action = "sso.changed"
		}
		return audit.Record(ctx, s.audit, p, action, p.OrgID, now)
	})
	if err != nil {
		return sso.Config{}, fmt.Errorf("put sso settings: %w", err)
	}
	return c, nil
}

// Delete removes the organization's settings: passwords work again for
// everyone, and nobody signs in through the provider.
func (s *Service) Delete(ctx context.Context, p identity.Principal) error {
	if err := sso.CanManage(p); err != nil {
		return err
	}
	return s.tx.InTx(ctx, func(ctx context.Context) error {
		if err := s.configs.Delete(ctx, p.OrgID); errors.Is(err, domain.ErrNotFound) {
			return notConfigured()
		} else if err != nil {
			return err
		}
		return audit.Record(ctx, s.audit, p, "sso.deleted", p.OrgID, s.clock.Now())
	})
}

// Started is a sign-in sent to the provider: the URL the browser goes to,
// and the secret the browser keeps (in a cookie) to finish it.
type Started struct {
	URL     string
	Browser string
}

// Start finds the organization by ref (an e-mail address, an e-mail
// domain, or an organization id) and begins a sign-in there; the provider
// answers at redirectURI.
func (s *Service) Start(ctx context.Context, ref, redirectURI string) (Started, error) {
	c, err := s.find(ctx, ref)
	if err != nil {
		return Started{}, err
	}
	state, browser := randomText(), randomText()
	f := sso.Flow{StateHash: hash(state), BrowserHash: hash(browser), OrgID: c.OrgID, Nonce: randomText(),
		Verifier: randomText() + randomText(), RedirectURI: redirectURI, CreatedAt: s.clock.Now()}
	url, err := s.rp.AuthURL(ctx, c, "", f, state)
	if err != nil {
		s.failed(ctx, c.OrgID, err)
		return Started{}, err
	}
	if err := s.flows.Create(ctx, f); err != nil {
		return Started{}, fmt.Errorf("store sign-in: %w", err)
	}
	return Started{URL: url, Browser: browser}, nil
}

func (s *Service) find(ctx context.Context, ref string) (sso.Config, error) {
	ref = strings.ToLower(strings.TrimSpace(ref))
	var c sso.Config
	var err error
	switch {
	case ref == "":
		return sso.Config{}, &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidRequest, Message: "Give your work e-mail address or your organization.",
			Fields: []domain.FieldError{{Field: "org", Message: "required"}}}
	case strings.HasPrefix(ref, id.Org+"_"):
		c, err = s.configs.Get(ctx, ref)
	case strings.Contains(ref, "@"):
		c, err = s.configs.ByDomain(ctx, sso.DomainOf(ref))
	default:
		c, err = s.configs.ByDomain(ctx, ref)
	}
	if errors.Is(err, domain.ErrNotFound) {
		return sso.Config{}, sso.ErrNotConfigured
	}
	return c, err
}

// Answer is the provider's redirect back: the state and code, or the
// error it reports; Browser is the cookie of the browser that arrived.
type Answer struct {
	State, Code      string
	Error, ErrorText string
	Browser          string
}

// Finish completes a sign-in and returns the new session's token. The
// flow is taken (deleted) before anything else, so a state works once,
// whatever follows.
func (s *Service) Finish(ctx context.Context, a Answer) (auth.Me, string, error) {
	if a.State == "" {
		return auth.Me{}, "", sso.Failed(sso.ReasonStateInvalid, "The sign-in has no state; start again from the sign-in page.")
	}
	f, err := s.flows.Take(ctx, hash(a.State))
	if errors.Is(err, domain.ErrNotFound) {
		return auth.Me{}, "", sso.Failed(sso.ReasonStateInvalid, "This sign-in link was already used or is unknown; start again from the sign-in page.")
	}
	if err != nil {
		return auth.Me{}, "", fmt.Errorf("take sign-in: %w", err)
	}
	me, token, err := s.finish(ctx, f, a)
	if err != nil {
		s.failed(ctx, f.OrgID, err)
	}
	return me, token, err
}

func (s *Service) finish(ctx context.Context, f sso.Flow, a Answer) (auth.Me, string, error) {
	switch {
	case subtle.ConstantTimeCompare([]byte(hash(a.Browser)), []byte(f.BrowserHash)) != 1:
		return auth.Me{}, "", sso.Failed(sso.ReasonStateInvalid, "This sign-in was started in another browser; start again from the sign-in page.")
	case f.Expired(s.clock.Now()):
		return auth.Me{}, "", sso.Failed(sso.ReasonStateInvalid, "This sign-in took too long; start again from the sign-in page.")
	case a.Error != "":
		return auth.Me{}, "", sso.Failed(sso.ReasonProviderError, "Your identity provider did not sign you in ("+clip(a.Error+" "+a.ErrorText, 200)+").")
	case a.Code == "":
		return auth.Me{}, "", sso.Failed(sso.ReasonProviderError, "Your identity provider sent no authorization code.")
	}
	c, err := s.configs.Get(ctx, f.OrgID)
	if errors.Is(err, domain.ErrNotFound) {
		return auth.Me{}, "", sso.ErrNotConfigured
	}
	if err != nil {
		return auth.Me{}, "", err
	}
	secret, err := s.sealer.Open(c.Sealed, c.Associated())
	if err != nil {
		return auth.Me{}, "", fmt.Errorf("open client secret: %w", err)
	}
	who, err := s.rp.Exchange(ctx, c, string(secret), f, a.Code)
	if err != nil {
		return auth.Me{}, "", err
	}
	if !who.EmailVerified {
		return auth.Me{}, "", sso.Failed(sso.ReasonEmailUnverified, "Your identity provider has not verified your e-mail address.")
	}
	email, err := identity.NormalizeEmail(who.Email)
	if err != nil || !c.Allows(email) {
		return auth.Me{}, "", sso.ErrDomainNotAllowed
	}
	u, err := s.user(ctx, c, email, who.Name)
	if err != nil {
		return auth.Me{}, "", err
	}
	return s.auth.SignInAs(ctx, u, "login.sso")
}

// user returns the account of email in the organization, made on first
// sign-in with the default role and no password.
func (s *Service) user(ctx context.Context, c sso.Config, email, name string) (identity.User, error) {
	u, err := s.users.GetByEmail(ctx, email)
	switch {
	case err == nil && u.OrgID != c.OrgID:
		return identity.User{}, sso.Failed(sso.ReasonOtherOrganization, "Your address belongs to an account of another organization; ask tabnorm's support.")
	case err == nil && u.Disabled():
		return identity.User{}, sso.Failed(sso.ReasonUserDisabled, "Your account is disabled.")
	case err == nil:
		return u, nil
	case !errors.Is(err, domain.ErrNotFound):
		return identity.User{}, err
	}
	u = identity.User{ID: id.New(id.User), OrgID: c.OrgID, Email: email, Name: clip(strings.TrimSpace(name), 200), Role: c.DefaultRole,
		PasswordHash: identity.NoPassword, CreatedAt: s.clock.Now().UTC()}
	err = s.tx.InTx(ctx, func(ctx context.Context) error {
		if err := s.users.Create(ctx, u); err != nil {
			return err
		}
		return audit.Record(ctx, s.audit, identity.Principal{OrgID: c.OrgID, UserID: u.ID}, "user.create_sso", u.ID, u.CreatedAt)
	})
	if err != nil {
		return identity.User{}, fmt.Errorf("create user on first sign-in: %w", err)
	}
	return u, nil
}

// failed records a sign-in that did not complete in the organization's
// log, with its reason (or code) as the target.
func (s *Service) failed(ctx context.Context, orgID string, cause error) {
	var coded *domain.Error
	reason := "internal_error"
	if errors.As(cause, &coded) {
		reason = string(coded.Code)
		if coded.Reason != "" {
			reason = coded.Reason
		}
	}
	if err := audit.Record(ctx, s.audit, identity.Principal{OrgID: orgID}, "login.sso_failed", reason, s.clock.Now()); err != nil {
		s.log.ErrorContext(ctx, "write audit entry", "action", "login.sso_failed", "error", err)
	}
}

func randomText() string { return rand.Text() }

func hash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
