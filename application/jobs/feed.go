package jobs

import (
	"context"
	"sync"

	"github.com/tabnorm/tabnorm/ports"
)

// feeds shares one subscription and one read of the store per job and node
// among all of the node's followers of that job: with a thousand streams
// on one job, a notice costs one query, not a thousand.
type feeds struct {
	mu sync.Mutex
	by map[string]*feed
}

type feed struct {
	followers map[chan []ports.Event]struct{}
	last      int
	stop      func()
}

// Follow returns a channel of the job's new events (in order, possibly
// with gaps when the follower falls behind: the caller reads the store to
// fill them) and a function that ends following.
func (r *Reader) Follow(jobID string, after int) (<-chan []ports.Event, func()) {
	f := &r.feeds
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.by == nil {
		f.by = map[string]*feed{}
	}
	fd := f.by[jobID]
	if fd == nil {
		notices, unsubscribe := r.bus.Subscribe(jobID)
		ctx, cancel := context.WithCancel(context.Background())
		fd = &feed{followers: map[chan []ports.Event]struct{}{}, last: after, stop: func() { cancel(); unsubscribe() }}
		f.by[jobID] = fd
		go r.pump(ctx, jobID, fd, notices)
	}
	ch := make(chan []ports.Event, 16)
	fd.followers[ch] = struct{}{}
	return ch, func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		delete(fd.followers, ch)
		if len(fd.followers) == 0 && f.by[jobID] == fd {
			delete(f.by, jobID)
			fd.stop()
		}
	}
}

// pump reads the job's new events once per notice and hands them to every
// follower; a follower whose channel is full misses them and catches up
// from the store.
func (r *Reader) pump(ctx context.Context, jobID string, fd *feed, notices <-chan int) {
	f := &r.feeds
	for {
		select {
		case <-ctx.Done():
			return
		case <-notices:
		}
		f.mu.Lock()
		after := fd.last
		f.mu.Unlock()
		evs, err := r.events.After(ctx, jobID, after)
		if err != nil || len(evs) == 0 {
			continue
		}
		f.mu.Lock()
		fd.last = evs[len(evs)-1].Seq
		for ch := range fd.followers {
			select {
			case ch <- evs:
			default:
			}
		}
		f.mu.Unlock()
	}
}
