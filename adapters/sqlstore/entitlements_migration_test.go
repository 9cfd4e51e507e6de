package sqlstore

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/domain/entitlement"
	"github.com/tabnorm/tabnorm/domain/id"
	"github.com/tabnorm/tabnorm/domain/identity"
)

// TestMigrate_entitlementsBecomeGrants applies the entitlements migration
// over a database that holds products as the earlier schema did (one row
// per organization and product): each becomes a current admin grant
// without end, granted when the row was made, with an id of the usual
// shape; the credentials read them, and a new grant then has a history.
func TestMigrate_entitlementsBecomeGrants(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			checkEntitlementsMigration(t, target)
		})
	}
}

func checkEntitlementsMigration(t *testing.T, target sqltest.Target) {
	ctx := context.Background()
	db, err := Open(ctx, Config{URL: target.URL})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	migrateBefore(t, db, "20261128000021_")
	made := time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)
	for _, q := range []string{
		"INSERT INTO organizations (id, name, created_at) VALUES ('org_1', 'Acme', ?)",
		"INSERT INTO organizations (id, name, created_at) VALUES ('org_2', 'Other', ?)",
		"INSERT INTO entitlements (org_id, product, created_at) VALUES ('org_1', 'normalize', ?)",
		"INSERT INTO entitlements (org_id, product, created_at) VALUES ('org_1', 'connect', ?)",
		"INSERT INTO entitlements (org_id, product, created_at) VALUES ('org_2', 'normalize', ?)",
	} {
		if _, err := db.Bun.ExecContext(ctx, q, made); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatalf("entitlements migration: %v", err)
	}
	ents := NewEntitlements(db)
	cur, err := ents.Current(ctx, "org_1", "org_2")
	if err != nil || len(cur) != 3 {
		t.Fatalf("Current after the migration = %+v, %v", cur, err)
	}
	seen := map[string]bool{}
	for _, e := range cur {
		if !strings.HasPrefix(e.ID, "ent_") || len(e.ID) != len("ent_")+26 || seen[e.ID] || e.Source != entitlement.Admin ||
			e.GrantedBy != "tabnorm admin" || !e.GrantedAt.Equal(made) || e.Until != nil || e.Revoked() {
			t.Fatalf("migrated grant %+v", e)
		}
		seen[e.ID] = true
	}
	if got := entitlement.Products(cur, "org_1", time.Now()); len(got) != 2 {
		t.Fatalf("org_1's products after the migration: %v", got)
	}
	until := time.Now().Add(time.Hour).UTC().Truncate(time.Millisecond)
	e, _ := entitlement.Grant(id.New(entitlement.IDPrefix), "org_1", identity.Connect, entitlement.Admin, "ops", time.Now(), &until)
	if err := ents.Grant(ctx, e); err != nil {
		t.Fatal(err)
	}
	if hist, err := ents.History(ctx, "org_1"); err != nil || len(hist) != 3 || hist[0].ID != e.ID {
		t.Fatalf("history after a new grant: %+v, %v", hist, err)
	}
}
