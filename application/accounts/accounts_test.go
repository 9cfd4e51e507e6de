package accounts_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"

	"github.com/tabnorm/tabnorm/application/accounts"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/entitlement"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/ports"
	"github.com/tabnorm/tabnorm/test/mocks"
)

var now = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

type fixture struct {
	orgs     *mocks.Organizations
	grants   *mocks.Entitlements
	users    *mocks.Users
	sessions *mocks.Sessions
	audit    *mocks.AuditLog
	svc      *accounts.Service
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	orgs, users, tx, clock := mocks.NewOrganizations(t), mocks.NewUsers(t), mocks.NewTransactor(t), mocks.NewClock(t)
	sessions, audit, grants := mocks.NewSessions(t), mocks.NewAuditLog(t), mocks.NewEntitlements(t)
	clock.EXPECT().Now().Return(now).Maybe()
	tx.EXPECT().InTx(mock.Anything, mock.Anything).RunAndReturn(
		func(ctx context.Context, fn func(context.Context) error) error { return fn(ctx) }).Maybe()
	return fixture{orgs: orgs, grants: grants, users: users, sessions: sessions, audit: audit,
		svc: accounts.NewService(orgs, grants, users, sessions, audit, tx, clock)}
}

func TestService_Seed(t *testing.T) {
	t.Parallel()
	t.Run("database_with_an_organization_is_left_alone", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.orgs.EXPECT().Count(mock.Anything).Return(1, nil)
		seeded, err := f.svc.Seed(context.Background())
		if err != nil || seeded != nil {
			t.Fatalf("Seed = %v, %v; want nothing done", seeded, err)
		}
	})
	t.Run("empty_database_gets_default_org_and_staff_admin", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.audit.EXPECT().Record(mock.Anything, mock.Anything).Return(nil).Maybe()
		f.orgs.EXPECT().Count(mock.Anything).Return(0, nil)
		var created identity.Organization
		f.orgs.EXPECT().Create(mock.Anything, mock.Anything).RunAndReturn(func(_ context.Context, o identity.Organization) error {
			created = o
			return nil
		})
		f.orgs.EXPECT().Get(mock.Anything, mock.Anything).RunAndReturn(func(context.Context, string) (identity.Organization, error) {
			return created, nil
		})
		var granted []entitlement.Entitlement
		f.grants.EXPECT().Grant(mock.Anything, mock.Anything).RunAndReturn(func(_ context.Context, e entitlement.Entitlement) error {
			granted = append(granted, e)
			return nil
		}).Twice()
		var admin identity.User
		f.users.EXPECT().Create(mock.Anything, mock.Anything).RunAndReturn(func(_ context.Context, u identity.User) error {
			admin = u
			return nil
		})
		seeded, err := f.svc.Seed(context.Background())
		if err != nil || seeded == nil {
			t.Fatalf("Seed = %v, %v", seeded, err)
		}
		if created.Name != "Default" || !created.Has(identity.Normalize) || !created.Has(identity.Connect) {
			t.Fatalf("org = %+v", created)
		}
		if got := entitlement.Products(granted, created.ID, now.AddDate(100, 0, 0)); len(got) != 2 || granted[0].Source != entitlement.Admin {
			t.Fatalf("grants of the first organization = %+v; want every product, by the operator, without end", granted)
		}
		if admin.Email != accounts.DefaultAdminEmail || admin.Role != identity.Admin || !admin.IsStaff || admin.OrgID != created.ID {
			t.Fatalf("admin = %+v", admin)
		}
		if len(seeded.Password) < 20 {
			t.Fatalf("password %q is too short", seeded.Password)
		}
		if ok, _ := identity.CheckPassword(admin.PasswordHash, seeded.Password); !ok {
			t.Fatal("stored hash does not match the printed password")
		}
	})
	t.Run("another_process_seeding_first_is_not_an_error", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.audit.EXPECT().Record(mock.Anything, mock.Anything).Return(nil).Maybe()
		f.orgs.EXPECT().Count(mock.Anything).Return(0, nil)
		f.orgs.EXPECT().Create(mock.Anything, mock.Anything).Return(&domain.Error{Kind: domain.ErrConflict, Code: "conflict"})
		if seeded, err := f.svc.Seed(context.Background()); err != nil || seeded != nil {
			t.Fatalf("Seed = %v, %v", seeded, err)
		}
	})
}

