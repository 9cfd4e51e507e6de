// Package sso is an organization's single sign-on with OpenID Connect:
// the provider it trusts (issuer, client), who may come in through it
// (verified addresses of its allowed e-mail domains, made members with
// the default role on first sign-in), and whether passwords still work
// for its members (Required: no, except for staff and one break-glass
// admin). A sign-in in flight is a Flow: its state, nonce and PKCE
// verifier, kept server-side and taken once.
package sso

import (
	"net"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/identity"
)

// Config is an organization's sign-in provider. The client secret is
// only ever held sealed (Sealed); it is never shown again.
type Config struct {
	OrgID          string
	Issuer         string
	ClientID       string
	Sealed         []byte // the client secret, sealed with Associated
	AllowedDomains []string
	DefaultRole    identity.Role
	Required       bool
	// BreakGlass is the address of the one admin who may still sign in
	// with a password when Required (empty: nobody but staff).
	BreakGlass string
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// Associated binds the sealed secret to its organization's configuration.
func (c Config) Associated() []byte { return []byte("sso:" + c.OrgID) }

// Input is a configuration as an admin sends it; an empty ClientSecret
// keeps the stored one (a change of anything else needs no secret again).
type Input struct {
	Issuer         string
	ClientID       string
	ClientSecret   string
	AllowedDomains []string
	DefaultRole    string
	Required       bool
	BreakGlass     string
}

// MaxDomains is the most e-mail domains one organization may list.
const MaxDomains = 20

// Parse checks an admin's input and returns the configuration without
// its secret. allowHTTP lets an issuer be http:// on a loopback address
// (a provider the tests or a developer run); every other issuer is https.
func Parse(orgID string, in Input, allowHTTP bool) (Config, error) {
	var fields []domain.FieldError
	issuer := strings.TrimRight(strings.TrimSpace(in.Issuer), "/")
	if msg := checkIssuer(issuer, allowHTTP); msg != "" {
		fields = append(fields, domain.FieldError{Field: "issuer", Message: msg})
	}
	clientID := strings.TrimSpace(in.ClientID)
	if clientID == "" || len(clientID) > 255 {
		fields = append(fields, domain.FieldError{Field: "client_id", Message: "required, at most 255 characters"})
	}
	if len(in.ClientSecret) > 1024 {
		fields = append(fields, domain.FieldError{Field: "client_secret", Message: "at most 1024 characters"})
	}
	domains, msg := parseDomains(in.AllowedDomains)
	if msg != "" {
		fields = append(fields, domain.FieldError{Field: "allowed_domains", Message: msg})
	}
	role := identity.Member
	if in.DefaultRole != "" {
		r, err := identity.ParseRole(in.DefaultRole)
		if err != nil {
			fields = append(fields, domain.FieldError{Field: "default_role", Message: "admin or member"})
		}
		role = r
	}
	breakGlass := ""
	if strings.TrimSpace(in.BreakGlass) != "" {
		e, err := identity.NormalizeEmail(in.BreakGlass)
		if err != nil {
			fields = append(fields, domain.FieldError{Field: "break_glass_user", Message: "an e-mail address"})
		}
		breakGlass = e
	}
	if len(fields) > 0 {
		return Config{}, &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidRequest, Message: "The sign-in settings are not valid: " + fields[0].Field + " " + fields[0].Message + ".", Fields: fields}
	}
	return Config{OrgID: orgID, Issuer: issuer, ClientID: clientID, AllowedDomains: domains, DefaultRole: role, Required: in.Required, BreakGlass: breakGlass}, nil
}

func checkIssuer(issuer string, allowHTTP bool) string {
	u, err := url.Parse(issuer)
	if issuer == "" || err != nil || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil || len(issuer) > 512 {
		return "an absolute https URL, without query or fragment"
	}
	switch u.Scheme {
	case "https":
		return ""
	case "http":
		if ip := net.ParseIP(u.Hostname()); allowHTTP && (u.Hostname() == "localhost" || (ip != nil && ip.IsLoopback())) {
			return ""
		}
	}
	return "an https URL (http only on a loopback address when the operator allows it)"
}

// parseDomains lower-cases, checks and de-duplicates e-mail domains.
func parseDomains(in []string) ([]string, string) {
	var out []string
	for _, d := range in {
		d = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(d), "@")))
		if d == "" {
			continue
		}
		if !validDomain(d) {
			return nil, "\"" + d + "\" is not a domain name"
		}
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	if len(out) == 0 {
		return nil, "at least one e-mail domain"
	}
	if len(out) > MaxDomains {
		return nil, "at most 20 domains"
	}
	return out, ""
}

