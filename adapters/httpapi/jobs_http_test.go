package httpapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
	"github.com/tabnorm/tabnorm/test/testtime"
)

const peopleSchema = apptest.PeopleSchema

const peopleCSV = "ID,E-mail,Joined\n1,ANN@x.io,31/01/2024\n2,bob@,01/02/2024\n3,cy@x.io,2024-03-04\n1,dup@x.io,2024-03-05\n"

// upload builds a multipart job request; fields come after the file to
// show that order does not matter.
func upload(t *testing.T, app *apptest.App, filename, content string, fields map[string]string) *http.Request {
	t.Helper()
	return uploadTo(t, app, "/v1/jobs", filename, content, fields)
}

// uploadTo builds a multipart request with a file part (none when
// filename is "") and fields, for path.
func uploadTo(t *testing.T, app *apptest.App, path, filename, content string, fields map[string]string) *http.Request {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	if filename != "" {
		fw, _ := mw.CreateFormFile("file", filename)
		_, _ = fw.Write([]byte(content))
	}
	for k, v := range fields {
		_ = mw.WriteField(k, v)
	}
	_ = mw.Close()
	req, _ := http.NewRequest("POST", app.URL+path, &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return req
}

type jobView struct {
	ID       string `json:"id"`
	Status   string `json:"status"`
	Mode     string `json:"mode"`
	Attempts int    `json:"attempts"`
	Source   struct {
		Type  string `json:"type"`
		Files []struct {
			Filename  string `json:"filename"`
			Format    string `json:"format"`
			SizeBytes int64  `json:"size_bytes"`
			SHA256    string `json:"sha256"`
		} `json:"files"`
	} `json:"source"`
	Progress struct {
		RowsRead  int64   `json:"rows_read"`
		RowsValid int64   `json:"rows_valid"`
		Percent   float64 `json:"percent"`
	} `json:"progress"`
	Mapping []struct {
		SourceColumn string  `json:"source_column"`
		Field        *string `json:"field"`
		Method       *string `json:"method"`
	} `json:"mapping"`
	Result *struct {
		RowCount      int64  `json:"row_count"`
		RejectedCount int64  `json:"rejected_count"`
		IssueCount    int64  `json:"issue_count"`
		RowsURL       string `json:"rows_url"`
	} `json:"result"`
	Error *struct{ Code, Message string } `json:"error"`
}

func waitJob(t *testing.T, app *apptest.App, who apptest.Caller, id string) jobView {
	t.Helper()
	deadline := testtime.Deadline(30 * time.Second)
	for time.Now().Before(deadline) {
		var j jobView
		res := app.Do("GET", "/v1/jobs/"+id, who, nil)
		if res.StatusCode != 200 {
			t.Fatalf("GET job: %d %s", res.StatusCode, res.Body)
		}
		res.JSON(t, &j)
		if j.Status == "succeeded" || j.Status == "failed" || j.Status == "canceled" {
			return j
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("job %s did not finish in 30 s", id)
	return jobView{}
}

func TestJobs_endToEnd(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			app := apptest.Start(t, target)
			f := &finishedJob{app: app, key: apptest.Caller{Key: app.Key(app.Org("Acme", identity.Normalize))}}
			script(t, f,
				scriptStep[*finishedJob]{"upload_then_finish", jobUploadThenFinish},
				scriptStep[*finishedJob]{"detected_options_reproduce_the_run", jobDetected},
				scriptStep[*finishedJob]{"rows_as_pages_jsonl_and_csv", jobRows},
				scriptStep[*finishedJob]{"numbers_as_strings", jobNumbersAsStrings},
				scriptStep[*finishedJob]{"issues_as_pages_jsonl_and_csv", jobIssues},
				scriptStep[*finishedJob]{"list_cancel_and_delete", jobListCancelDelete},
			)
		})
	}
}

// finishedJob is the state of the end-to-end script: a job of people.
type finishedJob struct {
	app   *apptest.App
	key   apptest.Caller
	j     jobView
	jsonl apptest.Response // its rows as JSON lines
}

