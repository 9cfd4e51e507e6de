// Package apikey is the API key format: svc_live_ + 32 base62 characters of
// random secret + 6 base62 characters of the secret's CRC32 (the scheme
// GitHub uses for its tokens). The checksum lets a malformed or mistyped
// key be refused without a database read, and lets secret scanners
// recognise leaked keys. Keys are stored only as their SHA-256.
package apikey

import (
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"hash/crc32"
	"math/big"
	"strings"
	"time"
)

// Prefix starts every key.
const Prefix = "svc_live_"

const (
	secretLen   = 32
	checksumLen = 6
	// Length is the length of a whole key.
	Length   = len(Prefix) + secretLen + checksumLen
	alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
)

// ErrMalformed is returned for anything that is not a well-formed key with
// a valid checksum.
var ErrMalformed = errors.New("malformed API key")

// Hash is the SHA-256 of the whole plaintext key: what the database keeps.
type Hash [32]byte

// Key is a stored API key. It never holds the plaintext.
type Key struct {
	ID         string
	OrgID      string
	Name       string
	Hash       Hash
	Last4      string
	CreatedBy  string // user id
	CreatedAt  time.Time
	LastUsedAt *time.Time
	LastUsedIP string // the client address of the last recorded use
	RevokedAt  *time.Time
	// Scopes are what the key may do (see Scope); ExpiresAt, when set, is
	// when it stops working.
	Scopes    []Scope
	ExpiresAt *time.Time
}

// Revoked reports whether the key was revoked.
func (k Key) Revoked() bool { return k.RevokedAt != nil }

// Revoke marks the key revoked at now; revoking twice keeps the first time.
func (k *Key) Revoke(now time.Time) {
	if k.RevokedAt == nil {
		t := now.UTC()
		k.RevokedAt = &t
	}
}

// LastUsedStale reports whether last_used_at should be written again: at
// most once a minute per key, so authentication stays a read.
func (k Key) LastUsedStale(now time.Time) bool {
	return k.LastUsedAt == nil || now.Sub(*k.LastUsedAt) >= time.Minute
}

// Generate returns a new random key's plaintext.
func Generate() string {
	var b strings.Builder
	b.Grow(Length)
	b.WriteString(Prefix)
	size := big.NewInt(int64(len(alphabet)))
	secret := make([]byte, secretLen)
	for i := range secret {
		n, err := rand.Int(rand.Reader, size) // uniform: no modulo bias
		if err != nil {
			panic("crypto/rand failed: " + err.Error())
		}
		secret[i] = alphabet[n.Int64()]
	}
	b.Write(secret)
	b.WriteString(checksum(secret))
	return b.String()
}

// checksum is the CRC32 (IEEE) of the secret in 6 base62 digits.
func checksum(secret []byte) string {
	n := crc32.ChecksumIEEE(secret)
	var out [checksumLen]byte
	for i := checksumLen - 1; i >= 0; i-- {
		out[i] = alphabet[n%62]
		n /= 62
	}
	return string(out[:])
}

// Validate checks a plaintext key's shape and checksum, without I/O.
func Validate(key string) error {
	if len(key) != Length || !strings.HasPrefix(key, Prefix) {
		return ErrMalformed
	}
	body := key[len(Prefix):]
	for i := 0; i < len(body); i++ {
		if strings.IndexByte(alphabet, body[i]) < 0 {
			return ErrMalformed
		}
	}
	secret := body[:secretLen]
	if checksum([]byte(secret)) != body[secretLen:] {
		return ErrMalformed
	}
	return nil
}

// HashOf returns the SHA-256 of a plaintext key.
func HashOf(key string) Hash { return sha256.Sum256([]byte(key)) }

// Last4 returns the display suffix of a plaintext key.
func Last4(key string) string { return key[len(key)-4:] }
