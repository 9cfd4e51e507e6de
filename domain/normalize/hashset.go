package normalize

import "slices"

// UniqueIndex remembers the 64-bit hashes of accepted unique values and
// primary keys. The engine keeps one per unique field and one for the
// primary key; the default is in memory (NewMemoryIndex), and callers with
// disk space pass one that spills, so memory stays flat however many rows
// a file has.
type UniqueIndex interface {
	Has(h uint64) bool
	// Add inserts h (never 0) and reports whether it was new.
	Add(h uint64) bool
	Close() error
}

// NewMemoryIndex returns the in-memory index.
func NewMemoryIndex() *MemoryIndex { return &MemoryIndex{} }

// NewMemoryIndexSized returns an in-memory index with room for n hashes
// before it first grows, so filling it rehashes nothing.
func NewMemoryIndexSized(n int) *MemoryIndex {
	size := 1024
	for size*3 < n*4+4 { // keep the load under 3/4 at n members
		size *= 2
	}
	return &MemoryIndex{slots: make([]uint64, size)}
}

// MemoryIndex is a UniqueIndex held in memory.
type MemoryIndex = hashSet

// Has implements UniqueIndex.
func (s *hashSet) Has(h uint64) bool { return s.has(h) }

// Add implements UniqueIndex.
func (s *hashSet) Add(h uint64) bool { return s.add(h) }

// Close implements UniqueIndex.
func (s *hashSet) Close() error { return nil }

// Len is how many hashes the set holds.
func (s *hashSet) Len() int { return s.n }

// Each calls fn with every hash in the set.
func (s *hashSet) Each(fn func(uint64)) {
	for _, h := range s.slots {
		if h != 0 {
			fn(h)
		}
	}
}

// Flush hands fn the set's hashes, in the order of the table's slots and
// in the set's own memory, and empties the set, which keeps that memory
// for the hashes to come: a spilling index writes a full set out with no
// copy of it. fn may reorder the hashes; if it fails, it leaves them in
// hs, and the set keeps them.
func (s *hashSet) Flush(fn func(hs []uint64) error) error {
	n := 0
	for _, h := range s.slots {
		if h != 0 {
			s.slots[n] = h
			n++
		}
	}
	hs := s.slots[:n]
	err := fn(hs)
	var keep []uint64
	if err != nil {
		keep = slices.Clone(hs)
	}
	clear(s.slots)
	s.n = 0
	for _, h := range keep {
		s.add(h)
	}
	return err
}

// Slots is the size of the set's table: a power of two, whose bits
// (h & (Slots()-1)) pick the slot where h's probe starts.
func (s *hashSet) Slots() int { return len(s.slots) }

// hashSet is a set of non-zero 64-bit hashes with open addressing: about
// 8 to 16 bytes a member (a Go map costs about twice that, and more time),
// which is what bounds memory for unique columns and primary keys.
type hashSet struct {
	slots []uint64
	n     int
}

// add inserts h and reports whether it was new. h must not be 0.
func (s *hashSet) add(h uint64) bool {
	if s.n*4 >= len(s.slots)*3 { // keep the load under 3/4
		s.grow()
	}
	mask := uint64(len(s.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case 0:
			s.slots[i] = h
			s.n++
			return true
		case h:
			return false
		}
	}
}

func (s *hashSet) grow() {
	old := s.slots
	size := max(1024, len(old)*2)
	s.slots, s.n = make([]uint64, size), 0
	for _, h := range old {
		if h != 0 {
			s.add(h)
		}
	}
}

// has reports whether h is in the set.
func (s *hashSet) has(h uint64) bool {
	if len(s.slots) == 0 {
		return false
	}
	mask := uint64(len(s.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case 0:
			return false
		case h:
			return true
		}
	}
}