func jobUploadThenFinish(t *testing.T, f *finishedJob) {
	res := f.app.Request(upload(t, f.app, "people.csv", peopleCSV, map[string]string{"schema": peopleSchema, "name": "people"}), f.key)
	expect(t, res, 202, "")
	var created jobView
	res.JSON(t, &created)
	if res.Header.Get("Location") != "/v1/jobs/"+created.ID || created.Status != "queued" || created.Mode != "normalize" ||
		created.Source.Type != "upload" || created.Source.Files[0].Format != "csv" || created.Source.Files[0].SizeBytes != int64(len(peopleCSV)) ||
		len(created.Source.Files[0].SHA256) != 64 {
		t.Fatalf("created %s (Location %q)", res.Body, res.Header.Get("Location"))
	}
	j := waitJob(t, f.app, f.key, created.ID)
	if j.Status != "succeeded" || j.Result == nil || j.Result.RowCount != 2 || j.Result.RejectedCount != 2 || j.Result.IssueCount != 2 ||
		j.Attempts != 1 || j.Progress.RowsRead != 4 || j.Progress.Percent != 100 {
		t.Fatalf("finished job %+v (error %+v)", j, j.Error)
	}
	if len(j.Mapping) != 3 || *j.Mapping[1].Field != "email" || *j.Mapping[1].Method != "normalized" {
		t.Fatalf("mapping %+v", j.Mapping)
	}
	f.j = j
}

// jobDetected: result.detected, the decisions as options that reproduce
// them.
func jobDetected(t *testing.T, f *finishedJob) {
	var full struct {
		Result struct {
			Detected struct {
				Options struct {
					Columns map[string]struct {
						DateOrder string         `json:"date_order"`
						Evidence  map[string]int `json:"evidence"`
					} `json:"columns"`
				} `json:"options"`
				Files []map[string]any `json:"files"`
			} `json:"detected"`
		} `json:"result"`
	}
	f.app.Do("GET", "/v1/jobs/"+f.j.ID, f.key, nil).JSON(t, &full)
	if c := full.Result.Detected.Options.Columns["Joined"]; c.DateOrder != "DMY" || c.Evidence["day_first"] != 1 || full.Result.Detected.Files == nil {
		t.Fatalf("detected %+v", full.Result.Detected)
	}
}

// jobRows: a JSON page, its cursor, JSON lines and CSV; the downloads'
// own routes answer what ?format= answers.
func jobRows(t *testing.T, f *finishedJob) {
	var page rowsPage
	f.app.Do("GET", "/v1/jobs/"+f.j.ID+"/rows?limit=1", f.key, nil).JSON(t, &page)
	if len(page.Data) != 1 || page.Data[0]["email"] != "ann@x.io" || page.Data[0]["joined"] != "2024-01-31" || page.NextCursor == nil {
		t.Fatalf("page 1 %+v", page)
	}
	cursor := *page.NextCursor
	page.NextCursor = nil
	f.app.Do("GET", "/v1/jobs/"+f.j.ID+"/rows?limit=1&cursor="+url.QueryEscape(cursor), f.key, nil).JSON(t, &page)
	if len(page.Data) != 1 || page.Data[0]["id"] != 3.0 || page.NextCursor != nil {
		t.Fatalf("page 2 %+v", page)
	}
	f.jsonl = f.app.Do("GET", "/v1/jobs/"+f.j.ID+"/rows?format=jsonl", f.key, nil)
	if f.jsonl.Header.Get("Content-Type") != "application/x-ndjson" || strings.Count(f.jsonl.Body, "\n") != 2 {
		t.Fatalf("jsonl %q", f.jsonl.Body)
	}
	csv := f.app.Do("GET", "/v1/jobs/"+f.j.ID+"/rows?format=csv", f.key, nil)
	if csv.Body != "id,email,joined\n1,ann@x.io,2024-01-31\n3,cy@x.io,2024-03-04\n" {
		t.Fatalf("csv %q", csv.Body)
	}
	for path, want := range map[string]apptest.Response{"rows.jsonl": f.jsonl, "rows.csv": csv} {
		got := f.app.Do("GET", "/v1/jobs/"+f.j.ID+"/"+path, f.key, nil)
		if got.Body != want.Body || got.Header.Get("Content-Type") != want.Header.Get("Content-Type") || got.Header.Get("Content-Disposition") == "" {
			t.Fatalf("%s: %q %v, want %q", path, got.Body, got.Header, want.Body)
		}
	}
}

