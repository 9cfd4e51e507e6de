package hostile

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// TestBadText: a NUL byte or invalid UTF-8 anywhere a client sends text —
// path ids, query, JSON strings and keys, multipart fields and file
// names, stored headers — is 400 invalid_request on both databases,
// never a 500 from the database refusing it.
func TestBadText(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			app := apptest.Start(t, target)
			key := apptest.Caller{Key: app.Key(app.Org("Acme", identity.Normalize, identity.Connect))}
			t.Run("paths_queries_json_and_headers", func(t *testing.T) { badTextRequests(t, app, key) })
			t.Run("multipart_fields_and_file_names", func(t *testing.T) { badTextUploads(t, app, key) })
		})
	}
}

func badTextRequests(t *testing.T, app *apptest.App, key apptest.Caller) {
	for _, tc := range []struct {
		name, method, path string
		body               any
		header             []string
	}{
		{"NUL in a job id", "GET", "/v1/jobs/job_%00", nil, nil},
		{"invalid UTF-8 in a job id", "GET", "/v1/jobs/job_%FF%FE", nil, nil},
		{"NUL in a file id", "DELETE", "/v1/connect/files/file_%00x", nil, nil},
		{"invalid UTF-8 in a schema id", "GET", "/v1/schemas/sch_%C3", nil, nil},
		{"NUL in a query", "GET", "/v1/jobs?status=%00", nil, nil},
		{"invalid UTF-8 in a cursor", "GET", "/v1/schemas?cursor=%FF", nil, nil},
		{"NUL in a JSON string", "POST", "/v1/schemas", `{"name":"a\u0000b","schema":` + apptest.PeopleSchema + `}`, nil},
		{"NUL in a JSON key", "POST", "/v1/schemas", `{"name":"ok","schema":{"fields":[{"name":"id","type":"integer","x\u0000":1}]}}`, nil},
		{"invalid UTF-8 in a JSON string", "POST", "/v1/schemas", "{\"name\":\"a\xffb\",\"schema\":" + apptest.PeopleSchema + "}", nil},
		{"NUL in a file id list", "POST", "/v1/connect/jobs", `{"file_ids":["file_\u0000"],"schema":` + apptest.PeopleSchema + `}`, nil},
		{"NUL in an email", "POST", "/auth/login", `{"email":"a\u0000@x.test","password":"p"}`, nil},
		{"invalid UTF-8 in a password", "POST", "/auth/login", "{\"email\":\"a@x.test\",\"password\":\"\xc3\"}", nil},
		{"invalid UTF-8 in an Idempotency-Key", "POST", "/v1/schemas", `{"name":"ok","schema":` + apptest.PeopleSchema + `}`, []string{"Idempotency-Key", "k\xff"}},
		{"invalid UTF-8 in a User-Agent", "GET", "/v1/jobs", nil, []string{"User-Agent", "agent\xff"}},
	} {
		who := key
		if tc.path == "/auth/login" {
			who = apptest.Caller{}
		}
		res := app.Do(tc.method, tc.path, who, tc.body, tc.header...)
		if res.StatusCode != 400 || res.Problem(t) != "invalid_request" {
			t.Errorf("%s: %d %s, want 400 invalid_request", tc.name, res.StatusCode, res.Body)
		}
	}
}

func badTextUploads(t *testing.T, app *apptest.App, key apptest.Caller) {
	for _, tc := range []struct{ name, filename, field, value string }{
		{"NUL in a file name", "a\x00b.csv", "name", "ok"},
		{"invalid UTF-8 in a file name", "a\xff.csv", "name", "ok"},
		{"NUL in a job name", "people.csv", "name", "x\x00y"},
		{"invalid UTF-8 in options", "people.csv", "options", "{\"sheet\":\"\xff\"}"},
		{"NUL in a schema part", "people.csv", "schema", `{"fields":[{"name":"a\u0000","type":"string"}]}`},
	} {
		for _, path := range []string{"/v1/jobs", "/v1/connect/files"} {
			if path == "/v1/connect/files" && tc.filename == "people.csv" { // connect files take no fields
				continue
			}
			res := app.Request(rawMultipart(t, app.URL+path, tc.filename, tc.field, tc.value, path == "/v1/jobs"), key)
			if res.StatusCode != 400 || res.Problem(t) != "invalid_request" {
				t.Errorf("%s to %s: %d %s, want 400 invalid_request", tc.name, path, res.StatusCode, res.Body)
			}
		}
	}
}

// rawMultipart writes the file name and a field as they are, bytes and all.
func rawMultipart(t *testing.T, url, filename, field, value string, withField bool) *http.Request {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	if withField {
		fw, _ := mw.CreateFormField(field)
		_, _ = fw.Write([]byte(value))
	}
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="file"; filename="`+filename+`"`)
	h.Set("Content-Type", "text/csv")
	fw, err := mw.CreatePart(h)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = fw.Write([]byte(peopleCSV))
	_ = mw.Close()
	req, err := http.NewRequest("POST", url, &body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return req
}
