package httpapi_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// unmappableSchema needs a column no test file has: its jobs fail.
const unmappableSchema = `{"fields":[{"name":"sku","constraints":{"required":true}}]}`

// TestStatuses_jobRoutes: the answers of a job's routes, under /v1/jobs
// and /v1/connect/jobs alike: a succeeded job's results and events, a
// failed job's results (409), another organization's job (404), bad
// parameters (400), cancel and delete.
func TestStatuses_jobRoutes(t *testing.T) {
	t.Parallel()
	app := apptest.Start(t, sqltest.SQLite(t))
	acme := app.Org("Acme", identity.Normalize, identity.Connect)
	key := apptest.Caller{Key: app.Key(acme)}
	// The downloads' checks send their requests with a key of their own,
	// under a rate limit of their own.
	downloads := apptest.Caller{Key: app.Key(acme)}
	other := apptest.Caller{Key: app.Key(app.Org("Other", identity.Normalize, identity.Connect))}
	file := addFile(t, app, key, "a.csv", connectCSV)
	finished := func(res apptest.Response, want string) string {
		t.Helper()
		expect(t, res, 202, "")
		var j jobView
		res.JSON(t, &j)
		if done := waitJob(t, app, key, j.ID); done.Status != want {
			t.Fatalf("job %s ended %s, want %s: %+v", j.ID, done.Status, want, done.Error)
		}
		return j.ID
	}
	uploadJob := func(schema, want string) string {
		return finished(app.Request(upload(t, app, "p.csv", peopleCSV, map[string]string{"schema": schema}), key), want)
	}
	libraryJob := func(schema, want string) string {
		return finished(app.Do("POST", "/v1/connect/jobs", key, map[string]any{"file_ids": []string{file.ID}, "schema": json.RawMessage(schema)}), want)
	}
	uploaded := uploadJob(peopleSchema, "succeeded")
	// A value longer than a spreadsheet cell holds: its rows are no workbook.
	longCSV := "id,note\n1," + strings.Repeat("x", 32_768) + "\n"
	longFile := addFile(t, app, key, "long.csv", longCSV)
	families := []struct {
		prefix                  string
		succeeded, failed, long string
	}{
		{"/v1/jobs/", uploaded, uploadJob(unmappableSchema, "failed"),
			finished(app.Request(upload(t, app, "long.csv", longCSV, map[string]string{"schema": noteSchema}), key), "succeeded")},
		{"/v1/connect/jobs/", libraryJob(peopleSchema, "succeeded"), libraryJob(unmappableSchema, "failed"),
			finished(app.Do("POST", "/v1/connect/jobs", key, map[string]any{"file_ids": []string{longFile.ID}, "schema": json.RawMessage(noteSchema)}), "succeeded")},
	}
	results := []struct {
		suffix, contentType string
		paged               bool
	}{
		{"/rows", "application/json; charset=utf-8", true},
		{"/rows.jsonl", "application/x-ndjson", false},
		{"/rows.csv", "text/csv; charset=utf-8", false},
		{"/errors", "application/json; charset=utf-8", true},
		{"/errors.jsonl", "application/x-ndjson", false},
		{"/errors.csv", "text/csv; charset=utf-8", false},
		{"/rows.xlsx", xlsxType, false},
		{"/rows.parquet", "application/vnd.apache.parquet", false},
		{"/errors.xlsx", xlsxType, false},
	}
	for _, f := range families {
		t.Run(f.prefix, func(t *testing.T) {
			for _, r := range results {
				ok := app.Do("GET", f.prefix+f.succeeded+r.suffix, key, nil)
				expect(t, ok, 200, "")
				if ct := ok.Header.Get("Content-Type"); ct != r.contentType || ok.Body == "" {
					t.Fatalf("%s: Content-Type %q, body %q", r.suffix, ct, ok.Body)
				}
				expect(t, app.Do("GET", f.prefix+f.failed+r.suffix, key, nil), 409, "job_not_finished")
				expect(t, app.Do("GET", f.prefix+f.succeeded+r.suffix, other, nil), 404, "not_found")
				expect(t, app.Do("GET", f.prefix+f.succeeded+r.suffix+"?numbers=bytes", key, nil), 400, "invalid_request")
				if r.paged {
					expect(t, app.Do("GET", f.prefix+f.succeeded+r.suffix+"?cursor=bm90LWEtY3Vyc29y", key, nil), 400, "invalid_cursor")
					expect(t, app.Do("GET", f.prefix+f.succeeded+r.suffix+"?limit=0", key, nil), 400, "invalid_request")
				}
			}

			downloadRanges(t, app, downloads, f.prefix+f.succeeded)
			expect(t, app.Do("GET", f.prefix+f.long+"/rows.xlsx", downloads, nil), 422, "cell_too_long")
			expect(t, app.Do("GET", f.prefix+f.long+"/errors.xlsx", downloads, nil), 422, "cell_too_long")
			expect(t, app.Do("GET", f.prefix+f.succeeded+"/rows?format=parquet&rows=some", downloads, nil), 400, "invalid_request")

			// Events: a finished job's history, closed after its terminal event.
			ev := app.Do("GET", f.prefix+f.succeeded+"/events", key, nil)
			expect(t, ev, 200, "")
			if ev.Header.Get("Content-Type") != "text/event-stream" || !strings.HasPrefix(ev.Body, "id: 1\nevent: job.queued\n") ||
				!strings.Contains(ev.Body, "event: job.succeeded\n") {
				t.Fatalf("events %v %q", ev.Header, ev.Body)
			}
			expect(t, app.Do("GET", f.prefix+f.succeeded+"/events", key, nil, "Last-Event-ID", "-1"), 400, "invalid_request")
			expect(t, app.Do("GET", f.prefix+f.succeeded+"/events", other, nil), 404, "not_found")

			// Another organization's job does not exist; an ended one cannot be canceled.
			expect(t, app.Do("GET", f.prefix+f.succeeded, other, nil), 404, "not_found")
			expect(t, app.Do("POST", f.prefix+f.succeeded+"/cancel", other, nil), 404, "not_found")
			expect(t, app.Do("DELETE", f.prefix+f.succeeded, other, nil), 404, "not_found")
			expect(t, app.Do("POST", f.prefix+f.succeeded+"/cancel", key, nil), 409, "job_not_cancelable")
			expect(t, app.Do("POST", f.prefix+f.failed+"/cancel", key, nil), 409, "job_not_cancelable")

			expect(t, app.Do("DELETE", f.prefix+f.failed, key, nil), 204, "")
			expect(t, app.Do("GET", f.prefix+f.failed, key, nil), 404, "not_found")
			expect(t, app.Do("GET", f.prefix+f.failed+"/errors", key, nil), 404, "not_found")
		})
	}

	// An upload job is not a connect job: under /v1/connect/jobs it is 404
	// on every route.
	for _, route := range []struct{ method, suffix string }{
		{"GET", ""}, {"DELETE", ""}, {"POST", "/cancel"}, {"GET", "/events"},
		{"GET", "/rows"}, {"GET", "/rows.jsonl"}, {"GET", "/rows.csv"}, {"GET", "/errors"}, {"GET", "/errors.jsonl"}, {"GET", "/errors.csv"},
		{"GET", "/rows.xlsx"}, {"GET", "/rows.parquet"}, {"GET", "/errors.xlsx"},
	} {
		expect(t, app.Do(route.method, "/v1/connect/jobs/"+uploaded+route.suffix, downloads, nil), 404, "not_found")
	}
	expect(t, app.Do("GET", "/v1/jobs/"+uploaded, key, nil), 200, "")
	// A saved schema that is not the organization's is 404 to a creation.
	expect(t, app.Request(upload(t, app, "p.csv", peopleCSV, map[string]string{"schema_id": "sch_unknown"}), key), 404, "not_found")
	expect(t, app.Do("POST", "/v1/connect/jobs", key, map[string]any{"file_ids": []string{file.ID}, "schema_id": "sch_unknown"}), 404, "not_found")
	// Lists refuse a bad filter.
	expect(t, app.Do("GET", "/v1/jobs?status=finished", key, nil), 400, "invalid_request")
	expect(t, app.Do("GET", "/v1/connect/jobs?limit=500", key, nil), 400, "invalid_request")
	expect(t, app.Do("GET", "/v1/connect/files?cursor="+strings.Repeat("c", 201), key, nil), 400, "invalid_cursor")
}