type rowsPage struct {
	Data       []map[string]any `json:"data"`
	NextCursor *string          `json:"next_cursor"`
}

// jobNumbersAsStrings: numbers=string, exact digits for clients whose
// numbers are doubles.
func jobNumbersAsStrings(t *testing.T, f *finishedJob) {
	want := strings.ReplaceAll(strings.ReplaceAll(f.jsonl.Body, `"id":1`, `"id":"1"`), `"id":3`, `"id":"3"`)
	if got := f.app.Do("GET", "/v1/jobs/"+f.j.ID+"/rows.jsonl?numbers=string", f.key, nil).Body; got != want {
		t.Fatalf("numbers=string jsonl %q", got)
	}
	var page rowsPage
	f.app.Do("GET", "/v1/jobs/"+f.j.ID+"/rows?numbers=string&limit=1", f.key, nil).JSON(t, &page)
	if page.Data[0]["id"] != "1" {
		t.Fatalf("numbers=string page %+v", page.Data)
	}
	expect(t, f.app.Do("GET", "/v1/jobs/"+f.j.ID+"/rows?numbers=float", f.key, nil), 400, "invalid_request")
}

func jobIssues(t *testing.T, f *finishedJob) {
	var issues struct{ Data []map[string]any }
	f.app.Do("GET", "/v1/jobs/"+f.j.ID+"/errors", f.key, nil).JSON(t, &issues)
	if len(issues.Data) != 2 || issues.Data[0]["code"] != "invalid_email" || issues.Data[0]["row"] != 2.0 || issues.Data[1]["code"] != "not_unique" {
		t.Fatalf("issues %+v", issues.Data)
	}
	if got := f.app.Do("GET", "/v1/jobs/"+f.j.ID+"/errors.jsonl", f.key, nil); strings.Count(got.Body, "\n") != 2 || got.Header.Get("Content-Type") != "application/x-ndjson" {
		t.Fatalf("errors.jsonl %q", got.Body)
	}
	errCSV := f.app.Do("GET", "/v1/jobs/"+f.j.ID+"/errors.csv", f.key, nil)
	if !strings.HasPrefix(errCSV.Body, "row,source_file,column,field,severity,code,message,value\n2,,E-mail,email,error,invalid_email,") {
		t.Fatalf("errors csv %q", errCSV.Body)
	}
}

// jobListCancelDelete: list and filter, cancel a finished job, another
// organization sees nothing, delete.
func jobListCancelDelete(t *testing.T, f *finishedJob) {
	var list struct{ Data []jobView }
	f.app.Do("GET", "/v1/jobs?status=succeeded", f.key, nil).JSON(t, &list)
	if len(list.Data) != 1 || list.Data[0].ID != f.j.ID {
		t.Fatalf("list %+v", list)
	}
	f.app.Do("GET", "/v1/jobs?status=failed", f.key, nil).JSON(t, &list)
	if len(list.Data) != 0 {
		t.Fatalf("failed list %+v", list)
	}
	expect(t, f.app.Do("GET", "/v1/jobs?status=lost", f.key, nil), 400, "invalid_request")
	expect(t, f.app.Do("POST", "/v1/jobs/"+f.j.ID+"/cancel", f.key, nil), 409, "job_not_cancelable")
	other := apptest.Caller{Key: f.app.Key(f.app.Org("Other", identity.Normalize))}
	expect(t, f.app.Do("GET", "/v1/jobs/"+f.j.ID, other, nil), 404, "not_found")
	expect(t, f.app.Do("GET", "/v1/jobs/"+f.j.ID+"/rows", other, nil), 404, "not_found")
	expect(t, f.app.Do("DELETE", "/v1/jobs/"+f.j.ID, other, nil), 404, "not_found")
	expect(t, f.app.Do("DELETE", "/v1/jobs/"+f.j.ID, f.key, nil), 204, "")
	expect(t, f.app.Do("GET", "/v1/jobs/"+f.j.ID, f.key, nil), 404, "not_found")
}

