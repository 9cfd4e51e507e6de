package destination

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tabnorm/tabnorm/adapters/export"
	"github.com/tabnorm/tabnorm/domain/destination"
	"github.com/tabnorm/tabnorm/domain/schema"
	"github.com/tabnorm/tabnorm/ports"
)

// JobColumn is the column of a destination table that holds the id of
// the job each row came from: a job's delivery deletes its rows by it,
// and a rerun's deletes its predecessors'.
const JobColumn = "_tabnorm_job_id"

// pgType is the column type a field's values are loaded as.
func pgType(t schema.Type) string {
	switch t {
	case schema.Integer:
		return "bigint"
	case schema.Number:
		return "numeric"
	case schema.Boolean:
		return "boolean"
	case schema.Date:
		return "date"
	case schema.DateTime:
		return "timestamptz"
	case schema.Time:
		return "time"
	case schema.Year:
		return "integer"
	}
	return "text"
}

// connect opens a connection to the destination's database through the
// writer's dialer.
func (w *Writer) connect(ctx context.Context, t destination.Target) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(t.Secrets["url"])
	if err != nil {
		return nil, errors.New("the connection URL is not valid")
	}
	cfg.ConnectTimeout = w.cfg.Timeout
	cfg.DialFunc = w.dialer.DialContext
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("could not connect to the database: %s", pgReason(err))
	}
	return conn, nil
}

// pgReason is a connection or statement error as a sentence without
// credentials (the server's message, or the network's).
func pgReason(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Message + " (SQLSTATE " + pe.Code + ")"
	}
	if errors.Is(err, errRefused) {
		return errRefused.Error()
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return "timed out or canceled"
	}
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 {
		msg = msg[i+2:]
	}
	return msg
}

// table is the destination's table, quoted.
func table(t destination.Target) pgx.Identifier {
	if s := t.Config["schema"]; s != "" {
		return pgx.Identifier{s, t.Config["table"]}
	}
	return pgx.Identifier{t.Config["table"]}
}

// deliverPostgres loads the rows with COPY in one transaction: it creates
// the table from the schema if absent, deletes the rows of the job and of
// the jobs it reruns, and copies the job's. The transaction holds a lock
// on the table's name, so two attempts of the same job (one whose claim
// lapsed, and the next) never both insert.
func (w *Writer) deliverPostgres(ctx context.Context, t destination.Target, s ports.Shipment, cols []export.Column) (ports.Shipped, error) {
	conn, err := w.connect(ctx, t)
	if err != nil {
		return ports.Shipped{}, err
	}
	defer func() { _ = conn.Close(context.WithoutCancel(ctx)) }()
	tbl := table(t)
	name := tbl.Sanitize()
	tx, err := conn.Begin(ctx)
	if err != nil {
		return ports.Shipped{}, fmt.Errorf("could not begin a transaction: %s", pgReason(err))
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", "tabnorm:"+name); err != nil {
		return ports.Shipped{}, fmt.Errorf("could not lock the table: %s", pgReason(err))
	}
	if err := prepareTable(ctx, tx, tbl, cols); err != nil {
		return ports.Shipped{}, err
	}
	ids := append([]string{s.JobID}, s.Replaces...)
	if _, err := tx.Exec(ctx, "DELETE FROM "+name+" WHERE "+JobColumn+" = ANY($1)", ids); err != nil {
		return ports.Shipped{}, fmt.Errorf("could not delete the rows an earlier delivery wrote: %s", pgReason(err))
	}
	names := make([]string, 0, len(cols)+1)
	for _, c := range cols {
		names = append(names, pgx.Identifier{c.Name}.Sanitize())
	}
	names = append(names, JobColumn)
	rows, err := s.Rows(ctx)
	if err != nil {
		return ports.Shipped{}, fmt.Errorf("could not read the job's rows: %w", err)
	}
	defer func() { _ = rows.Close() }()
	pr, pw := io.Pipe()
	count := newCounter(pw)
	encoded := make(chan error, 1)
	go func() {
		_, err := encodeCSV(count, rows, cols, s.JobID)
		_ = pw.CloseWithError(err)
		encoded <- err
	}()
	tag, err := tx.Conn().PgConn().CopyFrom(ctx, pr, "COPY "+name+" ("+strings.Join(names, ", ")+") FROM STDIN WITH (FORMAT csv)")
	_ = pr.CloseWithError(errors.New("copy ended"))
	if readErr := <-encoded; readErr != nil && err == nil {
		err = readErr
	}
	if err != nil {
		return ports.Shipped{}, fmt.Errorf("COPY into %s failed: %s", name, pgReason(err))
	}
	n := tag.RowsAffected()
	if err := tx.Commit(ctx); err != nil {
		return ports.Shipped{}, fmt.Errorf("could not commit: %s", pgReason(err))
	}
	return ports.Shipped{Rows: n, Bytes: count.n, Checksum: count.sum()}, nil
}

