package hooks

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/hook"
	"github.com/tabnorm/tabnorm/domain/id"
	"github.com/tabnorm/tabnorm/domain/normalize"
	"github.com/tabnorm/tabnorm/domain/schema"
	"github.com/tabnorm/tabnorm/domain/webhook"
	"github.com/tabnorm/tabnorm/ports"
)

// Limits bound the calls to hooks; zero fields take the defaults.
type Limits struct {
	// Attempts is how many times a batch is tried when its hook answers
	// 429 or 5xx or does not answer (0: 3).
	Attempts int
	// MaxRetryAfter caps a Retry-After the service waits (0: 10 s).
	MaxRetryAfter time.Duration
	// JobBudget is the hook time one job may spend, all its batches
	// together (0: 10 minutes); past it, each batch fails and on_error
	// decides.
	JobBudget time.Duration
	// OrgBudget is the hook time one organization's jobs may spend in an
	// hour on this node (0: 1 hour).
	OrgBudget time.Duration
	// AnswerBytesPerRow is what an answer may hold a row, beyond 64 KiB
	// (0: hook.DefaultAnswerBytesPerRow); a longer answer fails the batch.
	AnswerBytesPerRow int64
}

func (l Limits) withDefaults() Limits {
	l.Attempts = cmp.Or(l.Attempts, 3)
	l.MaxRetryAfter = cmp.Or(l.MaxRetryAfter, 10*time.Second)
	l.JobBudget = cmp.Or(l.JobBudget, 10*time.Minute)
	l.OrgBudget = cmp.Or(l.OrgBudget, time.Hour)
	l.AnswerBytesPerRow = cmp.Or(l.AnswerBytesPerRow, hook.DefaultAnswerBytesPerRow)
	return l
}

// Caller opens the hooks a run's schema names and calls them.
type Caller struct {
	limits   Limits
	hooks    ports.Hooks
	sealer   ports.Sealer
	sender   ports.HookSender
	clock    ports.Clock
	observer ports.HookObserver
	outcomes *Outcomes

	mu    sync.Mutex
	state map[string]*hookState // by hook id, shared by the jobs of this process
	orgs  map[string]*orgBudget
}

// hookState is a hook's slots (its concurrency) and circuit breaker, for
// one version of its settings: a change of the hook (its updated_at)
// starts afresh, its breaker closed.
type hookState struct {
	version  time.Time
	slots    chan struct{}
	mu       sync.Mutex
	failures int
	openTill time.Time
}

// orgBudget is an organization's hook time in the current hour.
type orgBudget struct {
	since time.Time
	spent time.Duration
}

// NewCaller returns the caller of hooks; observer may be nil. Each
// batch's outcome is added to outcomes.
func NewCaller(limits Limits, hooks ports.Hooks, sealer ports.Sealer, sender ports.HookSender, clock ports.Clock, observer ports.HookObserver, outcomes *Outcomes) *Caller {
	return &Caller{limits: limits.withDefaults(), hooks: hooks, sealer: sealer, sender: sender, clock: clock, observer: observer, outcomes: outcomes,
		state: map[string]*hookState{}, orgs: map[string]*orgBudget{}}
}

// Check refuses a schema that names a hook the organization lacks, or
// has disabled: invalid_schema, with the declaration's path.
func (c *Caller) Check(ctx context.Context, orgID string, sch *schema.Schema) error {
	_, err := c.named(ctx, orgID, sch)
	return err
}

func (c *Caller) named(ctx context.Context, orgID string, sch *schema.Schema) (map[string]hook.Hook, error) {
	if sch == nil || len(sch.Hooks) == 0 {
		return nil, nil
	}
	found, err := c.hooks.Named(ctx, orgID, sch.HookNames())
	if err != nil {
		return nil, err
	}
	byName := make(map[string]hook.Hook, len(found))
	for _, h := range found {
		byName[h.Name] = h
	}
	var problems []domain.FieldError
	for i, u := range sch.Hooks {
		h, ok := byName[u.Hook]
		switch {
		case !ok:
			problems = append(problems, domain.FieldError{Field: fmt.Sprintf("hooks[%d].hook", i), Message: fmt.Sprintf("names no hook of your organization: %q", u.Hook)})
		case !h.Enabled:
			problems = append(problems, domain.FieldError{Field: fmt.Sprintf("hooks[%d].hook", i), Message: fmt.Sprintf("the hook %q is disabled", u.Hook)})
		}
	}
	if problems != nil {
		return nil, &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidSchema,
			Message: fmt.Sprintf("The target schema has %d problem(s); see errors.", len(problems)), Fields: problems}
	}
	return byName, nil
}

