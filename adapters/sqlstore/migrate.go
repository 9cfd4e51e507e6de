package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/uptrace/bun/migrate"

	"github.com/tabnorm/tabnorm/migrations"
)

// MigrationLockKey serialises migrations across processes on PostgreSQL
// (bun's own Lock is a table row, which a crashed process leaves behind).
const MigrationLockKey = 0x7461626e6f726d // "tabnorm"

func (db *DB) migrator() (*migrate.Migrator, error) {
	var fsys fs.FS = migrations.SQLite
	dir := "sqlite"
	if db.Dialect == Postgres {
		fsys, dir = migrations.Postgres, "postgres"
	}
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		return nil, err
	}
	ms := migrate.NewMigrations()
	if err := ms.Discover(sub); err != nil {
		return nil, fmt.Errorf("discover migrations: %w", err)
	}
	return migrate.NewMigrator(db.Bun, ms, migrate.WithMarkAppliedOnSuccess(true)), nil
}

// WithMigrationLock runs fn while holding a PostgreSQL advisory lock, so
// processes starting at once migrate (and seed) one after the other: the
// first applies everything, the others wait and find nothing left to do.
// The lock belongs to one dedicated connection, is released when fn
// returns, and with the session if the process dies. SQLite needs none:
// only one process writes its file.
func (db *DB) WithMigrationLock(ctx context.Context, fn func(context.Context) error) error {
	if db.Dialect != Postgres {
		return fn(ctx)
	}
	conn, err := db.Bun.Conn(ctx)
	if err != nil {
		return fmt.Errorf("connection for the migration lock: %w", err)
	}
	defer func() { _ = conn.Close() }()
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock(?)", MigrationLockKey); err != nil {
		return fmt.Errorf("take migration lock: %w", err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock(?)", MigrationLockKey) //nolint:errcheck // released with the session anyway
	return fn(ctx)
}

// Migrate applies every pending migration of the application's schema and
// returns their names. Processes that may run it at the same time call it
// inside WithMigrationLock.
func (db *DB) Migrate(ctx context.Context) ([]string, error) {
	m, err := db.migrator()
	if err != nil {
		return nil, err
	}
	if err := m.Init(ctx); err != nil {
		return nil, fmt.Errorf("init migrations: %w", err)
	}
	group, err := m.Migrate(ctx)
	if err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	var names []string
	for _, mig := range group.Migrations {
		names = append(names, mig.Name+"_"+mig.Comment)
	}
	return names, nil
}

// Pending returns how many migrations are not applied yet; readiness
// requires zero.
func (db *DB) Pending(ctx context.Context) (int, error) {
	m, err := db.migrator()
	if err != nil {
		return 0, err
	}
	ms, err := m.MigrationsWithStatus(ctx)
	if err != nil {
		return 0, fmt.Errorf("read migration status: %w", err)
	}
	return len(ms.Unapplied()), nil
}

// Ready reports whether the database answers and is fully migrated. Its
// messages are safe to show to clients.
func (db *DB) Ready(ctx context.Context) error {
	if err := db.Ping(ctx); err != nil {
		return errors.New("database unreachable")
	}
	n, err := db.Pending(ctx)
	if err != nil {
		return errors.New("migration status unreadable (run tabnorm migrate)")
	}
	if n > 0 {
		return fmt.Errorf("%d migrations pending (run tabnorm migrate)", n)
	}
	return nil
}
