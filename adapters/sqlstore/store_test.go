package sqlstore_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/sqlstore"
	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/id"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/ports"
)

// openStore opens and migrates a fresh database of the target.
func openStore(t *testing.T, target sqltest.Target) *sqlstore.DB {
	t.Helper()
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, sqlstore.Config{URL: target.URL})
	if err != nil {
		t.Fatalf("open %s: %v", target.Name, err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatalf("migrate %s: %v", target.Name, err)
	}
	return db
}

// forEachStore runs the contract suite against every configured database.
func forEachStore(t *testing.T, fn func(t *testing.T, db *sqlstore.DB)) {
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			fn(t, openStore(t, target))
		})
	}
}

func TestParseURL(t *testing.T) {
	t.Parallel()
	cases := []struct {
		url     string
		dialect sqlstore.Dialect
		path    string
		wantErr bool
	}{
		{"sqlite://./data/tabnorm.db", sqlstore.SQLite, "./data/tabnorm.db", false},
		{"sqlite:///var/lib/tabnorm.db", sqlstore.SQLite, "/var/lib/tabnorm.db", false},
		{"postgres://u:p@localhost:5432/db?sslmode=disable", sqlstore.Postgres, "", false},
		{"postgresql://localhost/db", sqlstore.Postgres, "", false},
		{"mysql://x", "", "", true},
		{"sqlite://", "", "", true},
		{"postgres:///nohost", "", "", true},
	}
	for _, c := range cases {
		d, p, err := sqlstore.ParseURL(c.url)
		if (err != nil) != c.wantErr || d != c.dialect || p != c.path {
			t.Errorf("ParseURL(%q) = %q, %q, %v", c.url, d, p, err)
		}
	}
}

func TestMigrate_isIdempotentAndCurrent(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		again, err := db.Migrate(ctx)
		if err != nil || len(again) != 0 {
			t.Fatalf("second migrate applied %v, err %v", again, err)
		}
		if n, err := db.Pending(ctx); err != nil || n != 0 {
			t.Fatalf("pending = %d, %v", n, err)
		}
	})
}

func TestPending_onEmptyDatabase(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			db, err := sqlstore.Open(context.Background(), sqlstore.Config{URL: target.URL})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if n, err := db.Pending(context.Background()); err == nil && n == 0 {
				t.Fatal("an empty database reports no pending migrations")
			}
		})
	}
}

func TestOrganizations_contract(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		orgs := sqlstore.NewOrganizations(db)
		now := time.Date(2026, 11, 22, 8, 15, 30, 123e6, time.UTC)
		acme, _ := identity.NewOrganization(id.New(id.Org), "Acme", []identity.Product{identity.Normalize}, now)
		if err := orgs.Create(ctx, acme); err != nil {
			t.Fatal(err)
		}
		got, err := orgs.Get(ctx, acme.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Name != "Acme" || !got.CreatedAt.Equal(now) || len(got.Products) != 1 || !got.Has(identity.Normalize) {
			t.Fatalf("Get = %+v", got)
		}
		if err := orgs.Grant(ctx, acme.ID, identity.Connect, now); err != nil {
			t.Fatal(err)
		}
		if err := orgs.Grant(ctx, acme.ID, identity.Connect, now); err != nil {
			t.Fatalf("second grant: %v", err)
		}
		got, _ = orgs.Get(ctx, acme.ID)
		if !got.Has(identity.Connect) || len(got.Products) != 2 {
			t.Fatalf("after grant: %v", got.Products)
		}
		if err := orgs.Revoke(ctx, acme.ID, identity.Normalize); err != nil {
			t.Fatal(err)
		}
		got, _ = orgs.Get(ctx, acme.ID)
		if got.Has(identity.Normalize) || !got.Has(identity.Connect) {
			t.Fatalf("after revoke: %v", got.Products)
		}
		if err := orgs.Grant(ctx, id.New(id.Org), identity.Connect, now); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("grant on unknown org: %v, want ErrNotFound", err)
		}
		if _, err := orgs.Get(ctx, id.New(id.Org)); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("unknown org: %v", err)
		}
		if err := orgs.Create(ctx, acme); !errors.Is(err, domain.ErrConflict) {
			t.Fatalf("duplicate create: %v, want ErrConflict", err)
		}
	})
}