func TestJobs_failuresAndInfer(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	app := apptest.Start(t, sqltest.SQLite(t), func(c *bootstrap.Config) { c.LogLevel, c.LogOutput = slog.LevelWarn, &logs })
	org := app.Org("Acme", identity.Normalize)
	key := apptest.Caller{Key: app.Key(org)}

	res := app.Request(upload(t, app, "people.csv", peopleCSV, map[string]string{"schema": `{"fields":[{"name":"sku","constraints":{"required":true}}]}`}), key)
	expect(t, res, 202, "")
	var created jobView
	res.JSON(t, &created)
	j := waitJob(t, app, key, created.ID)
	if j.Status != "failed" || j.Error == nil || j.Error.Code != "required_field_unmapped" {
		t.Fatalf("job %+v %+v", j, j.Error)
	}
	// The operator's log says which job of which organization failed, and why.
	// The line is written as the worker ends the job, which may be just
	// after the job reads as failed.
	want := fmt.Sprintf("level=WARN msg=\"job failed\" job_id=%s org_id=%s code=required_field_unmapped", j.ID, org.ID)
	for deadline := testtime.Deadline(10 * time.Second); !strings.Contains(logs.String(), want); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("log lacks %q:\n%s", want, logs.String())
		}
	}
	expect(t, app.Do("GET", "/v1/jobs/"+j.ID+"/rows", key, nil), 409, "job_not_finished")

	res = app.Request(upload(t, app, "people.txt", peopleCSV, map[string]string{"mode": "infer"}), key)
	expect(t, res, 202, "")
	res.JSON(t, &created)
	j = waitJob(t, app, key, created.ID)
	var full map[string]any
	app.Do("GET", "/v1/jobs/"+j.ID, key, nil).JSON(t, &full)
	result, _ := full["result"].(map[string]any)
	inferred, _ := result["inferred_schema"].(map[string]any)
	if j.Status != "succeeded" || inferred == nil || len(inferred["fields"].([]any)) != 3 {
		t.Fatalf("infer job %v", full)
	}
	// The inferred schema is a valid schema for a later job.
	schemaText, _ := json.Marshal(inferred)
	expect(t, app.Request(upload(t, app, "again.csv", peopleCSV, map[string]string{"schema": string(schemaText)}), key), 202, "")
}

func TestJobs_requestErrors(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			jobRequestErrors(t, target)
		})
	}
}

func jobRequestErrors(t *testing.T, target sqltest.Target) {
	app := apptest.StartRole(t, target, bootstrap.RoleAPI, func(c *bootstrap.Config) { c.HTTP.MaxUploadBytes = 1000 })
	org := app.Org("Acme", identity.Normalize)
	key := apptest.Caller{Key: app.Key(org)}
	cases := []struct {
		name   string
		req    *http.Request
		status int
		code   string
	}{
		{"no file", upload(t, app, "", "", map[string]string{"schema": peopleSchema}), 400, "file_required"},
		{"bad mode", upload(t, app, "a.csv", peopleCSV, map[string]string{"mode": "transform", "schema": peopleSchema}), 400, "invalid_mode"},
		{"no schema", upload(t, app, "a.csv", peopleCSV, nil), 400, "invalid_request"},
		{"bad schema", upload(t, app, "a.csv", peopleCSV, map[string]string{"schema": `{"fields":[{"name":"a","type":"money"}]}`}), 422, "invalid_schema"},
		{"bad options", upload(t, app, "a.csv", peopleCSV, map[string]string{"schema": peopleSchema, "options": `{"colour":1}`}), 400, "invalid_request"},
		{"unknown part", upload(t, app, "a.csv", peopleCSV, map[string]string{"schema": peopleSchema, "priority": "high"}), 400, "invalid_request"},
		{"binary file", upload(t, app, "a.csv", "\x00\x01\x02\x03\x04\x05\x06\x07", map[string]string{"schema": peopleSchema}), 415, "unsupported_file_format"},
		{"encrypted workbook", upload(t, app, "a.xlsx", "\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1....E\x00n\x00c\x00r\x00y\x00p\x00t\x00i\x00o\x00n\x00I\x00n\x00f\x00o\x00", map[string]string{"schema": peopleSchema}), 415, "encrypted_file"},
		{"too large", upload(t, app, "a.csv", "a\n"+strings.Repeat("x\n", 2000), map[string]string{"schema": peopleSchema}), 413, "file_too_large"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			expect(t, app.Request(c.req, key), c.status, c.code)
		})
	}
	req, _ := http.NewRequest("POST", app.URL+"/v1/jobs", strings.NewReader(`{"file":"x"}`))
	req.Header.Set("Content-Type", "application/json")
	expect(t, app.Request(req, key), 415, "unsupported_media_type")

	bad := app.Request(upload(t, app, "a.csv", peopleCSV, map[string]string{"schema": `{"fields":[{"name":"a","type":"money"}]}`}), key)
	if !strings.Contains(bad.Body, `"field":"schema.fields[0].type"`) {
		t.Fatalf("schema errors are not located: %s", bad.Body)
	}

	// Without workers the job stays queued: results are not there yet, and
	// it can be canceled.
	res := app.Request(upload(t, app, "a.csv", peopleCSV, map[string]string{"schema": peopleSchema}), key)
	expect(t, res, 202, "")
	var j jobView
	res.JSON(t, &j)
	expect(t, app.Do("GET", "/v1/jobs/"+j.ID+"/rows", key, nil), 409, "job_not_finished")
	res = app.Do("POST", "/v1/jobs/"+j.ID+"/cancel", key, nil)
	expect(t, res, 200, "")
	if !strings.Contains(res.Body, `"status":"canceled"`) {
		t.Fatalf("cancel %s", res.Body)
	}
	expect(t, app.Do("POST", "/v1/jobs/"+j.ID+"/cancel", key, nil), 409, "job_not_cancelable")
}

