package sqlstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/sqlstore"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/apikey"
	"github.com/tabnorm/tabnorm/domain/id"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/session"
)

func TestCredentials_contract(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		now := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
		org, user := seedOrgUser(t, db) // org has normalize
		orgs := sqlstore.NewOrganizations(db)
		if err := orgs.Grant(ctx, org.ID, identity.Connect, now); err != nil {
			t.Fatal(err)
		}
		customer, _ := identity.NewOrganization(id.New(id.Org), "Customer", []identity.Product{identity.Connect}, now)
		if err := orgs.Create(ctx, customer); err != nil {
			t.Fatal(err)
		}
		empty, _ := identity.NewOrganization(id.New(id.Org), "Empty", nil, now)
		if err := orgs.Create(ctx, empty); err != nil {
			t.Fatal(err)
		}
		creds := sqlstore.NewCredentials(db)

		plain := apikey.Generate()
		k := apikey.Key{ID: id.New(id.Key), OrgID: org.ID, Name: "ci", Hash: apikey.HashOf(plain), Last4: apikey.Last4(plain), CreatedBy: user.ID, CreatedAt: now}
		if err := sqlstore.NewAPIKeys(db).Create(ctx, k); err != nil {
			t.Fatal(err)
		}
		got, products, err := creds.KeyByHash(ctx, k.Hash)
		if err != nil || got.ID != k.ID || got.OrgID != org.ID || !got.CreatedAt.Equal(now) || got.Revoked() || len(products) != 2 || products[0] != identity.Normalize {
			t.Fatalf("KeyByHash = %+v, %v, %v", got, products, err)
		}
		emptyPlain := apikey.Generate()
		if err := sqlstore.NewAPIKeys(db).Create(ctx, apikey.Key{ID: id.New(id.Key), OrgID: empty.ID, Name: "e", Hash: apikey.HashOf(emptyPlain), Last4: "xxxx", CreatedAt: now}); err != nil {
			t.Fatal(err)
		}
		if got, products, err := creds.KeyByHash(ctx, apikey.HashOf(emptyPlain)); err != nil || got.OrgID != empty.ID || len(products) != 0 {
			t.Fatalf("key of an org without products: %+v %v %v", got, products, err)
		}
		if _, _, err := creds.KeyByHash(ctx, apikey.HashOf(apikey.Generate())); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("unknown key: %v", err)
		}

		ses, token := session.New(user.ID, org.ID, now)
		sessions := sqlstore.NewSessions(db)
		if err := sessions.Create(ctx, ses); err != nil {
			t.Fatal(err)
		}
		gotSes, gotUser, byOrg, err := creds.SessionByHash(ctx, session.HashOf(token))
		if err != nil || gotSes.UserID != user.ID || gotUser.Email != user.Email || gotUser.Role != identity.Admin || len(byOrg[org.ID]) != 2 || len(byOrg) != 1 {
			t.Fatalf("SessionByHash = %+v %+v %v %v", gotSes, gotUser, byOrg, err)
		}
		at := now.Add(time.Minute)
		if err := sessions.SetImpersonation(ctx, ses.Hash, customer.ID, &at); err != nil {
			t.Fatal(err)
		}
		gotSes, _, byOrg, err = creds.SessionByHash(ctx, ses.Hash)
		if err != nil || gotSes.ImpersonatedOrgID != customer.ID || !gotSes.ImpersonatedAt.Equal(at) ||
			len(byOrg[customer.ID]) != 1 || byOrg[customer.ID][0] != identity.Connect || len(byOrg[org.ID]) != 2 {
			t.Fatalf("impersonating: %+v %v %v", gotSes, byOrg, err)
		}
		if _, _, _, err := creds.SessionByHash(ctx, session.HashOf("nope")); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("unknown session: %v", err)
		}
	})
}
