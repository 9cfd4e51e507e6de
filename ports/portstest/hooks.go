package portstest

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/hook"
	"github.com/tabnorm/tabnorm/domain/id"
	"github.com/tabnorm/tabnorm/ports"
)

// Hooks is the suite of ports.Hooks.
func Hooks(t *testing.T, open func(t *testing.T) Stores) {
	t.Helper()
	runSteps(t, open, []step[Stores]{
		{"create_then_get_keeps_every_setting_and_the_sealed_secret", hooksCreateThenGet},
		{"another_organizations_hook_is_not_found", hooksOtherOrg},
		{"a_name_is_unique_in_an_organization_only", hooksNameUnique},
		{"named_returns_the_organizations_hooks_of_those_names", hooksNamed},
		{"list_pages_newest_first", hooksList},
		{"update_reads_modifies_and_writes", hooksUpdate},
		{"delete_removes_it", hooksDelete},
	})
}

func seedHook(t *testing.T, s Stores, orgID, name string) hook.Hook {
	t.Helper()
	h := hook.Hook{ID: id.New(id.Hook), OrgID: orgID, Name: name, URL: "https://crm.example.com/" + name, Timeout: 2500 * time.Millisecond,
		Concurrency: 3, Enabled: true, SealedSecret: []byte{1, 2, 3, 0, 255}, CreatedAt: now, UpdatedAt: now}
	ok(t, s.Hooks.Create(context.Background(), h))
	return h
}

func hooksCreateThenGet(t *testing.T, s Stores) {
	org := seedOrg(t, s)
	h := seedHook(t, s, org.ID, "crm")
	got, err := s.Hooks.Get(context.Background(), org.ID, h.ID)
	if err != nil || got.Name != "crm" || got.URL != h.URL || got.Timeout != 2500*time.Millisecond || got.Concurrency != 3 || !got.Enabled ||
		!bytes.Equal(got.SealedSecret, h.SealedSecret) || got.SealedPrevious != nil || got.PreviousUntil != nil || got.Secret != "" ||
		!got.CreatedAt.Equal(now) || !got.UpdatedAt.Equal(now) {
		t.Fatalf("Hooks.Get = %+v, %v; want the hook as created", got, err)
	}
}

func hooksOtherOrg(t *testing.T, s Stores) {
	ctx := context.Background()
	org, other := seedOrg(t, s), seedOrg(t, s)
	h := seedHook(t, s, org.ID, "crm")
	_, err := s.Hooks.Get(ctx, other.ID, h.ID)
	isKind(t, err, domain.ErrNotFound, "Hooks.Get through another organization")
	_, err = s.Hooks.Update(ctx, other.ID, h.ID, func(*hook.Hook) error { return nil })
	isKind(t, err, domain.ErrNotFound, "Hooks.Update through another organization")
	isKind(t, s.Hooks.Delete(ctx, other.ID, h.ID), domain.ErrNotFound, "Hooks.Delete through another organization")
	if got, err := s.Hooks.Named(ctx, other.ID, []string{"crm"}); err != nil || len(got) != 0 {
		t.Fatalf("Hooks.Named through another organization = %+v, %v; want none", got, err)
	}
}

func hooksNameUnique(t *testing.T, s Stores) {
	ctx := context.Background()
	org, other := seedOrg(t, s), seedOrg(t, s)
	seedHook(t, s, org.ID, "crm")
	dup := hook.Hook{ID: id.New(id.Hook), OrgID: org.ID, Name: "crm", URL: "https://x.example.com", Timeout: time.Second, Concurrency: 1,
		SealedSecret: []byte{1}, CreatedAt: now, UpdatedAt: now}
	isKind(t, s.Hooks.Create(ctx, dup), domain.ErrConflict, "Hooks.Create with a name the organization uses")
	seedHook(t, s, other.ID, "crm")
	b := seedHook(t, s, org.ID, "erp")
	_, err := s.Hooks.Update(ctx, org.ID, b.ID, func(h *hook.Hook) error { h.Name = "crm"; return nil })
	isKind(t, err, domain.ErrConflict, "Hooks.Update to a name the organization uses")
}

func hooksNamed(t *testing.T, s Stores) {
	org := seedOrg(t, s)
	a, b := seedHook(t, s, org.ID, "crm"), seedHook(t, s, org.ID, "erp")
	seedHook(t, s, org.ID, "other")
	got, err := s.Hooks.Named(context.Background(), org.ID, []string{"erp", "crm", "missing"})
	if err != nil || len(got) != 2 || got[0].ID != a.ID || got[1].ID != b.ID {
		t.Fatalf("Hooks.Named = %+v, %v; want crm and erp", got, err)
	}
}

func hooksList(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	a, b, c := seedHook(t, s, org.ID, "a"), seedHook(t, s, org.ID, "b"), seedHook(t, s, org.ID, "c")
	first, next, err := s.Hooks.List(ctx, org.ID, ports.Page{Limit: 2})
	if err != nil || len(first) != 2 || first[0].ID != c.ID || first[1].ID != b.ID || next == "" {
		t.Fatalf("Hooks.List page 1 = %+v, %q, %v; want the 2 newest and a cursor", first, next, err)
	}
	rest, next, err := s.Hooks.List(ctx, org.ID, ports.Page{Limit: 2, Cursor: next})
	if err != nil || len(rest) != 1 || rest[0].ID != a.ID || next != "" {
		t.Fatalf("Hooks.List page 2 = %+v, %q, %v; want the oldest and no cursor", rest, next, err)
	}
}

func hooksUpdate(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	h := seedHook(t, s, org.ID, "crm")
	later := now.Add(time.Hour)
	_, err := s.Hooks.Update(ctx, org.ID, h.ID, func(h *hook.Hook) error {
		h.Name, h.URL, h.Timeout, h.Concurrency, h.Enabled = "crm2", "https://new.example.com", 9*time.Second, 8, false
		h.SealedPrevious, h.SealedSecret, h.PreviousUntil, h.UpdatedAt = h.SealedSecret, []byte{9, 9}, &later, later
		return nil
	})
	ok(t, err)
	got, err := s.Hooks.Get(ctx, org.ID, h.ID)
	if err != nil || got.Name != "crm2" || got.URL != "https://new.example.com" || got.Timeout != 9*time.Second || got.Concurrency != 8 || got.Enabled ||
		!bytes.Equal(got.SealedSecret, []byte{9, 9}) || !bytes.Equal(got.SealedPrevious, h.SealedSecret) || got.PreviousUntil == nil ||
		!got.PreviousUntil.Equal(later) || !got.UpdatedAt.Equal(later) || !got.CreatedAt.Equal(now) {
		t.Fatalf("Hooks.Get after Hooks.Update = %+v, %v; want every changed setting, the secrets and the times", got, err)
	}
}

func hooksDelete(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	h := seedHook(t, s, org.ID, "crm")
	ok(t, s.Hooks.Delete(ctx, org.ID, h.ID))
	_, err := s.Hooks.Get(ctx, org.ID, h.ID)
	isKind(t, err, domain.ErrNotFound, "Hooks.Get after Delete")
	isKind(t, s.Hooks.Delete(ctx, org.ID, h.ID), domain.ErrNotFound, "Hooks.Delete twice")
}
