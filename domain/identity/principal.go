package identity

import (
	"context"
	"slices"
	"time"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/apikey"
)

// Method is how a request authenticated.
type Method string

// The methods of authentication.
const (
	ByAPIKey  Method = "api_key"
	BySession Method = "session"
	// ByImportSession is an import session's client secret: an end user
	// of a customer's app, limited to that session's jobs.
	ByImportSession Method = "import_session"
)

// Principal is who is making a request, as every use case sees it. For an
// impersonating staff member, OrgID and Products are the impersonated
// organization's and Role is admin there.
type Principal struct {
	Method   Method
	OrgID    string
	Products []Product
	UserID   string // sessions; the key's creator for API keys
	KeyID    string // API keys only
	// Scopes are the key's (API keys only): what it may do.
	Scopes  []apikey.Scope
	Role    Role // empty for API keys: keys act for the organization, not as a person
	IsStaff bool
	// Impersonation: the staff member's own organization while acting as OrgID.
	Impersonating  bool
	HomeOrgID      string
	ImpersonatedAt *time.Time
	// SessionHash identifies the session (sessions only), for logout and
	// impersonation changes.
	SessionHash [32]byte
	// ImportSessionID is the import session of a client secret (import
	// sessions only).
	ImportSessionID string
}

// Entitled checks that the principal may use a product: the organization
// must be provisioned for it. Staff bypass the check, except while
// impersonating, when the customer's entitlements apply exactly.
func (p Principal) Entitled(product Product) error {
	if p.IsStaff && !p.Impersonating {
		return nil
	}
	if slices.Contains(p.Products, product) {
		return nil
	}
	return domain.Errorf(domain.ErrForbidden, domain.CodeForbiddenEntitlementMissing,
		"Your organization is not provisioned for the %s product.", product)
}

// HasScope checks that an API key holds the scope a route needs. Other
// credentials pass: people act by their role, and an import session's
// secret by its own narrower rule.
func (p Principal) HasScope(need apikey.Scope) error {
	if p.Method != ByAPIKey {
		return nil
	}
	if (apikey.Key{Scopes: p.Scopes}).Allows(need) {
		return nil
	}
	e := domain.Errorf(domain.ErrForbidden, domain.CodeInsufficientScope,
		"This API key lacks the %s scope this request needs; create a key with it.", need)
	e.Scope = string(need)
	return e
}

// CanManageKeys allows an organization admin on a cookie session (a staff
// member impersonating counts as admin of that organization). API keys
// cannot manage keys.
func (p Principal) CanManageKeys() error {
	if p.Method != BySession {
		return domain.Errorf(domain.ErrForbidden, domain.CodeInsufficientPermissions, "API keys cannot manage API keys; use the dashboard.")
	}
	if p.Role != Admin {
		return domain.Errorf(domain.ErrForbidden, domain.CodeInsufficientPermissions, "Only organization admins can manage API keys.")
	}
	return nil
}

// CanImpersonate allows staff on a cookie session.
func (p Principal) CanImpersonate() error {
	if p.Method != BySession || !p.IsStaff {
		return domain.Errorf(domain.ErrForbidden, domain.CodeInsufficientPermissions, "Only service staff can impersonate an organization.")
	}
	return nil
}

// CanListOrganizations allows staff outside impersonation.
func (p Principal) CanListOrganizations() error {
	if p.Method != BySession || !p.IsStaff || p.Impersonating {
		return domain.Errorf(domain.ErrForbidden, domain.CodeInsufficientPermissions, "Only service staff can list organizations.")
	}
	return nil
}

// Client describes where a request came from, for the audit log.
type Client struct {
	IP        string
	UserAgent string
	RequestID string
}

// AuditEntry records a security-relevant action: who (a user, a key, a
// staff member impersonating, an import session's end user), in which
// organization, on what, from where and when. Entries are only ever
// appended; retention deletes the old ones, nothing changes one.
type AuditEntry struct {
	ID          string
	OrgID       string
	ActorUserID string
	ActorKeyID  string
	// ActorImportSessionID is the import session whose client secret acted.
	ActorImportSessionID string
	// Impersonating: ActorUserID is a staff member acting as OrgID's admin.
	Impersonating bool
	Action        string // see AuditActions
	TargetID      string
	IP            string
	UserAgent     string
	RequestID     string
	At            time.Time
}

// AuditActions are the actions the audit log records, for filters and
// documentation.
var AuditActions = []string{
	"login", "login_failed", "logout", "api_key.create", "api_key.revoke",
	"impersonation.start", "impersonation.stop", "user.create", "user.reset_password", "user.disable", "user.role_change",
	"entitlement.grant", "entitlement.revoke", "webhook.create", "webhook.update", "webhook.delete", "webhook.rotate_secret",
	"destination.create", "destination.update", "destination.delete", "hook.create", "hook.update", "hook.delete", "hook.rotate_secret", "hook.test",
	"import_session.create", "import_session.revoke", "rows.export", "audit.export", "quota.set",
}

// AuditBy is an entry of action on target by the principal p, from c at now.
func AuditBy(p Principal, c Client, action, target string, now time.Time) AuditEntry {
	e := AuditEntry{OrgID: p.OrgID, ActorUserID: p.UserID, Action: action, TargetID: target,
		IP: c.IP, UserAgent: truncateText(c.UserAgent, 512), RequestID: c.RequestID, At: now.UTC(), Impersonating: p.Impersonating}
	switch p.Method {
	case ByAPIKey:
		e.ActorKeyID = p.KeyID
	case ByImportSession:
		e.ActorImportSessionID, e.ActorUserID = p.ImportSessionID, ""
	}
	return e
}

func truncateText(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// AuditFilter narrows a listing of the audit log; zero fields match all.
type AuditFilter struct {
	Actor  string // a user, key or import session id
	Action string
	Target string
	Since  *time.Time // at or after
	Until  *time.Time // before
}

// CanReadAudit allows an organization admin's session (staff
// impersonating count) and an API key with the admin scope.
func (p Principal) CanReadAudit() error {
	switch {
	case p.Method == BySession && p.Role == Admin:
		return nil
	case p.Method == ByAPIKey:
		return p.HasScope(apikey.AdminScope)
	}
	return domain.Errorf(domain.ErrForbidden, domain.CodeInsufficientPermissions, "Only organization admins can read the audit log.")
}

type clientKey struct{}

// WithClient keeps where a request came from in its context, so that use
// cases can write it into the audit log without taking it as an argument
// each; the HTTP adapter sets it for every request.
func WithClient(ctx context.Context, c Client) context.Context {
	return context.WithValue(ctx, clientKey{}, c)
}

// ClientOf is the client WithClient kept; the zero Client outside a request.
func ClientOf(ctx context.Context) Client {
	c, _ := ctx.Value(clientKey{}).(Client)
	return c
}
