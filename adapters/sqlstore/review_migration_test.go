package sqlstore

import (
	"context"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/uptrace/bun/migrate"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/normalize/review"
	"github.com/tabnorm/tabnorm/migrations"
)

// TestMigrate_reviewKeepsJobs applies the review migration over a database
// that holds jobs with events and file links: on SQLite it rebuilds the
// jobs table, which must keep every row and every reference to it (a
// dropped table with foreign keys on would have deleted the events), and
// cascade deletes as before.
func TestMigrate_reviewKeepsJobs(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db, err := Open(ctx, Config{URL: target.URL})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = db.Close() })
			migrateBefore(t, db, "20261126000017_")
			seedJobWithEventAndFile(t, db)
			if _, err := db.Migrate(ctx); err != nil {
				t.Fatalf("review migration: %v", err)
			}
			checkJobKept(t, db)
		})
	}
}

// reviewNow is when the migration test's rows were written.
var reviewNow = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

// migrateBefore applies the migrations that come before the one whose
// file names start with prefix, and none after it: a later migration
// applied first would meet a table the migration under test rebuilds.
func migrateBefore(t *testing.T, db *DB, prefix string) {
	t.Helper()
	ctx := context.Background()
	var fsys fs.FS = migrations.SQLite
	dir := "sqlite"
	if db.Dialect == Postgres {
		fsys, dir = migrations.Postgres, "postgres"
	}
	before := fstest.MapFS{}
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), prefix) || e.Name() > prefix {
			continue
		}
		b, _ := fs.ReadFile(fsys, dir+"/"+e.Name())
		before[e.Name()] = &fstest.MapFile{Data: b}
	}
	ms := migrate.NewMigrations()
	if err := ms.Discover(before); err != nil {
		t.Fatal(err)
	}
	old := migrate.NewMigrator(db.Bun, ms, migrate.WithMarkAppliedOnSuccess(true))
	if err := old.Init(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := old.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
}

// seedJobWithEventAndFile writes, as the schema before the review had it,
// a waiting job with an event and a library file it reads.
func seedJobWithEventAndFile(t *testing.T, db *DB) {
	t.Helper()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Bun.ExecContext(context.Background(), q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec("INSERT INTO organizations (id, name, created_at) VALUES ('org_1', 'Acme', ?)", reviewNow)
	exec(`INSERT INTO jobs (id, org_id, mode, status, source_type, files, options, created_at, bytes_total, dispatched)
		VALUES ('job_1', 'org_1', 'normalize', 'queued', 'connect', '[]', '{}', ?, 10, ?)`, reviewNow, false)
	exec("INSERT INTO job_events (job_id, seq, kind, data, created_at) VALUES ('job_1', 1, 'job.queued', '{}', ?)", reviewNow)
	exec("INSERT INTO files (id, org_id, filename, format, size_bytes, sha256, created_at) VALUES ('file_1', 'org_1', 'a.csv', 'csv', 10, 'x', ?)", reviewNow)
	exec("INSERT INTO job_files (job_id, file_id, position) VALUES ('job_1', 'file_1', 0)")
}

// checkJobKept: the job, its waiting flag, its event and its file link
// survived; the new status is allowed, and deleting a job still takes its
// events and links; SQLite has its foreign keys on again.
func checkJobKept(t *testing.T, db *DB) {
	t.Helper()
	ctx := context.Background()
	jobs := NewJobs(db)
	j, err := jobs.Get(ctx, "org_1", "job_1")
	if err != nil || j.Status != job.Queued || j.Progress.BytesTotal != 10 || !j.CreatedAt.Equal(reviewNow) {
		t.Fatalf("job after the migration: %+v %v", j, err)
	}
	if next, err := jobs.NextWaiting(ctx, "org_1"); err != nil || next != "job_1" {
		t.Fatalf("the waiting job lost its dispatched flag: %q %v", next, err)
	}
	if evs, err := NewJobEvents(db).After(ctx, "job_1", 0); err != nil || len(evs) != 1 {
		t.Fatalf("events after the migration: %v %v", evs, err)
	}
	count := func(table string) int64 {
		n, err := db.Bun.NewSelect().Table(table).Where("job_id = 'job_1'").Count(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if count("job_files") != 1 {
		t.Fatal("file links lost")
	}
	if _, err := jobs.Update(ctx, "org_1", "job_1", func(j *job.Job) error {
		if err := j.Start(reviewNow); err != nil {
			return err
		}
		return j.AwaitReview(reviewNow, review.Review{}, []byte(`[]`))
	}); err != nil {
		t.Fatalf("awaiting_review refused: %v", err)
	}
	if err := jobs.Delete(ctx, "org_1", "job_1"); err != nil {
		t.Fatal(err)
	}
	if count("job_events") != 0 || count("job_files") != 0 {
		t.Fatal("deleting a job no longer deletes its events and file links")
	}
	var fk int
	if db.Dialect == SQLite {
		if err := db.Bun.QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&fk); err != nil || fk != 1 {
			t.Fatalf("foreign keys left %d (%v)", fk, err)
		}
	}
}
