package lists

import (
	"bufio"
	"bytes"
	"container/heap"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
)

// A list's values are stored as one blob: the distinct values sorted
// bytewise, one a line. A job stages the blob as a local file and keeps
// only a sparse index in memory (the first value of each block of about
// blockSize bytes); a lookup binary-searches the index and reads one
// block from the file. A 10M-value list of 12-byte values is a ~130 MB
// file and ~3 MB of heap.

// blockSize is the bytes of a block of the staged file a lookup reads.
const blockSize = 1024

// inMemoryMax is the largest staged file a job reads into memory whole
// (one byte slice, no strings): a lookup then needs no read from the
// file, only a binary search and a scan of a quarter block. A 1M-value
// list of short codes is about 8 MB; a 10M-value one stays on disk.
const inMemoryMax = 32 << 20

// runBytes is how much of an upload is sorted in memory at a time; the
// sorted runs are spilled to files and merged.
const runBytes = 16 << 20

// sorter sorts an upload's values in bounded memory: values are sorted
// in runs of runBytes, spilled to files in dir, and merged.
type sorter struct {
	dir   string
	limit int // runBytes
	run   []string
	bytes int
	files []string
}

func (s *sorter) add(v string) error {
	s.run = append(s.run, v)
	s.bytes += len(v) + 16
	if s.bytes >= s.limit {
		return s.spill()
	}
	return nil
}

func (s *sorter) spill() error {
	slices.Sort(s.run)
	f, err := os.CreateTemp(s.dir, "run-*")
	if err != nil {
		return fmt.Errorf("spill a run of list values: %w", err)
	}
	w := bufio.NewWriter(f)
	for _, v := range slices.Compact(s.run) {
		_, _ = w.WriteString(v)
		_ = w.WriteByte('\n')
	}
	err = w.Flush()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	s.files = append(s.files, f.Name())
	s.run, s.bytes = s.run[:0], 0
	return err
}

