package apikey

import (
	"slices"
	"strings"
	"time"

	"github.com/tabnorm/tabnorm/domain"
)

// Scope is one thing a key may do. A key holds a set of them; every /v1
// route names the one it needs (adapters/httpapi's routeScopes), and a
// request outside the key's set is refused before its handler runs.
type Scope string

// The scopes, in display order. Admin holds every other scope too: it is
// what a key could do before keys had scopes, and what a key without an
// explicit list is given.
const (
	JobsRead            Scope = "jobs:read"
	JobsWrite           Scope = "jobs:write"
	SchemasWrite        Scope = "schemas:write"
	WebhooksWrite       Scope = "webhooks:write"
	ImportSessionsWrite Scope = "import_sessions:write"
	DestinationsWrite   Scope = "destinations:write"
	AdminScope          Scope = "admin"
)

const (
	maxScopes      = 16
	scopeSeparator = " "
)

// Scopes lists every scope, in display order.
var Scopes = []Scope{JobsRead, JobsWrite, SchemasWrite, WebhooksWrite, ImportSessionsWrite, DestinationsWrite, AdminScope}

// ParseScopes validates a list of scope names, dropping repeats and
// keeping the order of Scopes. An empty list is invalid: a key that may do
// nothing is a mistake; leave the list out to get every scope.
func ParseScopes(names []string) ([]Scope, error) {
	if len(names) == 0 || len(names) > maxScopes {
		return nil, scopesError("scopes must list 1 to %d scopes", len(Scopes))
	}
	set := map[Scope]bool{}
	for _, n := range names {
		s := Scope(strings.TrimSpace(n))
		if !slices.Contains(Scopes, s) {
			return nil, scopesError("unknown scope %q (want one of %s)", n, scopeNames())
		}
		set[s] = true
	}
	var out []Scope
	for _, s := range Scopes {
		if set[s] {
			out = append(out, s)
		}
	}
	return out, nil
}

func scopesError(format string, args ...any) error {
	e := domain.Errorf(domain.ErrInvalid, domain.CodeInvalidRequest, format, args...)
	e.Fields = []domain.FieldError{{Field: "scopes", Message: e.Message}}
	return e
}

func scopeNames() string {
	names := make([]string, len(Scopes))
	for i, s := range Scopes {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
}

// EncodeScopes is the stored form of a set: names separated by spaces (as
// OAuth's scope parameter); DecodeScopes reads it back, skipping names it
// does not know (a scope removed by a later version grants nothing).
func EncodeScopes(scopes []Scope) string {
	names := make([]string, len(scopes))
	for i, s := range scopes {
		names[i] = string(s)
	}
	return strings.Join(names, scopeSeparator)
}

// DecodeScopes reads EncodeScopes's form.
func DecodeScopes(s string) []Scope {
	var out []Scope
	for name := range strings.FieldsSeq(s) {
		if sc := Scope(name); slices.Contains(Scopes, sc) {
			out = append(out, sc)
		}
	}
	return out
}

// Allows reports whether the key holds need; admin holds every scope.
func (k Key) Allows(need Scope) bool {
	return slices.Contains(k.Scopes, need) || slices.Contains(k.Scopes, AdminScope)
}

// Expired reports whether the key's expires_at has passed at now.
func (k Key) Expired(now time.Time) bool {
	return k.ExpiresAt != nil && !now.Before(*k.ExpiresAt)
}

// CheckExpiry validates a new key's expires_at against now: in the
// future, and at most MaxLifetime ahead.
func CheckExpiry(expiresAt *time.Time, now time.Time) error {
	if expiresAt == nil {
		return nil
	}
	if !expiresAt.After(now) {
		e := domain.Errorf(domain.ErrInvalid, domain.CodeInvalidRequest, "An API key's expires_at must be in the future.")
		e.Fields = []domain.FieldError{{Field: "expires_at", Message: "must be in the future"}}
		return e
	}
	if expiresAt.Sub(now) > MaxLifetime {
		e := domain.Errorf(domain.ErrInvalid, domain.CodeInvalidRequest, "An API key's expires_at must be within %d days.", int(MaxLifetime.Hours()/24))
		e.Fields = []domain.FieldError{{Field: "expires_at", Message: "must be within 5 years"}}
		return e
	}
	return nil
}

// MaxLifetime bounds expires_at: five years.
const MaxLifetime = 5 * 365 * 24 * time.Hour
