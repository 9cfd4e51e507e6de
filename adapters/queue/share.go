package queue

import "sync"

// orgShare counts what each organization holds of a node's workers, so
// that one organization cannot hold more than its share of them.
type orgShare struct {
	mu   sync.Mutex
	most int
	held map[string]int
}

func newOrgShare(most int) *orgShare { return &orgShare{most: most, held: map[string]int{}} }

// take counts one more worker for the organization, unless it holds its
// share already. An entry without an organization is not counted.
func (s *orgShare) take(orgID string) bool {
	if orgID == "" {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held[orgID] >= s.most {
		return false
	}
	s.held[orgID]++
	return true
}

// give returns a worker taken by take.
func (s *orgShare) give(orgID string) {
	if orgID == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held[orgID]--; s.held[orgID] <= 0 {
		delete(s.held, orgID)
	}
}
