package httpapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/xuri/excelize/v2"

	"github.com/tabnorm/tabnorm/adapters/httpapi"
	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// Three files of one table in three formats, with their own headers.
const (
	connectCSV   = "ID,E-mail,Joined\n1,ann@x.io,31/01/2024\n2,bob@,01/02/2024\n"
	connectJSONL = `{"id":3,"email":"cy@x.io","joined":"2024-03-04"}` + "\n" + `{"id":1,"email":"dup@x.io","joined":"2024-03-05"}` + "\n"
)

// connectXLSX is a workbook with a real date cell and a bad email.
func connectXLSX(t *testing.T) string {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	dateStyle, err := f.NewStyle(&excelize.Style{NumFmt: 14})
	if err != nil {
		t.Fatal(err)
	}
	rows := [][]any{{"Id", "Email", "Joined"}, {4, "dee@x.io", time.Date(2024, 4, 5, 0, 0, 0, 0, time.UTC)}, {5, "eve@", time.Date(2024, 5, 6, 0, 0, 0, 0, time.UTC)}}
	for i, row := range rows {
		cell, _ := excelize.CoordinatesToCellName(1, i+1)
		if err := f.SetSheetRow("Sheet1", cell, &row); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.SetCellStyle("Sheet1", "C2", "C3", dateStyle); err != nil {
		t.Fatal(err)
	}
	buf, err := f.WriteToBuffer()
	if err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

type fileView struct {
	ID        string `json:"id"`
	Object    string `json:"object"`
	Filename  string `json:"filename"`
	Format    string `json:"format"`
	SizeBytes int64  `json:"size_bytes"`
	SHA256    string `json:"sha256"`
	CreatedAt string `json:"created_at"`
}

func addFile(t *testing.T, app *apptest.App, who apptest.Caller, name, content string) fileView {
	t.Helper()
	res := app.Request(uploadTo(t, app, "/v1/connect/files", name, content, nil), who)
	expect(t, res, 201, "")
	var f fileView
	res.JSON(t, &f)
	if res.Header.Get("Location") != "/v1/connect/files/"+f.ID || !strings.HasPrefix(f.ID, "file_") || f.Object != "file" ||
		f.Filename != name || f.SizeBytes != int64(len(content)) || len(f.SHA256) != 64 || f.CreatedAt == "" {
		t.Fatalf("file %s (Location %q)", res.Body, res.Header.Get("Location"))
	}
	return f
}

type issueView struct {
	Row        int64   `json:"row"`
	SourceFile *string `json:"source_file"`
	Column     string  `json:"column"`
	Code       string  `json:"code"`
}

// connectJob starts a connect job over files and waits for its end.
func connectJob(t *testing.T, app *apptest.App, who apptest.Caller, fileIDs ...string) (jobView, []map[string]any, []issueView) {
	t.Helper()
	res := app.Do("POST", "/v1/connect/jobs", who, map[string]any{"file_ids": fileIDs, "schema": json.RawMessage(peopleSchema), "name": "all people"})
	expect(t, res, 202, "")
	var created jobView
	res.JSON(t, &created)
	if res.Header.Get("Location") != "/v1/connect/jobs/"+created.ID || created.Source.Type != "connect" || len(created.Source.Files) != len(fileIDs) {
		t.Fatalf("created %s (Location %q)", res.Body, res.Header.Get("Location"))
	}
	j := waitJob(t, app, who, created.ID)
	if j.Status != "succeeded" {
		t.Fatalf("connect job ended %s: %+v", j.Status, j.Error)
	}
	var rows struct{ Data []map[string]any }
	app.Do("GET", "/v1/connect/jobs/"+j.ID+"/rows", who, nil).JSON(t, &rows)
	var issues struct{ Data []issueView }
	app.Do("GET", "/v1/connect/jobs/"+j.ID+"/errors", who, nil).JSON(t, &issues)
	return j, rows.Data, issues.Data
}

func rowIDs(rows []map[string]any) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = fmt.Sprint(r["id"], " ", r["email"], " ", r["joined"])
	}
	return out
}