func validDomain(d string) bool {
	if len(d) > 253 || !strings.Contains(d, ".") {
		return false
	}
	for label := range strings.SplitSeq(d, ".") {
		if label == "" || len(label) > 63 || strings.HasPrefix(label, "-") || strings.HasSuffix(label, "-") {
			return false
		}
		for _, r := range label {
			if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '-' {
				return false
			}
		}
	}
	return true
}

// DomainOf returns the lower-cased domain of an e-mail address ("" when
// it has none).
func DomainOf(email string) string {
	_, d, ok := strings.Cut(strings.ToLower(strings.TrimSpace(email)), "@")
	if !ok {
		return ""
	}
	return d
}

// Allows tells whether an address of the provider may come in: its
// domain is one of the allowed ones.
func (c Config) Allows(email string) bool { return slices.Contains(c.AllowedDomains, DomainOf(email)) }

// PasswordAllowed tells whether u may still sign in with a password: SSO
// is not required, or u is staff or the break-glass admin.
func (c Config) PasswordAllowed(u identity.User) (allowed, breakGlass bool) {
	switch {
	case !c.Required || u.IsStaff:
		return true, false
	case c.BreakGlass != "" && u.Email == c.BreakGlass && u.Role == identity.Admin:
		return true, true
	}
	return false, false
}

// CanManage allows organization admins on a cookie session and API keys
// (whose admin scope the router checks); members get nothing.
func CanManage(p identity.Principal) error {
	if p.Method == identity.ByAPIKey || p.Role == identity.Admin {
		return nil
	}
	return domain.Errorf(domain.ErrForbidden, domain.CodeInsufficientPermissions, "Only organization admins manage single sign-on.")
}

// ErrRequired refuses a password to a member of an organization that
// requires single sign-on.
var ErrRequired = domain.Errorf(domain.ErrForbidden, domain.CodeSSORequired,
	"Your organization signs in with its identity provider: use \"Sign in with SSO\".")

// ErrNotConfigured is the answer for an organization (or e-mail domain)
// without single sign-on.
var ErrNotConfigured = domain.Errorf(domain.ErrNotFound, domain.CodeSSONotConfigured,
	"No organization signs in with single sign-on for this address or name.")

// ErrDomainNotAllowed refuses an identity whose address is outside the
// organization's allowed domains (or not verified by the provider).
var ErrDomainNotAllowed = domain.Errorf(domain.ErrForbidden, domain.CodeSSODomainNotAllowed,
	"Your identity provider signed you in with an address your organization does not allow here.")

// Failure reasons of a sign-in that did not complete (sso_failed).
const (
	ReasonProviderUnreachable = "provider_unreachable" // discovery or the token endpoint failed
	ReasonStateInvalid        = "state_invalid"        // unknown, used, expired, or from another browser
	ReasonProviderError       = "provider_error"       // the provider answered with an error
	ReasonTokenInvalid        = "token_invalid"        // the ID token's signature, issuer, audience or expiry
	ReasonNonceMismatch       = "nonce_mismatch"
	ReasonEmailUnverified     = "email_unverified"
	ReasonUserDisabled        = "user_disabled"
	ReasonOtherOrganization   = "other_organization" // the address is a user of another organization
)

// Failed is a sign-in that did not complete, with the reason.
// An unreachable provider is ErrUnavailable (503), any other reason
// ErrInvalid (400).
func Failed(reason, message string) *domain.Error {
	kind := domain.ErrInvalid
	if reason == ReasonProviderUnreachable {
		kind = domain.ErrUnavailable
	}
	return &domain.Error{Kind: kind, Code: domain.CodeSSOFailed, Message: message, Reason: reason}
}

// FlowLifetime is how long a started sign-in may take at the provider.
const FlowLifetime = 10 * time.Minute

// Flow is a sign-in in flight: what the callback needs, stored under the
// hash of its state and taken once.
type Flow struct {
	StateHash   string // of the state sent to the provider
	BrowserHash string // of the cookie that ties the flow to the browser that started it
	OrgID       string
	Nonce       string
	Verifier    string // PKCE code verifier
	RedirectURI string
	CreatedAt   time.Time
}

// Expired tells whether the flow is too old to finish.
func (f Flow) Expired(now time.Time) bool { return now.Sub(f.CreatedAt) > FlowLifetime }
