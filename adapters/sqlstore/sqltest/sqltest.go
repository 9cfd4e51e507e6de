// Package sqltest gives tests fresh databases: a SQLite file always, and a
// scratch PostgreSQL database when TABNORM_TEST_DATABASE_URL names a server.
// PostgreSQL tests skip loudly without it, and fail instead of skipping when
// CI=true, so CI can never pass without having run them.
package sqltest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
)

// EnvURL names the PostgreSQL server tests may create databases on.
const EnvURL = "TABNORM_TEST_DATABASE_URL"

// Target is one database to run a test against.
type Target struct {
	Name string // "sqlite" or "postgres"
	URL  string
}

// Targets returns SQLite and, when configured, PostgreSQL. Each call makes
// new, empty databases that are removed when the test ends.
func Targets(t testing.TB) []Target {
	t.Helper()
	targets := []Target{SQLite(t)}
	if pg, ok := Postgres(t); ok {
		targets = append(targets, pg)
	}
	return targets
}

// SQLite returns a fresh SQLite database in the test's temp dir.
func SQLite(t testing.TB) Target {
	return Target{Name: "sqlite", URL: "sqlite://" + filepath.Join(t.TempDir(), "tabnorm.db")}
}

// Fresh is a kind of database that makes a new, empty one per call, for
// suites that want a database of their own for each step.
type Fresh struct {
	Name string // "sqlite" or "postgres"
	New  func(t testing.TB) Target
}

// Kinds returns SQLite and, when configured, PostgreSQL, as Targets does,
// without making a database yet.
func Kinds(t testing.TB) []Fresh {
	t.Helper()
	kinds := []Fresh{{Name: "sqlite", New: SQLite}}
	if base, ok := postgresServer(t); ok {
		kinds = append(kinds, Fresh{Name: "postgres", New: func(t testing.TB) Target { return createPostgres(t, base) }})
	}
	return kinds
}

// Postgres creates a scratch database on the configured server. Without a
// server it logs a loud notice and returns false, or fails the test on CI.
func Postgres(t testing.TB) (Target, bool) {
	t.Helper()
	base, ok := postgresServer(t)
	if !ok {
		return Target{}, false
	}
	return createPostgres(t, base), true
}

// postgresServer returns the configured server's URL. Without one it logs
// a loud notice and returns false, or fails the test on CI.
func postgresServer(t testing.TB) (string, bool) {
	t.Helper()
	base := os.Getenv(EnvURL)
	if base == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set, but CI=true: PostgreSQL tests are mandatory in CI", EnvURL)
		}
		t.Logf("*** SKIPPING the PostgreSQL half of %s: set %s=postgres://… to run it ***", t.Name(), EnvURL)
		return "", false
	}
	return base, true
}

// createPostgres creates a scratch database on the server at base,
// dropped when the test ends.
func createPostgres(t testing.TB, base string) Target {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s: %v", EnvURL, err)
	}
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatalf("open %s: %v", EnvURL, err)
	}
	defer func() { _ = admin.Close() }()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "tabnorm_test_" + hex.EncodeToString(b[:])
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("PostgreSQL at %s is unreachable or refuses CREATE DATABASE: %v", u.Redacted(), err)
	}
	t.Cleanup(func() {
		db, err := sql.Open("pgx", base)
		if err != nil {
			return
		}
		defer func() { _ = db.Close() }()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, _ = db.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	})
	u.Path = "/" + name
	return Target{Name: "postgres", URL: u.String()}
}
