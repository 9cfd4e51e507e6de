package portstest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/id"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/ports"
)

// Transactor is the suite of ports.Transactor: repository calls made with
// the transaction's context join it, and fn's error rolls it back.
func Transactor(t *testing.T, open func(t *testing.T) Stores) {
	t.Helper()
	runSteps(t, open, []step[Stores]{
		{"commit_keeps_writes", transactorCommits},
		{"error_rolls_back", transactorRollsBack},
		{"nested_calls_join_the_outer", transactorNests},
	})
}

func transactorCommits(t *testing.T, s Stores) {
	ctx := context.Background()
	org, _ := identity.NewOrganization(id.New(id.Org), "Kept", nil, now)
	ok(t, s.Tx.InTx(ctx, func(ctx context.Context) error { return s.Organizations.Create(ctx, org) }))
	_, err := s.Organizations.Get(ctx, org.ID)
	ok(t, err)
}

func transactorRollsBack(t *testing.T, s Stores) {
	ctx := context.Background()
	boom := errors.New("boom")
	org, _ := identity.NewOrganization(id.New(id.Org), "Gone", nil, now)
	err := s.Tx.InTx(ctx, func(ctx context.Context) error {
		if err := s.Organizations.Create(ctx, org); err != nil {
			return err
		}
		if _, err := s.Organizations.Get(ctx, org.ID); err != nil {
			t.Errorf("Organizations.Get inside the creating transaction: %v, want the organization", err)
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Tx.InTx = %v, want fn's error", err)
	}
	_, err = s.Organizations.Get(ctx, org.ID)
	isKind(t, err, domain.ErrNotFound, "Organizations.Get: a rolled-back organization")
}

func transactorNests(t *testing.T, s Stores) {
	ctx := context.Background()
	boom := errors.New("boom")
	org, _ := identity.NewOrganization(id.New(id.Org), "Inner", nil, now)
	_ = s.Tx.InTx(ctx, func(ctx context.Context) error {
		if err := s.Tx.InTx(ctx, func(ctx context.Context) error { return s.Organizations.Create(ctx, org) }); err != nil {
			return err
		}
		return boom
	})
	_, err := s.Organizations.Get(ctx, org.ID)
	isKind(t, err, domain.ErrNotFound, "Organizations.Get: a write of a nested call whose outer transaction rolled back")
}

// Organizations is the suite of ports.Organizations.
func Organizations(t *testing.T, open func(t *testing.T) Stores) {
	t.Helper()
	runSteps(t, open, []step[Stores]{
		{"create_then_get", orgsCreateThenGet},
		{"unknown_is_not_found", orgsUnknown},
		{"duplicate_is_conflict", orgsDuplicate},
		{"list_pages_newest_first_and_count", orgsListAndCount},
	})
}

func orgsCreateThenGet(t *testing.T, s Stores) {
	org := seedOrg(t, s, identity.Normalize)
	got, err := s.Organizations.Get(context.Background(), org.ID)
	ok(t, err)
	if got.ID != org.ID || got.Name != "Acme" || !got.CreatedAt.Equal(now) {
		t.Fatalf("Organizations.Get = %+v; want Acme as created", got)
	}
}

func orgsUnknown(t *testing.T, s Stores) {
	ctx := context.Background()
	_, err := s.Organizations.Get(ctx, id.New(id.Org))
	isKind(t, err, domain.ErrNotFound, "Organizations.Get of an unknown organization")
}

func orgsDuplicate(t *testing.T, s Stores) {
	org := seedOrg(t, s)
	isKind(t, s.Organizations.Create(context.Background(), org), domain.ErrConflict, "Organizations.Create of the same organization a second time")
}

func orgsListAndCount(t *testing.T, s Stores) {
	ctx := context.Background()
	var created []string
	for range 5 {
		created = append(created, seedOrg(t, s).ID)
	}
	got := pages(t, 2, func(p ports.Page) ([]identity.Organization, string, error) { return s.Organizations.List(ctx, p) },
		func(o identity.Organization) string { return o.ID })
	newestFirst(t, "Organizations.List", got, created)
	if n, err := s.Organizations.Count(ctx); err != nil || n != 5 {
		t.Fatalf("Organizations.Count = %d, %v; want 5", n, err)
	}
	_, _, err := s.Organizations.List(ctx, ports.Page{Cursor: "!!!"})
	isKind(t, err, domain.ErrInvalid, "Organizations.List: a cursor the list did not hand out")
}

// Users is the suite of ports.Users.
func Users(t *testing.T, open func(t *testing.T) Stores) {
	t.Helper()
	runSteps(t, open, []step[Stores]{
		{"create_then_get_by_id_and_email", usersCreateThenGet},
		{"duplicate_email_is_conflict", usersDuplicateEmail},
		{"user_of_unknown_organization_is_not_found", usersOrphan},
		{"unknown_email_is_not_found", usersUnknownEmail},
		{"list_newest_first_per_organization", usersList},
		{"set_password_and_disable", usersSetPasswordAndDisable},
	})
}

func usersList(t *testing.T, s Stores) {
	ctx := context.Background()
	org, other := seedOrg(t, s), seedOrg(t, s)
	first := identity.User{ID: id.New(id.User), OrgID: org.ID, Email: "first@" + org.ID + ".test", Role: identity.Member, PasswordHash: "h", CreatedAt: now}
	ok(t, s.Users.Create(ctx, first))
	second := first
	second.ID, second.Email = id.New(id.User), "second@"+org.ID+".test"
	ok(t, s.Users.Create(ctx, second))
	ok(t, s.Users.Create(ctx, identity.User{ID: id.New(id.User), OrgID: other.ID, Email: "x@" + other.ID + ".test", Role: identity.Member, PasswordHash: "h", CreatedAt: now}))
	got, next, err := s.Users.List(ctx, org.ID, ports.Page{Limit: 1})
	if err != nil || len(got) != 1 || got[0].ID != second.ID || next == "" {
		t.Fatalf("Organizations.List page 1 = %+v, %q, %v; want the newest and a next page", got, next, err)
	}
	got, next, err = s.Users.List(ctx, org.ID, ports.Page{Limit: 1, Cursor: next})
	if err != nil || len(got) != 1 || got[0].ID != first.ID || next != "" {
		t.Fatalf("Organizations.List page 2 = %+v, %q, %v; want the oldest and no next page", got, next, err)
	}
}

func usersSetPasswordAndDisable(t *testing.T, s Stores) {
	ctx := context.Background()
	u := seedUser(t, s, seedOrg(t, s))
	ok(t, s.Users.SetPassword(ctx, u.ID, "$argon2id$new"))
	if got, _ := s.Users.Get(ctx, u.ID); got.PasswordHash != "$argon2id$new" || got.Disabled() {
		t.Fatalf("Users.Get after SetPassword = %+v; want the new hash, enabled", got)
	}
	at := now.Add(time.Hour)
	got, err := s.Users.Disable(ctx, u.ID, at)
	if err != nil || got.DisabledAt == nil || !got.DisabledAt.Equal(at) {
		t.Fatalf("Users.Disable = %+v, %v; want disabled at %v", got, err, at)
	}
	if again, err := s.Users.Disable(ctx, u.ID, at.Add(time.Hour)); err != nil || !again.DisabledAt.Equal(at) {
		t.Fatalf("Users.Disable a second time = %+v, %v; want disabled_at kept at %v", again, err, at)
	}
	isKind(t, s.Users.SetPassword(ctx, id.New(id.User), "h"), domain.ErrNotFound, "Users.SetPassword of an unknown user")
	_, err = s.Users.Disable(ctx, id.New(id.User), at)
	isKind(t, err, domain.ErrNotFound, "Users.Disable of an unknown user")
}

func usersCreateThenGet(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	u := identity.User{ID: id.New(id.User), OrgID: org.ID, Email: "ann@acme.test", Role: identity.Admin,
		IsStaff: true, PasswordHash: "$argon2id$x", CreatedAt: now}
	ok(t, s.Users.Create(ctx, u))
	got, err := s.Users.GetByEmail(ctx, "ann@acme.test")
	if err != nil || got.ID != u.ID || got.Role != identity.Admin || !got.IsStaff || got.PasswordHash != u.PasswordHash || !got.CreatedAt.Equal(now) {
		t.Fatalf("Users.GetByEmail = %+v, %v; want the user as created (admin, staff, hash, created_at)", got, err)
	}
	if got, err := s.Users.Get(ctx, u.ID); err != nil || got.Email != u.Email {
		t.Fatalf("Users.Get = %+v, %v; want the user with email %s", got, err, u.Email)
	}
}

func usersDuplicateEmail(t *testing.T, s Stores) {
	u := seedUser(t, s, seedOrg(t, s))
	u.ID = id.New(id.User)
	isKind(t, s.Users.Create(context.Background(), u), domain.ErrConflict, "Users.Create: a second user with the same email")
}

func usersOrphan(t *testing.T, s Stores) {
	u := identity.User{ID: id.New(id.User), OrgID: id.New(id.Org), Email: "x@y.test", Role: identity.Member, CreatedAt: now}
	isKind(t, s.Users.Create(context.Background(), u), domain.ErrNotFound, "Users.Create: a user of an unknown organization")
}

func usersUnknownEmail(t *testing.T, s Stores) {
	_, err := s.Users.GetByEmail(context.Background(), "nobody@acme.test")
	isKind(t, err, domain.ErrNotFound, "Users.GetByEmail: an unknown email")
}