func TestSchemas_savedAndUsedByJobs(t *testing.T) {
	t.Parallel()
	app := apptest.Start(t, sqltest.SQLite(t))
	key := apptest.Caller{Key: app.Key(app.Org("Acme", identity.Normalize))}
	other := apptest.Caller{Key: app.Key(app.Org("Other", identity.Normalize))}
	res := app.Do("POST", "/v1/schemas", key, map[string]any{"name": "people", "schema": json.RawMessage(peopleSchema)})
	expect(t, res, 201, "")
	var saved struct {
		ID, Object, Name string
		Schema           map[string]any
	}
	res.JSON(t, &saved)
	if !strings.HasPrefix(saved.ID, "sch_") || saved.Object != "schema" || saved.Name != "people" || len(saved.Schema["fields"].([]any)) != 3 {
		t.Fatalf("saved %s", res.Body)
	}
	expect(t, app.Do("POST", "/v1/schemas", key, map[string]any{"name": "bad", "schema": map[string]any{"fields": []any{map[string]any{"name": "a", "type": "money"}}}}), 422, "invalid_schema")
	expect(t, app.Do("POST", "/v1/schemas", key, map[string]any{"schema": json.RawMessage(peopleSchema)}), 400, "invalid_request")
	expect(t, app.Do("GET", "/v1/schemas/"+saved.ID, other, nil), 404, "not_found")
	var list struct{ Data []map[string]any }
	app.Do("GET", "/v1/schemas", key, nil).JSON(t, &list)
	if len(list.Data) != 1 {
		t.Fatalf("list %+v", list)
	}

	res = app.Request(upload(t, app, "p.csv", peopleCSV, map[string]string{"schema_id": saved.ID}), key)
	expect(t, res, 202, "")
	var j jobView
	res.JSON(t, &j)
	if done := waitJob(t, app, key, j.ID); done.Status != "succeeded" || done.Result.RowCount != 2 {
		t.Fatalf("job with schema_id: %+v", done)
	}
	if body := app.Do("GET", "/v1/jobs/"+j.ID, key, nil).Body; !strings.Contains(body, `"schema_id":"`+saved.ID+`"`) {
		t.Fatalf("job does not name its schema: %s", body)
	}
	expect(t, app.Request(upload(t, app, "p.csv", peopleCSV, map[string]string{"schema_id": saved.ID}), other), 404, "not_found")
	expect(t, app.Request(upload(t, app, "p.csv", peopleCSV, map[string]string{"schema_id": saved.ID, "schema": peopleSchema}), key), 400, "invalid_request")
	expect(t, app.Do("DELETE", "/v1/schemas/"+saved.ID, key, nil), 204, "")
	expect(t, app.Do("GET", "/v1/schemas/"+saved.ID, key, nil), 404, "not_found")
	if done := waitJob(t, app, key, j.ID); done.Status != "succeeded" {
		t.Fatal("deleting the schema changed the job")
	}
}

