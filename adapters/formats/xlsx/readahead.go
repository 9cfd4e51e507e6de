package xlsx

import (
	"io"
	"sync"
)

// readAhead inflates a zip part in a goroutine of its own, a few blocks
// ahead of the scanner: inflating is about half the work of reading a
// sheet, and on two cores the two halves overlap.
type readAhead struct {
	src     io.ReadCloser
	full    chan block
	free    chan []byte
	done    chan struct{}
	cur     block
	off     int
	err     error
	stopped sync.Once
	wg      sync.WaitGroup
}

type block struct {
	b   []byte
	err error
}

const (
	readAheadBlock  = 256 << 10
	readAheadBlocks = 4
)

func newReadAhead(src io.ReadCloser) *readAhead {
	r := &readAhead{src: src, full: make(chan block, readAheadBlocks), free: make(chan []byte, readAheadBlocks), done: make(chan struct{})}
	for range readAheadBlocks {
		r.free <- make([]byte, readAheadBlock)
	}
	r.wg.Add(1)
	go r.fill()
	return r
}

func (r *readAhead) fill() {
	defer r.wg.Done()
	for {
		var buf []byte
		select {
		case buf = <-r.free:
		case <-r.done:
			return
		}
		n, err := io.ReadFull(r.src, buf)
		if err == io.ErrUnexpectedEOF {
			err = io.EOF
		}
		select {
		case r.full <- block{buf[:n], err}:
		case <-r.done:
			return
		}
		if err != nil {
			return
		}
	}
}

func (r *readAhead) Read(p []byte) (int, error) {
	for r.off == len(r.cur.b) {
		if r.err != nil {
			return 0, r.err
		}
		if r.cur.b != nil {
			r.free <- r.cur.b[:cap(r.cur.b)]
		}
		r.cur, r.off = <-r.full, 0
		r.err = r.cur.err
	}
	n := copy(p, r.cur.b[r.off:])
	r.off += n
	return n, nil
}

// Close stops the goroutine and closes the part.
func (r *readAhead) Close() error {
	r.stopped.Do(func() { close(r.done) })
	r.wg.Wait()
	return r.src.Close()
}
