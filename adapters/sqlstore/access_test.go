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
	"github.com/tabnorm/tabnorm/ports"
)

// seedOrgUser creates an organization with one user.
func seedOrgUser(t *testing.T, db *sqlstore.DB) (identity.Organization, identity.User) {
	t.Helper()
	ctx := context.Background()
	org, _ := identity.NewOrganization(id.New(id.Org), "Acme", []identity.Product{identity.Normalize}, time.Now())
	if err := sqlstore.NewOrganizations(db).Create(ctx, org); err != nil {
		t.Fatal(err)
	}
	u := identity.User{ID: id.New(id.User), OrgID: org.ID, Email: id.New("u") + "@acme.test", Role: identity.Admin,
		PasswordHash: "x", CreatedAt: time.Now()}
	if err := sqlstore.NewUsers(db).Create(ctx, u); err != nil {
		t.Fatal(err)
	}
	return org, u
}

func TestAPIKeys_contract(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		org, user := seedOrgUser(t, db)
		other, _ := seedOrgUser(t, db)
		keys := sqlstore.NewAPIKeys(db)
		now := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
		plain := apikey.Generate()
		k := apikey.Key{ID: id.New(id.Key), OrgID: org.ID, Name: "ci", Hash: apikey.HashOf(plain), Last4: apikey.Last4(plain),
			CreatedBy: user.ID, CreatedAt: now}
		if err := keys.Create(ctx, k); err != nil {
			t.Fatal(err)
		}
		got, err := keys.FindByHash(ctx, apikey.HashOf(plain))
		if err != nil || got.ID != k.ID || got.OrgID != org.ID || got.Last4 != k.Last4 || got.Revoked() || got.LastUsedAt != nil {
			t.Fatalf("FindByHash = %+v, %v", got, err)
		}
		if _, err := keys.FindByHash(ctx, apikey.HashOf(apikey.Generate())); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("unknown hash: %v", err)
		}
		if err := keys.TouchLastUsed(ctx, k.ID, now.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		if got, _ := keys.FindByHash(ctx, k.Hash); got.LastUsedAt == nil || !got.LastUsedAt.Equal(now.Add(time.Minute)) {
			t.Fatalf("last_used_at = %v", got.LastUsedAt)
		}
		if _, _, err := keys.Revoke(ctx, other.ID, k.ID, now); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("revoke through another org: %v, want not found", err)
		}
		revoked, changed, err := keys.Revoke(ctx, org.ID, k.ID, now.Add(time.Hour))
		if err != nil || !changed || revoked.RevokedAt == nil || !revoked.RevokedAt.Equal(now.Add(time.Hour)) {
			t.Fatalf("Revoke = %+v, %v, %v", revoked, changed, err)
		}
		again, changed, err := keys.Revoke(ctx, org.ID, k.ID, now.Add(2*time.Hour))
		if err != nil || changed || !again.RevokedAt.Equal(now.Add(time.Hour)) {
			t.Fatalf("second revoke changed revoked_at: %+v, %v, %v", again.RevokedAt, changed, err)
		}
		if got, _ := keys.FindByHash(ctx, k.Hash); !got.Revoked() {
			t.Fatal("revoked key found as not revoked")
		}
		list, next, err := keys.List(ctx, org.ID, ports.Page{})
		if err != nil || len(list) != 1 || next != "" || list[0].ID != k.ID {
			t.Fatalf("List = %v, %q, %v", list, next, err)
		}
		if list, _, _ := keys.List(ctx, other.ID, ports.Page{}); len(list) != 0 {
			t.Fatalf("another org sees %d keys", len(list))
		}
		dup := k
		dup.ID = id.New(id.Key)
		if err := keys.Create(ctx, dup); !errors.Is(err, domain.ErrConflict) {
			t.Fatalf("duplicate hash: %v", err)
		}
	})
}

func TestSessions_contract(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		org, user := seedOrgUser(t, db)
		other, _ := seedOrgUser(t, db)
		sessions := sqlstore.NewSessions(db)
		now := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
		s, token := session.New(user.ID, org.ID, now)
		s.IP, s.UserAgent = "203.0.113.9", "test"
		if err := sessions.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
		got, err := sessions.Get(ctx, session.HashOf(token))
		if err != nil || got.UserID != user.ID || got.OrgID != org.ID || !got.CreatedAt.Equal(now) || got.Impersonating() || got.IP != "203.0.113.9" {
			t.Fatalf("Get = %+v, %v", got, err)
		}
		if err := sessions.Touch(ctx, s.Hash, now.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		at := now.Add(2 * time.Hour)
		if err := sessions.SetImpersonation(ctx, s.Hash, other.ID, &at); err != nil {
			t.Fatal(err)
		}
		got, _ = sessions.Get(ctx, s.Hash)
		if !got.LastSeenAt.Equal(now.Add(time.Hour)) || got.ImpersonatedOrgID != other.ID || !got.ImpersonatedAt.Equal(at) {
			t.Fatalf("after touch and impersonation: %+v", got)
		}
		if err := sessions.SetImpersonation(ctx, s.Hash, "", nil); err != nil {
			t.Fatal(err)
		}
		if got, _ = sessions.Get(ctx, s.Hash); got.Impersonating() || got.ImpersonatedAt != nil {
			t.Fatalf("impersonation not ended: %+v", got)
		}
		if err := sessions.Delete(ctx, s.Hash); err != nil {
			t.Fatal(err)
		}
		if _, err := sessions.Get(ctx, s.Hash); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("deleted session: %v", err)
		}
	})
}

func TestAuditLog_contract(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		log := sqlstore.NewAuditLog(db)
		at := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
		for _, action := range []string{"login", "api_key.create", "logout"} {
			if err := log.Record(ctx, identity.AuditEntry{ID: id.New("aud"), OrgID: "org_a", ActorUserID: "usr_a", Action: action,
				IP: "198.51.100.1", UserAgent: "ua", At: at}); err != nil {
				t.Fatal(err)
			}
		}
		list, _, err := log.List(ctx, "org_a", ports.Page{Limit: 10})
		if err != nil || len(list) != 3 || list[0].Action != "logout" || list[2].Action != "login" || !list[0].At.Equal(at) || list[0].IP != "198.51.100.1" {
			t.Fatalf("List = %+v, %v", list, err)
		}
		if list, _, _ := log.List(ctx, "org_b", ports.Page{}); len(list) != 0 {
			t.Fatal("another org's entries listed")
		}
	})
}