func issueList(issues []issueView, names map[string]string) []string {
	out := make([]string, len(issues))
	for i, is := range issues {
		file := "-"
		if is.SourceFile != nil {
			file = names[*is.SourceFile]
		}
		out[i] = fmt.Sprintf("%s row %d %s", file, is.Row, is.Code)
	}
	return out
}

func TestConnect_endToEnd(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			app := apptest.Start(t, target)
			l := &library{app: app, key: apptest.Caller{Key: app.Key(app.Org("Acme", identity.Normalize, identity.Connect))}}
			script(t, l,
				scriptStep[*library]{"files_of_each_format", connectAddFiles},
				scriptStep[*library]{"csv_and_jsonl_make_one_table", connectCSVAndJSONL},
				scriptStep[*library]{"xlsx_dates_read_as_dates", connectWorkbook},
				scriptStep[*library]{"a_connect_job_is_a_job", connectJobIsAJob},
				scriptStep[*library]{"list_get_and_delete_files", connectFiles},
			)
		})
	}
}

// library is the state of the connect script: three files and a job.
type library struct {
	app             *apptest.App
	key             apptest.Caller
	csv, jsonl, xls fileView
	names           map[string]string // file id → name
	job             jobView           // the CSV and JSON lines job
}

func connectAddFiles(t *testing.T, l *library) {
	l.csv = addFile(t, l.app, l.key, "a.csv", connectCSV)
	l.jsonl = addFile(t, l.app, l.key, "b.jsonl", connectJSONL)
	l.xls = addFile(t, l.app, l.key, "c.xlsx", connectXLSX(t))
	if l.csv.Format != "csv" || l.jsonl.Format != "jsonl" || l.xls.Format != "xlsx" {
		t.Fatalf("formats %s %s %s", l.csv.Format, l.jsonl.Format, l.xls.Format)
	}
	l.names = map[string]string{l.csv.ID: "a.csv", l.jsonl.ID: "b.jsonl", l.xls.ID: "c.xlsx"}
}

// connectCSVAndJSONL: rows concatenate in file order, uniqueness spans
// both files, every issue names its file and row there, and the mapping
// is reported per file.
func connectCSVAndJSONL(t *testing.T, l *library) {
	j, rows, issues := connectJob(t, l.app, l.key, l.csv.ID, l.jsonl.ID)
	l.job = j
	if got, want := rowIDs(rows), []string{"1 ann@x.io 2024-01-31", "3 cy@x.io 2024-03-04"}; !slices.Equal(got, want) {
		t.Fatalf("rows %v, want %v", got, want)
	}
	if got, want := issueList(issues, l.names), []string{"a.csv row 2 invalid_email", "b.jsonl row 2 not_unique"}; !slices.Equal(got, want) {
		t.Fatalf("issues %v, want %v", got, want)
	}
	if j.Result.RowCount != 2 || j.Result.RejectedCount != 2 || j.Progress.RowsRead != 4 || j.Result.RowsURL != "/v1/connect/jobs/"+j.ID+"/rows" {
		t.Fatalf("job %+v", j)
	}
	if j.Source.Files[0].Filename != "a.csv" || j.Source.Files[1].Filename != "b.jsonl" || j.Source.Files[1].SHA256 != l.jsonl.SHA256 {
		t.Fatalf("source files %+v", j.Source.Files)
	}
	var full struct {
		Mapping []struct {
			SourceFile   string  `json:"source_file"`
			SourceColumn string  `json:"source_column"`
			Field        *string `json:"field"`
		} `json:"mapping"`
	}
	l.app.Do("GET", "/v1/connect/jobs/"+j.ID, l.key, nil).JSON(t, &full)
	var mapped []string
	for _, m := range full.Mapping {
		mapped = append(mapped, l.names[m.SourceFile]+":"+m.SourceColumn+"→"+*m.Field)
	}
	if want := []string{"a.csv:ID→id", "a.csv:E-mail→email", "a.csv:Joined→joined", "b.jsonl:id→id", "b.jsonl:email→email", "b.jsonl:joined→joined"}; !slices.Equal(mapped, want) {
		t.Fatalf("mapping %v, want %v", mapped, want)
	}
	csvOut := l.app.Do("GET", "/v1/connect/jobs/"+j.ID+"/rows?format=csv", l.key, nil)
	if csvOut.Body != "id,email,joined\n1,ann@x.io,2024-01-31\n3,cy@x.io,2024-03-04\n" {
		t.Fatalf("csv %q", csvOut.Body)
	}
}

