package jobs

import (
	"context"
	"sync"
)

// Gate shares a node's slots for one kind of work (building a download,
// checking rows again) fairly among organizations: at most perOrg of one
// organization's at once and total in all. Waiters are served one
// organization at a time, the one holding the fewest slots first (in turn
// on ties), so an organization with many waiting requests delays
// another's next request by at most one slot's work, never by its whole
// queue. A waiter whose context ends leaves the line.
type Gate struct {
	mu      sync.Mutex
	total   int
	perOrg  int
	running int
	byOrg   map[string]int
	waiting map[string][]*gateWaiter // each organization's line, first come first
	turn    []string                 // organizations with waiters, the next to serve first
}

type gateWaiter struct {
	ready   chan struct{} // closed when the slot is granted
	granted bool
}

// NewGate returns a gate of total slots, perOrg of them at most for one
// organization (both at least 1).
func NewGate(total, perOrg int) *Gate {
	return &Gate{total: max(1, total), perOrg: max(1, min(perOrg, total)), byOrg: map[string]int{}, waiting: map[string][]*gateWaiter{}}
}

// Acquire waits for a slot for orgID; release gives it back (once).
func (g *Gate) Acquire(ctx context.Context, orgID string) (release func(), err error) {
	g.mu.Lock()
	if g.running < g.total && g.byOrg[orgID] < g.perOrg && len(g.waiting[orgID]) == 0 {
		g.grant(orgID)
		g.mu.Unlock()
		return g.releaser(orgID), nil
	}
	w := &gateWaiter{ready: make(chan struct{})}
	if len(g.waiting[orgID]) == 0 {
		g.turn = append(g.turn, orgID)
	}
	g.waiting[orgID] = append(g.waiting[orgID], w)
	g.mu.Unlock()

	select {
	case <-w.ready:
		return g.releaser(orgID), nil
	case <-ctx.Done():
		g.mu.Lock()
		if w.granted { // granted as the context ended: give it back
			g.mu.Unlock()
			g.release(orgID)
			return nil, ctx.Err()
		}
		g.leave(orgID, w)
		g.mu.Unlock()
		return nil, ctx.Err()
	}
}

// Running is how many slots are taken, and how many of them orgID holds.
func (g *Gate) Running(orgID string) (all, org int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.running, g.byOrg[orgID]
}

func (g *Gate) releaser(orgID string) func() {
	var once sync.Once
	return func() { once.Do(func() { g.release(orgID) }) }
}

func (g *Gate) grant(orgID string) {
	g.running++
	g.byOrg[orgID]++
}

func (g *Gate) release(orgID string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.running--
	if g.byOrg[orgID]--; g.byOrg[orgID] <= 0 {
		delete(g.byOrg, orgID)
	}
	g.serve()
}

// serve grants free slots to waiters, one organization at a time in turn
// (g.mu held).
func (g *Gate) serve() {
	for g.running < g.total {
		i := -1 // the waiting organization holding the fewest slots, the first in turn on ties
		for k, org := range g.turn {
			if n := g.byOrg[org]; n < g.perOrg && (i < 0 || n < g.byOrg[g.turn[i]]) {
				i = k
			}
		}
		if i < 0 {
			return // every waiting organization holds its share
		}
		org := g.turn[i]
		line := g.waiting[org]
		w := line[0]
		g.waiting[org] = line[1:]
		g.turn = append(g.turn[:i], g.turn[i+1:]...)
		if len(g.waiting[org]) == 0 {
			delete(g.waiting, org)
		} else {
			g.turn = append(g.turn, org) // its next waiter after the others'
		}
		g.grant(org)
		w.granted = true
		close(w.ready)
	}
}

// leave takes a waiter out of its organization's line (g.mu held).
func (g *Gate) leave(orgID string, w *gateWaiter) {
	line := g.waiting[orgID]
	for k, x := range line {
		if x == w {
			line = append(line[:k], line[k+1:]...)
			break
		}
	}
	if len(line) > 0 {
		g.waiting[orgID] = line
		return
	}
	delete(g.waiting, orgID)
	for k, org := range g.turn {
		if org == orgID {
			g.turn = append(g.turn[:k], g.turn[k+1:]...)
			break
		}
	}
}
