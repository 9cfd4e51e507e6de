package sqlstore

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"sync"

	"github.com/tabnorm/tabnorm/ports"
	"github.com/uptrace/bun"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// statements holds the statements prepared for a SQLite DB, by their SQL,
// and the PostgreSQL text of the queries run this way.
// The reads that every request makes (an API key's lookup, a job's read)
// run as statements prepared once per connection and reused: bun writes
// each argument into the SQL text, so every such read was a new statement
// the database parsed and planned again, which on SQLite was most of a
// request's cost. Writes and rarer reads keep bun's query builder.
type statements struct {
	mu    sync.Mutex // held while preparing, so a statement is prepared once
	stmts sync.Map   // SQL → *sql.Stmt (SQLite)
	// natives holds the PostgreSQL text of each query (? → $n), which
	// is the same for every request of its shape.
	natives sync.Map
}

// prepare returns the statement for query (written in the dialect's
// placeholders), preparing it on first use.
func (s *statements) prepare(ctx context.Context, db *sql.DB, query string) (*sql.Stmt, error) {
	if stmt, ok := s.stmts.Load(query); ok {
		return stmt.(*sql.Stmt), nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if stmt, ok := s.stmts.Load(query); ok {
		return stmt.(*sql.Stmt), nil
	}
	stmt, err := db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	s.stmts.Store(query, stmt)
	return stmt, nil
}

// close closes every prepared statement.
func (s *statements) close() {
	s.stmts.Range(func(q, stmt any) bool {
		_ = stmt.(*sql.Stmt).Close() // the pool closes next; nothing is left to tell
		s.stmts.Delete(q)
		return true
	})
}

// native rewrites query's ? placeholders into the dialect's own: $1, $2, …
// on PostgreSQL. The queries given here hold no ? in string literals.
func (db *DB) native(query string) string {
	if db.Dialect != Postgres {
		return query
	}
	if db.stmts == nil {
		return dollars(query)
	}
	if q, ok := db.stmts.natives.Load(query); ok {
		return q.(string)
	}
	q := dollars(query)
	db.stmts.natives.Store(query, q)
	return q
}

// dollars numbers query's ? placeholders as $1, $2, ….
func dollars(query string) string {
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// queryPrepared runs a read written with ? placeholders as a prepared
// statement; inside a transaction it runs on the transaction's connection.
// Its span is a query's span, as bun's hook gives the others.
func (db *DB) queryPrepared(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	q := db.native(query)
	span := db.querySpan(ctx)
	rows, err := db.runPrepared(ctx, q, args)
	if span != nil {
		if err != nil {
			span.SetStatus(codes.Error, "")
		}
		span.End()
	}
	return rows, err
}

func (db *DB) runPrepared(ctx context.Context, q string, args []any) (*sql.Rows, error) {
	if tx, ok := TxFrom(ctx); ok {
		return tx.Tx.QueryContext(ctx, q, args...)
	}
	if db.stmts == nil || db.Dialect == Postgres {
		// pgx prepares a query's text once per connection by itself (its
		// statement cache), so on PostgreSQL the SQL with its arguments
		// apart is all it takes. database/sql's own prepared statements
		// would prepare again on each connection the pool hands out anew.
		return db.Bun.DB.QueryContext(ctx, q, args...)
	}
	stmt, err := db.stmts.prepare(ctx, db.Bun.DB, q)
	if err != nil {
		return nil, err
	}
	return stmt.QueryContext(ctx, args...)
}

func (db *DB) querySpan(ctx context.Context) trace.Span {
	if !trace.SpanFromContext(ctx).IsRecording() {
		return nil
	}
	system := "sqlite"
	if db.Dialect == Postgres {
		system = "postgresql"
	}
	_, span := tracer.Start(ctx, "db SELECT", trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("db.system.name", system), attribute.String("db.operation.name", "SELECT")))
	return span
}

// scanOne runs a prepared read (queryPrepared) and scans its first row into
// the bun model dest; no row is sql.ErrNoRows.
func (db *DB) scanOne(ctx context.Context, dest any, query string, args ...any) error {
	rows, err := db.queryPrepared(ctx, query, args...)
	if err != nil {
		return err
	}
	defer func() { _ = rows.Close() }() // a read's Close reports nothing Err does not
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return err
		}
		return sql.ErrNoRows
	}
	if err := db.Bun.ScanRow(ctx, rows, dest); err != nil {
		return err
	}
	return rows.Err()
}

// placeholder stands for an argument in a query built with bun for
// queryPrepared: the argument goes beside the query, not into its text.
var placeholder = bun.Safe("?")

// listPagePrepared is listPage as a prepared read: q is built with
// placeholders for args, dest is its model (a pointer to a slice of rows).
// The page's cursor is an argument too; its LIMIT is written as one of a
// few sizes (limitBucket), because SQLite plans a statement again each
// time a LIMIT given as an argument is bound. A list has at most a few
// statements per combination of its filters, whatever their values.
func (db *DB) listPagePrepared(ctx context.Context, q *bun.SelectQuery, args []any, dest any, page ports.Page, n func() int, idAt func(int) string, trim func(int)) (string, error) {
	limit := clampLimit(page.Limit)
	table := q.GetTableName()
	after, err := decodeCursor(table, page.Cursor)
	if err != nil {
		return "", err
	}
	if after != "" {
		q = q.Where("id < ?", placeholder)
		args = append(args, after)
	}
	query := q.OrderExpr("id DESC").String() + " LIMIT " + strconv.Itoa(limitBucket(limit+1))
	rows, err := db.queryPrepared(ctx, query, args...)
	if err != nil {
		return "", err
	}
	if err := db.Bun.ScanRows(ctx, rows, dest); err != nil {
		return "", err
	}
	if n() <= limit {
		return "", nil
	}
	trim(limit)
	return encodeCursor(table, idAt(limit-1)), nil
}

// limitBucket is the smallest of a few LIMIT sizes that holds n rows; a
// page reads at most that many and keeps the first n.
func limitBucket(n int) int {
	for _, size := range [...]int{11, 21, 51, 101, 201} {
		if n <= size {
			return size
		}
	}
	return n
}