// prepareTable creates the table if it is absent, and checks an existing
// one has the job column.
func prepareTable(ctx context.Context, tx pgx.Tx, tbl pgx.Identifier, cols []export.Column) error {
	name := tbl.Sanitize()
	defs := make([]string, 0, len(cols)+1)
	for _, c := range cols {
		defs = append(defs, pgx.Identifier{c.Name}.Sanitize()+" "+pgType(c.Type))
	}
	defs = append(defs, JobColumn+" text NOT NULL")
	if _, err := tx.Exec(ctx, "CREATE TABLE IF NOT EXISTS "+name+" ("+strings.Join(defs, ", ")+")"); err != nil {
		return fmt.Errorf("could not create the table %s: %s", name, pgReason(err))
	}
	idx := pgx.Identifier{truncate(tbl[len(tbl)-1], 40) + "_tabnorm_job_idx"}.Sanitize()
	if _, err := tx.Exec(ctx, "CREATE INDEX IF NOT EXISTS "+idx+" ON "+name+" ("+JobColumn+")"); err != nil {
		return fmt.Errorf("could not index the table %s: %s", name, pgReason(err))
	}
	var has bool
	err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = $1::regclass AND attname = $2 AND NOT attisdropped)",
		name, JobColumn).Scan(&has)
	if err != nil {
		return fmt.Errorf("could not read the table %s: %s", name, pgReason(err))
	}
	if !has {
		return fmt.Errorf("the table %s exists without a %s column: add it (text) or name another table", name, JobColumn)
	}
	return nil
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// encodeCSV writes the rows as PostgreSQL's CSV: every value quoted, a
// null as nothing (so an empty text stays empty, and a null stays null),
// with the job's id last.
func encodeCSV(out io.Writer, rows io.Reader, cols []export.Column, jobID string) (int64, error) {
	bw := bufio.NewWriterSize(out, 256<<10)
	rr := newRowReader(rows, cols)
	var n int64
	buf := make([]byte, 0, 4096)
	for {
		more, err := rr.next()
		if err != nil {
			return n, err
		}
		if !more {
			break
		}
		buf = buf[:0]
		for i, v := range rr.texts {
			if !rr.nulls[i] {
				buf = appendQuoted(buf, v)
			}
			buf = append(buf, ',')
		}
		buf = appendQuoted(buf, jobID)
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return n, err
		}
		n++
	}
	return n, bw.Flush()
}

func appendQuoted(buf []byte, s string) []byte {
	buf = append(buf, '"')
	for {
		i := strings.IndexByte(s, '"')
		if i < 0 {
			break
		}
		buf = append(buf, s[:i+1]...)
		buf = append(buf, '"')
		s = s[i+1:]
	}
	buf = append(buf, s...)
	return append(buf, '"')
}

// checkPostgres connects and checks, in a transaction rolled back, that
// the table can be created, or written and emptied when it exists.
func (w *Writer) checkPostgres(ctx context.Context, t destination.Target) error {
	conn, err := w.connect(ctx, t)
	if err != nil {
		return err
	}
	defer func() { _ = conn.Close(context.WithoutCancel(ctx)) }()
	name := table(t).Sanitize()
	var ok bool
	err = conn.QueryRow(ctx, `SELECT CASE WHEN to_regclass($1) IS NULL
		THEN has_schema_privilege(coalesce(nullif($2, ''), current_schema()), 'CREATE')
		ELSE has_table_privilege($1, 'INSERT') AND has_table_privilege($1, 'DELETE') END`, name, t.Config["schema"]).Scan(&ok)
	if err != nil {
		return fmt.Errorf("could not check the table %s: %s", name, pgReason(err))
	}
	if !ok {
		return fmt.Errorf("the user may not create %s, or may not insert into and delete from it", name)
	}
	return nil
}