// Open returns the schema's hooks for a run of the job.
func (c *Caller) Open(ctx context.Context, orgID, jobID string, sch *schema.Schema) ([]normalize.HookUse, error) {
	byName, err := c.named(ctx, orgID, sch)
	if err != nil {
		if de, ok := errors.AsType[*domain.Error](err); ok && de.Code == domain.CodeInvalidSchema {
			return nil, &normalize.Failure{Code: domain.CodeInvalidSchema, Message: de.Fields[0].Field + " " + de.Fields[0].Message + "."}
		}
		return nil, err
	}
	if byName == nil {
		return nil, nil
	}
	names := make([]string, len(sch.Fields))
	for i, f := range sch.Fields {
		names[i] = f.Name
	}
	job := &jobBudget{left: c.limits.JobBudget}
	out := make([]normalize.HookUse, 0, len(sch.Hooks))
	for _, u := range sch.Hooks {
		h := byName[u.Hook]
		if err := Open(c.sealer, &h); err != nil {
			return nil, err
		}
		call := &call{c: c, h: h, jobID: jobID, fields: u.Fields, schemaFields: names, job: job, state: c.stateOf(h)}
		out = append(out, normalize.HookUse{Name: h.Name, Fields: u.Fields, BatchSize: u.BatchSize, OnError: u.OnError, Hook: call})
	}
	return out, nil
}

func (c *Caller) stateOf(h hook.Hook) *hookState {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.state[h.ID]
	if st == nil || !st.version.Equal(h.UpdatedAt) {
		st = &hookState{version: h.UpdatedAt, slots: make(chan struct{}, max(1, h.Concurrency))}
		c.state[h.ID] = st
	}
	return st
}

// spend counts hook time against the organization's hour; false when
// the hour's budget is spent.
func (c *Caller) spend(orgID string, d time.Duration) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.clock.Now()
	b := c.orgs[orgID]
	if b == nil || now.Sub(b.since) >= time.Hour {
		b = &orgBudget{since: now}
		c.orgs[orgID] = b
	}
	b.spent += d
	return b.spent < c.limits.OrgBudget
}

// jobBudget is the hook time a run has left, shared by its hooks.
type jobBudget struct {
	mu   sync.Mutex
	left time.Duration
}

func (b *jobBudget) spend(d time.Duration) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.left -= d
	return b.left > 0
}

func (b *jobBudget) spent() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.left <= 0
}

// call is one hook opened for one run: a normalize.Hook.
type call struct {
	c            *Caller
	h            hook.Hook
	jobID        string
	fields       []string
	schemaFields []string
	job          *jobBudget
	state        *hookState
}

var tracer = otel.Tracer("github.com/tabnorm/tabnorm/application/hooks")

// Check sends one batch and returns its answers, in a span of its own.
func (k *call) Check(ctx context.Context, rows []hook.Row) (answers []hook.Answer, err error) {
	ctx, span := tracer.Start(ctx, "hook.batch", trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		attribute.String("tabnorm.hook_id", k.h.ID), attribute.String("tabnorm.job_id", k.jobID), attribute.Int("tabnorm.rows", len(rows))))
	defer func() {
		span.SetAttributes(attribute.Int("tabnorm.answered_rows", len(answers)))
		if err != nil {
			span.SetStatus(codes.Error, err.Error())
		}
		span.End()
	}()
	return k.check(ctx, rows)
}

func (k *call) check(ctx context.Context, rows []hook.Row) ([]hook.Answer, error) {
	if err := k.mayCall(); err != nil {
		k.c.outcomes.add(k.h.ID, Outcome{At: k.c.clock.Now(), Status: "not_sent", Rows: len(rows), Error: err.Error()})
		return nil, err
	}
	select {
	case k.state.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-k.state.slots }()
	body := hook.Batch{Type: hook.ValidateType, JobID: k.jobID, Hook: k.h.Name, Rows: rows}.Encode()
	answers, last, err := k.attempts(ctx, rows, body)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	k.record(err == nil)
	out := Outcome{At: k.c.clock.Now(), Status: last.outcome, Latency: last.latency, Rows: len(rows)}
	if err != nil {
		out.Error = err.Error()
	}
	k.c.outcomes.add(k.h.ID, out)
	return answers, err
}

// mayCall refuses a batch before any request: a budget spent, or the
// breaker open.
func (k *call) mayCall() error {
	if k.job.spent() {
		return fmt.Errorf("the job's budget of hook time (%s) is spent", k.c.limits.JobBudget)
	}
	if !k.c.spend(k.h.OrgID, 0) {
		return fmt.Errorf("the organization's hook time for this hour (%s) is spent", k.c.limits.OrgBudget)
	}
	if until, open := k.breakerOpen(); open {
		return fmt.Errorf("the hook failed %d batches in a row; it gets no request until %s", webhook.BreakerAfter, until.UTC().Format(time.RFC3339))
	}
	return nil
}

// tried is how an attempt went.
type tried struct {
	outcome string
	latency time.Duration
}

// attempts tries the batch until an answer is taken, a failure is final
// or the attempts are spent; it returns how the last attempt went.
func (k *call) attempts(ctx context.Context, rows []hook.Row, body []byte) ([]hook.Answer, tried, error) {
	lim := k.c.limits
	var last error
	var t tried
	for attempt := 1; attempt <= lim.Attempts; attempt++ {
		answers, retryIn, at, err := k.attempt(ctx, rows, body)
		t = at
		if err == nil || retryIn < 0 {
			return answers, t, err
		}
		last = err
		if attempt == lim.Attempts {
			break
		}
		wait := min(retryIn, lim.MaxRetryAfter)
		timer := time.NewTimer(wait)
		select {
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
			return nil, t, ctx.Err()
		}
	}
	return nil, t, fmt.Errorf("%w (after %d attempts)", last, lim.Attempts)
}

