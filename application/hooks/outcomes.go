package hooks

import (
	"sync"
	"time"
)

// RecentBatches is how many of a hook's last batches Outcomes keeps.
const RecentBatches = 10

// Outcome is how one batch sent to a hook went.
type Outcome struct {
	At time.Time
	// Status is the request's outcome (ports.HookObserver's: succeeded,
	// refused, failed or error) of the batch's last attempt.
	Status  string
	Latency time.Duration
	Rows    int
	// Error is why the batch failed ("" when it did not).
	Error string
}

// Outcomes keeps each hook's last batches on this node, newest first, for
// the hook's page and the schema's (the dashboard): what a job's result
// says per job, this says per hook. The Caller writes, the Registry reads;
// a hook's id is unique, so the Registry's read of the hook (in its
// organization) is the only check needed.
type Outcomes struct {
	mu     sync.Mutex
	byHook map[string][]Outcome
}

// NewOutcomes returns an empty record.
func NewOutcomes() *Outcomes { return &Outcomes{byHook: map[string][]Outcome{}} }

func (o *Outcomes) add(hookID string, out Outcome) {
	if o == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	list := o.byHook[hookID]
	if len(list) < RecentBatches {
		list = append(list, Outcome{})
	}
	copy(list[1:], list)
	list[0] = out
	o.byHook[hookID] = list
}

// Of returns a hook's last batches, newest first.
func (o *Outcomes) Of(hookID string) []Outcome {
	if o == nil {
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]Outcome(nil), o.byHook[hookID]...)
}

// forget drops a deleted hook's record.
func (o *Outcomes) forget(hookID string) {
	if o == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.byHook, hookID)
}
