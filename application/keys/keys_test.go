package keys_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"

	"github.com/tabnorm/tabnorm/application/keys"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/apikey"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/ports"
	"github.com/tabnorm/tabnorm/test/mocks"
)

var (
	now    = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	admin  = identity.Principal{Method: identity.BySession, OrgID: "org_a", UserID: "usr_admin", Role: identity.Admin}
	member = identity.Principal{Method: identity.BySession, OrgID: "org_a", UserID: "usr_member", Role: identity.Member}
	byKey  = identity.Principal{Method: identity.ByAPIKey, OrgID: "org_a", KeyID: "key_1"}
	client = identity.Client{IP: "203.0.113.9", UserAgent: "browser"}
)

type fixture struct {
	keys  *mocks.APIKeys
	audit *mocks.AuditLog
	svc   *keys.Service
}

// newFixture runs transactions inline: the policies are under test here,
// the repositories are tested against real databases.
func newFixture(t *testing.T) fixture {
	t.Helper()
	f := fixture{keys: mocks.NewAPIKeys(t), audit: mocks.NewAuditLog(t)}
	tx, clock := mocks.NewTransactor(t), mocks.NewClock(t)
	tx.EXPECT().InTx(mock.Anything, mock.Anything).RunAndReturn(func(ctx context.Context, fn func(context.Context) error) error { return fn(ctx) }).Maybe()
	clock.EXPECT().Now().Return(now).Maybe()
	f.svc = keys.NewService(f.keys, f.audit, tx, clock)
	return f
}

func TestService_Create(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("an admin's key is stored by hash, audited, and its plaintext returned once", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		var stored apikey.Key
		f.keys.EXPECT().Create(mock.Anything, mock.Anything).Run(func(_ context.Context, k apikey.Key) { stored = k }).Return(nil).Once()
		var entry identity.AuditEntry
		f.audit.EXPECT().Record(mock.Anything, mock.Anything).Run(func(_ context.Context, e identity.AuditEntry) { entry = e }).Return(nil).Once()
		k, plain, err := f.svc.Create(ctx, admin, keys.NewKey{Name: "  deploy  "}, client)
		if err != nil {
			t.Fatal(err)
		}
		if k.Name != "deploy" || k.OrgID != "org_a" || k.CreatedBy != "usr_admin" || !k.CreatedAt.Equal(now) || stored.ID != k.ID ||
			stored.Hash != apikey.HashOf(plain) || k.Last4 != apikey.Last4(plain) || strings.Contains(stored.Name+stored.Last4, plain) {
			t.Fatalf("key %+v, stored %+v", k, stored)
		}
		if entry.Action != "api_key.create" || entry.TargetID != k.ID || entry.ActorUserID != "usr_admin" || entry.IP != client.IP || !entry.At.Equal(now) {
			t.Fatalf("audit %+v", entry)
		}
	})

	t.Run("scopes and expiry are kept; no list is every scope", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		var stored []apikey.Key
		f.keys.EXPECT().Create(mock.Anything, mock.Anything).Run(func(_ context.Context, k apikey.Key) { stored = append(stored, k) }).Return(nil).Twice()
		f.audit.EXPECT().Record(mock.Anything, mock.Anything).Return(nil).Twice()
		until := now.Add(90 * 24 * time.Hour)
		if _, _, err := f.svc.Create(ctx, admin, keys.NewKey{Name: "ci", Scopes: []string{"jobs:write", "jobs:read", "jobs:read"}, ExpiresAt: &until}, client); err != nil {
			t.Fatal(err)
		}
		if _, _, err := f.svc.Create(ctx, admin, keys.NewKey{Name: "all"}, client); err != nil {
			t.Fatal(err)
		}
		if got := stored[0]; len(got.Scopes) != 2 || got.Scopes[0] != apikey.JobsRead || got.Scopes[1] != apikey.JobsWrite || got.ExpiresAt == nil || !got.ExpiresAt.Equal(until) ||
			got.Allows(apikey.SchemasWrite) || !got.Allows(apikey.JobsWrite) {
			t.Fatalf("scoped key %+v", got)
		}
		if got := stored[1]; len(got.Scopes) != 1 || got.Scopes[0] != apikey.AdminScope || got.ExpiresAt != nil || !got.Allows(apikey.WebhooksWrite) {
			t.Fatalf("unscoped key %+v", got)
		}
	})

	t.Run("the operator's key has no creator", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.keys.EXPECT().Create(mock.Anything, mock.Anything).Return(nil).Once()
		f.audit.EXPECT().Record(mock.Anything, mock.MatchedBy(func(e identity.AuditEntry) bool {
			return e.ActorUserID == "" && e.UserAgent == "tabnorm admin"
		})).Return(nil).Once()
		k, plain, err := f.svc.CreateForOperator(ctx, "org_b", keys.NewKey{Name: "ci"})
		if err != nil || k.OrgID != "org_b" || k.CreatedBy != "" || plain == "" {
			t.Fatalf("CreateForOperator = %+v, %q, %v", k, plain, err)
		}
	})

	past, far := now.Add(-time.Second), now.Add(6*365*24*time.Hour)
	for _, c := range []struct {
		name string
		p    identity.Principal
		key  keys.NewKey
		code domain.Code
	}{
		{"a member may not", member, keys.NewKey{Name: "deploy"}, "insufficient_permissions"},
		{"an API key may not", byKey, keys.NewKey{Name: "deploy"}, "insufficient_permissions"},
		{"a blank name", admin, keys.NewKey{Name: "   "}, "invalid_request"},
		{"a name over 100 characters", admin, keys.NewKey{Name: strings.Repeat("é", 101)}, "invalid_request"},
		{"an empty list of scopes", admin, keys.NewKey{Name: "deploy", Scopes: []string{}}, "invalid_request"},
		{"an unknown scope", admin, keys.NewKey{Name: "deploy", Scopes: []string{"jobs:read", "jobs:delete"}}, "invalid_request"},
		{"an expiry in the past", admin, keys.NewKey{Name: "deploy", ExpiresAt: &past}, "invalid_request"},
		{"an expiry over five years ahead", admin, keys.NewKey{Name: "deploy", ExpiresAt: &far}, "invalid_request"},
	} {
		t.Run(c.name+" is refused", func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			if _, _, err := f.svc.Create(ctx, c.p, c.key, client); domain.CodeOf(err) != c.code {
				t.Fatalf("error %v, want %s", err, c.code)
			}
			// The repository mocks fail the test on any write.
		})
	}

	t.Run("a failed audit record fails the creation", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		down := errors.New("database down")
		f.keys.EXPECT().Create(mock.Anything, mock.Anything).Return(nil).Once()
		f.audit.EXPECT().Record(mock.Anything, mock.Anything).Return(down).Once()
		if _, plain, err := f.svc.Create(ctx, admin, keys.NewKey{Name: "deploy"}, client); !errors.Is(err, down) || plain != "" {
			t.Fatalf("Create = %q, %v", plain, err)
		}
	})
}

