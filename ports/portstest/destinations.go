package portstest

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/destination"
	"github.com/tabnorm/tabnorm/domain/id"
	"github.com/tabnorm/tabnorm/ports"
)

// Destinations is the suite of ports.Destinations.
func Destinations(t *testing.T, open func(t *testing.T) Stores) {
	t.Helper()
	runSteps(t, open, []step[Stores]{
		{"create_then_get", destinationsCreateThenGet},
		{"another_organizations_destination_is_not_found", destinationsOtherOrg},
		{"list_pages_newest_first", destinationsList},
		{"update_reads_modifies_and_writes", destinationsUpdate},
		{"delete_takes_the_deliveries_along", destinationsDelete},
	})
}

func seedDestination(t *testing.T, s Stores, orgID string) destination.Destination {
	t.Helper()
	d := destination.Destination{ID: id.New(id.Destination), OrgID: orgID, Name: "warehouse", Type: destination.Postgres,
		Config: map[string]string{"table": "contacts", "host": "postgres://db.example.com/app"}, Sealed: []byte{0, 1, 2, 0xff}, CreatedAt: now, UpdatedAt: now}
	ok(t, s.Destinations.Create(context.Background(), d))
	return d
}

func destinationsCreateThenGet(t *testing.T, s Stores) {
	org := seedOrg(t, s)
	d := seedDestination(t, s, org.ID)
	for _, orgID := range []string{org.ID, ""} {
		got, err := s.Destinations.Get(context.Background(), orgID, d.ID)
		if err != nil || got.Name != d.Name || got.Type != d.Type || !maps.Equal(got.Config, d.Config) || !bytes.Equal(got.Sealed, d.Sealed) ||
			!got.CreatedAt.Equal(now) || !got.UpdatedAt.Equal(now) || got.OrgID != org.ID {
			t.Fatalf("Destinations.Get(%q) = %+v, %v; want the destination as created", orgID, got, err)
		}
	}
	_, err := s.Destinations.Get(context.Background(), org.ID, id.New(id.Destination))
	isKind(t, err, domain.ErrNotFound, "Destinations.Get of an unknown id")
}

func destinationsOtherOrg(t *testing.T, s Stores) {
	ctx := context.Background()
	org, other := seedOrg(t, s), seedOrg(t, s)
	d := seedDestination(t, s, org.ID)
	_, err := s.Destinations.Get(ctx, other.ID, d.ID)
	isKind(t, err, domain.ErrNotFound, "Destinations.Get through another organization")
	_, err = s.Destinations.Update(ctx, other.ID, d.ID, func(*destination.Destination) error { return nil })
	isKind(t, err, domain.ErrNotFound, "Destinations.Update through another organization")
	isKind(t, s.Destinations.Delete(ctx, other.ID, d.ID), domain.ErrNotFound, "Destinations.Delete through another organization")
	list, _, err := s.Destinations.List(ctx, other.ID, ports.Page{Limit: 10})
	if err != nil || len(list) != 0 {
		t.Fatalf("Destinations.List of another organization = %v, %v; want none", list, err)
	}
}

func destinationsList(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	var want []string
	for range 3 {
		want = append([]string{seedDestination(t, s, org.ID).ID}, want...)
	}
	first, next, err := s.Destinations.List(ctx, org.ID, ports.Page{Limit: 2})
	if err != nil || len(first) != 2 || first[0].ID != want[0] || first[1].ID != want[1] || next == "" {
		t.Fatalf("Destinations.List page 1 = %v, %q, %v; want the 2 newest and a cursor", first, next, err)
	}
	rest, next, err := s.Destinations.List(ctx, org.ID, ports.Page{Limit: 2, Cursor: next})
	if err != nil || len(rest) != 1 || rest[0].ID != want[2] || next != "" {
		t.Fatalf("Destinations.List page 2 = %v, %q, %v; want the oldest and no cursor", rest, next, err)
	}
}