// TestJobs_concurrent submits 20 jobs at once; each must finish with its
// own rows.
func TestJobs_concurrent(t *testing.T) {
	t.Parallel()
	app := apptest.Start(t, sqltest.SQLite(t))
	key := apptest.Caller{Key: app.Key(app.Org("Acme", identity.Normalize))}
	type sub struct {
		id string
		n  int
	}
	subs := make(chan sub, 20)
	for i := range 20 {
		go func() {
			var b strings.Builder
			b.WriteString("ID,E-mail,Joined\n")
			for r := range i + 1 {
				fmt.Fprintf(&b, "%d,u%d-%d@x.io,2024-01-%02d\n", r+1, i, r, r%28+1)
			}
			res := app.Request(upload(t, app, "p.csv", b.String(), map[string]string{"schema": peopleSchema}), key)
			var j jobView
			_ = json.Unmarshal([]byte(res.Body), &j)
			subs <- sub{j.ID, i + 1}
		}()
	}
	for range 20 {
		s := <-subs
		if s.id == "" {
			t.Fatal("a submission failed")
		}
		j := waitJob(t, app, key, s.id)
		if j.Status != "succeeded" || j.Result.RowCount != int64(s.n) {
			t.Fatalf("job %s: %s with %+v rows, want %d", s.id, j.Status, j.Result, s.n)
		}
		rows := app.Do("GET", "/v1/jobs/"+s.id+"/rows?format=jsonl", key, nil).Body
		if strings.Count(rows, "\n") != s.n || !strings.Contains(rows, fmt.Sprintf(`"email":"u%d-0@x.io"`, s.n-1)) {
			t.Fatalf("job %s rows are not its own: %q", s.id, rows)
		}
	}
}

func TestJobs_idempotencyKey(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			app := apptest.StartRole(t, target, bootstrap.RoleAPI)
			key := apptest.Caller{Key: app.Key(app.Org("Acme", identity.Normalize))}
			other := apptest.Caller{Key: app.Key(app.Org("Other", identity.Normalize))}
			send := func(who apptest.Caller, content, idemKey string) apptest.Response {
				req := upload(t, app, "p.csv", content, map[string]string{"schema": peopleSchema, "name": "n"})
				req.Header.Set("Idempotency-Key", idemKey)
				return app.Request(req, who)
			}
			first := send(key, peopleCSV, "k-1")
			expect(t, first, 202, "")
			again := send(key, peopleCSV, "k-1") // a new multipart boundary, the same request
			expect(t, again, 202, "")
			if again.Body != first.Body || again.Header.Get("Idempotent-Replayed") != "true" || again.Header.Get("Location") != first.Header.Get("Location") ||
				first.Header.Get("Idempotent-Replayed") != "" {
				t.Fatalf("replay:\n%s\n%s", first.Body, again.Body)
			}
			expect(t, send(key, peopleCSV+"9,z@x.io,2024-01-01\n", "k-1"), 409, "idempotency_key_reused")
			// A reused key is 409 even when the new request would fail on
			// its own: the key was used for something else either way.
			expect(t, send(key, "\x00\x01\x02binary", "k-1"), 409, "idempotency_key_reused")
			expect(t, send(key, "\x00\x01\x02binary", "k-2"), 415, "unsupported_file_format")
			expect(t, app.Do("POST", "/v1/jobs", key, map[string]string{"schema": "{}"}, "Idempotency-Key", "k-1"), 409, "idempotency_key_reused")
			expect(t, app.Do("POST", "/v1/jobs", key, map[string]string{"schema": "{}"}, "Idempotency-Key", "k-3"), 415, "unsupported_media_type")
			var list struct{ Data []jobView }
			app.Do("GET", "/v1/jobs", key, nil).JSON(t, &list)
			if len(list.Data) != 1 {
				t.Fatalf("%d jobs made under one key", len(list.Data))
			}
			// Keys belong to an organization.
			if res := send(other, peopleCSV, "k-1"); res.StatusCode != 202 || res.Header.Get("Idempotent-Replayed") != "" {
				t.Fatalf("another organization's key replayed: %d %v", res.StatusCode, res.Header)
			}
			// Saved schemas honour keys too.
			body := map[string]any{"name": "people", "schema": json.RawMessage(peopleSchema)}
			s1 := app.Do("POST", "/v1/schemas", key, body, "Idempotency-Key", "s-1")
			s2 := app.Do("POST", "/v1/schemas", key, body, "Idempotency-Key", "s-1")
			if s1.StatusCode != 201 || s2.Body != s1.Body || s2.Header.Get("Idempotent-Replayed") != "true" {
				t.Fatalf("schema replay: %d %s / %s", s1.StatusCode, s1.Body, s2.Body)
			}
			expect(t, app.Do("POST", "/v1/schemas", key, map[string]any{"name": "other", "schema": json.RawMessage(peopleSchema)}, "Idempotency-Key", "s-1"), 409, "idempotency_key_reused")
			expect(t, app.Do("POST", "/v1/schemas", key, map[string]any{"name": "bad", "schema": map[string]any{"fields": "no"}}, "Idempotency-Key", "s-1"), 409, "idempotency_key_reused")
			expect(t, app.Do("POST", "/v1/schemas", key, body, "Idempotency-Key", strings.Repeat("k", 300)), 400, "invalid_request")
		})
	}
}

