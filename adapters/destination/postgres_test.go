package destination_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	domaindst "github.com/tabnorm/tabnorm/domain/destination"
)

// scratch is a fresh database on the test server, the destination, and a
// connection to read it back.
func scratch(t *testing.T) (string, *pgx.Conn) {
	t.Helper()
	db, ok := sqltest.Postgres(t)
	if !ok {
		t.Skip("*** SKIP: no PostgreSQL server to deliver to ***")
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, db.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close(ctx) })
	return db.URL, conn
}

func pgTarget(dbURL, table string) domaindst.Target {
	return target(domaindst.Postgres, map[string]string{"table": table}, map[string]string{"url": dbURL})
}

func count(t *testing.T, conn *pgx.Conn, query string, args ...any) int {
	t.Helper()
	var n int
	if err := conn.QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

func TestPostgres_deliversOnceAndARerunReplacesItsPredecessor(t *testing.T) {
	t.Parallel()
	dbURL, conn := scratch(t)
	ctx := context.Background()
	w := newWriter(true)
	tgt := pgTarget(dbURL, "contacts")
	first := rowsOf(`{"name":"Ann \"A\", Jr.","age":41,"score":1.25,"active":true,"born":"1985-03-04","note":""}`,
		`{"name":"Bob","age":null,"score":null,"active":false,"born":null,"note":null}`,
		`{"name":"Zoë","age":7,"score":-0.5,"active":null,"born":"2019-12-31","note":"multi\nline"}`)
	for range 2 { // the second attempt of the same job replaces the first's rows
		got, err := w.Deliver(ctx, tgt, shipment("job_1", nil, first))
		if err != nil || got.Rows != 3 || got.Bytes == 0 || len(got.Checksum) != 64 {
			t.Fatalf("Deliver = %+v, %v; want 3 rows", got, err)
		}
	}
	if n := count(t, conn, "SELECT count(*) FROM contacts WHERE _tabnorm_job_id = 'job_1'"); n != 3 {
		t.Fatalf("after two attempts of one job the table holds %d of its rows, want 3", n)
	}
	types := map[string]string{}
	rows, err := conn.Query(ctx, "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'contacts'")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var c, ty string
		if err := rows.Scan(&c, &ty); err != nil {
			t.Fatal(err)
		}
		types[c] = ty
	}
	want := map[string]string{"name": "text", "age": "bigint", "score": "numeric", "active": "boolean", "born": "date", "note": "text", "_tabnorm_job_id": "text"}
	for c, ty := range want {
		if types[c] != ty {
			t.Fatalf("column %s is %q, want %q (all: %v)", c, types[c], ty, types)
		}
	}
	var name, note *string
	var age *int64
	if err := conn.QueryRow(ctx, "SELECT name, age, note FROM contacts WHERE name LIKE 'Ann%'").Scan(&name, &age, &note); err != nil {
		t.Fatal(err)
	}
	if *name != `Ann "A", Jr.` || *age != 41 || note == nil || *note != "" {
		t.Fatalf("Ann's row = %v %v %v; want the quotes and comma kept and an empty note, not null", *name, *age, note)
	}
	if n := count(t, conn, "SELECT count(*) FROM contacts WHERE name = 'Bob' AND age IS NULL AND note IS NULL AND born IS NULL"); n != 1 {
		t.Fatal("Bob's nulls were not loaded as nulls")
	}
	if n := count(t, conn, "SELECT count(*) FROM contacts WHERE note = E'multi\\nline' AND name = 'Zoë'"); n != 1 {
		t.Fatal("a value across lines or a non-ASCII name was not kept")
	}

	other := rowsOf(`{"name":"Other","age":1,"score":1,"active":true,"born":null,"note":null}`)
	if _, err := w.Deliver(ctx, tgt, shipment("job_other", nil, other)); err != nil {
		t.Fatal(err)
	}
	rerun := rowsOf(`{"name":"Ann","age":42,"score":2,"active":true,"born":"1985-03-04","note":"fixed"}`,
		`{"name":"Bob","age":30,"score":3,"active":false,"born":null,"note":null}`)
	if _, err := w.Deliver(ctx, tgt, shipment("job_2", []string{"job_1"}, rerun)); err != nil {
		t.Fatal(err)
	}
	if n := count(t, conn, "SELECT count(*) FROM contacts WHERE _tabnorm_job_id = 'job_1'"); n != 0 {
		t.Fatalf("the rerun left %d of its predecessor's rows", n)
	}
	if n := count(t, conn, "SELECT count(*) FROM contacts WHERE _tabnorm_job_id = 'job_2'"); n != 2 {
		t.Fatalf("the rerun's rows: %d, want 2", n)
	}
	if n := count(t, conn, "SELECT count(*) FROM contacts WHERE _tabnorm_job_id = 'job_other'"); n != 1 {
		t.Fatal("another job's rows were touched")
	}
}

