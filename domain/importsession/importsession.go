// Package importsession is an import session: a short-lived, narrow
// credential a customer's backend mints so that its end users, in the
// customer's own page, can upload files and review their jobs without the
// customer's API key. The client secret is shown once and kept only as
// its SHA-256, like an API key.
package importsession

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tabnorm/tabnorm/domain"
)

// SecretPrefix starts every client secret.
const SecretPrefix = "imp_secret_"

// secretLen is the length of a secret's random part: 32 bytes in
// unpadded base64url.
const secretLen = 43

// Limits of a session's settings.
const (
	DefaultExpiresIn = time.Hour
	MinExpiresIn     = time.Minute
	MaxExpiresIn     = 24 * time.Hour
	DefaultMaxJobs   = 5
	MaxMaxJobs       = 100
	MaxOrigins       = 10
	MaxMetadataBytes = 4096
)

// Status is where a session stands, derived from its times.
type Status string

// The statuses.
const (
	Open      Status = "open"
	Submitted Status = "submitted"
	Expired   Status = "expired"
	Revoked   Status = "revoked"
)

// Hash is the SHA-256 of a whole client secret.
type Hash [32]byte

// Session is one import session. It never holds the plaintext secret.
type Session struct {
	ID             string
	OrgID          string
	SchemaID       string // a saved schema, or ""
	Schema         []byte // the schema sent inline (canonical JSON), or nil
	Options        []byte // the jobs' options (JSON object)
	AllowedOrigins []string
	Metadata       []byte // a JSON object the session's jobs carry
	MaxJobs        int
	Locale         string // one of Locales, or Auto
	Theme          Theme
	Texts          map[string]string // the importer's words this session overrides, by message key
	SubmitPolicy   SubmitPolicy      // what its submit asks of its final jobs (submit.go)
	Hash           Hash
	CreatedBy      string // the API key or user that minted it
	CreatedAt      time.Time
	ExpiresAt      time.Time
	RevokedAt      *time.Time
	SubmittedAt    *time.Time
	OpenedAt       *time.Time // when the importer first read it (funnel.go)
}

// Status is the session's state at now: a revocation wins over the rest.
func (s Session) Status(now time.Time) Status {
	switch {
	case s.RevokedAt != nil:
		return Revoked
	case s.SubmittedAt != nil:
		return Submitted
	case !now.Before(s.ExpiresAt):
		return Expired
	}
	return Open
}

// Usable refuses a session that may no longer authenticate: revoked (as
// if unknown) or expired (import_session_expired, so the end user's page
// can say why).
func (s Session) Usable(now time.Time) error {
	switch s.Status(now) {
	case Revoked:
		return ErrInvalidSecret
	case Expired:
		return domain.Errorf(domain.ErrUnauthenticated, domain.CodeImportSessionExpired, "The import session expired at %s; ask the app for a new one.", s.ExpiresAt.UTC().Format(time.RFC3339))
	}
	return nil
}

// Revoke ends the session at now; revoking twice keeps the first time.
func (s *Session) Revoke(now time.Time) {
	if s.RevokedAt == nil {
		t := now.UTC()
		s.RevokedAt = &t
	}
}

// Submit records that the end user finished; only an open session may.
func (s *Session) Submit(now time.Time) error {
	switch st := s.Status(now); st {
	case Open:
		t := now.UTC()
		s.SubmittedAt = &t
		return nil
	case Submitted:
		return domain.Errorf(domain.ErrConflict, domain.CodeConflict, "The import session was submitted already.")
	default:
		return domain.Errorf(domain.ErrConflict, domain.CodeConflict, "The import session is %s.", st)
	}
}

// TakesJob refuses another job (an upload or a rerun) to a session that
// can no longer be used, was submitted, or has made its MaxJobs jobs.
func (s Session) TakesJob(now time.Time, jobs int) error {
	if err := s.Usable(now); err != nil {
		return err
	}
	if s.SubmittedAt != nil {
		return domain.Errorf(domain.ErrConflict, domain.CodeConflict, "The import session was submitted; it takes no more files.")
	}
	if jobs >= s.MaxJobs {
		return domain.Errorf(domain.ErrForbidden, domain.CodeQuotaExceeded, "The import session has made its %d jobs, the most it may make.", s.MaxJobs)
	}
	return nil
}

