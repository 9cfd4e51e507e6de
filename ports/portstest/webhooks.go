package portstest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/id"
	"github.com/tabnorm/tabnorm/domain/webhook"
	"github.com/tabnorm/tabnorm/ports"
)

// WebhookEndpoints is the suite of ports.WebhookEndpoints.
func WebhookEndpoints(t *testing.T, open func(t *testing.T) Stores) {
	t.Helper()
	runSteps(t, open, []step[Stores]{
		{"create_then_get", endpointsCreateThenGet},
		{"another_organizations_endpoint_is_not_found", endpointsOtherOrg},
		{"enabled_lists_only_enabled_ones", endpointsEnabled},
		{"list_pages_newest_first", endpointsList},
		{"update_reads_modifies_and_writes", endpointsUpdate},
		{"the_breaker_and_the_pause_are_kept", endpointsBreaker},
		{"delete_takes_the_deliveries_along", endpointsDelete},
	})
}

func seedEndpoint(t *testing.T, s Stores, orgID string, enabled bool) webhook.Endpoint {
	t.Helper()
	e := webhook.Endpoint{ID: id.New(id.Webhook), OrgID: orgID, URL: "https://hooks.example.com/" + id.New("x"), Description: "ci",
		Events: []string{webhook.JobSucceeded, webhook.JobFailed}, Enabled: enabled, Secret: webhook.NewSecret(), CreatedAt: now, UpdatedAt: now}
	ok(t, s.WebhookEndpoints.Create(context.Background(), e))
	return e
}

func endpointsCreateThenGet(t *testing.T, s Stores) {
	org := seedOrg(t, s)
	e := seedEndpoint(t, s, org.ID, true)
	for _, orgID := range []string{org.ID, ""} {
		got, err := s.WebhookEndpoints.Get(context.Background(), orgID, e.ID)
		if err != nil || got.URL != e.URL || got.Description != "ci" || !slices.Equal(got.Events, e.Events) || !got.Enabled ||
			got.Secret != e.Secret || !got.CreatedAt.Equal(now) || !got.UpdatedAt.Equal(now) || got.PreviousUntil != nil || got.FailingSince != nil {
			t.Fatalf("WebhookEndpoints.Get(%q) = %+v, %v; want the endpoint as created", orgID, got, err)
		}
	}
}

func endpointsOtherOrg(t *testing.T, s Stores) {
	ctx := context.Background()
	org, other := seedOrg(t, s), seedOrg(t, s)
	e := seedEndpoint(t, s, org.ID, true)
	_, err := s.WebhookEndpoints.Get(ctx, other.ID, e.ID)
	isKind(t, err, domain.ErrNotFound, "WebhookEndpoints.Get through another organization")
	_, err = s.WebhookEndpoints.Update(ctx, other.ID, e.ID, func(*webhook.Endpoint) error { return nil })
	isKind(t, err, domain.ErrNotFound, "WebhookEndpoints.Update through another organization")
	isKind(t, s.WebhookEndpoints.Delete(ctx, other.ID, e.ID), domain.ErrNotFound, "WebhookEndpoints.Delete through another organization")
}

func endpointsEnabled(t *testing.T, s Stores) {
	org, other := seedOrg(t, s), seedOrg(t, s)
	on := seedEndpoint(t, s, org.ID, true)
	seedEndpoint(t, s, org.ID, false)
	seedEndpoint(t, s, other.ID, true)
	if enabled, err := s.WebhookEndpoints.Enabled(context.Background(), org.ID); err != nil || len(enabled) != 1 || enabled[0].ID != on.ID {
		t.Fatalf("WebhookEndpoints.Enabled = %v, %v; want the organization's one enabled endpoint", enabled, err)
	}
}

func endpointsList(t *testing.T, s Stores) {
	org := seedOrg(t, s)
	var created []string
	for i := range 3 {
		created = append(created, seedEndpoint(t, s, org.ID, i%2 == 0).ID)
	}
	got := pages(t, 1, func(p ports.Page) ([]webhook.Endpoint, string, error) {
		return s.WebhookEndpoints.List(context.Background(), org.ID, p)
	}, func(e webhook.Endpoint) string { return e.ID })
	newestFirst(t, "WebhookEndpoints.List", got, created)
}

