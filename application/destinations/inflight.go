package destinations

import "sync"

// inFlight counts each organization's attempts in flight on this
// process, so that one organization's destinations that never answer hold
// at most its share of the delivery workers.
type inFlight struct {
	mu   sync.Mutex
	most int
	held map[string]int
}

func newInFlight(most int) *inFlight { return &inFlight{most: most, held: map[string]int{}} }

// take counts one more attempt of the organization, unless it has its
// share in flight already.
func (f *inFlight) take(orgID string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.held[orgID] >= f.most {
		return false
	}
	f.held[orgID]++
	return true
}

// give ends an attempt counted by take.
func (f *inFlight) give(orgID string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.held[orgID]--; f.held[orgID] <= 0 {
		delete(f.held, orgID)
	}
}
