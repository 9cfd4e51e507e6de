package sqlstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/sqlstore"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/id"
	"github.com/tabnorm/tabnorm/domain/webhook"
	"github.com/tabnorm/tabnorm/ports"
)

func TestWebhooks_contract(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		org, _ := seedOrgUser(t, db)
		other, _ := seedOrgUser(t, db)
		endpoints, deliveries := sqlstore.NewWebhookEndpoints(db), sqlstore.NewWebhookDeliveries(db)
		now := time.Date(2026, 11, 24, 10, 0, 0, 123e6, time.UTC)
		e := webhook.Endpoint{ID: id.New(id.Webhook), OrgID: org.ID, URL: "https://hooks.example.com/x", Description: "ci",
			Events: []string{webhook.JobSucceeded, webhook.JobFailed}, Enabled: true, Secret: webhook.NewSecret(), CreatedAt: now, UpdatedAt: now}
		if err := endpoints.Create(ctx, e); err != nil {
			t.Fatal(err)
		}
		off := webhook.Endpoint{ID: id.New(id.Webhook), OrgID: org.ID, URL: "https://hooks.example.com/y", Events: []string{webhook.JobStarted},
			Secret: webhook.NewSecret(), CreatedAt: now, UpdatedAt: now}
		if err := endpoints.Create(ctx, off); err != nil {
			t.Fatal(err)
		}
		got, err := endpoints.Get(ctx, org.ID, e.ID)
		if err != nil || got.URL != e.URL || len(got.Events) != 2 || got.Events[1] != webhook.JobFailed || !got.CreatedAt.Equal(now) || got.Secret != e.Secret {
			t.Fatalf("get: %+v %v", got, err)
		}
		if _, err := endpoints.Get(ctx, other.ID, e.ID); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("another organization's endpoint: %v", err)
		}
		enabled, err := endpoints.Enabled(ctx, org.ID)
		if err != nil || len(enabled) != 1 || enabled[0].ID != e.ID {
			t.Fatalf("enabled: %v %v", enabled, err)
		}
		list, next, err := endpoints.List(ctx, org.ID, ports.Page{Limit: 1})
		if err != nil || len(list) != 1 || list[0].ID != off.ID || next == "" {
			t.Fatalf("first page: %v %q %v", list, next, err)
		}
		if list, next, err = endpoints.List(ctx, org.ID, ports.Page{Limit: 1, Cursor: next}); err != nil || len(list) != 1 || list[0].ID != e.ID || next != "" {
			t.Fatalf("second page: %v %q %v", list, next, err)
		}
		later := now.Add(time.Hour)
		upd, err := endpoints.Update(ctx, "", e.ID, func(e *webhook.Endpoint) error {
			e.Rotate(webhook.NewSecret(), later)
			e.Failed(410, later)
			return nil
		})
		if err != nil || upd.Enabled || upd.PreviousSecret != e.Secret {
			t.Fatalf("update: %+v %v", upd, err)
		}
		got, _ = endpoints.Get(ctx, "", e.ID)
		if got.Enabled || got.DisabledReason == "" || got.PreviousUntil == nil || !got.PreviousUntil.Equal(later.Add(webhook.RotationOverlap)) || got.FailingSince == nil {
			t.Fatalf("after update: %+v", got)
		}

		d := webhook.NewDelivery(id.New(id.Delivery), e, webhook.JobSucceeded, []byte(`{"type":"job.succeeded"}`), now)
		if err := deliveries.Create(ctx, d); err != nil {
			t.Fatal(err)
		}
		d2 := webhook.NewDelivery(id.New(id.Delivery), e, webhook.Test, []byte(`{}`), now)
		if err := deliveries.Create(ctx, d2); err != nil {
			t.Fatal(err)
		}
		_, err = deliveries.Update(ctx, org.ID, d.ID, func(d *webhook.Delivery) error {
			d.Record(webhook.Attempt{At: now, StatusCode: 503, Latency: 42 * time.Millisecond, ResponseBody: "busy"})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		gd, err := deliveries.Get(ctx, "", d.ID)
		if err != nil || gd.Attempts != 1 || gd.Last == nil || gd.Last.StatusCode != 503 || gd.Last.Latency != 42*time.Millisecond ||
			gd.Last.ResponseBody != "busy" || gd.NextAt == nil || !gd.NextAt.Equal(now.Add(5*time.Second)) || string(gd.Payload) != string(d.Payload) {
			t.Fatalf("delivery: %+v %v", gd, err)
		}
		if _, err := deliveries.Get(ctx, other.ID, d.ID); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("another organization's delivery: %v", err)
		}
		if due, err := deliveries.Due(ctx, now.Add(time.Second), 10); err != nil || len(due) != 1 || due[0].ID != d2.ID {
			t.Fatalf("due a second later: %v %v", due, err)
		}
		if due, err := deliveries.Due(ctx, now.Add(5*time.Second), 10); err != nil || len(due) != 2 || due[0].ID != d2.ID {
			t.Fatalf("due five seconds later: %v %v", due, err)
		}
		dl, _, err := deliveries.List(ctx, org.ID, e.ID, ports.Page{})
		if err != nil || len(dl) != 2 || dl[0].ID != d2.ID || dl[1].Last == nil || dl[0].Last != nil {
			t.Fatalf("deliveries: %+v %v", dl, err)
		}
		if err := endpoints.Delete(ctx, other.ID, e.ID); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("delete by another organization: %v", err)
		}
		if err := endpoints.Delete(ctx, org.ID, e.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := deliveries.Get(ctx, "", d.ID); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("a deleted endpoint's delivery: %v", err)
		}
	})
}
