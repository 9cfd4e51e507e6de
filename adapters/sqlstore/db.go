// Package sqlstore is the relational storage adapter: one bun code path for
// the embedded SQLite default and for PostgreSQL, chosen by the URL scheme.
// It implements the repository ports, the Transactor and the migrations.
package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// Dialect names the database behind a DB.
type Dialect string

// The dialects, as TABNORM_DATABASE_URL names them.
const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

// Config is what the store needs from the settings.
type Config struct {
	// URL is sqlite://relative/path.db, sqlite:///absolute/path.db or
	// postgres://user:pass@host/db?… (postgresql:// too).
	URL string
}

// DB is an open store. On PostgreSQL, Pool is the pgx pool behind the
// database/sql handle, for the parts that need native pgx (LISTEN, River's
// fast driver); it is nil on SQLite.
type DB struct {
	Bun     *bun.DB
	Dialect Dialect
	Pool    *pgxpool.Pool
	stmts   *statements
}

// ParseURL validates a database URL and tells its dialect, without
// connecting. For SQLite it also returns the file path.
func ParseURL(raw string) (Dialect, string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", "", fmt.Errorf("not a URL: %v", err)
	}
	switch u.Scheme {
	case "sqlite":
		path := strings.TrimPrefix(raw, "sqlite://")
		if i := strings.IndexByte(path, '?'); i >= 0 {
			path = path[:i]
		}
		if path == "" {
			return "", "", errors.New("sqlite URL has no file path (want sqlite://./data/tabnorm.db)")
		}
		return SQLite, path, nil
	case "postgres", "postgresql":
		if u.Host == "" && u.Query().Get("host") == "" {
			return "", "", errors.New("postgres URL has no host")
		}
		return Postgres, "", nil
	default:
		return "", "", fmt.Errorf("unsupported scheme %q (want sqlite:// or postgres://)", u.Scheme)
	}
}

// Open connects to the database named by cfg.URL and checks it answers.
func Open(ctx context.Context, cfg Config) (*DB, error) {
	dialect, path, err := ParseURL(cfg.URL)
	if err != nil {
		return nil, err
	}
	if dialect == SQLite {
		return openSQLite(ctx, path)
	}
	return openPostgres(ctx, cfg.URL)
}

func openSQLite(ctx context.Context, path string) (*DB, error) {
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return nil, fmt.Errorf("create database folder: %w", err)
		}
	}
	// WAL lets readers run beside the one writer (so `tabnorm admin` works
	// while `serve` runs on the same file); immediate transactions take the
	// write lock at BEGIN, which turns lock upgrades that would fail with
	// SQLITE_BUSY into waits bounded by busy_timeout.
	dsn := "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)" +
		"&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_txlock=immediate&_time_format=sqlite"
	sqldb, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	sqldb.SetMaxOpenConns(8)
	sqldb.SetMaxIdleConns(8)
	sqldb.SetConnMaxIdleTime(5 * time.Minute)
	db := &DB{Bun: bun.NewDB(sqldb, sqlitedialect.New()).WithQueryHook(queryTracer{system: "sqlite"}), Dialect: SQLite, stmts: &statements{}}
	if err := db.Ping(ctx); err != nil {
		_ = sqldb.Close()
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	return db, nil
}

func openPostgres(ctx context.Context, raw string) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(raw)
	if err != nil {
		return nil, fmt.Errorf("parse postgres URL: %w", err)
	}
	if cfg.MaxConns < 10 {
		cfg.MaxConns = 10
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect postgres: %w", err)
	}
	sqldb := stdlib.OpenDBFromPool(pool)
	db := &DB{Bun: bun.NewDB(sqldb, pgdialect.New()).WithQueryHook(queryTracer{system: "postgresql"}), Dialect: Postgres, Pool: pool, stmts: &statements{}}
	if err := db.Ping(ctx); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("connect postgres at %s: %w", redact(raw), err)
	}
	return db, nil
}

// Ping checks the database answers within a short time.
func (db *DB) Ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	return db.Bun.PingContext(ctx)
}

// Close releases every connection.
func (db *DB) Close() error {
	if db.stmts != nil {
		db.stmts.close()
	}
	err := db.Bun.Close()
	if db.Pool != nil {
		db.Pool.Close()
	}
	return err
}

// redact drops the password from a URL for messages and logs.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparseable URL)"
	}
	return u.Redacted()
}
