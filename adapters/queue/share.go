package queue

import (
	"encoding/json"
	"math/rand/v2"
	"sync"
	"time"
)

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

// backoff is how long an entry whose organization holds its share waits
// before it is fetched again: a second the first time, doubling with each
// wait up to most, with some jitter, so that a backlog that cannot run
// yet (endpoints that never answer) is not fetched and put back many
// times a second. metadata is River's, which counts the entry's snoozes.
func backoff(metadata []byte, most time.Duration) time.Duration {
	wait := min(time.Second<<min(snoozes(metadata), 10), most)
	return wait + rand.N(wait/4+1)
}

// snoozes is how many times an entry waited, from its metadata.
func snoozes(metadata []byte) int {
	var m struct {
		Snoozes int `json:"snoozes"`
	}
	_ = json.Unmarshal(metadata, &m) // no count: none
	return max(m.Snoozes, 0)
}