func TestService_CreateUser(t *testing.T) {
	t.Parallel()
	t.Run("bad_email_is_invalid_without_touching_storage", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		_, err := f.svc.CreateUser(context.Background(), accounts.NewUser{OrgID: "org_x", Email: "nope", Password: "long-enough"})
		if !errors.Is(err, domain.ErrInvalid) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("unknown_org_is_not_found", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.orgs.EXPECT().Get(mock.Anything, "org_x").Return(identity.Organization{}, domain.NotFound("organization"))
		_, err := f.svc.CreateUser(context.Background(), accounts.NewUser{OrgID: "org_x", Email: "a@b.co", Password: "long-enough"})
		if !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("default_role_is_member_and_email_normalized", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.audit.EXPECT().Record(mock.Anything, mock.MatchedBy(func(e identity.AuditEntry) bool {
			return e.Action == "user.create" && e.OrgID == "org_x" && e.TargetID != ""
		})).Return(nil).Once()
		f.orgs.EXPECT().Get(mock.Anything, "org_x").Return(identity.Organization{ID: "org_x"}, nil)
		f.users.EXPECT().Create(mock.Anything, mock.MatchedBy(func(u identity.User) bool {
			return u.Role == identity.Member && u.Email == "a@b.co" && !u.IsStaff && u.CreatedAt.Equal(now)
		})).Return(nil)
		if _, err := f.svc.CreateUser(context.Background(), accounts.NewUser{OrgID: "org_x", Email: " A@B.co", Password: "long-enough"}); err != nil {
			t.Fatal(err)
		}
	})
}

func TestService_CreateOrg_defaultsToNormalize(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.orgs.EXPECT().Create(mock.Anything, mock.MatchedBy(func(o identity.Organization) bool {
		return len(o.Products) == 1 && o.Has(identity.Normalize)
	})).Return(nil)
	f.grants.EXPECT().Grant(mock.Anything, mock.MatchedBy(func(e entitlement.Entitlement) bool {
		return e.Product == identity.Normalize && e.Source == entitlement.Admin && e.GrantedBy == "tabnorm admin" && e.Until == nil && e.GrantedAt.Equal(now)
	})).Return(nil).Once()
	if _, err := f.svc.CreateOrg(context.Background(), "Acme", nil); err != nil {
		t.Fatal(err)
	}
}

func TestService_ResetPassword(t *testing.T) {
	t.Parallel()
	t.Run("new_password_hashed_sessions_ended_and_audited", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		user := identity.User{ID: "usr_1", OrgID: "org_1", Email: "ann@acme.test"}
		f.users.EXPECT().Get(mock.Anything, "usr_1").Return(user, nil)
		var stored string
		f.users.EXPECT().SetPassword(mock.Anything, "usr_1", mock.Anything).RunAndReturn(func(_ context.Context, _, hash string) error {
			stored = hash
			return nil
		})
		f.sessions.EXPECT().DeleteForUser(mock.Anything, "usr_1").Return(2, nil)
		f.audit.EXPECT().Record(mock.Anything, mock.MatchedBy(func(e identity.AuditEntry) bool {
			return e.Action == "user.reset_password" && e.TargetID == "usr_1" && e.OrgID == "org_1"
		})).Return(nil)
		got, password, ended, err := f.svc.ResetPassword(context.Background(), "usr_1")
		if err != nil || got.ID != "usr_1" || ended != 2 || len(password) < 20 {
			t.Fatalf("ResetPassword = %+v, %q, %d, %v", got, password, ended, err)
		}
		if ok, err := identity.CheckPassword(stored, password); !ok || err != nil || stored == password {
			t.Fatalf("the stored hash does not check the returned password (or is it): %v, %v", ok, err)
		}
	})
	t.Run("unknown_user_is_not_found_and_changes_nothing", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.users.EXPECT().Get(mock.Anything, "usr_x").Return(identity.User{}, domain.NotFound("user"))
		if _, _, _, err := f.svc.ResetPassword(context.Background(), "usr_x"); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("ResetPassword of an unknown user = %v", err)
		}
	})
}

func TestService_DisableUser(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	at := now
	f.users.EXPECT().Disable(mock.Anything, "usr_1", now).Return(identity.User{ID: "usr_1", OrgID: "org_1", DisabledAt: &at}, nil)
	f.sessions.EXPECT().DeleteForUser(mock.Anything, "usr_1").Return(3, nil)
	f.audit.EXPECT().Record(mock.Anything, mock.MatchedBy(func(e identity.AuditEntry) bool {
		return e.Action == "user.disable" && e.TargetID == "usr_1"
	})).Return(nil)
	got, ended, err := f.svc.DisableUser(context.Background(), "usr_1")
	if err != nil || !got.Disabled() || ended != 3 {
		t.Fatalf("DisableUser = %+v, %d, %v", got, ended, err)
	}
}

func TestService_ListUsers_unknownOrg(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.orgs.EXPECT().Get(mock.Anything, "org_x").Return(identity.Organization{}, domain.NotFound("organization"))
	if _, _, err := f.svc.ListUsers(context.Background(), "org_x", ports.Page{}); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("ListUsers of an unknown organization = %v", err)
	}
}
