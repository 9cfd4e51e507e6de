package hostile

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/test/apptest"
)

const peopleCSV = "ID,E-mail,Joined\n1,ann@x.io,31/01/2024\n2,bob@,01/02/2024\n"

// multipartTo builds a multipart request with a file part and fields.
func multipartTo(t *testing.T, app *apptest.App, path, filename, content string, fields map[string]string) *http.Request {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, v := range fields {
		_ = mw.WriteField(k, v)
	}
	fw, err := mw.CreateFormFile("file", filename)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = fw.Write([]byte(content))
	_ = mw.Close()
	req, err := http.NewRequest("POST", app.URL+path, &body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return req
}

// wantStatus fails unless res has the status and, for an error, the code.
func wantStatus(t *testing.T, res apptest.Response, status int, code string) {
	t.Helper()
	if res.StatusCode != status {
		t.Fatalf("status %d, want %d: %s", res.StatusCode, status, res.Body)
	}
	if code != "" {
		if got := res.Problem(t); got != code {
			t.Fatalf("code %q, want %q: %s", got, code, res.Body)
		}
	}
}

type jobView struct {
	ID     string `json:"id"`
	Status string `json:"status"`
}

// startUploadJob starts an upload job of peopleCSV and returns it.
func startUploadJob(t *testing.T, app *apptest.App, who apptest.Caller) jobView {
	t.Helper()
	res := app.Request(multipartTo(t, app, "/v1/jobs", "people.csv", peopleCSV, map[string]string{"schema": apptest.PeopleSchema}), who)
	wantStatus(t, res, 202, "")
	var j jobView
	res.JSON(t, &j)
	return j
}

// startConnectJob stores peopleCSV as a connect file and starts a job on it.
func startConnectJob(t *testing.T, app *apptest.App, who apptest.Caller) jobView {
	t.Helper()
	res := app.Request(multipartTo(t, app, "/v1/connect/files", "people.csv", peopleCSV, nil), who)
	wantStatus(t, res, 201, "")
	var f struct{ ID string }
	res.JSON(t, &f)
	res = app.Do("POST", "/v1/connect/jobs", who, map[string]any{"file_ids": []string{f.ID}, "schema": json.RawMessage(apptest.PeopleSchema)})
	wantStatus(t, res, 202, "")
	var j jobView
	res.JSON(t, &j)
	return j
}

// untilDone polls a job until it ends.
func untilDone(t *testing.T, app *apptest.App, who apptest.Caller, path string) jobView {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		var j jobView
		res := app.Do("GET", path, who, nil)
		wantStatus(t, res, 200, "")
		res.JSON(t, &j)
		if j.Status == "succeeded" || j.Status == "failed" || j.Status == "canceled" {
			return j
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s did not finish in 30 s", path)
	return jobView{}
}
