package accounts_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/entitlement"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/ports"
)

func grantOf(t *testing.T, org string, p identity.Product, until *time.Time) entitlement.Entitlement {
	t.Helper()
	e, err := entitlement.Grant("ent_"+string(p), org, p, entitlement.Admin, "tabnorm admin", now.Add(-time.Hour), until)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestService_products(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	acme := identity.Organization{ID: "org_acme", Name: "Acme"}

	t.Run("a grant until a day is stored by the operator and the organization returned as it now is", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		until := now.Add(24 * time.Hour)
		f.audit.EXPECT().Record(mock.Anything, mock.MatchedBy(func(e identity.AuditEntry) bool {
			return e.Action == "entitlement.grant" && e.OrgID == "org_acme" && e.UserAgent == "tabnorm admin"
		})).Return(nil).Once()
		f.orgs.EXPECT().Get(mock.Anything, "org_acme").Return(acme, nil).Twice()
		var stored entitlement.Entitlement
		f.grants.EXPECT().Grant(mock.Anything, mock.Anything).RunAndReturn(func(_ context.Context, e entitlement.Entitlement) error {
			stored = e
			return nil
		}).Once()
		f.grants.EXPECT().Current(mock.Anything, "org_acme").RunAndReturn(func(context.Context, ...string) ([]entitlement.Entitlement, error) {
			return []entitlement.Entitlement{grantOf(t, "org_acme", identity.Normalize, nil), stored}, nil
		}).Once()
		org, err := f.svc.Grant(ctx, "org_acme", identity.Connect, &until)
		if err != nil || len(org.Products) != 2 || !org.Has(identity.Connect) {
			t.Fatalf("Grant = %+v, %v", org, err)
		}
		if stored.OrgID != "org_acme" || stored.Source != entitlement.Admin || stored.GrantedBy != "tabnorm admin" ||
			!stored.GrantedAt.Equal(now) || stored.Until == nil || !stored.Until.Equal(until) {
			t.Fatalf("stored grant = %+v", stored)
		}
	})

	t.Run("a grant that ends before now is refused before anything is stored", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		past := now.Add(-time.Hour)
		f.orgs.EXPECT().Get(mock.Anything, "org_acme").Return(acme, nil).Once()
		if _, err := f.svc.Grant(ctx, "org_acme", identity.Connect, &past); !errors.Is(err, domain.ErrInvalid) {
			t.Fatalf("Grant in the past: %v", err)
		}
	})

	t.Run("an expired grant gives no product", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		ended := now // the clock reads exactly the grant's end
		f.orgs.EXPECT().Get(mock.Anything, "org_acme").Return(acme, nil).Once()
		f.grants.EXPECT().Current(mock.Anything, "org_acme").Return([]entitlement.Entitlement{
			grantOf(t, "org_acme", identity.Normalize, nil), grantOf(t, "org_acme", identity.Connect, &ended)}, nil).Once()
		org, err := f.svc.Org(ctx, "org_acme")
		if err != nil || len(org.Products) != 1 || org.Has(identity.Connect) {
			t.Fatalf("Org = %+v, %v", org, err)
		}
	})

}

func TestService_revoke(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	acme := identity.Organization{ID: "org_acme", Name: "Acme"}

	t.Run("a revocation is stored by the operator and the organization returned as it now is", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.audit.EXPECT().Record(mock.Anything, mock.MatchedBy(func(e identity.AuditEntry) bool {
			return e.Action == "entitlement.revoke" && e.OrgID == "org_acme"
		})).Return(nil).Once()
		f.orgs.EXPECT().Get(mock.Anything, "org_acme").Return(acme, nil).Twice()
		f.grants.EXPECT().Revoke(mock.Anything, "org_acme", identity.Connect, now, "tabnorm admin").
			Return(grantOf(t, "org_acme", identity.Connect, nil).Revoke(now, "tabnorm admin"), nil).Once()
		f.grants.EXPECT().Current(mock.Anything, "org_acme").Return([]entitlement.Entitlement{grantOf(t, "org_acme", identity.Normalize, nil)}, nil).Once()
		org, err := f.svc.Revoke(ctx, "org_acme", identity.Connect)
		if err != nil || len(org.Products) != 1 || !org.Has(identity.Normalize) {
			t.Fatalf("Revoke = %+v, %v", org, err)
		}
	})

}