func endpointsUpdate(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	e := seedEndpoint(t, s, org.ID, true)
	later := now.Add(time.Hour)
	upd, err := s.WebhookEndpoints.Update(ctx, "", e.ID, func(e *webhook.Endpoint) error {
		e.Rotate(webhook.NewSecret(), later)
		e.Failed(410, later)
		return nil
	})
	if err != nil || upd.Enabled || upd.PreviousSecret != e.Secret {
		t.Fatalf("WebhookEndpoints.Update = %+v, %v; want it disabled with the old secret kept as previous", upd, err)
	}
	got, _ := s.WebhookEndpoints.Get(ctx, org.ID, e.ID)
	if got.Enabled || got.DisabledReason == "" || got.Secret != upd.Secret || got.PreviousSecret != e.Secret || got.PreviousUntil == nil ||
		!got.PreviousUntil.Equal(later.Add(webhook.RotationOverlap)) || got.FailingSince == nil || !got.FailingSince.Equal(later) {
		t.Fatalf("WebhookEndpoints.Get after Update = %+v; want disabled with a reason, the new secret, the previous one until the overlap ends", got)
	}
}

func endpointsBreaker(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	e := seedEndpoint(t, s, org.ID, true)
	later := now.Add(webhook.PauseAfter)
	_, err := s.WebhookEndpoints.Update(ctx, org.ID, e.ID, func(e *webhook.Endpoint) error {
		for i := range webhook.BreakerAfter {
			e.Failed(503, now.Add(time.Duration(i)*time.Second))
		}
		e.Failed(503, later)
		return nil
	})
	ok(t, err)
	got, err := s.WebhookEndpoints.Get(ctx, org.ID, e.ID)
	if err != nil || got.Failures != webhook.BreakerAfter+1 || got.RetryAt == nil || !got.RetryAt.Equal(later.Add(2*webhook.BreakerBase)) ||
		!got.Paused || got.PausedReason == "" || got.State() != webhook.StatePaused {
		t.Fatalf("WebhookEndpoints.Get after failures = %+v, %v; want the breaker open: failures counted, paused with a reason, retry_at set", got, err)
	}
	_, err = s.WebhookEndpoints.Update(ctx, org.ID, e.ID, func(e *webhook.Endpoint) error { e.Resume(later); return nil })
	ok(t, err)
	if got, err := s.WebhookEndpoints.Get(ctx, org.ID, e.ID); err != nil || got.Failures != 0 || got.RetryAt != nil || got.Paused || got.State() != webhook.StateActive {
		t.Fatalf("WebhookEndpoints.Get after Resume = %+v, %v; want active: no failures, no retry_at, not paused", got, err)
	}
}

func endpointsDelete(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	e := seedEndpoint(t, s, org.ID, true)
	d := webhook.NewDelivery(id.New(id.Delivery), e, webhook.JobSucceeded, []byte(`{}`), now)
	ok(t, s.WebhookDeliveries.Create(ctx, d))
	ok(t, s.WebhookEndpoints.Delete(ctx, org.ID, e.ID))
	_, err := s.WebhookEndpoints.Get(ctx, org.ID, e.ID)
	isKind(t, err, domain.ErrNotFound, "WebhookEndpoints.Get: a deleted endpoint")
	_, err = s.WebhookDeliveries.Get(ctx, "", d.ID)
	isKind(t, err, domain.ErrNotFound, "WebhookDeliveries.Get: a deleted endpoint's delivery")
}

// WebhookDeliveries is the suite of ports.WebhookDeliveries.
func WebhookDeliveries(t *testing.T, open func(t *testing.T) Stores) {
	t.Helper()
	runSteps(t, open, []step[Stores]{
		{"create_then_get", deliveriesCreateThenGet},
		{"update_records_an_attempt", deliveriesUpdate},
		{"due_lists_pending_deliveries_oldest_first", deliveriesDue},
		{"waiting_lists_an_endpoints_pending_deliveries", deliveriesWaiting},
		{"list_is_the_endpoints_newest_first", deliveriesList},
	})
}

func seedDelivery(t *testing.T, s Stores, e webhook.Endpoint, at time.Time) webhook.Delivery {
	t.Helper()
	d := webhook.NewDelivery(id.New(id.Delivery), e, webhook.JobSucceeded, []byte(`{"type":"job.succeeded"}`), at)
	ok(t, s.WebhookDeliveries.Create(context.Background(), d))
	return d
}

func deliveriesCreateThenGet(t *testing.T, s Stores) {
	ctx := context.Background()
	org, other := seedOrg(t, s), seedOrg(t, s)
	d := seedDelivery(t, s, seedEndpoint(t, s, org.ID, true), now)
	got, err := s.WebhookDeliveries.Get(ctx, org.ID, d.ID)
	if err != nil || got.EndpointID != d.EndpointID || got.EventType != webhook.JobSucceeded || string(got.Payload) != string(d.Payload) ||
		got.Status != webhook.Pending || got.Attempts != 0 || got.Last != nil || got.NextAt == nil || !got.NextAt.Equal(now) || !got.CreatedAt.Equal(now) {
		t.Fatalf("WebhookDeliveries.Get = %+v, %v; want the delivery as created: pending, no attempt", got, err)
	}
	_, err = s.WebhookDeliveries.Get(ctx, other.ID, d.ID)
	isKind(t, err, domain.ErrNotFound, "WebhookDeliveries.Get through another organization")
}

