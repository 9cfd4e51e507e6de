// Package sealing encrypts secrets at rest with AES-256-GCM under the
// operator's keys (TABNORM_SECRET_KEY). A sealed value is
//
//	0x01 | key id (4 bytes) | nonce (12 bytes) | ciphertext and tag
//
// where the key id is the first four bytes of the key's SHA-256, so that a
// value sealed under an older key still opens while the operator lists it
// after the new one (rotation: add the new key first, reseal, drop the old).
package sealing

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tabnorm/tabnorm/ports"
)

const (
	version = 0x01
	idLen   = 4
	// KeyLen is the length of a key: 32 bytes, AES-256.
	KeyLen = 32
)

type key struct {
	id   [idLen]byte
	aead cipher.AEAD
}

// Box seals with its first key and opens with any of its keys.
type Box struct{ keys []key }

var _ ports.Sealer = (*Box)(nil)

// New returns a Box over raw 32-byte keys, the first of which seals.
func New(raw ...[]byte) (*Box, error) {
	if len(raw) == 0 {
		return nil, errors.New("no key")
	}
	b := &Box{}
	for i, r := range raw {
		if len(r) != KeyLen {
			return nil, fmt.Errorf("key %d is %d bytes, want %d", i+1, len(r), KeyLen)
		}
		block, err := aes.NewCipher(r)
		if err != nil {
			return nil, err
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(r)
		k := key{aead: aead}
		copy(k.id[:], sum[:idLen])
		b.keys = append(b.keys, k)
	}
	return b, nil
}

// ParseKeys reads TABNORM_SECRET_KEY: comma-separated base64 (standard or
// URL alphabet, padded or not) keys of 32 bytes each, newest first.
func ParseKeys(setting string) ([][]byte, error) {
	var keys [][]byte
	for part := range strings.SplitSeq(setting, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, err := decodeKey(part)
		if err != nil {
			return nil, fmt.Errorf("key %d: %w", len(keys)+1, err)
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return nil, errors.New("no key (want base64 of 32 random bytes, e.g. `openssl rand -base64 32`)")
	}
	return keys, nil
}

func decodeKey(s string) ([]byte, error) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if k, err := enc.DecodeString(s); err == nil {
			if len(k) != KeyLen {
				return nil, fmt.Errorf("%d bytes, want %d", len(k), KeyLen)
			}
			return k, nil
		}
	}
	return nil, errors.New("not base64")
}

// Seal encrypts plaintext bound to associated under the newest key.
func (b *Box) Seal(plaintext, associated []byte) ([]byte, error) {
	k := b.keys[0]
	out := make([]byte, 1+idLen+k.aead.NonceSize(), 1+idLen+k.aead.NonceSize()+len(plaintext)+k.aead.Overhead())
	out[0] = version
	copy(out[1:], k.id[:])
	if _, err := rand.Read(out[1+idLen:]); err != nil {
		return nil, err
	}
	return k.aead.Seal(out, out[1+idLen:], plaintext, associated), nil
}

// Open decrypts a value Seal made, with the key its id names.
func (b *Box) Open(sealed, associated []byte) ([]byte, error) {
	if len(sealed) < 1+idLen || sealed[0] != version {
		return nil, ports.ErrSealBroken
	}
	for _, k := range b.keys {
		if !bytes.Equal(k.id[:], sealed[1:1+idLen]) {
			continue
		}
		rest := sealed[1+idLen:]
		if len(rest) < k.aead.NonceSize() {
			return nil, ports.ErrSealBroken
		}
		plain, err := k.aead.Open(nil, rest[:k.aead.NonceSize()], rest[k.aead.NonceSize():], associated)
		if err != nil {
			return nil, ports.ErrSealBroken
		}
		return plain, nil
	}
	return nil, ports.ErrSealBroken
}

// Unkeyed is the Sealer of a process without a key: it refuses to seal or
// open, so a secret is never stored in the clear.
type Unkeyed struct{}

// Seal refuses.
func (Unkeyed) Seal([]byte, []byte) ([]byte, error) { return nil, ports.ErrNoSecretKey }

// Open refuses.
func (Unkeyed) Open([]byte, []byte) ([]byte, error) { return nil, ports.ErrNoSecretKey }

// KeyFile returns the key kept in path, creating it (32 random bytes in
// base64, mode 0600) when it does not exist; created says which. It is the
// embedded single-process default, kept beside the database.
func KeyFile(path string) (k []byte, created bool, err error) {
	data, err := os.ReadFile(path)
	if err == nil {
		k, err := decodeKey(strings.TrimSpace(string(data)))
		if err != nil {
			return nil, false, fmt.Errorf("%s: %w", path, err)
		}
		return k, false, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, false, err
	}
	k = make([]byte, KeyLen)
	if _, err := rand.Read(k); err != nil {
		return nil, false, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, false, err
	}
	// The key is written whole to a temporary file and linked into
	// place, which fails when the name exists: of two processes starting
	// together, one's key wins and the other reads it, never a half file.
	tmp, err := os.CreateTemp(filepath.Dir(path), ".secret-key-*")
	if err != nil {
		return nil, false, err
	}
	defer func() { _ = os.Remove(tmp.Name()) }()
	if err := tmp.Chmod(0o600); err != nil {
		_ = tmp.Close()
		return nil, false, err
	}
	if _, err := tmp.WriteString(base64.StdEncoding.EncodeToString(k) + "\n"); err != nil {
		_ = tmp.Close()
		return nil, false, err
	}
	if err := tmp.Sync(); err != nil {
		_ = tmp.Close()
		return nil, false, err
	}
	if err := tmp.Close(); err != nil {
		return nil, false, err
	}
	if err := os.Link(tmp.Name(), path); errors.Is(err, fs.ErrExist) {
		return KeyFile(path)
	} else if err != nil {
		return nil, false, err
	}
	return k, true, nil
}