func connectWorkbook(t *testing.T, l *library) {
	_, rows, issues := connectJob(t, l.app, l.key, l.xls.ID, l.csv.ID)
	if got, want := rowIDs(rows), []string{"4 dee@x.io 2024-04-05", "1 ann@x.io 2024-01-31"}; !slices.Equal(got, want) {
		t.Fatalf("rows %v, want %v", got, want)
	}
	if got, want := issueList(issues, l.names), []string{"c.xlsx row 2 invalid_email", "a.csv row 2 invalid_email"}; !slices.Equal(got, want) {
		t.Fatalf("issues %v, want %v", got, want)
	}
}

// connectJobIsAJob: a connect job is on /v1/jobs as well, and listed
// there; /v1/connect/jobs lists connect jobs only.
func connectJobIsAJob(t *testing.T, l *library) {
	expect(t, l.app.Request(upload(t, l.app, "p.csv", peopleCSV, map[string]string{"schema": peopleSchema}), l.key), 202, "")
	var all, connectOnly struct{ Data []jobView }
	l.app.Do("GET", "/v1/jobs", l.key, nil).JSON(t, &all)
	l.app.Do("GET", "/v1/connect/jobs", l.key, nil).JSON(t, &connectOnly)
	if len(all.Data) != 3 || len(connectOnly.Data) != 2 || connectOnly.Data[1].ID != l.job.ID {
		t.Fatalf("lists: %d jobs, %d connect jobs", len(all.Data), len(connectOnly.Data))
	}
	expect(t, l.app.Do("GET", "/v1/jobs/"+l.job.ID, l.key, nil), 200, "")
}

// connectFiles: the library lists newest first, paged; a file the ended
// jobs read may go, and they stay.
func connectFiles(t *testing.T, l *library) {
	var list struct {
		Data       []fileView
		NextCursor *string `json:"next_cursor"`
	}
	l.app.Do("GET", "/v1/connect/files?limit=2", l.key, nil).JSON(t, &list)
	if len(list.Data) != 2 || list.Data[0].ID != l.xls.ID || list.Data[1].ID != l.jsonl.ID || list.NextCursor == nil {
		t.Fatalf("files page 1 %+v", list)
	}
	l.app.Do("GET", "/v1/connect/files?limit=2&cursor="+*list.NextCursor, l.key, nil).JSON(t, &list)
	if len(list.Data) != 1 || list.Data[0].ID != l.csv.ID {
		t.Fatalf("files page 2 %+v", list)
	}
	var one fileView
	l.app.Do("GET", "/v1/connect/files/"+l.csv.ID, l.key, nil).JSON(t, &one)
	if one != l.csv {
		t.Fatalf("GET file %+v, want %+v", one, l.csv)
	}
	expect(t, l.app.Do("DELETE", "/v1/connect/files/"+l.csv.ID, l.key, nil), 204, "")
	expect(t, l.app.Do("GET", "/v1/connect/files/"+l.csv.ID, l.key, nil), 404, "not_found")
	expect(t, l.app.Do("DELETE", "/v1/connect/files/"+l.csv.ID, l.key, nil), 404, "not_found")
	expect(t, l.app.Do("GET", "/v1/connect/jobs/"+l.job.ID+"/rows", l.key, nil), 200, "")
}

