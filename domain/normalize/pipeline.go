package normalize

import (
	"context"
	"hash/maphash"
	"io"
	"runtime"
	"slices"
	"sync"
	"unsafe"

	"github.com/tabnorm/tabnorm/domain/normalize/coerce"
	"github.com/tabnorm/tabnorm/domain/rules"
	"github.com/tabnorm/tabnorm/domain/table"
)

// rowOut is one processed record.
type rowOut struct {
	number  int64
	ok      bool // no error-severity issue
	start   int  // row JSON in batch.json[start:end]
	end     int
	issues  []Issue
	uniques []uint64 // hash per unique field, 0 for null (slices batch.hashes)
	pk      uint64   // primary key hash, 0 when any part is null
	hasPK   bool
	edited  int32 // cells set by edits (in the padding after hasPK)
}

type batch struct {
	seq    int
	recs   []table.Record
	cells  []string // the cells of records the reader did not hand over owned
	text   []byte   // and their text
	owned  bool     // some records are the reader's own (held until cleared)
	rows   []rowOut
	json   []byte
	hashes []uint64       // backing store of every row's uniques
	bytes  int64          // reader position after this batch
	sc     coerce.Scratch // the coerced values of the row being processed
	// act is the rules stage's activation, bad its unreadable fields
	// (rules.go); failure stops the job (a reference list unreadable).
	act     *rules.Activation
	bad     []bool
	failure *Failure
	// hooks is what the validation hooks said of the batch (hooks.go).
	hooks hookWork
}

// pipeline carries one source's batches from the reader through the
// workers to the writer. Batches go round: a fixed set is filled,
// processed, written and filled again, so their memory is reused and the
// garbage collector has little to do.
type pipeline struct {
	ctx    context.Context
	cancel context.CancelFunc
	free   chan *batch // empty batches for the reader
	work   chan *batch // filled batches for the workers
	done   chan *batch // processed batches for the writer, in any order
	// readErr is the reader's error, read once done is closed (the reader
	// has stopped by then: work is closed before the workers end).
	readErr error
	// panicked is the first worker's panic, read once done is closed.
	panicked  *Failure
	panicOnce sync.Once
}

func newPipeline(ctx context.Context, p *plan) *pipeline {
	ctx, cancel := context.WithCancel(ctx)
	pl := &pipeline{ctx: ctx, cancel: cancel, work: make(chan *batch, 4), done: make(chan *batch, 4)}
	// There are enough batches for every place one can wait (the reader,
	// the two queues, each worker, the writer's reordering), and those
	// the hook requests out and being gathered hold.
	pl.free = make(chan *batch, 2*cap(pl.work)+3*max(1, runtime.GOMAXPROCS(0))+2+p.hookHeldBatches())
	for range cap(pl.free) {
		pl.free <- &batch{}
	}
	return pl
}

// read fills batches with the reader's records until its end, an error,
// or cancellation, and closes work.
func (pl *pipeline) read(r table.Reader) {
	defer close(pl.work)
	defer func() {
		if v := recover(); v != nil {
			pl.readErr = panicFailure(v)
		}
	}()
	for seq := 0; ; seq++ {
		var b *batch
		select {
		case b = <-pl.free:
		case <-pl.ctx.Done():
			return
		}
		b.seq, b.recs, b.cells, b.text = seq, b.recs[:0], b.cells[:0], b.text[:0]
		pl.readErr = b.fill(r)
		b.bytes = r.BytesRead()
		if len(b.recs) > 0 {
			select {
			case pl.work <- b:
			case <-pl.ctx.Done():
				return
			}
		}
		if len(b.recs) < batchSize || pl.readErr != nil || pl.ctx.Err() != nil {
			return // a short batch is the last
		}
	}
}

// fill reads up to batchSize records into the batch; it returns the
// reader's error, nil at the end of the file.
func (b *batch) fill(r table.Reader) error {
	for len(b.recs) < batchSize {
		rec, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if !rec.Owned {
			b.keep(&rec)
		} else {
			b.owned = true
		}
		b.recs = append(b.recs, rec)
	}
	return nil
}

// startWorkers processes batches on every processor, and closes done when
// all the workers have ended. With validation hooks, the processed
// batches go through a stage of their own (hookStage) before the writer,
// so the workers go on while batches wait for a hook's answer.
func (pl *pipeline) startWorkers(p *plan, seed maphash.Seed) {
	out := pl.done
	if len(p.hooks) > 0 {
		out = make(chan *batch, cap(pl.work))
		pl.startHookStage(p, seed, out)
	}
	var wg sync.WaitGroup
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Go(func() { pl.process(p, seed, out) })
	}
	go func() { wg.Wait(); close(out) }()
}

