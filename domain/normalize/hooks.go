package normalize

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/hook"
)

// Hook is a validation hook as a run sees it: the organization's service
// that checks rows and may correct them. The application implements it
// (application/hooks: signing, limits, retries); Check returns the
// answers already checked by hook.ParseAnswer, or an error when the batch
// got no usable answer.
type Hook interface {
	Check(ctx context.Context, rows []hook.Row) ([]hook.Answer, error)
}

// HookUse is one of the schema's hooks, opened for a run.
type HookUse struct {
	Name      string
	Fields    []string // sent, and the only ones it may correct; none: every field sent
	BatchSize int
	OnError   string // hook.FailJob, hook.FlagRows or hook.Skip
	Hook      Hook
}

// HookStats is what a run did with one hook.
type HookStats struct {
	Name          string
	Batches       int64 // requests that got an answer or failed
	RowsSent      int64
	Issues        int64 // issues the hook returned
	ValuesChanged int64 // corrections applied
	Failures      int64 // batches without a usable answer
	Time          time.Duration
	// FirstFailure is why the first failed batch failed ("" when none did).
	FirstFailure string
}

// hookWork is what the hooks said of a batch, kept across the batch's
// second pass when they corrected values. A batch's rows may share a
// request with the rows of the batches next to it, so the requests'
// answers are added under mu.
type hookWork struct {
	mu    sync.Mutex
	stats []HookStats
	// issues are the hooks' issues by row, and rejected the rows one of
	// them rejected.
	issues   map[int64][]Issue
	rejected map[int64]bool
	// edits are the corrections by row, applied as edits (cellEdit.hook).
	edits map[int64][]cellEdit
	// skipped: the hooks whose batch failed under on_error skip.
	skipped []bool
	// refs counts what the batch waits for before it is finished: the
	// requests holding some of its rows, and the stage adding them.
	refs atomic.Int32
}

func (hw *hookWork) reset(n int) {
	if hw.stats == nil {
		hw.stats = make([]HookStats, n)
		hw.skipped = make([]bool, n)
	}
	clear(hw.stats)
	clear(hw.skipped)
	hw.issues, hw.rejected, hw.edits = nil, nil, nil
}

// beginHooks readies a processed batch for its hooks.
func (p *plan) beginHooks(b *batch) {
	hw := &b.hooks
	hw.reset(len(p.hooks))
	for i := range p.hooks {
		hw.stats[i].Name = p.hooks[i].Name
	}
	hw.refs.Store(1)
}

// runHooks sends a processed batch's accepted rows through every hook,
// one request after another (a check of edited rows: the run's pipeline
// sends requests of several batches, startHookStage), then adds what
// they said (finishHooks).
func (p *plan) runHooks(ctx context.Context, b *batch, seed maphash.Seed) {
	p.beginHooks(b)
	send := func(r *hookRequest) bool { return p.sendRequest(ctx, r) }
	for i := range p.hooks {
		acc := p.hookAcc(i)
		if !acc.add(b, send) || !acc.flush(send) {
			return // the job fails (b.failure)
		}
	}
	p.finishHooks(b, seed)
}

// finishHooks adds what the hooks said of a batch once every request
// holding its rows has its answer: their issues (an error rejects the
// row), and their corrections, which the batch is processed again with,
// each corrected cell read as an edit (coerced and checked again) and
// recorded as the warning hook_corrected.
func (p *plan) finishHooks(b *batch, seed maphash.Seed) {
	hw := &b.hooks
	if hw.edits != nil {
		p.process(b, seed)
	}
	if hw.issues == nil {
		return
	}
	for i := range b.rows {
		ro := &b.rows[i]
		if more := hw.issues[ro.number]; more != nil {
			ro.issues = append(ro.issues, more...)
		}
		if hw.rejected[ro.number] && ro.ok {
			ro.ok = false
		}
	}
}

