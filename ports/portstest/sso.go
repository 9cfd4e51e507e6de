package portstest

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/sso"
)

// SSOConfigs is the suite of ports.SSOConfigs.
func SSOConfigs(t *testing.T, open func(t *testing.T) Stores) {
	t.Helper()
	runSteps(t, open, []step[Stores]{
		{"put_then_get_and_by_domain", ssoPutThenGet},
		{"put_replaces_settings_and_domains", ssoPutReplaces},
		{"a_domain_belongs_to_one_organization", ssoDomainTaken},
		{"delete_removes_settings_and_domains", ssoDelete},
	})
}

func seedSSO(t *testing.T, s Stores, orgID string, domains ...string) sso.Config {
	t.Helper()
	c := sso.Config{OrgID: orgID, Issuer: "https://idp.example.com", ClientID: "tabnorm", Sealed: []byte{0, 1, 2, 0xff},
		AllowedDomains: domains, DefaultRole: identity.Member, Required: true, BreakGlass: "root@acme.test", CreatedAt: now, UpdatedAt: now}
	ok(t, s.SSOConfigs.Put(context.Background(), c))
	return c
}

func sameSSO(got, want sso.Config) bool {
	return got.OrgID == want.OrgID && got.Issuer == want.Issuer && got.ClientID == want.ClientID && bytes.Equal(got.Sealed, want.Sealed) &&
		slices.Equal(got.AllowedDomains, want.AllowedDomains) && got.DefaultRole == want.DefaultRole && got.Required == want.Required &&
		got.BreakGlass == want.BreakGlass && got.CreatedAt.Equal(want.CreatedAt) && got.UpdatedAt.Equal(want.UpdatedAt)
}

func ssoPutThenGet(t *testing.T, s Stores) {
	org := seedOrg(t, s)
	c := seedSSO(t, s, org.ID, "acme.test", "acme.example")
	got, err := s.SSOConfigs.Get(context.Background(), org.ID)
	if err != nil || !sameSSO(got, c) {
		t.Fatalf("SSOConfigs.Get = %+v, %v; want %+v", got, err, c)
	}
	got, err = s.SSOConfigs.ByDomain(context.Background(), "ACME.example")
	if err != nil || got.OrgID != org.ID {
		t.Fatalf("SSOConfigs.ByDomain(ACME.example) = %+v, %v; want the organization's settings", got, err)
	}
	other := seedOrg(t, s)
	_, err = s.SSOConfigs.Get(context.Background(), other.ID)
	isKind(t, err, domain.ErrNotFound, "SSOConfigs.Get of an organization without settings")
	_, err = s.SSOConfigs.ByDomain(context.Background(), "other.test")
	isKind(t, err, domain.ErrNotFound, "SSOConfigs.ByDomain of an unlisted domain")
}

func ssoPutReplaces(t *testing.T, s Stores) {
	org := seedOrg(t, s)
	c := seedSSO(t, s, org.ID, "acme.test", "old.test")
	c.Issuer, c.ClientID, c.Sealed, c.Required, c.BreakGlass = "https://login.example.org/tenant", "other", []byte{9}, false, ""
	c.AllowedDomains, c.DefaultRole, c.UpdatedAt = []string{"acme.test", "new.test"}, identity.Admin, now.Add(1e9)
	ok(t, s.SSOConfigs.Put(context.Background(), c))
	got, err := s.SSOConfigs.Get(context.Background(), org.ID)
	if err != nil || !sameSSO(got, c) {
		t.Fatalf("SSOConfigs.Get after a second Put = %+v, %v; want %+v", got, err, c)
	}
	_, err = s.SSOConfigs.ByDomain(context.Background(), "old.test")
	isKind(t, err, domain.ErrNotFound, "SSOConfigs.ByDomain of a domain no longer listed")
	if got, err := s.SSOConfigs.ByDomain(context.Background(), "new.test"); err != nil || got.OrgID != org.ID {
		t.Fatalf("SSOConfigs.ByDomain(new.test) = %+v, %v; want the organization's settings", got, err)
	}
}

