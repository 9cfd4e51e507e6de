package hostile

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// TestForgedCursors: a cursor the list did not hand out — garbage, a
// made-up offset inside a row, another job's or another list's cursor —
// is 400 invalid_cursor, not broken JSON or a silent page 1.
func TestForgedCursors(t *testing.T) {
	t.Parallel()
	app := apptest.Start(t, sqltest.SQLite(t))
	org := app.Org("Acme", identity.Normalize, identity.Connect)
	key := apptest.Caller{Key: app.Key(org)}
	var rows strings.Builder
	rows.WriteString("ID,E-mail,Joined\n")
	for i := 1; i <= 5; i++ {
		fmt.Fprintf(&rows, "%d,p%d@x.test,2024-01-0%d\n", i, i, i)
	}
	res := app.Request(multipartTo(t, app, "/v1/jobs", "people.csv", rows.String(), map[string]string{"schema": apptest.PeopleSchema}), key)
	wantStatus(t, res, 202, "")
	var a, b jobView
	res.JSON(t, &a)
	b = startUploadJob(t, app, key)
	untilDone(t, app, key, "/v1/jobs/"+a.ID)
	untilDone(t, app, key, "/v1/jobs/"+b.ID)
	for range 3 {
		wantStatus(t, app.Do("POST", "/v1/schemas", key, `{"name":"s","schema":`+apptest.PeopleSchema+`}`), 201, "")
	}

	next := func(path string) string {
		t.Helper()
		res := app.Do("GET", path, key, nil)
		wantStatus(t, res, 200, "")
		var page struct {
			NextCursor *string `json:"next_cursor"`
		}
		res.JSON(t, &page)
		if page.NextCursor == nil {
			t.Fatalf("%s: no next cursor: %s", path, res.Body)
		}
		return *page.NextCursor
	}
	rowsCursor := next("/v1/jobs/" + a.ID + "/rows?limit=2")
	jobsCursor := next("/v1/jobs?limit=1")
	schemasCursor := next("/v1/schemas?limit=1")
	// The handed-out cursors work.
	wantStatus(t, app.Do("GET", "/v1/jobs/"+a.ID+"/rows?limit=2&cursor="+rowsCursor, key, nil), 200, "")
	wantStatus(t, app.Do("GET", "/v1/schemas?limit=1&cursor="+schemasCursor, key, nil), 200, "")

	b64 := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	for _, path := range []string{
		"/v1/jobs/" + a.ID + "/rows?cursor=" + b64("7"), // an offset inside the first row
		"/v1/jobs/" + a.ID + "/rows?cursor=" + b64(a.ID+" rows.jsonl 7"),
		"/v1/jobs/" + a.ID + "/rows?cursor=" + b64(a.ID+" rows.jsonl 999999"),
		"/v1/jobs/" + a.ID + "/rows?cursor=" + b64(a.ID+" rows.jsonl -1"),
		"/v1/jobs/" + a.ID + "/errors?cursor=" + rowsCursor, // rows' cursor on errors
		"/v1/jobs/" + b.ID + "/rows?cursor=" + rowsCursor,   // another job's
		"/v1/jobs/" + a.ID + "/rows?cursor=!!!",
		"/v1/jobs?cursor=" + schemasCursor, // another list's
		"/v1/schemas?cursor=" + jobsCursor,
		"/v1/schemas?cursor=" + b64("zzzz"),
		"/v1/jobs?cursor=" + b64("jobs job_not-an-id"),
		"/v1/connect/files?cursor=" + jobsCursor,
		"/v1/jobs?cursor=" + strings.Repeat("A", 300),
	} {
		res := app.Do("GET", path, key, nil)
		if res.StatusCode != 400 || res.Problem(t) != "invalid_cursor" {
			t.Errorf("GET %s: %d %s, want 400 invalid_cursor", path, res.StatusCode, res.Body)
			continue
		}
		if !json.Valid([]byte(res.Body)) {
			t.Errorf("GET %s: broken JSON", path)
		}
	}
}