func destinationsUpdate(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	d := seedDestination(t, s, org.ID)
	later := now.Add(time.Hour)
	_, err := s.Destinations.Update(ctx, org.ID, d.ID, func(d *destination.Destination) error {
		d.Name, d.Config["table"], d.Sealed, d.UpdatedAt = "lake", "people", []byte("new"), later
		return nil
	})
	ok(t, err)
	got, err := s.Destinations.Get(ctx, org.ID, d.ID)
	if err != nil || got.Name != "lake" || got.Config["table"] != "people" || string(got.Sealed) != "new" || !got.UpdatedAt.Equal(later) {
		t.Fatalf("Destinations.Get after Update = %+v, %v; want the new name, settings, sealed secrets and time", got, err)
	}
	boom := errors.New("boom")
	if _, err := s.Destinations.Update(ctx, org.ID, d.ID, func(d *destination.Destination) error { d.Name = "lost"; return boom }); !errors.Is(err, boom) {
		t.Fatalf("Destinations.Update whose fn fails = %v, want its error", err)
	}
	if got, _ := s.Destinations.Get(ctx, org.ID, d.ID); got.Name != "lake" {
		t.Fatalf("Destinations.Get after a failed Update = name %q; want the name before it", got.Name)
	}
}

func destinationsDelete(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	d := seedDestination(t, s, org.ID)
	p := seedPush(t, s, org.ID, d.ID, id.New(id.Job))
	ok(t, s.Destinations.Delete(ctx, org.ID, d.ID))
	_, err := s.Destinations.Get(ctx, org.ID, d.ID)
	isKind(t, err, domain.ErrNotFound, "Destinations.Get after Delete")
	_, err = s.Pushes.Get(ctx, org.ID, p.ID)
	isKind(t, err, domain.ErrNotFound, "Pushes.Get of a deleted destination's delivery")
	isKind(t, s.Destinations.Delete(ctx, org.ID, d.ID), domain.ErrNotFound, "a second Delete")
}

// Pushes is the suite of ports.Pushes.
func Pushes(t *testing.T, open func(t *testing.T) Stores) {
	t.Helper()
	runSteps(t, open, []step[Stores]{
		{"create_then_get", pushesCreateThenGet},
		{"one_per_job_and_destination", pushesOnePerJob},
		{"another_organizations_delivery_is_not_found", pushesOtherOrg},
		{"of_job_and_recent", pushesLists},
		{"due_finds_pending_and_lapsed_claims", pushesDue},
	})
}

func seedPush(t *testing.T, s Stores, orgID, destinationID, jobID string) destination.Delivery {
	t.Helper()
	p := destination.New(id.New(id.Push), orgID, jobID, destinationID, now)
	ok(t, s.Pushes.Create(context.Background(), p))
	return p
}

func pushesCreateThenGet(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	d := seedDestination(t, s, org.ID)
	p := seedPush(t, s, org.ID, d.ID, id.New(id.Job))
	for _, orgID := range []string{org.ID, ""} {
		got, err := s.Pushes.Get(ctx, orgID, p.ID)
		if err != nil || got.JobID != p.JobID || got.DestinationID != d.ID || got.Status != destination.Pending || got.NextAt == nil ||
			!got.NextAt.Equal(now) || !got.CreatedAt.Equal(now) || got.DeliveredAt != nil {
			t.Fatalf("Pushes.Get(%q) = %+v, %v; want the delivery as created", orgID, got, err)
		}
	}
	later := now.Add(time.Minute)
	_, err := s.Pushes.Update(ctx, "", p.ID, func(p *destination.Delivery) error {
		p.Claim(now, time.Minute)
		p.Succeed(42, 4096, later)
		return nil
	})
	ok(t, err)
	got, err := s.Pushes.Get(ctx, org.ID, p.ID)
	if err != nil || got.Status != destination.Delivered || got.Attempts != 1 || got.Rows != 42 || got.Bytes != 4096 || got.DeliveredAt == nil ||
		!got.DeliveredAt.Equal(later) || got.NextAt != nil {
		t.Fatalf("Pushes.Get after a delivered attempt = %+v, %v; want delivered, one attempt, its rows, bytes and time, nothing next", got, err)
	}
}

