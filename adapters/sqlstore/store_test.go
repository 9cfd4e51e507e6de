package sqlstore_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/sqlstore"
	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/domain/id"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/job"
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

// newJob is a queued upload job of the organization.
func newJob(orgID string, now time.Time) job.Job {
	return job.Job{ID: id.New(id.Job), OrgID: orgID, Mode: "normalize", Status: job.Queued, SourceType: "upload",
		Files:  []job.File{{ID: id.New(id.File), Filename: "contacts.csv", Format: "csv", SizeBytes: 1234, SHA256: "ab"}},
		Schema: []byte(`{"fields":[]}`), Options: []byte(`{"trim":true}`), Progress: job.Progress{BytesTotal: 1234}, CreatedAt: now}
}

// forEachStore runs fn against a migrated database of each configured kind.
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

// TestTransactor_afterCommit: AfterCommit, the hook the in-process event
// bus delivers by, runs at the commit, never after a rollback, and at once
// outside a transaction.
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