// ErrInvalidSecret answers a malformed, unknown or revoked secret alike.
var ErrInvalidSecret = domain.Errorf(domain.ErrUnauthenticated, domain.CodeUnauthenticated, "The import session's client secret is not valid.")

// GenerateSecret returns a new random client secret.
func GenerateSecret() string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("crypto/rand failed: " + err.Error()) // never happens on supported platforms
	}
	return SecretPrefix + base64.RawURLEncoding.EncodeToString(b[:])
}

// IsSecret reports whether a bearer token is meant as a client secret
// (by its prefix), to pick how to authenticate it.
func IsSecret(token string) bool { return strings.HasPrefix(token, SecretPrefix) }

// ValidSecret checks a secret's shape without I/O.
func ValidSecret(secret string) bool {
	if len(secret) != len(SecretPrefix)+secretLen || !IsSecret(secret) {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(secret[len(SecretPrefix):])
	return err == nil
}

// HashOf returns the SHA-256 of a plaintext secret.
func HashOf(secret string) Hash { return sha256.Sum256([]byte(secret)) }

// ParseOrigins checks and normalizes the origins allowed to frame the
// importer and call the API with its secret: 1 to 10 absolute https
// origins (http only for loopback hosts, for development), without path.
func ParseOrigins(raw []string) ([]string, error) {
	if len(raw) == 0 || len(raw) > MaxOrigins {
		return nil, invalidField("allowed_origins", "must list 1 to 10 origins")
	}
	out := make([]string, 0, len(raw))
	for _, r := range raw {
		o, ok := origin(r)
		if !ok {
			return nil, invalidField("allowed_origins", "\""+truncate(r, 100)+"\" is not an https origin such as https://app.example.com")
		}
		if !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	return out, nil
}

// origin normalizes scheme://host[:port] as browsers send it in Origin.
func origin(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return "", false
	}
	scheme, host := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname())
	switch {
	case scheme == "https":
	case scheme == "http" && loopback(host):
	default:
		return "", false
	}
	// The origin is written into the importer page's Content-Security-Policy
	// and CORS answers: only a DNS name or an IP literal, and a port from 1
	// to 65535, so no ;, ", < or blank can add to them.
	if !validHost(host, strings.HasPrefix(u.Host, "[")) || strings.HasSuffix(u.Host, ":") {
		return "", false
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	p := u.Port()
	if n, err := strconv.Atoi(p); p != "" && (err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != p) {
		return "", false
	}
	if p != "" && !(scheme == "http" && p == "80") && !(scheme == "https" && p == "443") {
		host += ":" + p
	}
	return scheme + "://" + host, true
}

// validHost reports whether host (lower case, without brackets) is an IP
// address, IPv6 only in brackets, or a DNS name of letters, digits and
// hyphens (an internationalized name in its xn-- form, as browsers send
// it) whose last label is not a number.
func validHost(host string, bracketed bool) bool {
	if ip := net.ParseIP(host); ip != nil {
		return bracketed == strings.Contains(host, ":")
	}
	if bracketed || len(host) > 253 {
		return false
	}
	labels := strings.Split(host, ".")
	for _, l := range labels {
		if len(l) == 0 || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for _, c := range l {
			if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
				return false
			}
		}
	}
	last := labels[len(labels)-1]
	return strings.Trim(last, "0123456789") != ""
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ExpiresIn checks a lifetime in seconds: 0 is the default of an hour.
func ExpiresIn(seconds int64) (time.Duration, error) {
	if seconds == 0 {
		return DefaultExpiresIn, nil
	}
	d := time.Duration(seconds) * time.Second
	if seconds < 0 || d < MinExpiresIn || d > MaxExpiresIn {
		return 0, invalidField("expires_in", "must be 60 to 86400 seconds")
	}
	return d, nil
}

// ParseMaxJobs checks how many jobs the session may create: 0 is 5.
func ParseMaxJobs(n int) (int, error) {
	if n == 0 {
		return DefaultMaxJobs, nil
	}
	if n < 1 || n > MaxMaxJobs {
		return 0, invalidField("max_jobs", "must be 1 to 100")
	}
	return n, nil
}

func invalidField(field, msg string) error {
	return &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidRequest, Message: field + " " + msg + ".",
		Fields: []domain.FieldError{{Field: field, Message: msg}}}
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