const (
	xlsxType   = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
	noteSchema = `{"fields":[{"name":"id","type":"integer"},{"name":"note","type":"string"}]}`
)

// downloadRanges: a download answers a byte range of the same bytes, and
// 304 to a client that holds its ETag.
func downloadRanges(t *testing.T, app *apptest.App, key apptest.Caller, job string) {
	t.Helper()
	for _, d := range []string{"/rows.jsonl", "/rows.xlsx", "/rows.parquet", "/errors.xlsx"} {
		full := app.Do("GET", job+d, key, nil)
		etag := full.Header.Get("ETag")
		if full.StatusCode != 200 || etag == "" || len(full.Body) < 10 || full.Header.Get("Content-Length") != strconv.Itoa(len(full.Body)) {
			t.Fatalf("%s: %d, ETag %q, Content-Length %q for %d bytes", d, full.StatusCode, etag, full.Header.Get("Content-Length"), len(full.Body))
		}
		part := app.Do("GET", job+d, key, nil, "Range", "bytes=2-9", "If-Range", etag)
		expect(t, part, 206, "")
		if part.Body != full.Body[2:10] || part.Header.Get("ETag") != etag {
			t.Fatalf("%s: bytes 2-9 %q, want %q", d, part.Body, full.Body[2:10])
		}
		expect(t, app.Do("GET", job+d, key, nil, "If-None-Match", etag), 304, "")
	}
}