// TestJobs_learnedMappings: an explicit mapping made with a saved schema
// is used, as "learned", by the organization's next job with that schema.
func TestJobs_learnedMappings(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			app := apptest.Start(t, target)
			key := apptest.Caller{Key: app.Key(app.Org("Acme", identity.Normalize))}
			var saved struct{ ID string }
			app.Do("POST", "/v1/schemas", key, map[string]any{"name": "people", "schema": json.RawMessage(peopleSchema)}).JSON(t, &saved)
			csv := "ID,Contact,Joined\n1,a@x.io,2024-01-01\n"
			methodOf := func(res apptest.Response) string {
				var j jobView
				res.JSON(t, &j)
				done := waitJob(t, app, key, j.ID)
				for _, m := range done.Mapping {
					if m.SourceColumn == "Contact" && m.Method != nil {
						return *m.Method + ":" + *m.Field
					}
				}
				return "unmapped"
			}
			first := app.Request(upload(t, app, "p.csv", csv, map[string]string{"schema_id": saved.ID, "options": `{"mapping":{"Contact":"email"}}`}), key)
			if got := methodOf(first); got != "explicit:email" {
				t.Fatalf("first job: %s", got)
			}
			second := app.Request(upload(t, app, "p.csv", csv, map[string]string{"schema_id": saved.ID}), key)
			if got := methodOf(second); got != "learned:email" {
				t.Fatalf("second job: %s", got)
			}
			// Only for that schema and organization.
			plain := app.Request(upload(t, app, "p.csv", csv, map[string]string{"schema": peopleSchema}), key)
			if got := methodOf(plain); got != "unmapped" {
				t.Fatalf("a job without the saved schema learned it: %s", got)
			}
		})
	}
}

// TestJobs_retention: a finished job's files are deleted after the
// retention by the periodic purge; the job stays and its results are 404.
func TestJobs_retention(t *testing.T) {
	t.Parallel()
	app := apptest.Start(t, sqltest.SQLite(t), func(c *bootstrap.Config) { c.Retention = 200 * time.Millisecond })
	key := apptest.Caller{Key: app.Key(app.Org("Acme", identity.Normalize))}
	res := app.Request(upload(t, app, "p.csv", peopleCSV, map[string]string{"schema": peopleSchema}), key)
	var j jobView
	res.JSON(t, &j)
	waitJob(t, app, key, j.ID)
	deadline := testtime.Deadline(15 * time.Second)
	for {
		res := app.Do("GET", "/v1/jobs/"+j.ID+"/rows", key, nil)
		if res.StatusCode == 404 {
			if !strings.Contains(res.Body, "retention") {
				t.Fatalf("404 without saying why: %s", res.Body)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("results still served after the retention: %d", res.StatusCode)
		}
		time.Sleep(200 * time.Millisecond)
	}
	expect(t, app.Do("GET", "/v1/jobs/"+j.ID, key, nil), 200, "")
}
