package auth_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"

	"github.com/tabnorm/tabnorm/application/auth"
	"github.com/tabnorm/tabnorm/domain/apikey"
	"github.com/tabnorm/tabnorm/domain/entitlement"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/license"
	"github.com/tabnorm/tabnorm/ports"
	"github.com/tabnorm/tabnorm/test/mocks"
)

// movingClock is a mocked clock whose time the test sets.
func movingClock(t *testing.T, at *time.Time) *mocks.Clock {
	clock := mocks.NewClock(t)
	clock.EXPECT().Now().RunAndReturn(func() time.Time { return *at }).Maybe()
	return clock
}

func licensed(t *testing.T, until time.Time, products ...identity.Product) license.Gate {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := license.Issue(priv, license.License{Licensee: "Acme", ExpiresAt: until, Products: products})
	if err != nil {
		t.Fatal(err)
	}
	return license.NewGate(true, tok, pub)
}

func TestGate_withoutLicense_theOrganizationsGrantsDecide(t *testing.T) {
	t.Parallel()
	at := now
	g := auth.NewGate(license.NewGate(false, "", nil), movingClock(t, &at))
	member := identity.Principal{Method: identity.ByAPIKey, OrgID: "org_1", Products: []identity.Product{identity.Normalize}}
	allowed(t, "normalize", g.Check(member, identity.Normalize), true, "")
	allowed(t, "connect", g.Check(member, identity.Connect), false, "forbidden_entitlement_missing")
	staff := identity.Principal{Method: identity.BySession, OrgID: "org_home", IsStaff: true}
	allowed(t, "staff, connect", g.Check(staff, identity.Connect), true, "")
	staff.Impersonating = true
	allowed(t, "staff impersonating, connect", g.Check(staff, identity.Connect), false, "forbidden_entitlement_missing")
}

func TestGate_theLicensesGrantsCoverTheInstallationUntilItEnds(t *testing.T) {
	t.Parallel()
	end := now.Add(time.Hour)
	at := now
	g := auth.NewGate(licensed(t, end, identity.Normalize), movingClock(t, &at))
	both := identity.Principal{Method: identity.ByAPIKey, OrgID: "org_1", Products: []identity.Product{identity.Normalize, identity.Connect}}
	staff := identity.Principal{Method: identity.BySession, OrgID: "org_home", IsStaff: true}
	allowed(t, "normalize", g.Check(both, identity.Normalize), true, "")
	allowed(t, "connect, outside the license", g.Check(both, identity.Connect), false, "forbidden_entitlement_missing")
	allowed(t, "staff, connect, outside the license", g.Check(staff, identity.Connect), false, "forbidden_entitlement_missing")
	at = end.Add(-time.Second)
	allowed(t, "normalize, a second before the end", g.Check(both, identity.Normalize), true, "")
	at = end
	allowed(t, "normalize, at the license's end", g.Check(both, identity.Normalize), false, "forbidden_entitlement_missing")
	// A required license that is not valid grants nothing.
	bad := auth.NewGate(license.NewGate(true, "x.y", nil), movingClock(t, &at))
	allowed(t, "an invalid license", bad.Check(both, identity.Normalize), false, "forbidden_entitlement_missing")
}

// TestAuthenticate_anExpiredGrantStopsWorking: the grants come with the
// credentials, and the clock decides which still work.
func TestAuthenticate_anExpiredGrantStopsWorking(t *testing.T) {
	t.Parallel()
	end := now.Add(24 * time.Hour)
	at := now
	creds, keys := mocks.NewCredentials(t), mocks.NewAPIKeys(t)
	clock := movingClock(t, &at)
	svc := auth.NewService(creds, mocks.NewOrganizations(t), mocks.NewEntitlements(t), mocks.NewUsers(t), keys, mocks.NewSessions(t),
		mocks.NewAuditLog(t), noSSO{}, clock, auth.DefaultThrottle(), slog.New(slog.DiscardHandler))
	g := auth.NewGate(license.NewGate(false, "", nil), clock)
	norm, _ := entitlement.Grant("ent_1", "org_1", identity.Normalize, entitlement.Admin, "tabnorm admin", now.Add(-time.Hour), &end)
	conn, _ := entitlement.Grant("ent_2", "org_1", identity.Connect, entitlement.Admin, "tabnorm admin", now.Add(-time.Hour), nil)
	plain := apikey.Generate()
	creds.EXPECT().KeyByHash(mock.Anything, apikey.HashOf(plain)).
		Return(apikey.Key{ID: "key_1", OrgID: "org_1", LastUsedAt: &at}, []entitlement.Entitlement{norm, conn}, nil)
	keys.EXPECT().TouchLastUsed(mock.Anything, "key_1", mock.Anything, mock.Anything).Return(nil).Maybe()

	for _, c := range []struct {
		at         time.Time
		normalize  bool
		connectsOK bool
	}{
		{now, true, true},
		{end.Add(-time.Millisecond), true, true},
		{end, false, true},
		{end.AddDate(1, 0, 0), false, true},
	} {
		at = c.at
		p, err := svc.AuthenticateKey(context.Background(), plain, "192.0.2.1")
		if err != nil {
			t.Fatal(err)
		}
		allowed(t, "normalize at "+c.at.String(), g.Check(p, identity.Normalize), c.normalize, "forbidden_entitlement_missing")
		allowed(t, "connect at "+c.at.String(), g.Check(p, identity.Connect), c.connectsOK, "forbidden_entitlement_missing")
	}
}

// TestListOrganizations: staff see every organization with the products
// its grants make usable now; an unreadable grant fails the list.
func TestListOrganizations(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	staff := identity.Principal{Method: identity.BySession, OrgID: "org_home", IsStaff: true}
	page := ports.Page{Limit: 10}
	ended := now
	conn, _ := entitlement.Grant("ent_1", "org_b", identity.Connect, entitlement.Admin, "tabnorm admin", now.Add(-time.Hour), nil)
	norm, _ := entitlement.Grant("ent_2", "org_b", identity.Normalize, entitlement.Admin, "tabnorm admin", now.Add(-time.Hour), &ended)
	f.orgs.EXPECT().List(mock.Anything, page).Return([]identity.Organization{{ID: "org_a"}, {ID: "org_b"}}, "", nil).Twice()
	f.grants.EXPECT().Current(mock.Anything, "org_a", "org_b").Return([]entitlement.Entitlement{conn, norm}, nil).Once()
	orgs, _, err := f.svc.ListOrganizations(ctx, staff, page)
	if err != nil || len(orgs) != 2 || len(orgs[0].Products) != 0 || len(orgs[1].Products) != 1 || !orgs[1].Has(identity.Connect) {
		t.Fatalf("ListOrganizations = %+v, %v", orgs, err)
	}
	down := errors.New("database down")
	f.grants.EXPECT().Current(mock.Anything, "org_a", "org_b").Return(nil, down).Once()
	if _, _, err := f.svc.ListOrganizations(ctx, staff, page); !errors.Is(err, down) {
		t.Fatalf("with the grants unreadable: %v", err)
	}
	member := identity.Principal{Method: identity.BySession, OrgID: "org_a", Role: identity.Admin}
	allowed(t, "a customer's admin", func() error { _, _, err := f.svc.ListOrganizations(ctx, member, page); return err }(), false, "insufficient_permissions")
}
