// Package spill is a unique-value index that keeps memory flat: it holds
// up to a fixed number of 64-bit hashes in memory and spills the rest to
// sorted run files on disk, each with a Bloom filter and a sparse index in
// memory, so a lookup touches the disk only for about one hash in two
// thousand, and then reads one small block.
package spill

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"os"
	"slices"
	"sort"

	"github.com/tabnorm/tabnorm/domain/normalize"
)

const (
	// A blocked Bloom filter: all probes of a hash fall in one 64-byte
	// block, so a lookup costs one cache miss per run, not one per probe.
	// 16 bits an entry and 7 probes give about 0.1 % false positives.
	bloomBitsPerEntry = 16
	bloomProbes       = 7
	blockEntries      = 512 // hashes per block of a run file (4 KiB)
)

// Index implements normalize.UniqueIndex.
type Index struct {
	dir    string
	memMax int
	mem    *normalize.MemoryIndex
	runs   []*run
	err    error  // the first disk error; Has and Add then refuse nothing new
	block  []byte // a run's block read from disk
}

var _ normalize.UniqueIndex = (*Index)(nil)

// New returns an index that keeps at most memMax hashes in memory and
// writes the rest under dir.
func New(dir string, memMax int) *Index {
	memMax = max(memMax, blockEntries)
	return &Index{dir: dir, memMax: memMax, mem: normalize.NewMemoryIndexSized(memMax), block: make([]byte, 8*blockEntries)}
}

// run is one spilled batch of hashes, sorted by key.
type run struct {
	f      *os.File
	n      int
	bloom  []uint64
	sparse []uint64 // the first key of every block
	shift  int      // see key
}

// Has implements normalize.UniqueIndex.
func (x *Index) Has(h uint64) bool {
	if x.mem.Has(h) {
		return true
	}
	for _, r := range x.runs {
		if r.has(h, x) {
			return true
		}
	}
	return false
}

// Add implements normalize.UniqueIndex.
func (x *Index) Add(h uint64) bool {
	for _, r := range x.runs {
		if r.has(h, x) {
			return false
		}
	}
	if !x.mem.Add(h) { // one probe of the table, not a lookup and then an insert
		return false
	}
	if x.mem.Len() >= x.memMax && x.err == nil {
		if err := x.spill(); err != nil {
			x.err = err
		}
	}
	return true
}

// Err reports the first disk error (the index then kept growing in memory).
func (x *Index) Err() error { return x.err }

// spill writes the in-memory hashes as a sorted run and empties the table,
// which sorts them in its own memory, so a spill needs little more than
// the run's Bloom filter and a small write buffer.
//
// A run is sorted by key, the hash rotated so that the bits that pick its
// slot in the table come first: the table hands its hashes over in slot
// order, so the keys come nearly sorted and sorting them is a short
// insertion sort. The engine's writer, and with it the pipeline, waits for
// a spill: BenchmarkSpill, 700k hashes, 30 ms (105 ms sorting the hashes
// themselves).
func (x *Index) spill() error {
	f, err := os.CreateTemp(x.dir, "unique-*.run")
	if err != nil {
		return fmt.Errorf("spill unique index: %w", err)
	}
	_ = os.Remove(f.Name()) // unlinked: the file goes with its descriptor
	shift := bits.TrailingZeros(uint(x.mem.Slots()))
	var r *run
	err = x.mem.Flush(func(hs []uint64) error {
		words := (len(hs)*bloomBitsPerEntry + 511) / 512 * 8 // whole 512-bit blocks
		r = &run{f: f, n: len(hs), bloom: make([]uint64, words), shift: shift}
		for i, h := range hs {
			r.setBloom(h)
			hs[i] = r.key(h)
		}
		sortNearlySorted(hs)
		buf := make([]byte, 0, 64<<10)
		for i, k := range hs {
			buf = binary.LittleEndian.AppendUint64(buf, k)
			if i%blockEntries == 0 {
				r.sparse = append(r.sparse, k)
			}
			if len(buf) == cap(buf) || i == len(hs)-1 {
				if _, err := f.Write(buf); err != nil {
					for i, k := range hs {
						hs[i] = bits.RotateLeft64(k, shift) // the hashes back, for the table to keep
					}
					return err
				}
				buf = buf[:0]
			}
		}
		return nil
	})
	if err != nil {
		_ = f.Close()
		return fmt.Errorf("spill unique index: %w", err)
	}
	x.runs = append(x.runs, r)
	return nil
}

// key is the order of a run's hashes: h with its slot bits first.
func (r *run) key(h uint64) uint64 { return bits.RotateLeft64(h, -r.shift) }

// sortNearlySorted sorts keys that are nearly in order by insertion, which
// costs a step for each place a key is out of it; keys far from order (the
// table's last cluster wraps round to its start) make it give up and use
// slices.Sort.
func sortNearlySorted(a []uint64) {
	budget := 8 * len(a)
	for i := 1; i < len(a); i++ {
		k := a[i]
		j := i
		for j > 0 && a[j-1] > k {
			a[j] = a[j-1]
			j--
		}
		a[j] = k
		if budget -= i - j; budget < 0 {
			slices.Sort(a)
			return
		}
	}
}

// block returns the first word of h's 512-bit block and the bits to probe
// in it (9 bits each, from a second mix of the hash).
func (r *run) block(h uint64) (int, uint64) {
	blocks := uint64(len(r.bloom) / 8)
	return int((h>>32)%blocks) * 8, h * 0x9E3779B97F4A7C15
}

func (r *run) setBloom(h uint64) {
	base, probes := r.block(h)
	for i := range bloomProbes {
		b := (probes >> (9 * i)) & 511
		r.bloom[base+int(b/64)] |= 1 << (b % 64)
	}
}

func (r *run) has(h uint64, x *Index) bool {
	base, probes := r.block(h)
	for i := range bloomProbes {
		b := (probes >> (9 * i)) & 511
		if r.bloom[base+int(b/64)]&(1<<(b%64)) == 0 {
			return false
		}
	}
	// Maybe: find the block by the sparse index and read it.
	h = r.key(h)
	blk := sort.Search(len(r.sparse), func(i int) bool { return r.sparse[i] > h }) - 1
	if blk < 0 {
		return false
	}
	start := blk * blockEntries
	n := min(blockEntries, r.n-start)
	buf := x.block[:8*n]
	if _, err := r.f.ReadAt(buf, int64(8*start)); err != nil {
		if x.err == nil {
			x.err = fmt.Errorf("read unique index: %w", err)
		}
		return false
	}
	i := sort.Search(n, func(i int) bool { return binary.LittleEndian.Uint64(buf[8*i:]) >= h })
	return i < n && binary.LittleEndian.Uint64(buf[8*i:]) == h
}

// Close releases the run files.
func (x *Index) Close() error {
	for _, r := range x.runs {
		_ = r.f.Close()
	}
	x.runs = nil
	return x.err
}

// DefaultMemory is how many hashes an index keeps in memory before it
// spills: its open-addressing table then stays at 1M slots (8 MiB), just
// under the size at which it would double.
const DefaultMemory = 700_000

// Factory returns a maker of indexes that spill under dir (os.TempDir
// when dir is "").
func Factory(dir string) func() normalize.UniqueIndex {
	if dir == "" {
		dir = os.TempDir()
	}
	return func() normalize.UniqueIndex { return New(dir, DefaultMemory) }
}
