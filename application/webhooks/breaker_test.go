package webhooks_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/application/webhooks"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/webhook"
	"github.com/tabnorm/tabnorm/test/testtime"
)

// TestService_breaker: after BreakerAfter failures in a row, an endpoint's
// due deliveries wait for its breaker without an attempt and without a
// request; once it is due, one delivery probes it while the others wait,
// and a success closes it.
func TestService_breaker(t *testing.T) {
	t.Parallel()
	forEach(t, breaker)
}

func breaker(t *testing.T, f *fixture) {
	ctx := context.Background()
	rcv := newReceiver(t, 503)
	e, err := f.svc.Create(ctx, f.admin, webhooks.Input{URL: rcv.URL, Events: []string{webhook.JobSucceeded}})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for range webhook.BreakerAfter + 3 {
		d, err := f.svc.SendTest(ctx, f.admin, e.ID)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, d.ID)
	}
	for _, id := range ids {
		if err := f.svc.Deliver(ctx, id, 1); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(rcv.requests()); n != webhook.BreakerAfter {
		t.Fatalf("%d requests to a failing endpoint, want the breaker's %d", n, webhook.BreakerAfter)
	}
	e, _ = f.svc.Get(ctx, f.admin, e.ID)
	if e.State() != webhook.StateFailing || e.RetryAt == nil || !e.RetryAt.Equal(f.clock.Now().Add(webhook.BreakerBase)) {
		t.Fatalf("after %d failures: %+v", webhook.BreakerAfter, e)
	}
	held := f.get(t, ids[len(ids)-1])
	if held.Attempts != 0 || held.NextAt == nil || held.NextAt.Before(*e.RetryAt) || held.NextAt.After(e.RetryAt.Add(5*time.Second)) {
		t.Fatalf("a held delivery: %+v, breaker until %s", held, e.RetryAt)
	}
	// Due again: the first delivery probes, the next waits for it.
	f.clock.Set(e.RetryAt.Add(5 * time.Second))
	rcv.mu.Lock()
	rcv.statuses = []int{204}
	rcv.got = nil
	rcv.mu.Unlock()
	last := ids[len(ids)-2:]
	probe := f.get(t, last[0])
	// A probe in flight holds the others: made by hand here, as the
	// service claims it before it sends.
	if _, err := f.endpoints.Update(ctx, "", e.ID, func(e *webhook.Endpoint) error { e.Probe(f.clock.Now(), webhook.ClaimFor); return nil }); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.Deliver(ctx, probe.ID, probe.Attempts+1); err != nil {
		t.Fatal(err)
	}
	if n := len(rcv.requests()); n != 0 {
		t.Fatalf("%d requests while a probe was in flight", n)
	}
	f.clock.Add(webhook.ClaimFor + 5*time.Second)
	probe = f.get(t, last[0])
	if err := f.svc.Deliver(ctx, probe.ID, probe.Attempts+1); err != nil {
		t.Fatal(err)
	}
	if e, _ = f.svc.Get(ctx, f.admin, e.ID); e.State() != webhook.StateActive || e.Failures != 0 || e.RetryAt != nil {
		t.Fatalf("after a successful probe: %+v", e)
	}
	if got := f.get(t, last[0]); got.Status != webhook.Delivered {
		t.Fatalf("the probe: %+v", got)
	}
}

// TestService_pauseAndResume: a paused endpoint's deliveries wait without
// attempts; resuming it sends them at once.
func TestService_pauseAndResume(t *testing.T) {
	t.Parallel()
	forEach(t, pauseAndResume)
}