// A file gone from the store (by hand, or a failed disk) fails the job
// with a reason naming it, instead of retrying forever.
func TestConnect_fileGoneFromStore(t *testing.T) {
	t.Parallel()
	target := sqltest.SQLite(t)
	api := apptest.StartRole(t, target, bootstrap.RoleAPI)
	org := api.Org("Acme", identity.Normalize, identity.Connect)
	key := apptest.Caller{Key: api.Key(org)}
	kept, gone := addFile(t, api, key, "a.csv", connectCSV), addFile(t, api, key, "b.jsonl", connectJSONL)
	res := api.Do("POST", "/v1/connect/jobs", key, map[string]any{"file_ids": []string{kept.ID, gone.ID}, "schema": json.RawMessage(peopleSchema)})
	expect(t, res, 202, "")
	var j jobView
	res.JSON(t, &j)
	dir := strings.TrimPrefix(api.Config.BlobURL, "file://")
	if err := os.Remove(filepath.Join(dir, "org", org.ID, "files", gone.ID)); err != nil {
		t.Fatal(err)
	}
	apptest.StartRole(t, target, bootstrap.RoleWorker, func(c *bootstrap.Config) { c.BlobURL = api.Config.BlobURL })
	done := waitJob(t, api, key, j.ID)
	if done.Status != "failed" || done.Error == nil || done.Error.Code != "unreadable_file" || !strings.Contains(done.Error.Message, gone.ID) {
		t.Fatalf("job %s %+v", done.Status, done.Error)
	}
}

// On a store that is not a local folder (S3 in production), the worker
// copies each file before reading it.
func TestConnect_remoteStore(t *testing.T) {
	t.Parallel()
	app := apptest.Start(t, sqltest.SQLite(t), func(c *bootstrap.Config) { c.BlobURL = "mem://" })
	key := apptest.Caller{Key: app.Key(app.Org("Acme", identity.Normalize, identity.Connect))}
	csv := addFile(t, app, key, "a.csv", connectCSV)
	jsonl := addFile(t, app, key, "b.jsonl", connectJSONL)
	_, rows, issues := connectJob(t, app, key, jsonl.ID, csv.ID)
	if got, want := rowIDs(rows), []string{"3 cy@x.io 2024-03-04", "1 dup@x.io 2024-03-05"}; !slices.Equal(got, want) {
		t.Fatalf("rows %v, want %v", got, want)
	}
	names := map[string]string{csv.ID: "a.csv", jsonl.ID: "b.jsonl"}
	if got, want := issueList(issues, names), []string{"a.csv row 1 not_unique", "a.csv row 2 invalid_email"}; !slices.Equal(got, want) {
		t.Fatalf("issues %v, want %v", got, want)
	}
}

func TestConnect_requestErrors(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			connectRequestErrors(t, target)
		})
	}
}

