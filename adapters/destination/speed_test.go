package destination_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/export"
	domaindst "github.com/tabnorm/tabnorm/domain/destination"
	"github.com/tabnorm/tabnorm/domain/schema"
)

// TestPostgres_speedAgainstPsqlCopy delivers N rows (TABNORM_DESTINATION_SPEED_ROWS)
// to a scratch database and, side by side, has psql \copy the same rows
// as CSV into a table of the same shape: the measurement of
// docs/benchmarks.md. It runs only when asked: it is a measurement.
func TestPostgres_speedAgainstPsqlCopy(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("TABNORM_DESTINATION_SPEED_ROWS"))
	if n <= 0 {
		t.Skip("a measurement: set TABNORM_DESTINATION_SPEED_ROWS=1000000 to run it")
	}
	dbURL, conn := scratch(t)
	dir := t.TempDir()
	jsonl, csvPath := filepath.Join(dir, "rows.jsonl"), filepath.Join(dir, "rows.csv")
	jf, _ := os.Create(jsonl)
	cf, _ := os.Create(csvPath)
	jw, cw := bufio.NewWriter(jf), bufio.NewWriter(cf)
	for i := range n {
		fmt.Fprintf(jw, `{"name":"person %d","age":%d,"score":%d.5,"active":true,"born":"1990-01-02","note":"line %d, with a comma"}`+"\n", i, i%90, i, i)
		fmt.Fprintf(cw, "\"person %d\",%d,%d.5,true,1990-01-02,\"line %d, with a comma\",job_psql\n", i, i%90, i, i)
	}
	_ = jw.Flush()
	_ = cw.Flush()
	_ = jf.Close()
	_ = cf.Close()
	rows := func(context.Context) (io.ReadCloser, error) { return os.Open(jsonl) }

	start := time.Now()
	got, err := newWriter(true).Deliver(context.Background(), pgTarget(dbURL, "delivered"), shipment("job_speed", nil, rows))
	tookDeliver := time.Since(start)
	if err != nil || got.Rows != int64(n) {
		t.Fatalf("Deliver = %+v, %v", got, err)
	}
	if _, err := conn.Exec(context.Background(), `CREATE TABLE copied (name text, age bigint, score numeric, active boolean, born date, note text, _tabnorm_job_id text NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	out, err := exec.Command("psql", dbURL, "-q", "-c", `\copy copied FROM '`+csvPath+`' WITH (FORMAT csv)`).CombinedOutput()
	tookPsql := time.Since(start)
	if err != nil {
		t.Fatalf("psql: %v %s", err, out)
	}
	t.Logf("%d rows: delivery %.2fs (%.0f rows/s), psql \\copy of the CSV %.2fs: ratio %.2f", n, tookDeliver.Seconds(), float64(n)/tookDeliver.Seconds(),
		tookPsql.Seconds(), tookDeliver.Seconds()/tookPsql.Seconds())
}

// TestS3_speedAgainstLocalParquet measures a delivery to S3 as Parquet
// (the file written whole, uploaded, then its manifest) against writing
// the same Parquet file to a local disk with the same writer; goal: at
// most 1.3× (docs/benchmarks.md).
func TestS3_speedAgainstLocalParquet(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("TABNORM_DESTINATION_SPEED_ROWS"))
	if n <= 0 {
		t.Skip("a measurement: set TABNORM_DESTINATION_SPEED_ROWS=1000000 to run it")
	}
	srv := s3Server(t)
	bucket := srv.Bucket(t)
	dir := t.TempDir()
	jsonl := filepath.Join(dir, "rows.jsonl")
	jf, _ := os.Create(jsonl)
	jw := bufio.NewWriter(jf)
	for i := range n {
		fmt.Fprintf(jw, `{"name":"person %d","age":%d,"score":%d.5,"active":true,"born":"1990-01-02","note":"line %d, with a comma"}`+"\n", i, i%90, i, i)
	}
	_ = jw.Flush()
	_ = jf.Close()
	rows := func(context.Context) (io.ReadCloser, error) { return os.Open(jsonl) }
	sch, err := schema.Parse([]byte(testSchema))
	if err != nil {
		t.Fatal(err)
	}
	cols := export.Columns(sch)
	local := func() time.Duration {
		start := time.Now()
		in, _ := os.Open(jsonl)
		plans, err := export.PlanParquet(in, cols)
		_ = in.Close()
		if err != nil {
			t.Fatal(err)
		}
		out, _ := os.Create(filepath.Join(dir, "local.parquet"))
		again, _ := os.Open(jsonl)
		if err := export.WriteRowsParquet(out, again, cols, plans, export.ParquetOptions{}); err != nil {
			t.Fatal(err)
		}
		_ = again.Close()
		_ = out.Close()
		return time.Since(start)
	}
	deliver := func() time.Duration {
		start := time.Now()
		got, err := newWriter(true).Deliver(context.Background(), s3Target(srv, bucket, domaindst.Parquet), shipment("job_speed", nil, rows))
		if err != nil || got.Rows != int64(n) {
			t.Fatalf("Deliver = %+v, %v", got, err)
		}
		return time.Since(start)
	}
	// Alternating, three rounds, the best of each: a machine whose speed
	// drifts slows both alike.
	bestLocal, bestS3 := time.Duration(1<<62), time.Duration(1<<62)
	for range 3 {
		bestLocal, bestS3 = min(bestLocal, local()), min(bestS3, deliver())
	}
	t.Logf("%d rows: S3 delivery as Parquet %.2fs, the Parquet file written locally %.2fs: ratio %.2f", n, bestS3.Seconds(), bestLocal.Seconds(),
		bestS3.Seconds()/bestLocal.Seconds())
}
