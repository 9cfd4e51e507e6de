// Command e2e runs one job end to end against a real server with the Go
// client oapi-codegen generated from openapi.json: create, poll, download.
// .ci/clients/run builds it in a temporary module beside the generated
// package; it is not part of tabnorm's module.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"strings"
	"time"

	"ciclient/tabnormapi"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(1)
	}
}

func run() error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	auth := func(_ context.Context, req *http.Request) error {
		req.Header.Set("Authorization", "Bearer "+os.Getenv("TABNORM_API_KEY"))
		return nil
	}
	c, err := tabnormapi.NewClientWithResponses(os.Getenv("TABNORM_API_URL"), tabnormapi.WithRequestEditorFn(auth))
	if err != nil {
		return err
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	_ = mw.WriteField("schema", `{"fields":[{"name":"id","type":"integer"},{"name":"email","type":"string","format":"email"}]}`)
	fw, _ := mw.CreateFormFile("file", "people.csv")
	_, _ = io.WriteString(fw, "ID,E-mail\n9007199254740993,ANN@x.io\n2,bob@\n")
	_ = mw.Close()
	created, err := c.CreateJobWithBodyWithResponse(ctx, &tabnormapi.CreateJobParams{}, mw.FormDataContentType(), &body)
	if err != nil {
		return err
	}
	if created.JSON202 == nil {
		return fmt.Errorf("create: %d %s", created.StatusCode(), created.Body)
	}
	id := created.JSON202.Id
	for {
		got, err := c.GetJobWithResponse(ctx, id)
		if err != nil {
			return err
		}
		if got.JSON200 == nil {
			return fmt.Errorf("get: %d %s", got.StatusCode(), got.Body)
		}
		st := got.JSON200.Status
		if st == tabnormapi.JobStatusSucceeded {
			break
		}
		if st == tabnormapi.JobStatusFailed || st == tabnormapi.JobStatusCanceled {
			return fmt.Errorf("job %s %s", id, st)
		}
		time.Sleep(100 * time.Millisecond)
	}
	numbers := tabnormapi.GetJobRowsParamsNumbersString
	page, err := c.GetJobRowsWithResponse(ctx, id, &tabnormapi.GetJobRowsParams{Numbers: &numbers})
	if err != nil {
		return err
	}
	if page.JSON200 == nil || len(page.JSON200.Data) != 1 || page.JSON200.Data[0]["id"] == nil {
		return fmt.Errorf("rows page: %d %s", page.StatusCode(), page.Body)
	}
	// A row's value is typed: a string here, with numbers=string.
	if id, err := page.JSON200.Data[0]["id"].AsRow0(); err != nil || id != "9007199254740993" {
		return fmt.Errorf("rows page: id %q (%v): %s", id, err, page.Body)
	}
	dl, err := c.GetJobRowsJSONLWithResponse(ctx, id, &tabnormapi.GetJobRowsJSONLParams{})
	if err != nil {
		return fmt.Errorf("rows.jsonl: %w", err)
	}
	lines := 0
	sc := bufio.NewScanner(bytes.NewReader(dl.Body))
	for sc.Scan() {
		var row map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			return fmt.Errorf("rows.jsonl line: %w", err)
		}
		if string(row["id"]) != "9007199254740993" {
			return fmt.Errorf("rows.jsonl lost digits: %s", sc.Bytes())
		}
		lines++
	}
	if dl.StatusCode() != 200 || lines != 1 {
		return fmt.Errorf("rows.jsonl: %d %q", dl.StatusCode(), dl.Body)
	}
	issues, err := c.GetJobErrorsCSVWithResponse(ctx, id)
	if err != nil || issues.StatusCode() != 200 || !strings.Contains(string(issues.Body), "invalid_email") {
		return fmt.Errorf("errors.csv: %v %s", err, issues.Body)
	}
	// A problem decodes into the generated Problem type.
	missing, err := c.GetJobWithResponse(ctx, "job_missing")
	if err != nil || missing.ApplicationproblemJSON404 == nil || missing.ApplicationproblemJSON404.Code != "not_found" {
		return fmt.Errorf("404 problem: %v %s", err, missing.Body)
	}
	fmt.Println("generated Go client ran job", id)
	return nil
}