// hookStageRequests is how many hook requests may be out at once; each
// hook's own concurrency (its setting) is enforced by the application.
const hookStageRequests = 8

// hookHoldBatches is the most batches a request being gathered holds
// rows of: one sent short rather than wait for more when few of the
// batches' rows passed (the batches are few, and go round).
const hookHoldBatches = 4

// startHookStage sends processed batches through the hooks and on to
// the writer, and closes done when it has ended. It takes the batches in
// the order they were read and gathers each hook's requests from their
// accepted rows (hookAccumulator), so a request carries the hook's
// batch_size rows, not a batch's; a batch goes on once every request
// holding its rows has its answer, and the last, short request goes when
// the batches end.
func (pl *pipeline) startHookStage(p *plan, seed maphash.Seed, in chan *batch) {
	hs := &hookStage{pl: pl, p: p, seed: seed, slots: make(chan struct{}, hookStageRequests)}
	go func() {
		defer func() { hs.requests.Wait(); close(pl.done) }()
		defer pl.recoverWorker(in)
		hs.gather(in)
	}()
}

// hookStage is a source's hook stage (startHookStage).
type hookStage struct {
	pl       *pipeline
	p        *plan
	seed     maphash.Seed
	slots    chan struct{} // the requests out
	requests sync.WaitGroup
}

// gather takes the processed batches in the order they were read and
// adds their accepted rows to each hook's requests.
func (hs *hookStage) gather(in chan *batch) {
	accs := make([]*hookAccumulator, len(hs.p.hooks))
	for i := range accs {
		accs[i] = hs.p.hookAcc(i)
	}
	pending := map[int]*batch{}
	next := 0
	for b := range in {
		if hs.pl.ctx.Err() != nil {
			continue // the run is stopping
		}
		pending[b.seq] = b
		for nb, ok := pending[next]; ok; nb, ok = pending[next] {
			delete(pending, next)
			next++
			hs.add(accs, nb)
		}
	}
	if hs.pl.ctx.Err() == nil {
		for _, acc := range accs {
			acc.flush(hs.send)
		}
	}
}

// add adds a batch's accepted rows to the hooks' requests; a batch that
// fails the job goes on to the writer as it is.
func (hs *hookStage) add(accs []*hookAccumulator, b *batch) {
	hs.p.beginHooks(b)
	if b.failure == nil {
		for _, acc := range accs {
			if !acc.add(b, hs.send) || acc.held() >= hookHoldBatches && !acc.flush(hs.send) {
				break
			}
		}
	}
	hs.release(b)
}

// send sends a request once fewer than hookStageRequests are out; false
// when the run stops first.
func (hs *hookStage) send(r *hookRequest) bool {
	select {
	case hs.slots <- struct{}{}:
	case <-hs.pl.ctx.Done():
		return false
	}
	hs.requests.Go(func() {
		defer hs.pl.recoverRequest()
		hs.p.sendRequest(hs.pl.ctx, r)
		<-hs.slots
		for i := range r.spans {
			hs.release(r.spans[i].b)
		}
	})
	return true
}

// release lets go of a batch's reference; the last one finishes the
// batch and hands it to the writer.
func (hs *hookStage) release(b *batch) {
	if b.hooks.refs.Add(-1) != 0 {
		return
	}
	if b.failure == nil {
		hs.p.finishHooks(b, hs.seed)
	}
	select {
	case hs.pl.done <- b:
	case <-hs.pl.ctx.Done():
	}
}

// hookHeldBatches is how many batches the hook requests may hold: each
// request out holds rows of up to batch_size / batchSize + 2 batches
// (more when few rows pass, but the batches are few), and those being
// gathered up to hookHoldBatches.
func (p *plan) hookHeldBatches() int {
	if len(p.hooks) == 0 {
		return 0
	}
	most := 0
	for i := range p.hooks {
		most = max(most, p.hooks[i].BatchSize)
	}
	return hookStageRequests*(most/batchSize+2) + hookHoldBatches
}

// recoverRequest turns a hook request's panic into the job's failure.
func (pl *pipeline) recoverRequest() {
	if v := recover(); v != nil {
		pl.panicOnce.Do(func() { pl.panicked = panicFailure(v) })
		pl.cancel()
	}
}

// recoverWorker turns a stage's panic into the job's failure: it cancels
// the pipeline and lets the stage before it finish.
func (pl *pipeline) recoverWorker(in chan *batch) {
	if v := recover(); v != nil {
		pl.panicOnce.Do(func() { pl.panicked = panicFailure(v) })
		pl.cancel()
		for range in {
		}
	}
}

