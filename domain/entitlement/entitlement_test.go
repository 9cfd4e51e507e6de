package entitlement

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/identity"
)

var t0 = time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)

func TestGrant_checks(t *testing.T) {
	t.Parallel()
	until := t0.Add(time.Hour)
	e, err := Grant("ent_1", "org_1", identity.Connect, Admin, " tabnorm admin ", t0, &until)
	if err != nil || e.GrantedBy != "tabnorm admin" || !e.GrantedAt.Equal(t0) || e.Until == nil || !e.Until.Equal(until) {
		t.Fatalf("Grant = %+v, %v", e, err)
	}
	for name, bad := range map[string]func() error{
		"unknown product": func() error { _, err := Grant("ent_2", "org_1", "billing", Admin, "x", t0, nil); return err },
		"unknown source":  func() error { _, err := Grant("ent_2", "org_1", identity.Connect, "gift", "x", t0, nil); return err },
		"ends at start":   func() error { _, err := Grant("ent_2", "org_1", identity.Connect, Admin, "x", t0, &t0); return err },
	} {
		if err := bad(); !errors.Is(err, domain.ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}
	if _, err := ParseSource("plan"); err != nil {
		t.Fatal(err)
	}
}

func TestEntitlement_lifecycle(t *testing.T) {
	t.Parallel()
	until := t0.Add(24 * time.Hour)
	e, _ := Grant("ent_1", "org_1", identity.Normalize, Plan, "plan:team", t0, &until)
	if !e.Active(t0) || !e.Active(until.Add(-time.Nanosecond)) || e.Status(t0) != "active" {
		t.Fatal("a grant is not active before its end")
	}
	if e.Active(until) || e.Status(until) != "expired" {
		t.Fatal("a grant still works at its end")
	}
	r := e.Revoke(t0.Add(time.Hour), "tabnorm admin")
	if r.Active(t0.Add(2*time.Hour)) || r.Status(t0) != "revoked" || r.RevokedBy != "tabnorm admin" || e.Revoked() {
		t.Fatalf("revoked: %+v (the original must stay unchanged: %+v)", r, e)
	}
	if again := r.Revoke(t0.Add(3*time.Hour), "other"); !again.RevokedAt.Equal(*r.RevokedAt) || again.RevokedBy != "tabnorm admin" {
		t.Fatal("revoking twice moved the revocation")
	}
	forever, _ := Grant("ent_2", "org_1", identity.Connect, Admin, "x", t0, nil)
	if !forever.Active(t0.AddDate(100, 0, 0)) {
		t.Fatal("a grant without end expired")
	}
}

func TestProducts_and_Covers(t *testing.T) {
	t.Parallel()
	until := t0.Add(time.Hour)
	conn, _ := Grant("ent_1", "org_1", identity.Connect, Admin, "x", t0, &until)
	norm, _ := Grant("ent_2", "org_1", identity.Normalize, Admin, "x", t0, nil)
	other, _ := Grant("ent_3", "org_2", identity.Connect, Admin, "x", t0, nil)
	gone := norm.Revoke(t0, "x")
	grants := []Entitlement{conn, norm, other}
	if got := Products(grants, "org_1", t0); !slices.Equal(got, []identity.Product{identity.Normalize, identity.Connect}) {
		t.Fatalf("Products = %v", got)
	}
	if got := Products(grants, "org_1", until); !slices.Equal(got, []identity.Product{identity.Normalize}) {
		t.Fatalf("after connect's end: %v", got)
	}
	if got := Products([]Entitlement{gone, other}, "org_1", t0); len(got) != 0 || got == nil {
		t.Fatalf("revoked and another organization's grants count: %v", got)
	}
	if Covers(grants, Installation, identity.Connect, t0) {
		t.Fatal("an organization's grant covers the installation")
	}
}

func TestParseUntil(t *testing.T) {
	t.Parallel()
	if u, err := ParseUntil(""); u != nil || err != nil {
		t.Fatalf("no end: %v %v", u, err)
	}
	if u, err := ParseUntil("2027-01-01"); err != nil || !u.Equal(time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("a day: %v %v", u, err)
	}
	if u, err := ParseUntil("2027-01-01T12:00:00+02:00"); err != nil || !u.Equal(time.Date(2027, 1, 1, 10, 0, 0, 0, time.UTC)) || u.Location() != time.UTC {
		t.Fatalf("a time: %v %v", u, err)
	}
	if _, err := ParseUntil("next year"); !errors.Is(err, domain.ErrInvalid) {
		t.Fatalf("garbage: %v", err)
	}
}

func TestWithProducts(t *testing.T) {
	t.Parallel()
	g, _ := Grant("ent_1", "org_2", identity.Connect, Admin, "x", t0, nil)
	orgs := []identity.Organization{{ID: "org_1", Products: []identity.Product{identity.Normalize}}, {ID: "org_2"}}
	WithProducts(orgs, []Entitlement{g}, t0)
	if len(orgs[0].Products) != 0 || len(orgs[1].Products) != 1 || orgs[1].Products[0] != identity.Connect {
		t.Fatalf("WithProducts = %+v", orgs)
	}
}