// write merges the runs and the values in memory into w, each distinct
// value once, and returns how many there are.
func (s *sorter) write(w io.Writer) (int64, error) {
	if len(s.files) > 0 && len(s.run) > 0 {
		if err := s.spill(); err != nil {
			return 0, err
		}
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	var n int64
	var last []byte
	emit := func(v []byte) {
		if n > 0 && bytes.Equal(v, last) {
			return
		}
		last = append(last[:0], v...)
		n++
		_, _ = bw.Write(v)
		_ = bw.WriteByte('\n')
	}
	if len(s.files) == 0 {
		slices.Sort(s.run)
		for _, v := range s.run {
			emit([]byte(v))
		}
	} else if err := s.merge(emit); err != nil {
		return 0, err
	}
	return n, bw.Flush()
}

// merge reads the runs in order, smallest value first.
func (s *sorter) merge(emit func([]byte)) error {
	h := &runHeap{}
	for _, name := range s.files {
		f, err := os.Open(name)
		if err != nil {
			return fmt.Errorf("read a run of list values: %w", err)
		}
		defer func() { _ = f.Close() }()
		r := &runReader{sc: bufio.NewScanner(f)}
		r.sc.Buffer(make([]byte, 0, 64<<10), MaxValueBytes+2)
		if r.next() {
			heap.Push(h, r)
		} else if r.sc.Err() != nil {
			return r.sc.Err()
		}
	}
	for h.Len() > 0 {
		r := (*h)[0]
		emit(r.cur)
		if r.next() {
			heap.Fix(h, 0)
			continue
		}
		if err := r.sc.Err(); err != nil {
			return err
		}
		heap.Pop(h)
	}
	return nil
}

// cleanup removes the spilled runs.
func (s *sorter) cleanup() {
	for _, name := range s.files {
		_ = os.Remove(name)
	}
}

type runReader struct {
	sc  *bufio.Scanner
	cur []byte
}

func (r *runReader) next() bool {
	if !r.sc.Scan() {
		return false
	}
	r.cur = r.sc.Bytes()
	return true
}

type runHeap []*runReader

func (h runHeap) Len() int           { return len(h) }
func (h runHeap) Less(i, j int) bool { return bytes.Compare(h[i].cur, h[j].cur) < 0 }
func (h runHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *runHeap) Push(x any)        { *h = append(*h, x.(*runReader)) }
func (h *runHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Index answers membership in a staged list file with a sparse index in
// memory. It is safe for concurrent use.
type Index struct {
	f      *os.File
	data   []byte   // the whole file, when it is at most inMemoryMax
	first  []string // the first value of each block
	offset []int64  // where each block starts; one more: the file's end
	pool   sync.Pool
	err    error // of scan
}

// OpenIndex reads a staged list file once to build its sparse index,
// and keeps the file in memory when it is at most inMemoryMax bytes and
// budget, which it then takes from budget: the lists of one job share
// one budget (JobMemoryBudget; the service's shared indexes, what is left of
// CacheBytes), the others are read from their files.
func OpenIndex(path string, budget *int64) (*Index, error) {
	limit := min(int64(inMemoryMax), *budget)
	ix, err := openIndex(path, limit)
	if err == nil && ix.data != nil {
		*budget -= int64(len(ix.data))
	}
	return ix, err
}

// JobMemoryBudget is how many bytes of lists one job holds in memory.
const JobMemoryBudget = 2 * inMemoryMax

func openIndex(path string, memMax int64) (*Index, error) {
	f, err := os.Open(filepath.Clean(path))
	if err != nil {
		return nil, fmt.Errorf("open a list: %w", err)
	}
	ix := &Index{f: f}
	ix.pool.New = func() any { b := make([]byte, 0, 2*blockSize+MaxValueBytes); return &b }
	block := int64(blockSize)
	var r io.Reader = f
	if st, err := f.Stat(); err == nil && st.Size() <= memMax {
		if ix.data, err = io.ReadAll(f); err != nil {
			_ = f.Close()
			return nil, fmt.Errorf("read a list: %w", err)
		}
		r, block = bytes.NewReader(ix.data), blockSize/4
	}
	ix.scan(bufio.NewReaderSize(r, 256<<10), block)
	if ix.err != nil {
		_ = f.Close()
		return nil, ix.err
	}
	return ix, nil
}

// scan builds the sparse index: a block starts at the first value at
// least block bytes after the previous block's start.
func (ix *Index) scan(r *bufio.Reader, block int64) {
	var at, blockStart int64 = 0, -1
	for {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			ix.err = errors.New("open a list: a value is too long")
			return
		}
		if len(line) > 0 {
			if blockStart < 0 || at-blockStart >= block {
				blockStart = at
				ix.first = append(ix.first, string(bytes.TrimSuffix(line, []byte{'\n'})))
				ix.offset = append(ix.offset, at)
			}
			at += int64(len(line))
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			ix.err = fmt.Errorf("read a list: %w", err)
			return
		}
	}
	ix.offset = append(ix.offset, at)
}

// Contains reports whether v is in the list: one binary search in memory
// and one read of a block.
func (ix *Index) Contains(v string) (bool, error) {
	i := sort.SearchStrings(ix.first, v) // the first block starting at or after v
	if i < len(ix.first) && ix.first[i] == v {
		return true, nil
	}
	if i == 0 {
		return false, nil // before the first value
	}
	i-- // v would be in the block before
	if ix.data != nil {
		return inBlock(ix.data[ix.offset[i]:ix.offset[i+1]], v), nil
	}
	bp := ix.pool.Get().(*[]byte)
	defer ix.pool.Put(bp)
	n := int(ix.offset[i+1] - ix.offset[i])
	buf := slices.Grow((*bp)[:0], n)[:n]
	*bp = buf
	if _, err := ix.f.ReadAt(buf, ix.offset[i]); err != nil {
		return false, fmt.Errorf("read a list: %w", err)
	}
	return inBlock(buf, v), nil
}

// inBlock scans a block's sorted lines for v.
func inBlock(buf []byte, v string) bool {
	for len(buf) > 0 {
		end := bytes.IndexByte(buf, '\n')
		if end < 0 {
			end = len(buf)
		}
		line := buf[:end]
		if len(line) == len(v) && string(line) == v {
			return true
		}
		if string(line) > v {
			return false
		}
		buf = buf[min(end+1, len(buf)):]
	}
	return false
}

// Bytes is about how much memory the index holds: the values when they
// are in memory, and the sparse index.
func (ix *Index) Bytes() int64 {
	n := int64(len(ix.data)) + int64(cap(ix.offset))*8 + int64(cap(ix.first))*16
	for _, v := range ix.first {
		n += int64(len(v))
	}
	return n
}

// Close closes the staged file.
func (ix *Index) Close() error { return ix.f.Close() }

// BuildIndex sorts the values next hands out (as Create does) into a
// file in dir and opens its index: the offline command's lists.
func BuildIndex(next Values, dir string, budget *int64) (*Index, int64, error) {
	srt := &sorter{dir: dir, limit: runBytes}
	defer srt.cleanup()
	if err := readValues(next, srt); err != nil {
		return nil, 0, err
	}
	f, err := os.CreateTemp(dir, "list-*")
	if err != nil {
		return nil, 0, fmt.Errorf("write a list: %w", err)
	}
	n, err := srt.write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, 0, fmt.Errorf("write a list: %w", err)
	}
	ix, err := OpenIndex(f.Name(), budget)
	return ix, n, err
}
