// Package migrations embeds the SQL migrations, one folder per dialect
// because the DDL differs (types, defaults). Files are named
// <timestamp>_<name>.up.sql and applied in order by adapters/sqlstore.
package migrations

import "embed"

// SQLite holds the migrations for the embedded SQLite store.
//
//go:embed sqlite/*.sql
var SQLite embed.FS

// Postgres holds the migrations for PostgreSQL.
//
//go:embed postgres/*.sql
var Postgres embed.FS
