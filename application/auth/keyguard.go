package auth

import (
	"fmt"
	"sync"
	"time"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/apikey"
)

// The throttle of failed API key checks, per client address and per node
// like the rate limits: past KeyFailuresPerAddress failures within
// KeyFailureWindow, an address's keys are refused with rate_limited
// before any database read, except keys this node found valid within
// keyKnownFor: a client that shares its address with a misconfigured one
// is not slowed down.
const (
	KeyFailuresPerAddress = 20
	KeyFailureWindow      = time.Minute
	keyKnownFor           = 15 * time.Minute
	// keyGuardMost bounds the memory of both lists under a spray of
	// addresses or keys: past it, the oldest entries are dropped.
	keyGuardMost = 100_000
)

type keyGuard struct {
	mu       sync.Mutex
	failures map[string][]time.Time    // address → failures within the window, oldest first
	known    map[apikey.Hash]time.Time // keys found valid → when
}

func newKeyGuard() *keyGuard {
	return &keyGuard{failures: map[string][]time.Time{}, known: map[apikey.Hash]time.Time{}}
}

// check returns a rate_limited error when the address has failed too
// often and the key is not one found valid lately.
func (g *keyGuard) check(addr string, h apikey.Hash, now time.Time) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	recent := g.recent(addr, now)
	if len(recent) < KeyFailuresPerAddress {
		return nil
	}
	if at, ok := g.known[h]; ok && now.Sub(at) < keyKnownFor {
		return nil
	}
	wait := max(time.Second, recent[0].Add(KeyFailureWindow).Sub(now))
	secs := int((wait + time.Second - 1) / time.Second)
	return &domain.Error{Kind: domain.ErrTooMany, Code: domain.CodeRateLimited, RetryAfter: secs,
		Message: fmt.Sprintf("Too many invalid API keys or client secrets from your address; retry in %d s.", secs)}
}

// failed counts a failed check from the address.
func (g *keyGuard) failed(addr string, now time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.failures) >= keyGuardMost { // drop the expired, then any down to half
		for a := range g.failures {
			if g.recent(a, now) != nil && len(g.failures) >= keyGuardMost/2 {
				delete(g.failures, a)
			}
		}
	}
	g.failures[addr] = append(g.recent(addr, now), now)
}

// valid remembers a key found valid.
func (g *keyGuard) valid(h apikey.Hash, now time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.known[h]; !ok && len(g.known) >= keyGuardMost { // drop the expired, then any down to half
		for k, at := range g.known {
			if now.Sub(at) >= keyKnownFor || len(g.known) >= keyGuardMost/2 {
				delete(g.known, k)
			}
		}
	}
	g.known[h] = now
}

// recent prunes the address's failures older than the window and returns
// the rest.
func (g *keyGuard) recent(addr string, now time.Time) []time.Time {
	list := g.failures[addr]
	i := 0
	for i < len(list) && now.Sub(list[i]) >= KeyFailureWindow {
		i++
	}
	if list = list[i:]; len(list) == 0 {
		delete(g.failures, addr)
		return nil
	}
	g.failures[addr] = list
	return list
}