func TestPostgres_anAttemptStoppedMidCopyLeavesNothingAndTheNextLoadsEachRowOnce(t *testing.T) {
	t.Parallel()
	dbURL, conn := scratch(t)
	w := newWriter(true)
	tgt := pgTarget(dbURL, "people")
	rows := manyRows(20000)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := w.Deliver(ctx, tgt, shipment("job_cut", nil, cancelAfter(rows, 600_000, cancel)))
	if err == nil {
		t.Fatal("an attempt stopped mid-COPY succeeded")
	}
	if n := count(t, conn, "SELECT count(*) FROM pg_tables WHERE tablename = 'people'"); n != 0 {
		t.Fatal("the stopped attempt left its table behind")
	}
	got, err := w.Deliver(context.Background(), tgt, shipment("job_cut", nil, rowsOf(rows...)))
	if err != nil || got.Rows != int64(len(rows)) {
		t.Fatalf("the next attempt = %+v, %v", got, err)
	}
	if n := count(t, conn, "SELECT count(DISTINCT name) FROM people WHERE _tabnorm_job_id = 'job_cut'"); n != len(rows) {
		t.Fatalf("distinct rows %d, want %d", n, len(rows))
	}
	if n := count(t, conn, "SELECT count(*) FROM people"); n != len(rows) {
		t.Fatalf("rows %d, want each of %d once", n, len(rows))
	}
}

func TestPostgres_hostileCasesEndInClearErrorsWithNothingWritten(t *testing.T) {
	t.Parallel()
	dbURL, conn := scratch(t)
	ctx := context.Background()
	one := rowsOf(`{"name":"x","age":1,"score":1,"active":true,"born":null,"note":null}`)

	_, err := newWriter(false).Deliver(ctx, pgTarget(dbURL, "t1"), shipment("job_1", nil, one))
	if err == nil || !strings.Contains(err.Error(), "private, loopback or link-local") {
		t.Fatalf("a loopback database without TABNORM_DESTINATION_ALLOW_PRIVATE: %v", err)
	}
	if err := newWriter(false).Check(ctx, pgTarget(dbURL, "t1")); err == nil || !strings.Contains(err.Error(), "private") {
		t.Fatalf("Check of a loopback database: %v", err)
	}

	u, _ := url.Parse(dbURL)
	u.User = url.UserPassword("no_such_loader", "wrong-password")
	_, err = newWriter(true).Deliver(ctx, pgTarget(u.String(), "t1"), shipment("job_1", nil, one))
	if err == nil || !strings.Contains(err.Error(), "could not connect") || strings.Contains(err.Error(), "wrong-password") {
		t.Fatalf("bad credentials: %v; want a clear error without the password", err)
	}
	if err := newWriter(true).Check(ctx, pgTarget(u.String(), "t1")); err == nil {
		t.Fatal("Check with bad credentials passed")
	}
	if err := newWriter(true).Check(ctx, pgTarget(dbURL, "t1")); err != nil {
		t.Fatalf("Check of a good destination: %v", err)
	}

	if _, err := conn.Exec(ctx, "CREATE TABLE theirs (name text)"); err != nil {
		t.Fatal(err)
	}
	_, err = newWriter(true).Deliver(ctx, pgTarget(dbURL, "theirs"), shipment("job_1", nil, one))
	if err == nil || !strings.Contains(err.Error(), "_tabnorm_job_id") {
		t.Fatalf("a table without the job column: %v", err)
	}
	if _, err := conn.Exec(ctx, "CREATE TABLE strict (name text, age bigint CHECK (age < 10), score numeric, active boolean, born date, note text, _tabnorm_job_id text)"); err != nil {
		t.Fatal(err)
	}
	bad := rowsOf(`{"name":"a","age":1,"score":1,"active":true,"born":null,"note":null}`, `{"name":"b","age":99,"score":1,"active":true,"born":null,"note":null}`)
	_, err = newWriter(true).Deliver(ctx, pgTarget(dbURL, "strict"), shipment("job_1", nil, bad))
	if err == nil || !strings.Contains(err.Error(), "COPY") {
		t.Fatalf("a row the table refuses: %v", err)
	}
	if n := count(t, conn, "SELECT count(*) FROM strict") + count(t, conn, "SELECT count(*) FROM theirs"); n != 0 {
		t.Fatalf("%d rows were half-written", n)
	}
	if n := count(t, conn, "SELECT count(*) FROM pg_tables WHERE tablename = 't1'"); n != 0 {
		t.Fatal("a refused attempt created its table")
	}
}