// hookRequest is one request to a hook: accepted rows of one or more
// consecutive batches, in the file's order.
type hookRequest struct {
	hook  int
	rows  []hook.Row
	spans []hookSpan
}

// hookSpan is the part of a request that is one batch's rows.
type hookSpan struct {
	b           *batch
	first, last int64 // its first and last row numbers
	n           int
}

// batchOf is the batch of one of the request's rows.
func (r *hookRequest) batchOf(row int64) *batch {
	for i := range r.spans {
		if row <= r.spans[i].last {
			return r.spans[i].b
		}
	}
	return r.spans[len(r.spans)-1].b // not reached: answers are for rows sent
}

// hookAccumulator gathers a hook's requests from the accepted rows of
// the batches given to it in order, so a request carries the hook's
// batch_size rows whatever the engine's batches hold.
type hookAccumulator struct {
	p    *plan
	i    int
	keys [][]byte // the fields sent, quoted
	req  *hookRequest
	// values holds the rows' values of one request; a request's rows
	// share it, and the next request gets its own (a hook may keep them).
	values []byte
}

func (p *plan) hookAcc(i int) *hookAccumulator {
	use := &p.hooks[i]
	a := &hookAccumulator{p: p, i: i, keys: make([][]byte, len(use.Fields))}
	for k, f := range use.Fields {
		a.keys[k] = appendJSONString(nil, f)
	}
	return a
}

// add adds b's accepted rows to the hook's requests, giving each full
// one to send; false when send does (the job fails or the run stops).
// Each request holding some of b's rows holds a reference to b
// (hookWork.refs).
func (a *hookAccumulator) add(b *batch, send func(*hookRequest) bool) bool {
	size := a.p.hooks[a.i].BatchSize
	for k := range b.rows {
		ro := &b.rows[k]
		if !ro.ok {
			continue
		}
		r := a.req
		if r == nil {
			r = &hookRequest{hook: a.i, rows: make([]hook.Row, 0, size)}
			a.req = r
			per := ro.end - ro.start // room for the request's rows, guessed from this one's
			if len(a.keys) > 0 {
				per = min(per, 16+48*len(a.keys))
			}
			a.values = make([]byte, 0, per*min(size, len(b.rows)-k+batchSize))
		}
		if n := len(r.spans); n == 0 || r.spans[n-1].b != b {
			r.spans = append(r.spans, hookSpan{b: b, first: ro.number})
			b.hooks.refs.Add(1)
		}
		sp := &r.spans[len(r.spans)-1]
		sp.last = ro.number
		sp.n++
		start := len(a.values)
		a.values = appendHookValues(a.values, b.json[ro.start:ro.end], a.keys)
		r.rows = append(r.rows, hook.Row{Row: ro.number, Values: a.values[start:len(a.values):len(a.values)]})
		if len(r.rows) == size && !a.flush(send) {
			return false
		}
	}
	return true
}

// flush gives the request being gathered to send, short or not.
func (a *hookAccumulator) flush(send func(*hookRequest) bool) bool {
	r := a.req
	if r == nil {
		return true
	}
	a.req, a.values = nil, nil
	return send(r)
}

// held is how many batches the request being gathered holds rows of.
func (a *hookAccumulator) held() int {
	if a.req == nil {
		return 0
	}
	return len(a.req.spans)
}