// process is one worker. A panic is the job's failure: it cancels the
// pipeline and lets the reader finish.
func (pl *pipeline) process(p *plan, seed maphash.Seed, out chan *batch) {
	defer pl.recoverWorker(pl.work) // lets the reader finish
	for b := range pl.work {
		if pl.ctx.Err() != nil {
			// Stopping: the reader stops at its next batch; work is
			// drained until then, so the reader has stopped (its readErr
			// read) when done is closed.
			continue
		}
		if b.hooks.edits != nil {
			b.hooks.reset(len(p.hooks)) // a batch used again is read without the last one's corrections
		}
		p.process(b, seed)
		select {
		case out <- b:
		case <-pl.ctx.Done():
		}
	}
}

// writeInOrder takes the processed batches in the order they were read,
// returns each to the reader, and drains the pipeline after a failure,
// which it returns.
func (w *writer) writeInOrder(pl *pipeline, p *plan, bytesBefore int64) error {
	pending := map[int]*batch{}
	next := 0
	var stop error
	for b := range pl.done {
		if stop != nil {
			continue // drain
		}
		pending[b.seq] = b
		for nb, ok := pending[next]; ok && stop == nil; nb, ok = pending[next] {
			delete(pending, next)
			next++
			if err := w.take(p, nb); err != nil {
				stop = err
				pl.cancel()
				break
			}
			w.res.Progress.BytesRead = bytesBefore + nb.bytes
			if nb.owned { // let go of the reader's records while the batch waits
				clear(nb.recs)
				nb.owned = false
			}
			pl.free <- nb
			w.report(false)
		}
		if stop == nil && pl.ctx.Err() != nil {
			stop = pl.ctx.Err()
		}
	}
	return stop
}

// keep copies a record the reader will reuse into the batch's own memory,
// which the batch reuses in turn once it is written. A string made here
// is valid only while the batch is: anything that outlives the batch (an
// entry in a cache) is cloned.
//
// When the reader gives the stretch of text the cells lie in (Record.Text,
// as the CSV reader does), the stretch is copied at once and the cells
// pointed into the copy, rather than copied one by one (BenchmarkBatchKeep:
// half the time).
func (b *batch) keep(rec *table.Record) {
	if rec.Text == "" || !b.keepText(rec) {
		b.keepCells(rec)
	}
}

// keepText copies rec.Text and re-points the cells into the copy; it
// returns false, keeping nothing, if a cell is not inside rec.Text.
func (b *batch) keepText(rec *table.Record) bool {
	if cap(b.text)-len(b.text) < len(rec.Text) {
		// A full buffer is left to the strings that use it.
		b.text = make([]byte, 0, max(2*cap(b.text), len(rec.Text), 64<<10))
	}
	at := len(b.text)
	b.text = append(b.text, rec.Text...)
	text := b.text[at:]
	start := len(b.cells)
	b.cells = slices.Grow(b.cells, len(rec.Cells))[:start+len(rec.Cells)]
	cells := b.cells[start:len(b.cells):len(b.cells)]
	from := uintptr(unsafe.Pointer(unsafe.StringData(rec.Text)))
	for i, c := range rec.Cells {
		if len(c) == 0 {
			cells[i] = ""
			continue
		}
		off := uintptr(unsafe.Pointer(unsafe.StringData(c))) - from
		if off > uintptr(len(text)) || uintptr(len(c)) > uintptr(len(text))-off {
			b.text, b.cells = b.text[:at], b.cells[:start]
			return false
		}
		cells[i] = unsafe.String(&text[off], len(c))
	}
	rec.Cells, rec.Text = cells, ""
	return true
}

// keepCells copies the cells one by one.
func (b *batch) keepCells(rec *table.Record) {
	size := 0
	for _, c := range rec.Cells {
		size += len(c)
	}
	if cap(b.text)-len(b.text) < size {
		b.text = make([]byte, 0, max(2*cap(b.text), size, 64<<10))
	}
	at := len(b.text)
	b.text = b.text[:at+size]
	start := len(b.cells)
	b.cells = slices.Grow(b.cells, len(rec.Cells))[:start+len(rec.Cells)]
	cells := b.cells[start:len(b.cells):len(b.cells)]
	for i, c := range rec.Cells {
		if len(c) == 0 {
			cells[i] = ""
			continue
		}
		copy(b.text[at:], c)
		cells[i] = unsafe.String(&b.text[at], len(c))
		at += len(c)
	}
	rec.Cells, rec.Text = cells, ""
}