func TestService_revokeAndHistory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	acme := identity.Organization{ID: "org_acme", Name: "Acme"}

	t.Run("revoking a product the organization does not have changes nothing", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.orgs.EXPECT().Get(mock.Anything, "org_acme").Return(acme, nil).Twice()
		f.grants.EXPECT().Revoke(mock.Anything, "org_acme", identity.Connect, now, "tabnorm admin").
			Return(entitlement.Entitlement{}, domain.NotFound("entitlement")).Once()
		f.grants.EXPECT().Current(mock.Anything, "org_acme").Return(nil, nil).Once()
		if org, err := f.svc.Revoke(ctx, "org_acme", identity.Connect); err != nil || len(org.Products) != 0 {
			t.Fatalf("Revoke = %+v, %v", org, err)
		}
	})

	t.Run("an unknown organization is not found, and nothing is stored", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.orgs.EXPECT().Get(mock.Anything, "org_x").Return(identity.Organization{}, domain.NotFound("organization")).Times(3)
		if _, err := f.svc.Grant(ctx, "org_x", identity.Connect, nil); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("Grant: %v", err)
		}
		if _, err := f.svc.Revoke(ctx, "org_x", identity.Connect); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("Revoke: %v", err)
		}
		if _, err := f.svc.Entitlements(ctx, "org_x", true); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("Entitlements: %v", err)
		}
	})

	t.Run("a failed write is returned", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		down := errors.New("database down")
		f.orgs.EXPECT().Get(mock.Anything, "org_acme").Return(acme, nil).Twice()
		f.grants.EXPECT().Grant(mock.Anything, mock.Anything).Return(down).Once()
		f.grants.EXPECT().Revoke(mock.Anything, "org_acme", identity.Normalize, now, "tabnorm admin").Return(entitlement.Entitlement{}, down).Once()
		if _, err := f.svc.Grant(ctx, "org_acme", identity.Connect, nil); !errors.Is(err, down) {
			t.Fatalf("Grant: %v", err)
		}
		if _, err := f.svc.Revoke(ctx, "org_acme", identity.Normalize); !errors.Is(err, down) {
			t.Fatalf("Revoke: %v", err)
		}
	})

	t.Run("the current grants or the whole history", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		cur := []entitlement.Entitlement{grantOf(t, "org_acme", identity.Normalize, nil)}
		hist := append([]entitlement.Entitlement{grantOf(t, "org_acme", identity.Connect, nil).Revoke(now, "x")}, cur...)
		f.orgs.EXPECT().Get(mock.Anything, "org_acme").Return(acme, nil).Twice()
		f.grants.EXPECT().Current(mock.Anything, "org_acme").Return(cur, nil).Once()
		f.grants.EXPECT().History(mock.Anything, "org_acme").Return(hist, nil).Once()
		if got, err := f.svc.Entitlements(ctx, "org_acme", false); err != nil || len(got) != 1 {
			t.Fatalf("current = %+v, %v", got, err)
		}
		if got, err := f.svc.Entitlements(ctx, "org_acme", true); err != nil || len(got) != 2 || !got[0].Revoked() {
			t.Fatalf("history = %+v, %v", got, err)
		}
	})
}

func TestService_operatorReads(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	page := ports.Page{Limit: 20}
	f.orgs.EXPECT().List(mock.Anything, page).Return([]identity.Organization{{ID: "org_a"}, {ID: "org_b"}}, "next", nil).Once()
	f.grants.EXPECT().Current(mock.Anything, "org_a", "org_b").Return([]entitlement.Entitlement{grantOf(t, "org_b", identity.Connect, nil)}, nil).Once()
	list, next, err := f.svc.ListOrgs(ctx, page)
	if err != nil || len(list) != 2 || next != "next" || len(list[0].Products) != 0 || !list[1].Has(identity.Connect) {
		t.Fatalf("ListOrgs = %+v, %q, %v", list, next, err)
	}
	f.orgs.EXPECT().Get(mock.Anything, "org_a").Return(identity.Organization{ID: "org_a"}, nil).Once()
	f.grants.EXPECT().Current(mock.Anything, "org_a").Return(nil, nil).Once()
	if org, err := f.svc.Org(ctx, "org_a"); err != nil || org.ID != "org_a" {
		t.Fatalf("Org = %+v, %v", org, err)
	}
	down := errors.New("database down")
	f.orgs.EXPECT().List(mock.Anything, page).Return([]identity.Organization{{ID: "org_a"}}, "", nil).Once()
	f.grants.EXPECT().Current(mock.Anything, "org_a").Return(nil, down).Once()
	if _, _, err := f.svc.ListOrgs(ctx, page); !errors.Is(err, down) {
		t.Fatalf("ListOrgs with the entitlements down: %v", err)
	}
}