// attempt makes one request. retryIn < 0: the failure is final; else how
// long to wait before the next attempt.
func (k *call) attempt(ctx context.Context, rows []hook.Row, body []byte) (answers []hook.Answer, retryIn time.Duration, t tried, err error) {
	capped := hook.MaxAnswerBytes(len(rows), k.c.limits.AnswerBytesPerRow)
	resp, err := send(ctx, k.c.sender, k.h, k.c.clock.Now(), capped, body)
	if err != nil {
		return nil, -1, tried{outcome: "error"}, err
	}
	okJob := k.job.spend(resp.Latency)
	okOrg := k.c.spend(k.h.OrgID, resp.Latency)
	j := judge(resp, rows, capped, k.fields, k.schemaFields)
	k.observe(j.outcome, resp.Latency)
	retry := j.retryIn
	if j.err != nil && retry >= 0 && (!okJob || !okOrg) {
		retry = -1 // no time left for another attempt
	}
	err = j.err
	if !okOrg && err != nil {
		err = fmt.Errorf("%w; the organization's hook time for this hour (%s) is spent", err, k.c.limits.OrgBudget)
	}
	return j.answers, retry, tried{outcome: j.outcome, latency: resp.Latency}, err
}

// send signs a batch's body with the hook's secrets and makes one request.
func send(ctx context.Context, sender ports.HookSender, h hook.Hook, now time.Time, maxAnswer int64, body []byte) (ports.HookResponse, error) {
	msgID := id.New("hkb")
	sig, err := webhook.Sign(h.Secrets(now), msgID, now, body)
	if err != nil {
		return ports.HookResponse{}, err
	}
	return sender.Call(ctx, ports.HookRequest{URL: h.URL, Body: body, Timeout: h.Timeout, MaxAnswer: maxAnswer,
		Headers: map[string]string{"webhook-id": msgID, "webhook-timestamp": strconv.FormatInt(now.Unix(), 10), "webhook-signature": sig}}), nil
}

// judgement is what a response to a batch means.
type judgement struct {
	// outcome is ports.HookObserver's: succeeded, refused, failed or error.
	outcome string
	answers []hook.Answer
	// retryIn < 0: a failure is final; else the wait before trying again.
	retryIn time.Duration
	err     error
}

// judge reads a response: an answer taken, or why the batch failed and
// whether it may be tried again (429, 5xx, no answer).
func judge(resp ports.HookResponse, rows []hook.Row, maxAnswer int64, fields, schemaFields []string) judgement {
	j := judgement{outcome: "failed", retryIn: -1}
	switch {
	case resp.Error != "":
		j.outcome, j.retryIn, j.err = "error", backoff(""), errors.New(resp.Error)
	case resp.TooLarge:
		j.outcome, j.err = "refused", fmt.Errorf("its answer is longer than %d bytes", maxAnswer)
	case resp.StatusCode == 429 || resp.StatusCode >= 500:
		j.retryIn, j.err = backoff(resp.RetryAfter), fmt.Errorf("it answered %d", resp.StatusCode)
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		j.err = fmt.Errorf("it answered %d", resp.StatusCode) // a redirect is not followed
	default:
		j.answers, j.err = hook.ParseAnswer(resp.Body, rows, fields, schemaFields)
		j.outcome = "succeeded"
		if j.err != nil {
			j.outcome = "refused"
		}
	}
	return j
}

// backoff is how long to wait before trying again: the Retry-After in
// seconds when the hook sent one, else half a second.
func backoff(retryAfter string) time.Duration {
	if s, err := strconv.Atoi(strings.TrimSpace(retryAfter)); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	return 500 * time.Millisecond
}

func (k *call) observe(outcome string, d time.Duration) {
	if k.c.observer != nil {
		k.c.observer.HookCalled(k.h.ID, outcome, d)
	}
}

// breakerOpen reports whether the hook's breaker holds batches back.
func (k *call) breakerOpen() (time.Time, bool) {
	st := k.state
	st.mu.Lock()
	defer st.mu.Unlock()
	now := k.c.clock.Now()
	return st.openTill, now.Before(st.openTill)
}

// record feeds the breaker: after webhook.BreakerAfter failed batches in
// a row, the hook gets no request for webhook.BreakerBase, doubling with
// each further failure up to webhook.BreakerMost.
func (k *call) record(ok bool) {
	st := k.state
	st.mu.Lock()
	defer st.mu.Unlock()
	if ok {
		st.failures, st.openTill = 0, time.Time{}
		return
	}
	st.failures++
	if st.failures >= webhook.BreakerAfter {
		wait := min(webhook.BreakerBase<<min(st.failures-webhook.BreakerAfter, 16), webhook.BreakerMost)
		st.openTill = k.c.clock.Now().Add(wait)
	}
}