func pushesOnePerJob(t *testing.T, s Stores) {
	org := seedOrg(t, s)
	d := seedDestination(t, s, org.ID)
	p := seedPush(t, s, org.ID, d.ID, id.New(id.Job))
	again := destination.New(id.New(id.Push), org.ID, p.JobID, d.ID, now)
	isKind(t, s.Pushes.Create(context.Background(), again), domain.ErrConflict, "a second delivery of the job to the destination")
}

func pushesOtherOrg(t *testing.T, s Stores) {
	ctx := context.Background()
	org, other := seedOrg(t, s), seedOrg(t, s)
	d := seedDestination(t, s, org.ID)
	p := seedPush(t, s, org.ID, d.ID, id.New(id.Job))
	_, err := s.Pushes.Get(ctx, other.ID, p.ID)
	isKind(t, err, domain.ErrNotFound, "Pushes.Get through another organization")
	_, err = s.Pushes.Update(ctx, other.ID, p.ID, func(*destination.Delivery) error { return nil })
	isKind(t, err, domain.ErrNotFound, "Pushes.Update through another organization")
	if list, err := s.Pushes.OfJob(ctx, other.ID, p.JobID); err != nil || len(list) != 0 {
		t.Fatalf("Pushes.OfJob through another organization = %v, %v; want none", list, err)
	}
}

func pushesLists(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	d1, d2 := seedDestination(t, s, org.ID), seedDestination(t, s, org.ID)
	jobID := id.New(id.Job)
	a, b := seedPush(t, s, org.ID, d1.ID, jobID), seedPush(t, s, org.ID, d2.ID, jobID)
	c := seedPush(t, s, org.ID, d1.ID, id.New(id.Job))
	ofJob, err := s.Pushes.OfJob(ctx, org.ID, jobID)
	if err != nil || len(ofJob) != 2 || ofJob[0].ID != a.ID || ofJob[1].ID != b.ID {
		t.Fatalf("Pushes.OfJob = %v, %v; want the job's two deliveries, oldest first", ofJob, err)
	}
	recent, next, err := s.Pushes.Recent(ctx, org.ID, d1.ID, ports.Page{Limit: 1})
	if err != nil || len(recent) != 1 || recent[0].ID != c.ID || next == "" {
		t.Fatalf("Pushes.Recent = %v, %q, %v; want the newest of d1 and a cursor", recent, next, err)
	}
	recent, next, err = s.Pushes.Recent(ctx, org.ID, d1.ID, ports.Page{Limit: 1, Cursor: next})
	if err != nil || len(recent) != 1 || recent[0].ID != a.ID || next != "" {
		t.Fatalf("Pushes.Recent page 2 = %v, %q, %v; want the oldest of d1", recent, next, err)
	}
}

func pushesDue(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	d := seedDestination(t, s, org.ID)
	pending := seedPush(t, s, org.ID, d.ID, id.New(id.Job))
	claimed := seedPush(t, s, org.ID, d.ID, id.New(id.Job))
	done := seedPush(t, s, org.ID, d.ID, id.New(id.Job))
	_, err := s.Pushes.Update(ctx, org.ID, claimed.ID, func(p *destination.Delivery) error { p.Claim(now, time.Hour); return nil })
	ok(t, err)
	_, err = s.Pushes.Update(ctx, org.ID, done.ID, func(p *destination.Delivery) error { p.Claim(now, time.Minute); p.Succeed(1, 1, now); return nil })
	ok(t, err)
	due, err := s.Pushes.Due(ctx, now, 10)
	if err != nil || len(due) != 1 || due[0].ID != pending.ID {
		t.Fatalf("Pushes.Due(now) = %v, %v; want only the pending one", due, err)
	}
	due, err = s.Pushes.Due(ctx, now.Add(2*time.Hour), 10)
	if err != nil || len(due) != 2 {
		t.Fatalf("Pushes.Due(after the claim lapsed) = %v, %v; want the pending and the lapsed one", due, err)
	}
}
