package hooks_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"

	"github.com/tabnorm/tabnorm/application/hooks"
	"github.com/tabnorm/tabnorm/domain/hook"
	"github.com/tabnorm/tabnorm/domain/schema"
	"github.com/tabnorm/tabnorm/domain/webhook"
	"github.com/tabnorm/tabnorm/ports"
	"github.com/tabnorm/tabnorm/test/mocks"
)

// callerOnMocks opens a schema's hook "crm" on a mocked sender; the
// sealer hands the secret back as it was sealed.
func callerOnMocks(t *testing.T, limits hooks.Limits) (hook.Row, *mocks.HookSender, *mocks.HookObserver, func() (*hookCall, error)) {
	t.Helper()
	store, sealer, sender, observer, clock := mocks.NewHooks(t), mocks.NewSealer(t), mocks.NewHookSender(t), mocks.NewHookObserver(t), mocks.NewClock(t)
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	clock.EXPECT().Now().Return(now).Maybe()
	secret := webhook.NewSecret()
	sealer.EXPECT().Open(mock.Anything, mock.Anything).Return([]byte(secret), nil).Maybe()
	h := hook.Hook{ID: "hook_1", OrgID: "org_a", Name: "crm", URL: "https://crm.example.com", Timeout: time.Second, Concurrency: 2, Enabled: true,
		SealedSecret: []byte("x"), UpdatedAt: now}
	store.EXPECT().Named(mock.Anything, "org_a", []string{"crm"}).Return([]hook.Hook{h}, nil).Maybe()
	c := hooks.NewCaller(limits, store, sealer, sender, clock, observer, hooks.NewOutcomes())
	sch := &schema.Schema{Fields: []schema.Field{{Name: "email"}}, Hooks: []schema.HookUse{{Hook: "crm", Fields: []string{"email"}, BatchSize: 10, OnError: "fail_job"}}}
	open := func() (*hookCall, error) {
		uses, err := c.Open(context.Background(), "org_a", "job_1", sch)
		if err != nil {
			return nil, err
		}
		return &hookCall{check: uses[0].Hook.Check}, nil
	}
	return hook.Row{Row: 1}, sender, observer, open
}

type hookCall struct {
	check func(ctx context.Context, rows []hook.Row) ([]hook.Answer, error)
}

// A 503 is tried Attempts times, each after the Retry-After (capped);
// five failed batches in a row open the breaker, and the next batch
// fails without a request.
func TestCaller_retriesThenBreaker(t *testing.T) {
	row, sender, observer, open := callerOnMocks(t, hooks.Limits{Attempts: 2, MaxRetryAfter: time.Millisecond})
	var calls atomic.Int32
	sender.EXPECT().Call(mock.Anything, mock.Anything).RunAndReturn(func(_ context.Context, r ports.HookRequest) ports.HookResponse {
		calls.Add(1)
		if r.Headers["webhook-signature"] == "" || !strings.HasPrefix(r.Headers["webhook-id"], "hkb_") || r.Timeout != time.Second {
			t.Errorf("request %+v", r)
		}
		return ports.HookResponse{StatusCode: 503, RetryAfter: "3600", Latency: time.Millisecond}
	})
	observer.EXPECT().HookCalled(mock.Anything, "failed", time.Millisecond)
	call, err := open()
	if err != nil {
		t.Fatal(err)
	}
	begun := time.Now()
	for i := range webhook.BreakerAfter {
		if _, err := call.check(context.Background(), []hook.Row{row}); err == nil || !strings.Contains(err.Error(), "503") {
			t.Fatalf("batch %d: %v", i, err)
		}
	}
	if calls.Load() != 2*webhook.BreakerAfter || time.Since(begun) > 5*time.Second {
		t.Fatalf("%d requests in %s, want %d without waiting the hour Retry-After asked", calls.Load(), time.Since(begun), 2*webhook.BreakerAfter)
	}
	if _, err := call.check(context.Background(), []hook.Row{row}); err == nil || !strings.Contains(err.Error(), "no request until") || calls.Load() != 2*webhook.BreakerAfter {
		t.Fatalf("with the breaker open: %v, %d requests", err, calls.Load())
	}
}

// A job that spent its budget of hook time makes no more requests.
func TestCaller_jobBudget(t *testing.T) {
	row, sender, observer, open := callerOnMocks(t, hooks.Limits{JobBudget: 50 * time.Millisecond})
	sender.EXPECT().Call(mock.Anything, mock.Anything).Return(ports.HookResponse{StatusCode: 200, Body: []byte(`{"rows":[]}`), Latency: 60 * time.Millisecond}).Once()
	observer.EXPECT().HookCalled(mock.Anything, "succeeded", 60*time.Millisecond).Once()
	call, err := open()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := call.check(context.Background(), []hook.Row{row}); err != nil {
		t.Fatal(err)
	}
	if _, err := call.check(context.Background(), []hook.Row{row}); err == nil || !strings.Contains(err.Error(), "budget") {
		t.Fatalf("past the budget: %v", err)
	}
}

// An organization that spent its hour of hook time makes no more
// requests, whichever of its jobs asks.
func TestCaller_orgBudget(t *testing.T) {
	row, sender, observer, open := callerOnMocks(t, hooks.Limits{OrgBudget: 50 * time.Millisecond})
	sender.EXPECT().Call(mock.Anything, mock.Anything).Return(ports.HookResponse{StatusCode: 200, Body: []byte(`{"rows":[]}`), Latency: 60 * time.Millisecond}).Once()
	observer.EXPECT().HookCalled(mock.Anything, "succeeded", 60*time.Millisecond).Once()
	first, err := open()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := first.check(context.Background(), []hook.Row{row}); err != nil {
		t.Fatal(err)
	}
	second, err := open() // another job of the organization
	if err != nil {
		t.Fatal(err)
	}
	if _, err := second.check(context.Background(), []hook.Row{row}); err == nil || !strings.Contains(err.Error(), "organization's hook time") {
		t.Fatalf("past the organization's budget: %v", err)
	}
}