func TestOrganizations_listPages(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		orgs := sqlstore.NewOrganizations(db)
		var ids []string
		for i := range 5 {
			o, _ := identity.NewOrganization(id.New(id.Org), "Org", nil, time.Now())
			o.Name += string(rune('A' + i))
			if err := orgs.Create(ctx, o); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, o.ID)
		}
		var seen []string
		cursor := ""
		for range 10 {
			page, next, err := orgs.List(ctx, ports.Page{Limit: 2, Cursor: cursor})
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range page {
				seen = append(seen, o.ID)
			}
			if next == "" {
				break
			}
			cursor = next
		}
		if len(seen) != 5 {
			t.Fatalf("paged through %d orgs, want 5", len(seen))
		}
		for i := range seen {
			if seen[i] != ids[len(ids)-1-i] {
				t.Fatalf("order %v, want newest first %v", seen, ids)
			}
		}
		if n, _ := orgs.Count(ctx); n != 5 {
			t.Fatalf("Count = %d", n)
		}
		if _, _, err := orgs.List(ctx, ports.Page{Cursor: "!!!"}); !errors.Is(err, domain.ErrInvalid) {
			t.Fatalf("bad cursor: %v", err)
		}
	})
}

func TestUsers_contract(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		org, _ := identity.NewOrganization(id.New(id.Org), "Acme", nil, time.Now())
		if err := sqlstore.NewOrganizations(db).Create(ctx, org); err != nil {
			t.Fatal(err)
		}
		users := sqlstore.NewUsers(db)
		u := identity.User{ID: id.New(id.User), OrgID: org.ID, Email: "ann@acme.test", Role: identity.Admin,
			IsStaff: true, PasswordHash: "$argon2id$x", CreatedAt: time.Now().UTC().Truncate(time.Millisecond)}
		if err := users.Create(ctx, u); err != nil {
			t.Fatal(err)
		}
		got, err := users.GetByEmail(ctx, "ann@acme.test")
		if err != nil || got.ID != u.ID || got.Role != identity.Admin || !got.IsStaff || got.PasswordHash != u.PasswordHash {
			t.Fatalf("GetByEmail = %+v, %v", got, err)
		}
		if got, err := users.Get(ctx, u.ID); err != nil || got.Email != u.Email {
			t.Fatalf("Get = %+v, %v", got, err)
		}
		dup := u
		dup.ID = id.New(id.User)
		if err := users.Create(ctx, dup); !errors.Is(err, domain.ErrConflict) {
			t.Fatalf("duplicate email: %v", err)
		}
		orphan := u
		orphan.ID, orphan.Email, orphan.OrgID = id.New(id.User), "x@y.test", id.New(id.Org)
		if err := users.Create(ctx, orphan); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("user of unknown org: %v", err)
		}
		if _, err := users.GetByEmail(ctx, "nobody@acme.test"); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("unknown email: %v", err)
		}
	})
}

func TestTransactor_rollsBack(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		orgs := sqlstore.NewOrganizations(db)
		tx := sqlstore.NewTransactor(db)
		boom := errors.New("boom")
		org, _ := identity.NewOrganization(id.New(id.Org), "Gone", nil, time.Now())
		err := tx.InTx(ctx, func(ctx context.Context) error {
			if err := orgs.Create(ctx, org); err != nil {
				return err
			}
			if _, err := orgs.Get(ctx, org.ID); err != nil {
				t.Errorf("not visible inside its own transaction: %v", err)
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("InTx = %v", err)
		}
		if _, err := orgs.Get(ctx, org.ID); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("rolled-back org is visible: %v", err)
		}
	})
}

func TestTransactor_afterCommit(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		tx := sqlstore.NewTransactor(db)
		var ran []string
		_ = tx.InTx(ctx, func(ctx context.Context) error {
			sqlstore.AfterCommit(ctx, func() { ran = append(ran, "committed") })
			if len(ran) != 0 {
				t.Error("ran before the commit")
			}
			return nil
		})
		_ = tx.InTx(ctx, func(ctx context.Context) error {
			sqlstore.AfterCommit(ctx, func() { ran = append(ran, "rolled back") })
			return errors.New("no")
		})
		sqlstore.AfterCommit(ctx, func() { ran = append(ran, "no transaction") })
		if strings.Join(ran, ",") != "committed,no transaction" {
			t.Fatalf("ran %v", ran)
		}
	})
}
