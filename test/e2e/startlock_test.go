package e2e

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/sqlstore"
	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/test/testtime"
)

// TestServe_startBehindTheMigrationLock starts four API processes and two
// workers at once on an empty PostgreSQL database while another holds
// the migration lock (a long `tabnorm migrate`) for longer than their
// start timeout: waiting for the lock does not count against it, and all
// six become ready once it is released.
func TestServe_startBehindTheMigrationLock(t *testing.T) {
	t.Parallel()
	target, ok := sqltest.Postgres(t)
	if !ok {
		t.Skip("*** SKIPPED: needs PostgreSQL (TABNORM_TEST_DATABASE_URL) ***")
	}
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, sqlstore.Config{URL: target.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	lock, err := db.Bun.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if _, err := lock.ExecContext(ctx, "SELECT pg_advisory_lock(?)", sqlstore.MigrationLockKey); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// Past the lock the six processes still take it in turn at start (to
	// seed the first organization once), within their start timeout: 5 s
	// leaves room for a loaded machine, and the lock is held for twice it.
	const startTimeout = 5 * time.Second
	env := []string{"TABNORM_DATABASE_URL=" + target.URL, "TABNORM_BLOB_URL=file://" + filepath.Join(dir, "blobs"),
		"TABNORM_START_TIMEOUT=" + startTimeout.String()}
	roles := []string{"api", "api", "api", "api", "worker", "worker"}
	servers := make([]*server, len(roles))
	found := make([]<-chan struct{}, len(roles))
	for i, role := range roles {
		servers[i], found[i] = launchServe(t, dir, role, env...)
	}
	// Every process waits for the lock; hold it past their start timeout.
	for deadline := testtime.Deadline(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var waiting int
		err := db.Bun.NewRaw(`SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
			AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`).Scan(ctx, &waiting)
		if err != nil {
			t.Fatal(err)
		}
		if waiting == len(roles) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d processes wait for the migration lock after 60 s", waiting, len(roles))
		}
	}
	held := time.Now()
	for time.Since(held) < 2*startTimeout {
		for i, s := range servers {
			select {
			case err := <-s.exited:
				t.Fatalf("process %d (%s) exited while waiting for the migration lock: %v", i, roles[i], err)
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	if _, err := lock.ExecContext(ctx, "SELECT pg_advisory_unlock(?)", sqlstore.MigrationLockKey); err != nil {
		t.Fatal(err)
	}
	for i, s := range servers {
		s.await(t, found[i])
		if roles[i] == "api" {
			if code := getStatus(t, s.url+"/readyz"); code != 200 {
				t.Fatalf("process %d: /readyz = %d", i, code)
			}
		}
	}
	for i, s := range servers {
		if err := s.stop(t); err != nil {
			t.Fatalf("process %d exited with %v after SIGTERM", i, err)
		}
	}
}
