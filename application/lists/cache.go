package lists

import (
	"container/list"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// CacheBytes is how many bytes of list indexes a process keeps open and
// shares (each list's sparse index, and its values when it is small
// enough to be held in memory): the jobs it runs and the API's checks of
// rows (rejected rows, edits) look lists up through it, so a list is
// staged and indexed once per process, not once per request.
const CacheBytes = 256 << 20

// cache shares the open indexes of lists among their users. A list's
// values never change (a list is created whole and deleted, never
// updated), so an index stays right as long as the list exists. Entries
// in use are never closed; idle ones are closed, least recently used
// first, while the cache holds more than max bytes. When the lists in use
// alone exceed max, a list is opened from its file (its values not held
// in memory), so the bytes the cache holds stay near max.
type cache struct {
	mu      sync.Mutex
	max     int64
	used    int64 // bytes of the open entries
	dir     string
	entries map[string]*entry
	idle    *list.List // of *entry with no user, least recently used first
}

type entry struct {
	key   string
	ix    *Index
	path  string
	size  int64
	users int
	err   error
	ready chan struct{} // closed once ix or err is set
	idle  *list.Element // in cache.idle while it has no user
	gone  bool          // the list was deleted: close it once idle
}

func newCache(maxBytes int64) *cache {
	return &cache{max: maxBytes, entries: map[string]*entry{}, idle: list.New()}
}

// acquire returns the open index of the list stored at key, staging and
// indexing it when no user has it open; release gives it back. Users of
// the same list wait for one opening.
func (c *cache) acquire(ctx context.Context, key string, stage func(dir string) (string, error)) (*Index, func(), error) {
	c.mu.Lock()
	e, ok := c.entries[key]
	if ok {
		c.use(e)
		c.mu.Unlock()
		select {
		case <-e.ready:
		case <-ctx.Done():
			c.release(e)
			return nil, nil, ctx.Err()
		}
		if e.err != nil {
			c.release(e)
			return nil, nil, e.err
		}
		return e.ix, c.releaser(e), nil
	}
	e = &entry{key: key, users: 1, ready: make(chan struct{})}
	c.entries[key] = e
	dir, err := c.folder()
	budget := max(0, c.max-c.used)
	c.mu.Unlock()

	if err == nil {
		e.path, err = stage(dir)
	}
	if err == nil {
		budget = min(budget, inMemoryMax)
		e.ix, err = OpenIndex(e.path, &budget)
	}
	c.mu.Lock()
	if err != nil {
		e.err = err
		delete(c.entries, key) // the next user tries again
		c.removeFile(e)
	} else {
		e.size = e.ix.Bytes()
		c.used += e.size
		c.evict()
	}
	c.mu.Unlock()
	close(e.ready)
	if err != nil {
		c.release(e)
		return nil, nil, err
	}
	return e.ix, c.releaser(e), nil
}

// use counts one more user of e (c.mu held).
func (c *cache) use(e *entry) {
	e.users++
	if e.idle != nil {
		c.idle.Remove(e.idle)
		e.idle = nil
	}
}

func (c *cache) releaser(e *entry) func() {
	var once sync.Once
	return func() { once.Do(func() { c.release(e) }) }
}

// release gives back one use of e; an entry with no user left is idle,
// and closed at once when its list was deleted or the cache is over max.
func (c *cache) release(e *entry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e.users--
	if e.users > 0 || e.ix == nil {
		return
	}
	if e.gone {
		c.close(e)
		return
	}
	e.idle = c.idle.PushBack(e)
	c.evict()
}

// evict closes idle entries, least recently used first, while the cache
// holds more than max bytes (c.mu held).
func (c *cache) evict() {
	for c.used > c.max && c.idle.Len() > 0 {
		c.close(c.idle.Front().Value.(*entry))
	}
}

// close closes an idle entry and forgets it (c.mu held).
func (c *cache) close(e *entry) {
	if e.idle != nil {
		c.idle.Remove(e.idle)
		e.idle = nil
	}
	if c.entries[e.key] == e {
		delete(c.entries, e.key)
	}
	c.used -= e.size
	_ = e.ix.Close()
	c.removeFile(e)
}

// forget drops the list at key: closed now when idle, else when its last
// user releases it; a later acquire opens it anew.
func (c *cache) forget(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok {
		return
	}
	delete(c.entries, key)
	if e.ix == nil {
		return // still opening: its users release it as usual
	}
	if e.users == 0 {
		c.close(e)
		return
	}
	e.gone = true
}

// folder returns the cache's own folder for staged copies (c.mu held).
func (c *cache) folder() (string, error) {
	if c.dir == "" {
		dir, err := os.MkdirTemp("", "tabnorm-lists-")
		if err != nil {
			return "", err
		}
		c.dir = dir
	}
	return c.dir, nil
}

// removeFile removes an entry's staged copy, never the store's own file
// (a local store stages a list as its own file).
func (c *cache) removeFile(e *entry) {
	if e.path != "" && c.dir != "" && strings.HasPrefix(e.path, c.dir+string(filepath.Separator)) {
		_ = os.Remove(e.path)
	}
}