func pauseAndResume(t *testing.T, f *fixture) {
	ctx := context.Background()
	rcv := newReceiver(t, 204)
	e, err := f.svc.Create(ctx, f.admin, webhooks.Input{URL: rcv.URL, Events: []string{webhook.JobSucceeded}})
	if err != nil {
		t.Fatal(err)
	}
	yes, no := true, false
	if e, err = f.svc.Update(ctx, f.admin, e.ID, webhooks.Patch{Paused: &yes}); err != nil || e.State() != webhook.StatePaused {
		t.Fatalf("pause: %+v, %v", e, err)
	}
	f.finishJob(t)
	d := f.list(t, e.ID)[0]
	if err := f.svc.Deliver(ctx, d.ID, 1); err != nil {
		t.Fatal(err)
	}
	if got := f.get(t, d.ID); got.Attempts != 0 || got.Status != webhook.Pending || len(rcv.requests()) != 0 {
		t.Fatalf("a paused endpoint's delivery: %+v, %d requests", got, len(rcv.requests()))
	}
	if e, err = f.svc.Update(ctx, f.admin, e.ID, webhooks.Patch{Paused: &no}); err != nil || e.State() != webhook.StateActive {
		t.Fatalf("resume: %+v, %v", e, err)
	}
	if got := f.get(t, d.ID); got.NextAt == nil || got.NextAt.After(f.clock.Now()) {
		t.Fatalf("a resumed endpoint's delivery is not due: %+v", got)
	}
	if err := f.svc.Deliver(ctx, d.ID, 1); err != nil {
		t.Fatal(err)
	}
	if got := f.get(t, d.ID); got.Status != webhook.Delivered || len(rcv.requests()) != 1 {
		t.Fatalf("after resuming: %+v, %d requests", got, len(rcv.requests()))
	}
}

// TestService_Create_limit: an organization has at most MaxPerOrg
// endpoints; one more is 409 webhook_limit_reached, and deleting one
// makes room.
func TestService_Create_limit(t *testing.T) {
	t.Parallel()
	forEach(t, func(t *testing.T, f *fixture) {
		ctx := context.Background()
		svc := f.withConfig(webhooks.Config{AllowPrivate: true, MaxPerOrg: 3})
		var last webhook.Endpoint
		for range 3 {
			e, err := svc.Create(ctx, f.admin, webhooks.Input{URL: "http://127.0.0.1:9/", Events: []string{webhook.JobSucceeded}})
			if err != nil {
				t.Fatal(err)
			}
			last = e
		}
		_, err := svc.Create(ctx, f.admin, webhooks.Input{URL: "http://127.0.0.1:9/", Events: []string{webhook.JobSucceeded}})
		if domain.CodeOf(err) != domain.CodeWebhookLimitReached {
			t.Fatalf("a fourth endpoint: %v", err)
		}
		if err := svc.Delete(ctx, f.admin, last.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Create(ctx, f.admin, webhooks.Input{URL: "http://127.0.0.1:9/", Events: []string{webhook.JobSucceeded}}); err != nil {
			t.Fatalf("after a delete: %v", err)
		}
	})
}

// TestService_inFlightPerOrganization: while an organization has its
// share of attempts in flight (here 1, to an endpoint that does not
// answer yet), its next due delivery is put off a few seconds without an
// attempt or a request, and goes out once it is due again.
func TestService_inFlightPerOrganization(t *testing.T) {
	t.Parallel()
	forEach(t, inFlightPerOrganization)
}

func inFlightPerOrganization(t *testing.T, f *fixture) {
	ctx := context.Background()
	arrived, release := make(chan struct{}, 4), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		select {
		case <-release:
		case <-r.Context().Done():
		}
		w.WriteHeader(204)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	svc := f.withConfig(webhooks.Config{AllowPrivate: true, InFlightPerOrg: 1})
	e, err := svc.Create(ctx, f.admin, webhooks.Input{URL: srv.URL, Events: []string{webhook.JobSucceeded}})
	if err != nil {
		t.Fatal(err)
	}
	first, err := svc.SendTest(ctx, f.admin, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	second, err := svc.SendTest(ctx, f.admin, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- svc.Deliver(ctx, first.ID, 1) }()
	select {
	case <-arrived:
	case <-testtime.After(10 * time.Second):
		t.Fatal("the first attempt did not arrive")
	}
	if err := svc.Deliver(ctx, second.ID, 1); err != nil {
		t.Fatal(err)
	}
	got := f.get(t, second.ID)
	if got.Attempts != 0 || got.Status != webhook.Pending || got.NextAt == nil || !got.NextAt.After(f.clock.Now()) {
		t.Fatalf("the second delivery while the first is in flight: %+v", got)
	}
	select {
	case <-arrived:
		t.Fatal("the second attempt was sent while the first was in flight")
	default:
	}
	release <- struct{}{}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	f.clock.Set(*got.NextAt)
	go func() { done <- svc.Deliver(ctx, second.ID, 1) }()
	select {
	case <-arrived:
	case <-testtime.After(10 * time.Second):
		t.Fatal("the second attempt did not arrive once the first ended")
	}
	release <- struct{}{}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := f.get(t, second.ID); got.Status != webhook.Delivered {
		t.Fatalf("the second delivery: %+v", got)
	}
}