// appendHookValues appends the JSON object of a row's members whose keys
// (quoted, as JSON) are in keys, in the row's order; with no keys, every
// member but _extra. row is a JSON object as appendRow writes it; the
// members are copied as they are, without decoding them.
func appendHookValues(dst, row []byte, keys [][]byte) []byte {
	dst = append(dst, '{')
	first := true
	i := skipSpace(row, 0) + 1 // past '{'
	for {
		i = skipSpace(row, i)
		if i < len(row) && row[i] == ',' {
			i = skipSpace(row, i+1)
		}
		if i >= len(row) || row[i] == '}' {
			return append(dst, '}')
		}
		keyStart := i
		i = skipJSONValue(row, i) // the key, a string
		key := row[keyStart:i]
		i = skipSpace(row, i) + 1 // past ':'
		i = skipSpace(row, i)
		valStart := i
		i = skipJSONValue(row, i)
		if !wanted(key, keys) {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(dst, key...)
		dst = append(dst, ':')
		dst = append(dst, row[valStart:i]...)
	}
}

var extraKey = []byte(`"_extra"`)

func wanted(key []byte, keys [][]byte) bool {
	if len(keys) == 0 {
		return !bytes.Equal(key, extraKey)
	}
	for _, k := range keys {
		if bytes.Equal(key, k) {
			return true
		}
	}
	return false
}

func skipSpace(js []byte, i int) int {
	for i < len(js) && (js[i] == ' ' || js[i] == '\t' || js[i] == '\n' || js[i] == '\r') {
		i++
	}
	return i
}

// skipJSONValue returns the index past the JSON value at js[i] (valid
// JSON: the run wrote it).
func skipJSONValue(js []byte, i int) int {
	depth := 0
	for i < len(js) {
		switch c := js[i]; c {
		case '"':
			i++
			for i < len(js) && js[i] != '"' {
				if js[i] == '\\' {
					i++
				}
				i++
			}
			i++
		case '{', '[':
			depth++
			i++
		case '}', ']':
			if depth == 0 {
				return i
			}
			depth--
			i++
		case ',', ':', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return i
			}
			i++
		default:
			i++
		}
		if depth == 0 && i > 0 && (js[i-1] == '"' || js[i-1] == '}' || js[i-1] == ']') {
			return i
		}
	}
	return i
}

// sendRequest makes one request and adds its answer to the batches of
// its rows; false when the job fails.
func (p *plan) sendRequest(ctx context.Context, r *hookRequest) bool {
	use := &p.hooks[r.hook]
	start := time.Now()
	answers, err := use.Hook.Check(ctx, r.rows)
	took := time.Since(start)
	// The spans' batches are locked in the file's order, as every
	// request locks them.
	for i := range r.spans {
		r.spans[i].b.hooks.mu.Lock()
	}
	defer func() {
		for i := range r.spans {
			r.spans[i].b.hooks.mu.Unlock()
		}
	}()
	st := &r.spans[0].b.hooks.stats[r.hook] // the request counts in its first batch
	st.Time += took
	st.Batches++
	for i := range r.spans {
		r.spans[i].b.hooks.stats[r.hook].RowsSent += int64(r.spans[i].n)
	}
	if err != nil {
		if ctx.Err() != nil {
			return true // the run is stopping; the writer reports why
		}
		return p.hookFailed(r, err)
	}
	for _, a := range answers {
		hw := &r.batchOf(a.Row).hooks
		for _, is := range a.Issues {
			hw.stats[r.hook].Issues++
			p.hookIssue(hw, a.Row, use.Name, is)
		}
		for _, c := range a.Corrections {
			if p.hookCorrect(hw, a.Row, use.Name, r.rows, c) {
				hw.stats[r.hook].ValuesChanged++
			}
		}
	}
	return true
}

func (p *plan) hookIssue(hw *hookWork, row int64, name string, is hook.Issue) {
	if hw.issues == nil {
		hw.issues, hw.rejected = map[int64][]Issue{}, map[int64]bool{}
	}
	f := -1
	if is.Field != "" {
		f = p.fieldIndex(is.Field)
	}
	out := p.issue(int(row), p.columnOf(f), f, is.Severity, is.Code, is.Message, nil)
	out.Hook = name
	if f < 0 {
		out.Field = is.Field
	}
	hw.issues[row] = append(hw.issues[row], out)
	if is.Severity == "error" {
		hw.rejected[row] = true
	}
}