func connectRequestErrors(t *testing.T, target sqltest.Target) {
	// Without workers, jobs stay queued.
	app := apptest.StartRole(t, target, bootstrap.RoleAPI, func(c *bootstrap.Config) { c.HTTP.MaxUploadBytes = 1000 })
	key := apptest.Caller{Key: app.Key(app.Org("Acme", identity.Normalize, identity.Connect))}
	other := apptest.Caller{Key: app.Key(app.Org("Other", identity.Normalize, identity.Connect))}
	mine := addFile(t, app, key, "a.csv", connectCSV)
	theirs := addFile(t, app, other, "b.csv", connectCSV)

	// Files.
	expect(t, app.Request(uploadTo(t, app, "/v1/connect/files", "", "", nil), key), 400, "file_required")
	expect(t, app.Request(uploadTo(t, app, "/v1/connect/files", "a.csv", connectCSV, map[string]string{"mode": "infer"}), key), 400, "invalid_request")
	expect(t, app.Request(uploadTo(t, app, "/v1/connect/files", "a.bin", "\x00\x01\x02\x03\x04\x05\x06\x07", nil), key), 415, "unsupported_file_format")
	expect(t, app.Request(uploadTo(t, app, "/v1/connect/files", "a.csv", "a\n"+strings.Repeat("x\n", 2000), nil), key), 413, "file_too_large")
	expect(t, app.Do("POST", "/v1/connect/files", key, `{"file":"a.csv"}`), 415, "unsupported_media_type")
	expect(t, app.Do("GET", "/v1/connect/files/"+theirs.ID, key, nil), 404, "not_found")
	expect(t, app.Do("DELETE", "/v1/connect/files/"+theirs.ID, key, nil), 404, "not_found")

	// Jobs.
	schema := json.RawMessage(peopleSchema)
	cases := []struct {
		name   string
		body   any
		status int
		code   string
		fields []string
	}{
		{"file_ids missing", map[string]any{"schema": schema}, 400, "invalid_request", []string{"file_ids"}},
		{"file_ids empty", map[string]any{"file_ids": []string{}, "schema": schema}, 400, "invalid_request", []string{"file_ids"}},
		{"file_ids not a list", map[string]any{"file_ids": mine.ID, "schema": schema}, 400, "invalid_request", nil},
		{"a file twice", map[string]any{"file_ids": []string{mine.ID, mine.ID}, "schema": schema}, 400, "invalid_request", []string{"file_ids[1]"}},
		{"unknown files", map[string]any{"file_ids": []string{"file_nope", mine.ID, "file_gone"}, "schema": schema}, 422, "file_not_found", []string{"file_ids[0]", "file_ids[2]"}},
		{"another org's file", map[string]any{"file_ids": []string{theirs.ID}, "schema": schema}, 422, "file_not_found", []string{"file_ids[0]"}},
		{"unknown field", map[string]any{"file_ids": []string{mine.ID}, "schema": schema, "priority": 1}, 400, "invalid_request", nil},
		{"bad mode", map[string]any{"file_ids": []string{mine.ID}, "schema": schema, "mode": "transform"}, 400, "invalid_mode", nil},
		{"no schema", map[string]any{"file_ids": []string{mine.ID}}, 400, "invalid_request", []string{"schema"}},
		{"bad schema", map[string]any{"file_ids": []string{mine.ID}, "schema": map[string]any{"fields": []any{map[string]any{"name": "a", "type": "money"}}}}, 422, "invalid_schema", []string{"schema.fields[0].type"}},
		{"bad options", map[string]any{"file_ids": []string{mine.ID}, "schema": schema, "options": map[string]any{"colour": 1}}, 400, "invalid_request", nil},
		{"not JSON", "file_ids=" + mine.ID, 400, "invalid_request", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := app.Do("POST", "/v1/connect/jobs", key, c.body)
			expect(t, res, c.status, c.code)
			var p struct{ Errors []struct{ Field string } }
			res.JSON(t, &p)
			var got []string
			for _, e := range p.Errors {
				got = append(got, e.Field)
			}
			if c.fields != nil && !slices.Equal(got, c.fields) {
				t.Fatalf("errors name %v, want %v: %s", got, c.fields, res.Body)
			}
		})
	}
	form := uploadTo(t, app, "/v1/connect/jobs", "a.csv", connectCSV, nil)
	expect(t, app.Request(form, key), 415, "unsupported_media_type")

	// A file that a queued job reads cannot be deleted until the job ends.
	body := `{"file_ids":["` + mine.ID + `"],"schema":` + peopleSchema + `}`
	res := app.Do("POST", "/v1/connect/jobs", key, body, "Idempotency-Key", "k1")
	expect(t, res, 202, "")
	var j jobView
	res.JSON(t, &j)
	if j.Status != "queued" {
		t.Fatalf("job %s", res.Body)
	}
	expect(t, app.Do("DELETE", "/v1/connect/files/"+mine.ID, key, nil), 409, "conflict")

	// Idempotency: the same document (laid out differently) replays, a
	// different one is refused.
	var compact bytes.Buffer
	_ = json.Compact(&compact, []byte(body))
	again := app.Do("POST", "/v1/connect/jobs", key, compact.String(), "Idempotency-Key", "k1")
	expect(t, again, 202, "")
	if again.Header.Get("Idempotent-Replayed") != "true" || again.Body != res.Body {
		t.Fatalf("replay %q %s", again.Header.Get("Idempotent-Replayed"), again.Body)
	}
	expect(t, app.Do("POST", "/v1/connect/jobs", key, strings.Replace(body, `"schema"`, `"name":"x","schema"`, 1), "Idempotency-Key", "k1"), 409, "idempotency_key_reused")
	replayedFile := app.Request(uploadWithKey(t, app, "/v1/connect/files", "c.csv", connectCSV, "f1"), key)
	expect(t, replayedFile, 201, "")
	secondFile := app.Request(uploadWithKey(t, app, "/v1/connect/files", "c.csv", connectCSV, "f1"), key)
	if secondFile.StatusCode != 201 || secondFile.Header.Get("Idempotent-Replayed") != "true" || secondFile.Body != replayedFile.Body {
		t.Fatalf("file replay %d %q %s", secondFile.StatusCode, secondFile.Header.Get("Idempotent-Replayed"), secondFile.Body)
	}
	expect(t, app.Request(uploadWithKey(t, app, "/v1/connect/files", "c.csv", connectCSV+"3,x@y.z,2024-01-01\n", "f1"), key), 409, "idempotency_key_reused")
	var files struct{ Data []fileView }
	app.Do("GET", "/v1/connect/files", key, nil).JSON(t, &files)
	if len(files.Data) != 2 {
		t.Fatalf("a replayed upload made a second file: %d files", len(files.Data))
	}

	expect(t, app.Do("POST", "/v1/connect/jobs/"+j.ID+"/cancel", key, nil), 200, "")
	expect(t, app.Do("DELETE", "/v1/connect/files/"+mine.ID, key, nil), 204, "")
}

