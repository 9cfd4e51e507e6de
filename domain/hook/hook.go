// Package hook holds the rules of validation hooks: an organization's own
// service that checks, and may correct, the rows of a job while it runs.
// A hook is registered like a webhook endpoint (a URL checked against
// internal addresses, a Standard Webhooks secret shown once); a schema
// names the hooks its rows go through. This package says what a hook's
// settings may be, what a batch sent to it looks like, and which parts of
// its answer are taken (protocol.go). It does no I/O.
package hook

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/webhook"
)

// Limits of a hook's settings.
const (
	DefaultTimeout     = 5 * time.Second
	MinTimeout         = 100 * time.Millisecond
	MaxTimeout         = 30 * time.Second
	DefaultConcurrency = 4
	MaxConcurrency     = 16
	// MaxPerOrg is how many hooks one organization may have.
	MaxPerOrg = 20
)

// Hook is an organization's validation service.
type Hook struct {
	ID    string
	OrgID string
	// Name is how schemas refer to the hook; unique in the organization.
	Name        string
	URL         string
	Timeout     time.Duration
	Concurrency int
	Enabled     bool
	// Secret signs the batches. It is kept sealed (SealedSecret); Secret
	// is the opened value, set only by the application when it needs it.
	Secret       string
	SealedSecret []byte
	// PreviousSecret signs alongside Secret until PreviousUntil (a
	// rotation's overlap), sealed as SealedPrevious.
	PreviousSecret string
	SealedPrevious []byte
	PreviousUntil  *time.Time
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// Secrets are the secrets that sign a batch sent at now.
func (h Hook) Secrets(now time.Time) []string {
	out := []string{h.Secret}
	if h.PreviousSecret != "" && h.PreviousUntil != nil && now.Before(*h.PreviousUntil) {
		out = append(out, h.PreviousSecret)
	}
	return out
}

// Rotate replaces the secret; the old one keeps signing for
// webhook.RotationOverlap. The caller seals both again.
func (h *Hook) Rotate(secret string, now time.Time) {
	until := now.Add(webhook.RotationOverlap)
	h.PreviousSecret, h.PreviousUntil = h.Secret, &until
	h.Secret = secret
	h.UpdatedAt = now
}

// CanManage allows organization admins on a cookie session and API keys;
// members only read.
func CanManage(p identity.Principal) error {
	if p.Method == identity.ByAPIKey || p.Role == identity.Admin {
		return nil
	}
	return domain.Errorf(domain.ErrForbidden, domain.CodeInsufficientPermissions, "Only organization admins and API keys can change hooks.")
}

var nameRE = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,62}$`)

// ParseName validates a hook's name: a lower-case letter, then up to 62
// lower-case letters, digits, _ or -.
func ParseName(s string) (string, error) {
	if !nameRE.MatchString(s) {
		return "", fieldError("name", "must be a lower-case letter then up to 62 lower-case letters, digits, _ or -",
			"The hook's name must start with a lower-case letter and hold only lower-case letters, digits, _ and - (at most 63).")
	}
	return s, nil
}

// ParseURL validates a hook's address exactly as a webhook endpoint's.
func ParseURL(raw string, allowPrivate bool) (string, error) {
	u, err := webhook.ParseURL(raw, allowPrivate)
	if err != nil {
		if de, ok := errors.AsType[*domain.Error](err); ok {
			de.Message = "The hook URL" + strings.TrimPrefix(de.Message, "The webhook URL")
		}
	}
	return u, err
}

// ParseTimeout validates timeout_ms (0: the default).
func ParseTimeout(ms int64) (time.Duration, error) {
	if ms == 0 {
		return DefaultTimeout, nil
	}
	d := time.Duration(ms) * time.Millisecond
	if d < MinTimeout || d > MaxTimeout {
		return 0, fieldError("timeout_ms", "must be from 100 to 30000",
			"The hook's timeout_ms must be from 100 to 30000 (milliseconds).")
	}
	return d, nil
}

// ParseConcurrency validates concurrency, the batches in flight at once
// (0: the default).
func ParseConcurrency(n int) (int, error) {
	if n == 0 {
		return DefaultConcurrency, nil
	}
	if n < 1 || n > MaxConcurrency {
		return 0, fieldError("concurrency", "must be from 1 to "+strconv.Itoa(MaxConcurrency),
			"The hook's concurrency must be from 1 to "+strconv.Itoa(MaxConcurrency)+".")
	}
	return n, nil
}

func fieldError(field, msg, message string) error {
	return &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidRequest, Message: message,
		Fields: []domain.FieldError{{Field: field, Message: msg}}}
}
