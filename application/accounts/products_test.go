package accounts_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/mock"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/ports"
)

func TestService_products(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	acme := identity.Organization{ID: "org_acme", Name: "Acme", Products: []identity.Product{identity.Normalize}}
	withConnect := acme
	withConnect.Products = []identity.Product{identity.Normalize, identity.Connect}

	t.Run("a grant is stored and the organization returned as it now is", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.orgs.EXPECT().Get(mock.Anything, "org_acme").Return(acme, nil).Once()
		f.orgs.EXPECT().Grant(mock.Anything, "org_acme", identity.Connect, now).Return(nil).Once()
		f.orgs.EXPECT().Get(mock.Anything, "org_acme").Return(withConnect, nil).Once()
		org, err := f.svc.Grant(ctx, "org_acme", identity.Connect)
		if err != nil || len(org.Products) != 2 {
			t.Fatalf("Grant = %+v, %v", org, err)
		}
	})

	t.Run("a revocation is stored and the organization returned as it now is", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.orgs.EXPECT().Get(mock.Anything, "org_acme").Return(withConnect, nil).Once()
		f.orgs.EXPECT().Revoke(mock.Anything, "org_acme", identity.Connect).Return(nil).Once()
		f.orgs.EXPECT().Get(mock.Anything, "org_acme").Return(acme, nil).Once()
		org, err := f.svc.Revoke(ctx, "org_acme", identity.Connect)
		if err != nil || len(org.Products) != 1 {
			t.Fatalf("Revoke = %+v, %v", org, err)
		}
	})

	t.Run("an unknown organization is not found, and nothing is stored", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.orgs.EXPECT().Get(mock.Anything, "org_x").Return(identity.Organization{}, domain.NotFound("organization")).Twice()
		if _, err := f.svc.Grant(ctx, "org_x", identity.Connect); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("Grant: %v", err)
		}
		if _, err := f.svc.Revoke(ctx, "org_x", identity.Connect); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("Revoke: %v", err)
		}
	})

	t.Run("a failed write is returned", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		down := errors.New("database down")
		f.orgs.EXPECT().Get(mock.Anything, "org_acme").Return(acme, nil).Twice()
		f.orgs.EXPECT().Grant(mock.Anything, "org_acme", identity.Connect, now).Return(down).Once()
		f.orgs.EXPECT().Revoke(mock.Anything, "org_acme", identity.Normalize).Return(down).Once()
		if _, err := f.svc.Grant(ctx, "org_acme", identity.Connect); !errors.Is(err, down) {
			t.Fatalf("Grant: %v", err)
		}
		if _, err := f.svc.Revoke(ctx, "org_acme", identity.Normalize); !errors.Is(err, down) {
			t.Fatalf("Revoke: %v", err)
		}
	})
}

func TestService_operatorReads(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	page := ports.Page{Limit: 20}
	f.orgs.EXPECT().List(mock.Anything, page).Return([]identity.Organization{{ID: "org_a"}, {ID: "org_b"}}, "next", nil).Once()
	if list, next, err := f.svc.ListOrgs(ctx, page); err != nil || len(list) != 2 || next != "next" {
		t.Fatalf("ListOrgs = %v, %q, %v", list, next, err)
	}
	f.orgs.EXPECT().Get(mock.Anything, "org_a").Return(identity.Organization{ID: "org_a"}, nil).Once()
	if org, err := f.svc.Org(ctx, "org_a"); err != nil || org.ID != "org_a" {
		t.Fatalf("Org = %+v, %v", org, err)
	}
}