func uploadWithKey(t *testing.T, app *apptest.App, path, name, content, idemKey string) *http.Request {
	t.Helper()
	req := uploadTo(t, app, path, name, content, nil)
	req.Header.Set("Idempotency-Key", idemKey)
	return req
}

// Every connect route is refused to an organization without connect,
// for keys and cookies alike; staff bypass it except while impersonating.
func TestConnect_entitlement(t *testing.T) {
	t.Parallel()
	app := apptest.Start(t, sqltest.SQLite(t))
	with := app.Org("With", identity.Normalize, identity.Connect)
	without := app.Org("Without", identity.Normalize)
	withKey := apptest.Caller{Key: app.Key(with)}
	file := addFile(t, app, withKey, "a.csv", connectCSV)
	admin := app.Login(app.User(without, identity.Admin, false).Email)
	staff := app.Login(app.User(without, identity.Member, true).Email) // staff whose own org lacks connect

	routes := []struct{ method, path string }{
		{"POST", "/v1/connect/files"}, {"GET", "/v1/connect/files"}, {"GET", "/v1/connect/files/" + file.ID},
		{"DELETE", "/v1/connect/files/" + file.ID}, {"POST", "/v1/connect/jobs"}, {"GET", "/v1/connect/jobs"},
		{"GET", "/v1/connect/jobs/job_x"}, {"POST", "/v1/connect/jobs/job_x/cancel"}, {"GET", "/v1/connect/jobs/job_x/events"},
	}
	for _, who := range []struct {
		name   string
		caller apptest.Caller
	}{{"key", apptest.Caller{Key: app.Key(without)}}, {"cookie", admin}} {
		for _, r := range routes {
			expect(t, app.Do(r.method, r.path, who.caller, `{}`), 403, "forbidden_entitlement_missing")
		}
	}
	// Staff bypass: their own organization lacks connect, yet they use it.
	staffFile := addFile(t, app, staff, "s.csv", connectCSV)
	expect(t, app.Do("GET", "/v1/connect/files/"+staffFile.ID, staff, nil), 200, "")
	// Impersonating an organization without connect suppresses the bypass.
	expect(t, app.Do("POST", "/auth/impersonate", staff, map[string]string{"organization_id": without.ID}), 200, "")
	for _, r := range routes {
		expect(t, app.Do(r.method, r.path, staff, `{}`), 403, "forbidden_entitlement_missing")
	}
	// Impersonating one with connect: its files, not the staff member's.
	expect(t, app.Do("POST", "/auth/impersonate", staff, map[string]string{"organization_id": with.ID}), 200, "")
	expect(t, app.Do("GET", "/v1/connect/files/"+file.ID, staff, nil), 200, "")
	expect(t, app.Do("GET", "/v1/connect/files/"+staffFile.ID, staff, nil), 404, "not_found")
}

