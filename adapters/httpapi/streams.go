package httpapi

import (
	"fmt"
	"sync"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/identity"
)

// StreamLimits cap the job event streams open at once on a node: per
// credential (an API key, a dashboard session or an import session), per
// organization and over the node. A stream holds a connection, a file
// descriptor and a goroutine for as long as its job runs, so without a cap
// one credential could take a node's descriptors and memory from everyone.
type StreamLimits struct {
	PerCredential int // TABNORM_MAX_STREAMS_PER_KEY (100)
	PerOrg        int // TABNORM_MAX_STREAMS_PER_ORG (500)
	PerNode       int // TABNORM_MAX_STREAMS_PER_NODE (5,000)
}

// streamRetryAfter is the Retry-After of a refused stream: streams end
// with their jobs, so a slot is not expected sooner.
const streamRetryAfter = 10

// streamSlots counts the open streams by credential, by organization and
// over the node; a slot is taken before a stream starts and given back
// when it ends.
type streamSlots struct {
	cfg    StreamLimits
	mu     sync.Mutex
	byCred map[string]int
	byOrg  map[string]int
	total  int
}

func newStreamSlots(cfg StreamLimits) *streamSlots {
	if cfg.PerCredential <= 0 {
		cfg.PerCredential = 100
	}
	if cfg.PerOrg <= 0 {
		cfg.PerOrg = 500
	}
	if cfg.PerNode <= 0 {
		cfg.PerNode = 5000
	}
	return &streamSlots{cfg: cfg, byCred: map[string]int{}, byOrg: map[string]int{}}
}

// take reserves a slot for p's stream, or returns too_many_streams naming
// the cap that is full. release gives the slot back, once.
func (s *streamSlots) take(p identity.Principal) (release func(), err error) {
	cred, org := credentialKey(p), p.OrgID
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.byCred[cred] >= s.cfg.PerCredential:
		return nil, tooManyStreams("this credential (key, session or import session)", s.cfg.PerCredential)
	case s.byOrg[org] >= s.cfg.PerOrg:
		return nil, tooManyStreams("this organization", s.cfg.PerOrg)
	case s.total >= s.cfg.PerNode:
		return nil, tooManyStreams("this node", s.cfg.PerNode)
	}
	s.byCred[cred]++
	s.byOrg[org]++
	s.total++
	var once sync.Once
	return func() { once.Do(func() { s.give(cred, org) }) }, nil
}

func (s *streamSlots) give(cred, org string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byCred[cred]--; s.byCred[cred] <= 0 {
		delete(s.byCred, cred)
	}
	if s.byOrg[org]--; s.byOrg[org] <= 0 {
		delete(s.byOrg, org)
	}
	s.total--
}

func tooManyStreams(whose string, most int) error {
	return &domain.Error{Kind: domain.ErrTooMany, Code: domain.CodeTooManyStreams, RetryAfter: streamRetryAfter,
		Message: fmt.Sprintf("Too many event streams open for %s (at most %d); close one, or retry after the number of seconds in Retry-After.", whose, most)}
}