// hookCorrect turns a correction into an edit of the row and the warning
// hook_corrected; false when the field is not one the file maps (there is
// no cell to correct) or the value is the one sent.
func (p *plan) hookCorrect(hw *hookWork, row int64, name string, rows []hook.Row, c hook.Correction) bool {
	f := p.fieldIndex(c.Field)
	if f < 0 || p.columnOf(f) < 0 {
		return false
	}
	before := "null"
	for _, r := range rows {
		if r.Row == row {
			if v := r.Value(c.Field); v != nil {
				before = string(v)
			}
			break
		}
	}
	after := "null"
	if !c.Null {
		after = string(appendJSONString(nil, c.Value))
	}
	if before == after || !c.Null && before == c.Value {
		return false
	}
	if hw.edits == nil {
		hw.edits = map[int64][]cellEdit{}
	}
	hw.edits[row] = append(hw.edits[row], cellEdit{field: f, value: c.Value, null: c.Null, hook: true})
	old := before
	p.hookIssue(hw, row, name, hook.Issue{Field: c.Field, Severity: warning, Code: "hook_corrected",
		Message: fmt.Sprintf("The hook %s changed %s from %s to %s.", name, c.Field, before, after)})
	last := &hw.issues[row][len(hw.issues[row])-1]
	last.Value = &old
	return true
}

// hookFailed applies the hook's on_error to a request that got no
// usable answer; false when the job fails. The failure counts in the
// request's first batch.
func (p *plan) hookFailed(r *hookRequest, err error) bool {
	use := &p.hooks[r.hook]
	first := r.spans[0].b
	st := &first.hooks.stats[r.hook]
	st.Failures++
	reason := hookReason(err)
	if st.FirstFailure == "" {
		st.FirstFailure = reason
	}
	switch use.OnError {
	case hook.FlagRows:
		for _, row := range r.rows {
			p.hookIssue(&r.batchOf(row.Row).hooks, row.Row, use.Name, hook.Issue{Severity: warning, Code: "hook_unavailable",
				Message: fmt.Sprintf("The hook %s did not check this row: %s.", use.Name, reason)})
		}
		return true
	case hook.Skip:
		first.hooks.skipped[r.hook] = true
		return true
	}
	if first.failure == nil {
		first.failure = &Failure{Code: domain.CodeHookFailed, Message: fmt.Sprintf("The hook %s failed: %s (on_error is fail_job).", use.Name, reason)}
	}
	return false
}

func hookReason(err error) string {
	if ea, ok := errors.AsType[*hook.ErrAnswer](err); ok {
		return "its answer was refused: " + ea.Reason
	}
	return strings.TrimSuffix(err.Error(), ".")
}

func (p *plan) fieldIndex(name string) int {
	for f := range p.columns {
		if p.columns[f].Field.Name == name {
			return f
		}
	}
	return -1
}

// hooksTaken adds a written batch's hook counts to the result, and warns
// once of a hook skipped under on_error skip.
func (w *writer) hooksTaken(p *plan, b *batch) {
	if len(p.hooks) == 0 {
		return
	}
	if w.res.Hooks == nil {
		w.res.Hooks = make([]HookStats, len(p.hooks))
		w.hookSkipWarned = make([]bool, len(p.hooks))
	}
	for i, st := range b.hooks.stats {
		sum := &w.res.Hooks[i]
		sum.Name = st.Name
		sum.Batches += st.Batches
		sum.RowsSent += st.RowsSent
		sum.Issues += st.Issues
		sum.ValuesChanged += st.ValuesChanged
		sum.Failures += st.Failures
		sum.Time += st.Time
		if sum.FirstFailure == "" {
			sum.FirstFailure = st.FirstFailure
		}
		if b.hooks.skipped[i] && !w.hookSkipWarned[i] {
			w.hookSkipWarned[i] = true
			w.issue(Issue{SourceFile: p.fileID, Severity: warning, Code: "hook_unavailable", Hook: st.Name,
				Message: fmt.Sprintf("The hook %s failed (%s); the rows of its failed batches were not checked by it (on_error is skip).", st.Name, st.FirstFailure)})
		}
	}
}