// TestConnect_responsesMatchOpenAPI checks real answers of the connect and
// job routes, success and error alike, against openapi.json.
func TestConnect_responsesMatchOpenAPI(t *testing.T) {
	t.Parallel()
	doc, err := libopenapi.NewDocument(httpapi.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	v, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	app := apptest.Start(t, sqltest.SQLite(t))
	key := apptest.Caller{Key: app.Key(app.Org("Acme", identity.Normalize, identity.Connect))}
	check := func(req *http.Request, want int) string {
		t.Helper()
		req.Header.Set("Authorization", "Bearer "+key.Key)
		res, err := app.Client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode != want {
			t.Fatalf("%s %s: %d, want %d: %s", req.Method, req.URL.Path, res.StatusCode, want, body)
		}
		res.Body = io.NopCloser(bytes.NewReader(body))
		if ok, verrs := v.ValidateHttpResponse(req, res); !ok {
			for _, e := range verrs {
				t.Errorf("%s %s → %d: %s: %s", req.Method, req.URL.Path, res.StatusCode, e.Message, e.Reason)
				for _, se := range e.SchemaValidationErrors {
					t.Errorf("  at %s: %s", se.Location, se.Reason)
				}
			}
		}
		return string(body)
	}
	get := func(path string) *http.Request {
		req, _ := http.NewRequest("GET", app.URL+path, nil)
		return req
	}
	postJSON := func(path, body string) *http.Request {
		req, _ := http.NewRequest("POST", app.URL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		return req
	}
	var f fileView
	_ = json.Unmarshal([]byte(check(uploadTo(t, app, "/v1/connect/files", "a.csv", connectCSV, nil), 201)), &f)
	check(get("/v1/connect/files"), 200)
	check(get("/v1/connect/files/"+f.ID), 200)
	check(get("/v1/connect/files/file_unknown"), 404)
	var j jobView
	_ = json.Unmarshal([]byte(check(postJSON("/v1/connect/jobs", `{"file_ids":["`+f.ID+`"],"schema":`+peopleSchema+`}`), 202)), &j)
	check(postJSON("/v1/connect/jobs", `{"file_ids":["file_unknown"],"schema":`+peopleSchema+`}`), 422)
	waitJob(t, app, key, j.ID)
	check(get("/v1/connect/jobs/"+j.ID), 200)
	check(get("/v1/connect/jobs"), 200)
	check(get("/v1/jobs/"+j.ID), 200)
	check(get("/v1/connect/jobs/"+j.ID+"/rows"), 200)
	check(get("/v1/connect/jobs/"+j.ID+"/errors"), 200)
}
