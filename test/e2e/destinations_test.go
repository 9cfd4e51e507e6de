package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/test/testtime"
)

// TestDestinationSurvivesWorkerKill kills the only process (SIGKILL) in
// the middle of a delivery's COPY into a PostgreSQL destination: the
// destination table holds a trigger that stalls the first COPY at row
// 500. The next process makes the attempt again once the dead one's
// claim lapses, and the table ends with each of the job's 1000 rows
// exactly once.
func TestDestinationSurvivesWorkerKill(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			destinationSurvivesWorkerKill(t, target)
		})
	}
}

func destinationSurvivesWorkerKill(t *testing.T, target sqltest.Target) {
	dst, ok := sqltest.Postgres(t)
	if !ok {
		t.Skip("*** SKIP: no PostgreSQL server for the destination ***")
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dst.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close(ctx) }()
	_, err = conn.Exec(ctx, `CREATE TABLE contacts (id bigint, email text, _tabnorm_job_id text NOT NULL);
		CREATE SEQUENCE stalls;
		CREATE FUNCTION stall() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			IF NEW.id = 500 AND nextval('stalls') = 1 THEN PERFORM pg_sleep(600); END IF;
			RETURN NEW;
		END $$;
		CREATE TRIGGER stall BEFORE INSERT ON contacts FOR EACH ROW EXECUTE FUNCTION stall();`)
	if err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	env := []string{"TABNORM_DATABASE_URL=" + target.URL, "TABNORM_BLOB_URL=file://" + filepath.Join(dir, "blobs"), "TABNORM_DESTINATION_ALLOW_PRIVATE=true",
		"TABNORM_DESTINATION_TIMEOUT=4s", "TABNORM_SECRET_KEY=" + base64.StdEncoding.EncodeToString(key)}
	if target.Name == "sqlite" {
		env[0] = "TABNORM_DATABASE_URL=sqlite://" + filepath.Join(dir, "tabnorm.db")
	}
	api := startServe(t, dir, env...)
	apiKey := createKey(t, dir, env)
	dstID := postJSON(t, api.url+"/v1/destinations", apiKey, fmt.Sprintf(`{"name":"warehouse","type":"postgres","config":{"url":%q,"table":"contacts"}}`, dst.URL))

	var csv strings.Builder
	csv.WriteString("id,email\n")
	for i := 1; i <= 1000; i++ {
		fmt.Fprintf(&csv, "%d,p%d@example.com\n", i, i)
	}
	jobID := submitWith(t, api.url, apiKey, csv.String(), map[string]string{"schema": `{"fields":[{"name":"id","type":"integer"},{"name":"email"}]}`,
		"options": `{"destination_ids":["` + dstID + `"]}`})

	var pid int
	for deadline := testtime.Deadline(60 * time.Second); pid == 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the delivery's COPY did not reach the stalled row within 60 s")
		}
		_ = conn.QueryRow(ctx, "SELECT pid FROM pg_stat_activity WHERE query LIKE 'COPY %' AND wait_event = 'PgSleep'").Scan(&pid)
	}
	_ = api.cmd.Process.Signal(syscall.SIGKILL)
	if err := <-api.exited; err == nil {
		t.Fatal("serve exited cleanly after SIGKILL")
	}
	// The server notices its client is gone (here at once, as TCP
	// keepalive would in time): the half-done COPY rolls back.
	if _, err := conn.Exec(ctx, "SELECT pg_terminate_backend($1)", pid); err != nil {
		t.Fatal(err)
	}

	next := startServe(t, dir, env...)
	var d []struct {
		Status   string `json:"status"`
		Attempts int    `json:"attempts"`
		Rows     int64  `json:"rows"`
	}
	for deadline := testtime.Deadline(120 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		var page struct{ Data json.RawMessage }
		_ = json.Unmarshal(get(t, next.url+"/v1/jobs/"+jobID+"/deliveries", apiKey), &page)
		_ = json.Unmarshal(page.Data, &d)
		if len(d) == 1 && d[0].Status == "delivered" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not delivered within 120 s of the restart: %s", page.Data)
		}
	}
	if d[0].Rows != 1000 || d[0].Attempts < 2 {
		t.Fatalf("delivery: %+v; want 1000 rows, on a second attempt", d[0])
	}
	var rows, distinct int
	if err := conn.QueryRow(ctx, "SELECT count(*), count(DISTINCT id) FROM contacts WHERE _tabnorm_job_id = $1", jobID).Scan(&rows, &distinct); err != nil {
		t.Fatal(err)
	}
	if rows != 1000 || distinct != 1000 {
		t.Fatalf("the table holds %d rows (%d distinct); want each of 1000 once", rows, distinct)
	}
}

// postJSON posts body and returns the created resource's id.
func postJSON(t testing.TB, url, key, body string) string {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var out struct{ ID string }
	if res.StatusCode != 201 || json.Unmarshal(raw, &out) != nil {
		t.Fatalf("POST %s: %d %s", url, res.StatusCode, raw)
	}
	return out.ID
}

// submitWith creates a job of content with form fields.
func submitWith(t testing.TB, base, key, content string, fields map[string]string) string {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, v := range fields {
		_ = mw.WriteField(k, v)
	}
	fw, _ := mw.CreateFormFile("file", "contacts.csv")
	_, _ = io.WriteString(fw, content)
	_ = mw.Close()
	req, _ := http.NewRequest("POST", base+"/v1/jobs", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var j struct{ ID string }
	if res.StatusCode != 202 || json.Unmarshal(raw, &j) != nil {
		t.Fatalf("submit: %d %s", res.StatusCode, raw)
	}
	return j.ID
}