func ssoDomainTaken(t *testing.T, s Stores) {
	acme, other := seedOrg(t, s), seedOrg(t, s)
	seedSSO(t, s, acme.ID, "acme.test")
	c := sso.Config{OrgID: other.ID, Issuer: "https://idp.example.com", ClientID: "x", AllowedDomains: []string{"other.test", "acme.test"},
		DefaultRole: identity.Member, CreatedAt: now, UpdatedAt: now}
	isKind(t, s.SSOConfigs.Put(context.Background(), c), domain.ErrConflict, "SSOConfigs.Put of a domain another organization lists")
	_, err := s.SSOConfigs.Get(context.Background(), other.ID)
	isKind(t, err, domain.ErrNotFound, "SSOConfigs.Get after a refused Put (want nothing stored)")
	if got, err := s.SSOConfigs.ByDomain(context.Background(), "acme.test"); err != nil || got.OrgID != acme.ID {
		t.Fatalf("SSOConfigs.ByDomain(acme.test) = %+v, %v; want the first organization's", got, err)
	}
}

func ssoDelete(t *testing.T, s Stores) {
	org := seedOrg(t, s)
	seedSSO(t, s, org.ID, "acme.test")
	ok(t, s.SSOConfigs.Delete(context.Background(), org.ID))
	_, err := s.SSOConfigs.Get(context.Background(), org.ID)
	isKind(t, err, domain.ErrNotFound, "SSOConfigs.Get after Delete")
	_, err = s.SSOConfigs.ByDomain(context.Background(), "acme.test")
	isKind(t, err, domain.ErrNotFound, "SSOConfigs.ByDomain after Delete")
	isKind(t, s.SSOConfigs.Delete(context.Background(), org.ID), domain.ErrNotFound, "SSOConfigs.Delete of nothing")
	// The domain is free again for another organization.
	seedSSO(t, s, seedOrg(t, s).ID, "acme.test")
}

// SSOFlows is the suite of ports.SSOFlows.
func SSOFlows(t *testing.T, open func(t *testing.T) Stores) {
	t.Helper()
	runSteps(t, open, []step[Stores]{
		{"create_then_take_once", ssoFlowTakeOnce},
		{"racing_takes_get_it_once", ssoFlowRace},
		{"create_clears_old_flows", ssoFlowOld},
	})
}

func seedFlow(t *testing.T, s Stores, orgID, state string, at time.Time) sso.Flow {
	t.Helper()
	f := sso.Flow{StateHash: state, BrowserHash: "b-" + state, OrgID: orgID, Nonce: "n-" + state, Verifier: "v-" + state,
		RedirectURI: "https://tabnorm.example.com/auth/sso/callback", CreatedAt: at}
	ok(t, s.SSOFlows.Create(context.Background(), f))
	return f
}

func ssoFlowTakeOnce(t *testing.T, s Stores) {
	org := seedOrg(t, s)
	f := seedFlow(t, s, org.ID, "s1", now)
	got, err := s.SSOFlows.Take(context.Background(), "s1")
	if err != nil || got != f {
		t.Fatalf("SSOFlows.Take = %+v, %v; want %+v", got, err, f)
	}
	_, err = s.SSOFlows.Take(context.Background(), "s1")
	isKind(t, err, domain.ErrNotFound, "SSOFlows.Take of a state already taken")
	_, err = s.SSOFlows.Take(context.Background(), "unknown")
	isKind(t, err, domain.ErrNotFound, "SSOFlows.Take of an unknown state")
}

func ssoFlowRace(t *testing.T, s Stores) {
	org := seedOrg(t, s)
	seedFlow(t, s, org.ID, "race", now)
	var wg sync.WaitGroup
	var mu sync.Mutex
	won, lost := 0, 0
	for range 4 {
		wg.Go(func() {
			_, err := s.SSOFlows.Take(context.Background(), "race")
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				won++
			case errors.Is(err, domain.ErrNotFound):
				lost++
			default:
				t.Errorf("SSOFlows.Take racing: %v; want the flow or not found", err)
			}
		})
	}
	wg.Wait()
	if won != 1 || lost != 3 {
		t.Fatalf("SSOFlows.Take by 4 racers: %d got the flow, %d did not; want 1 and 3", won, lost)
	}
}

func ssoFlowOld(t *testing.T, s Stores) {
	org := seedOrg(t, s)
	seedFlow(t, s, org.ID, "old", now)
	seedFlow(t, s, org.ID, "new", now.Add(sso.FlowLifetime+1e9))
	_, err := s.SSOFlows.Take(context.Background(), "old")
	isKind(t, err, domain.ErrNotFound, "SSOFlows.Take of a flow older than FlowLifetime when another was created (want it cleared)")
	if _, err := s.SSOFlows.Take(context.Background(), "new"); err != nil {
		t.Fatalf("SSOFlows.Take(new) = %v; want the flow", err)
	}
}
