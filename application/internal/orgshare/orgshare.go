// Package orgshare counts each organization's attempts in flight on this
// process, so that one organization whose endpoints never answer holds at
// most its share of a pool of workers (webhook deliveries, destination
// deliveries).
package orgshare

import "sync"

// InFlight is the count of attempts in flight by organization.
type InFlight struct {
	mu   sync.Mutex
	most int
	held map[string]int
}

// New returns counts that let each organization hold at most most.
func New(most int) *InFlight { return &InFlight{most: most, held: map[string]int{}} }

// Take counts one more attempt of the organization, unless it has its
// share in flight already.
func (f *InFlight) Take(orgID string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.held[orgID] >= f.most {
		return false
	}
	f.held[orgID]++
	return true
}

// Give ends an attempt counted by Take.
func (f *InFlight) Give(orgID string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.held[orgID]--; f.held[orgID] <= 0 {
		delete(f.held, orgID)
	}
}