func deliveriesUpdate(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	d := seedDelivery(t, s, seedEndpoint(t, s, org.ID, true), now)
	_, err := s.WebhookDeliveries.Update(ctx, org.ID, d.ID, func(d *webhook.Delivery) error {
		d.Record(webhook.Attempt{At: now, StatusCode: 503, Latency: 42 * time.Millisecond, ResponseBody: "busy"})
		return nil
	})
	ok(t, err)
	got, err := s.WebhookDeliveries.Get(ctx, "", d.ID)
	if err != nil || got.Attempts != 1 || got.Last == nil || got.Last.StatusCode != 503 || got.Last.Latency != 42*time.Millisecond ||
		got.Last.ResponseBody != "busy" || !got.Last.At.Equal(now) || got.NextAt == nil || !got.NextAt.Equal(now.Add(5*time.Second)) {
		t.Fatalf("WebhookDeliveries.Get after Update = %+v, %v; want attempt 1 recorded (503, its latency and body) and the next attempt scheduled", got, err)
	}
}

func deliveriesDue(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	e := seedEndpoint(t, s, org.ID, true)
	later := seedDelivery(t, s, e, now.Add(5*time.Second))
	first := seedDelivery(t, s, e, now)
	ended := seedDelivery(t, s, e, now)
	_, err := s.WebhookDeliveries.Update(ctx, org.ID, ended.ID, func(d *webhook.Delivery) error {
		d.End()
		return nil
	})
	ok(t, err)
	ids := func(ds []webhook.Delivery) []string {
		out := make([]string, len(ds))
		for i, d := range ds {
			out[i] = d.ID
		}
		return out
	}
	if due, err := s.WebhookDeliveries.Due(ctx, now.Add(time.Second), 10); err != nil || !slices.Equal(ids(due), []string{first.ID}) {
		t.Fatalf("WebhookDeliveries.Due a second later = %v, %v; want the first delivery only", ids(due), err)
	}
	if due, err := s.WebhookDeliveries.Due(ctx, now.Add(5*time.Second), 10); err != nil || !slices.Equal(ids(due), []string{first.ID, later.ID}) {
		t.Fatalf("WebhookDeliveries.Due five seconds later = %v, %v; want both, oldest first", ids(due), err)
	}
	if due, err := s.WebhookDeliveries.Due(ctx, now.Add(5*time.Second), 1); err != nil || !slices.Equal(ids(due), []string{first.ID}) {
		t.Fatalf("WebhookDeliveries.Due with limit 1 = %v, %v; want the oldest due", ids(due), err)
	}
}

func deliveriesWaiting(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	e, other := seedEndpoint(t, s, org.ID, true), seedEndpoint(t, s, org.ID, true)
	seedDelivery(t, s, other, now)
	first := seedDelivery(t, s, e, now)
	later := seedDelivery(t, s, e, now.Add(time.Hour))
	ended := seedDelivery(t, s, e, now)
	_, err := s.WebhookDeliveries.Update(ctx, org.ID, ended.ID, func(d *webhook.Delivery) error { d.End(); return nil })
	ok(t, err)
	got, err := s.WebhookDeliveries.Waiting(ctx, e.ID, 10)
	if err != nil || len(got) != 2 || got[0].ID != first.ID || got[1].ID != later.ID {
		t.Fatalf("WebhookDeliveries.Waiting = %+v, %v; want the 2 waiting, oldest first", got, err)
	}
	if got, err := s.WebhookDeliveries.Waiting(ctx, e.ID, 1); err != nil || len(got) != 1 {
		t.Fatalf("WebhookDeliveries.Waiting with limit 1 = %d deliveries, %v; want 1", len(got), err)
	}
}

func deliveriesList(t *testing.T, s Stores) {
	org := seedOrg(t, s)
	e, other := seedEndpoint(t, s, org.ID, true), seedEndpoint(t, s, org.ID, true)
	seedDelivery(t, s, other, now)
	var created []string
	for range 3 {
		created = append(created, seedDelivery(t, s, e, now).ID)
	}
	got := pages(t, 2, func(p ports.Page) ([]webhook.Delivery, string, error) {
		return s.WebhookDeliveries.List(context.Background(), org.ID, e.ID, p)
	}, func(d webhook.Delivery) string { return d.ID })
	newestFirst(t, "WebhookDeliveries.List", got, created)
}