func TestService_Revoke(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("revoking is audited once", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.keys.EXPECT().Revoke(mock.Anything, "org_a", "key_1", now).Return(apikey.Key{ID: "key_1", RevokedAt: &now}, true, nil).Once()
		f.audit.EXPECT().Record(mock.Anything, mock.MatchedBy(func(e identity.AuditEntry) bool {
			return e.Action == "api_key.revoke" && e.TargetID == "key_1" && e.ActorUserID == "usr_admin"
		})).Return(nil).Once()
		if k, err := f.svc.Revoke(ctx, admin, "key_1", client); err != nil || !k.Revoked() {
			t.Fatalf("Revoke = %+v, %v", k, err)
		}
	})

	t.Run("revoking a revoked key changes nothing and is not audited again", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.keys.EXPECT().Revoke(mock.Anything, "org_a", "key_1", now).Return(apikey.Key{ID: "key_1", RevokedAt: &now}, false, nil).Once()
		if k, err := f.svc.Revoke(ctx, admin, "key_1", client); err != nil || k.ID != "key_1" {
			t.Fatalf("Revoke = %+v, %v", k, err)
		}
	})

	t.Run("a member may not revoke", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		if _, err := f.svc.Revoke(ctx, member, "key_1", client); !errors.Is(err, domain.ErrForbidden) {
			t.Fatalf("error %v", err)
		}
	})
}

func TestService_List(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	page := ports.Page{Limit: 10}
	f.keys.EXPECT().List(mock.Anything, "org_a", page).Return([]apikey.Key{{ID: "key_1"}}, "next", nil).Twice()
	if list, next, err := f.svc.List(ctx, admin, page); err != nil || len(list) != 1 || next != "next" {
		t.Fatalf("List = %v, %q, %v", list, next, err)
	}
	if _, _, err := f.svc.List(ctx, byKey, page); !errors.Is(err, domain.ErrForbidden) {
		t.Fatalf("an API key listing keys: %v", err)
	}
	if list, _, err := f.svc.ListForOperator(ctx, "org_a", page); err != nil || len(list) != 1 {
		t.Fatalf("ListForOperator = %v, %v", list, err)
	}
}
