package sqlstore_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/sqlstore"
	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/domain/identity"
)

// TestAuditLog_refusesUpdates: on each database the audit_log table
// itself refuses UPDATE, whoever sends it, so an entry cannot be
// rewritten even by code that bypasses the repository; deleting (the
// retention's purge) still works.
func TestAuditLog_refusesUpdates(t *testing.T) {
	t.Parallel()
	for _, kind := range sqltest.Kinds(t) {
		t.Run(kind.Name, func(t *testing.T) {
			t.Parallel()
			db := openStore(t, kind.New(t))
			log := sqlstore.NewAuditLog(db)
			ctx := context.Background()
			at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
			if err := log.Record(ctx, identity.AuditEntry{ID: "aud_1", OrgID: "org_1", ActorUserID: "usr_1", Action: "login", At: at}); err != nil {
				t.Fatal(err)
			}
			for _, stmt := range []string{
				"UPDATE audit_log SET action = 'logout' WHERE id = 'aud_1'",
				"UPDATE audit_log SET actor_user_id = 'usr_2'",
			} {
				_, err := db.Bun.ExecContext(ctx, stmt)
				if err == nil || !strings.Contains(err.Error(), "append-only") {
					t.Errorf("%s: %v, want the trigger's refusal", stmt, err)
				}
			}
			var action string
			if err := db.Bun.NewRaw("SELECT action FROM audit_log WHERE id = 'aud_1'").Scan(ctx, &action); err != nil || action != "login" {
				t.Fatalf("after the refused updates the entry reads %q, %v", action, err)
			}
			if n, err := log.Purge(ctx, at.Add(time.Second)); err != nil || n != 1 {
				t.Fatalf("Purge = %d, %v; want the entry deleted", n, err)
			}
		})
	}
}
