package portstest

import (
	"context"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/entitlement"
	"github.com/tabnorm/tabnorm/domain/id"
	"github.com/tabnorm/tabnorm/domain/identity"
)

// Entitlements is the suite of ports.Entitlements.
func Entitlements(t *testing.T, open func(t *testing.T) Stores) {
	t.Helper()
	runSteps(t, open, []step[Stores]{
		{"grant_round_trips", entsGrantRoundTrips},
		{"a_new_grant_replaces_the_current_one", entsRegrant},
		{"revoke_ends_the_current_grant_and_keeps_it", entsRevoke},
		{"unknown_organization_is_not_found", entsUnknownOrg},
		{"current_of_several_organizations", entsCurrentOfSeveral},
	})
}

// grant records a current admin grant of p for the organization at now.
func grant(t *testing.T, s Stores, orgID string, p identity.Product, until *time.Time) entitlement.Entitlement {
	t.Helper()
	e, err := entitlement.Grant(id.New(entitlement.IDPrefix), orgID, p, entitlement.Admin, "tabnorm admin", now, until)
	ok(t, err)
	ok(t, s.Entitlements.Grant(context.Background(), e))
	return e
}

func sameGrant(a, b entitlement.Entitlement) bool {
	sameTime := func(x, y *time.Time) bool { return (x == nil && y == nil) || (x != nil && y != nil && x.Equal(*y)) }
	return a.ID == b.ID && a.OrgID == b.OrgID && a.Product == b.Product && a.Source == b.Source && a.GrantedBy == b.GrantedBy &&
		a.GrantedAt.Equal(b.GrantedAt) && sameTime(a.Until, b.Until) && sameTime(a.RevokedAt, b.RevokedAt) && a.RevokedBy == b.RevokedBy
}

func entsGrantRoundTrips(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	until := now.Add(48 * time.Hour)
	e, err := entitlement.Grant(id.New(entitlement.IDPrefix), org.ID, identity.Connect, entitlement.Plan, "plan:team", now, &until)
	ok(t, err)
	ok(t, s.Entitlements.Grant(ctx, e))
	cur, err := s.Entitlements.Current(ctx, org.ID)
	if err != nil || len(cur) != 1 || !sameGrant(cur[0], e) {
		t.Fatalf("Entitlements.Current = %+v, %v; want %+v", cur, err, e)
	}
	// An expired grant is still current (not revoked): it no longer works.
	if cur[0].Active(until) || !cur[0].Active(now) {
		t.Fatalf("Entitlements.Current = %+v; want a grant active now and ended at its until", cur[0])
	}
	hist, err := s.Entitlements.History(ctx, org.ID)
	if err != nil || len(hist) != 1 || !sameGrant(hist[0], e) {
		t.Fatalf("Entitlements.History = %+v, %v; want the one grant", hist, err)
	}
}

func entsRegrant(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	first := grant(t, s, org.ID, identity.Connect, nil)
	until := now.Add(24 * time.Hour)
	second, err := entitlement.Grant(id.New(entitlement.IDPrefix), org.ID, identity.Connect, entitlement.Admin, "ops", now.Add(time.Hour), &until)
	ok(t, err)
	ok(t, s.Entitlements.Grant(ctx, second))
	cur, err := s.Entitlements.Current(ctx, org.ID)
	if err != nil || len(cur) != 1 || !sameGrant(cur[0], second) {
		t.Fatalf("Entitlements.Current after a new grant = %+v, %v; want only the new grant", cur, err)
	}
	hist, err := s.Entitlements.History(ctx, org.ID)
	ok(t, err)
	want := first.Revoke(second.GrantedAt, second.GrantedBy)
	if len(hist) != 2 || !sameGrant(hist[0], second) || !sameGrant(hist[1], want) {
		t.Fatalf("Entitlements.History = %+v, want the new grant then %+v", hist, want)
	}
}

func entsRevoke(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s, identity.Normalize, identity.Connect)
	at := now.Add(time.Minute)
	got, err := s.Entitlements.Revoke(ctx, org.ID, identity.Normalize, at, "tabnorm admin")
	if err != nil || got.Product != identity.Normalize || got.RevokedAt == nil || !got.RevokedAt.Equal(at) || got.RevokedBy != "tabnorm admin" {
		t.Fatalf("Entitlements.Revoke = %+v, %v; want normalize revoked at %v by tabnorm admin", got, err, at)
	}
	_, err = s.Entitlements.Revoke(ctx, org.ID, identity.Normalize, at, "tabnorm admin")
	isKind(t, err, domain.ErrNotFound, "Entitlements.Revoke without a current grant")
	other := seedOrg(t, s, identity.Connect)
	_, err = s.Entitlements.Revoke(ctx, other.ID, identity.Normalize, at, "x")
	isKind(t, err, domain.ErrNotFound, "Entitlements.Revoke of another organization's product")
	cur, err := s.Entitlements.Current(ctx, org.ID)
	if err != nil || len(cur) != 1 || cur[0].Product != identity.Connect {
		t.Fatalf("Entitlements.Current after Revoke = %+v, %v; want connect only", cur, err)
	}
	hist, err := s.Entitlements.History(ctx, org.ID)
	if err != nil || len(hist) != 2 {
		t.Fatalf("Entitlements.History after Revoke = %+v, %v; want 2 grants, the revoked one kept", hist, err)
	}
	if otherCur, _ := s.Entitlements.Current(ctx, other.ID); len(otherCur) != 1 || !otherCur[0].Active(at) {
		t.Fatalf("Entitlements.Current of another organization = %+v; want its grant unchanged and active", otherCur)
	}
}

func entsUnknownOrg(t *testing.T, s Stores) {
	e, err := entitlement.Grant(id.New(entitlement.IDPrefix), id.New(id.Org), identity.Connect, entitlement.Admin, "x", now, nil)
	ok(t, err)
	isKind(t, s.Entitlements.Grant(context.Background(), e), domain.ErrNotFound, "Entitlements.Grant to an unknown organization")
}

func entsCurrentOfSeveral(t *testing.T, s Stores) {
	ctx := context.Background()
	a := seedOrg(t, s, identity.Normalize)
	b := seedOrg(t, s, identity.Normalize, identity.Connect)
	c := seedOrg(t, s, identity.Connect)
	cur, err := s.Entitlements.Current(ctx, a.ID, b.ID)
	ok(t, err)
	if len(cur) != 3 || len(entitlement.Products(cur, a.ID, now)) != 1 || len(entitlement.Products(cur, b.ID, now)) != 2 ||
		len(entitlement.Products(cur, c.ID, now)) != 0 {
		t.Fatalf("Entitlements.Current(a, b, c) = %+v; want 1 product for a, 2 for b, none for c", cur)
	}
	if none, err := s.Entitlements.Current(ctx); err != nil || len(none) != 0 {
		t.Fatalf("Entitlements.Current() = %+v, %v; want none", none, err)
	}
}
