// Package id makes the opaque identifiers of API.md §1: a type prefix and a
// time-sortable random part (a UUIDv7 in lower-case Crockford base32).
package id

import (
	"crypto/rand"
	"encoding/binary"
	"strings"
	"sync"
	"time"
)

// Prefixes of every resource type.
const (
	Org      = "org"
	User     = "usr"
	Key      = "key"
	Job      = "job"
	File     = "file"
	Schema   = "sch"
	List     = "lst"
	Webhook  = "whk"
	Request  = "req"
	Session  = "ses"
	Delivery = "dlv"
	Import   = "imp"
	// Destination and Push: a destination, and a delivery of a job's
	// rows to one.
	Destination = "dst"
	Push        = "psh"
	Hook        = "hook"
	// Replacement is a find-and-replace over a job's field.
	Replacement = "rpl"
)

const alphabet = "0123456789abcdefghjkmnpqrstvwxyz"

var (
	mu     sync.Mutex
	lastMS int64
	seq    uint16
)

// New returns prefix_ followed by 26 characters that sort by creation time
// (millisecond precision, monotonic within a process).
func New(prefix string) string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("crypto/rand failed: " + err.Error()) // never happens on supported platforms
	}
	ms := time.Now().UnixMilli()
	mu.Lock()
	if ms <= lastMS {
		ms = lastMS
		seq++
		if seq == 0x0fff {
			ms++
			seq = 0
		}
	} else {
		seq = 0
	}
	lastMS = ms
	s := seq
	mu.Unlock()
	// UUIDv7 layout: 48-bit ms timestamp, version, 12-bit counter, variant, random.
	var ts [8]byte
	binary.BigEndian.PutUint64(ts[:], uint64(ms))
	copy(b[0:6], ts[2:8])
	b[6] = 0x70 | byte(s>>8&0x0f)
	b[7] = byte(s)
	b[8] = b[8]&0x3f | 0x80
	return prefix + "_" + encode(b)
}

// encode writes 128 bits as 26 base32 characters, most significant first.
func encode(b [16]byte) string {
	hi := binary.BigEndian.Uint64(b[0:8])
	lo := binary.BigEndian.Uint64(b[8:16])
	var out [26]byte
	for i := 25; i >= 0; i-- {
		out[i] = alphabet[lo&31]
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
	return string(out[:])
}

// HasPrefix reports whether s looks like an id of the given type. It does
// not prove the id exists.
func HasPrefix(s, prefix string) bool {
	if !strings.HasPrefix(s, prefix+"_") || len(s) != len(prefix)+27 {
		return false
	}
	for _, c := range s[len(prefix)+1:] {
		if !strings.ContainsRune(alphabet, c) {
			return false
		}
	}
	return true
}
