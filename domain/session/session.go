// Package session is the dashboard's cookie session: an opaque random id
// the browser holds, stored server-side only as its SHA-256, with a
// sliding idle timeout and an absolute lifetime. The CSRF token is derived
// from the id, so it is never stored and changes with every login.
package session

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"time"
)

// Lifetimes of API.md §4.3.
const (
	IdleTimeout = 12 * time.Hour
	MaxLifetime = 7 * 24 * time.Hour
	// touchEvery bounds how often last_seen_at is written: the idle timeout
	// slides with at most this error, and most requests stay reads.
	touchEvery = time.Minute
)

// Hash is the SHA-256 of a session token.
type Hash [32]byte

// Session is a signed-in browser.
type Session struct {
	Hash       Hash
	UserID     string
	OrgID      string // the user's own organization
	CreatedAt  time.Time
	LastSeenAt time.Time
	IP         string
	UserAgent  string
	// Impersonation (staff only): the organization acted as, and since when.
	ImpersonatedOrgID string
	ImpersonatedAt    *time.Time
}

// New starts a session for a user and returns it with the token the
// browser keeps (256 random bits, base64url).
func New(userID, orgID string, now time.Time) (Session, string) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	token := base64.RawURLEncoding.EncodeToString(b[:])
	now = now.UTC()
	return Session{Hash: HashOf(token), UserID: userID, OrgID: orgID, CreatedAt: now, LastSeenAt: now}, token
}

// HashOf returns the SHA-256 of a token.
func HashOf(token string) Hash { return sha256.Sum256([]byte(token)) }

// ValidToken reports whether s has the shape of a token New makes, so that
// junk cookies are refused without a database read.
func ValidToken(token string) bool {
	if len(token) != 43 {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(token)
	return err == nil
}

// Expired reports whether the session is past its idle or absolute limit.
func (s Session) Expired(now time.Time) bool {
	return now.Sub(s.LastSeenAt) >= IdleTimeout || now.Sub(s.CreatedAt) >= MaxLifetime
}

// NeedsTouch reports whether last_seen_at should be written at now.
func (s Session) NeedsTouch(now time.Time) bool { return now.Sub(s.LastSeenAt) >= touchEvery }

// Impersonating reports whether a staff member acts as another organization.
func (s Session) Impersonating() bool { return s.ImpersonatedOrgID != "" }

// CSRFToken derives the session's CSRF token from its token: the browser
// reads it from /auth/me and echoes it in X-CSRF-Token; a page on another
// origin can do neither.
func CSRFToken(token string) string {
	mac := hmac.New(sha256.New, []byte(token))
	mac.Write([]byte("tabnorm csrf v1"))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// CheckCSRF compares a presented CSRF token with the session's in
// constant time.
func CheckCSRF(token, presented string) bool {
	return presented != "" && hmac.Equal([]byte(CSRFToken(token)), []byte(presented))
}
