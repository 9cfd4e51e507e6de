package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/blob/blobtest"
)

// TestServe_s3 runs the built binary with its files in a real
// S3-compatible server: a job whose upload is above the multipart
// threshold succeeds, its rows are paged by range reads, and deleting the
// job deletes its objects.
func TestServe_s3(t *testing.T) {
	t.Parallel()
	srv, ok := blobtest.S3(t)
	if !ok {
		t.Skip("*** SKIPPED: needs an S3-compatible server (" + blobtest.EnvEndpoint + ") ***")
	}
	bucket := srv.Bucket(t)
	dir := t.TempDir()
	env := []string{"TABNORM_BLOB_URL=" + srv.URL(bucket)}
	s := startServe(t, dir, env...)
	if code := getStatus(t, s.url+"/readyz"); code != 200 {
		t.Fatalf("/readyz = %d", code)
	}
	key := createKey(t, dir, env)

	// ~9 MiB: more than the 5 MiB part, so the upload is multipart.
	const rows = 120_000
	var csv strings.Builder
	csv.WriteString("id,email,note\n")
	for i := 1; i <= rows; i++ {
		fmt.Fprintf(&csv, "%d,user%d@example.com,%s\n", i, i, strings.Repeat("n", 50))
	}
	if csv.Len() < 6<<20 {
		t.Fatalf("upload of %d bytes is under the multipart threshold", csv.Len())
	}
	schema := `{"fields":[{"name":"id","type":"integer","constraints":{"unique":true}},{"name":"email","type":"string","format":"email"},{"name":"note"}]}`
	jobID := submit(t, s.url, key, csv.String(), schema)
	waitStatus(t, s.url, key, jobID, "succeeded", 120*time.Second)

	keys := srv.Keys(t, bucket, "")
	var jobKeys []string
	for _, k := range keys {
		if strings.Contains(k, "/jobs/"+jobID+"/") {
			jobKeys = append(jobKeys, k)
		}
	}
	if len(jobKeys) < 2 {
		t.Fatalf("objects of the job in the bucket: %q", keys)
	}

	// Pages of rows come from range reads at the cursor's byte offset.
	seen, cursor := 0, ""
	for page := 0; page < 3; page++ {
		u := s.url + "/v1/jobs/" + jobID + "/rows?format=json&limit=200"
		if cursor != "" {
			u += "&cursor=" + url.QueryEscape(cursor)
		}
		var list struct {
			Data []struct {
				ID int `json:"id"`
			} `json:"data"`
			NextCursor *string `json:"next_cursor"`
		}
		if err := json.Unmarshal(get(t, u, key), &list); err != nil {
			t.Fatal(err)
		}
		if len(list.Data) != 200 || list.Data[0].ID != seen+1 || list.NextCursor == nil {
			t.Fatalf("page %d: %d rows, first %v", page, len(list.Data), list.Data)
		}
		seen += len(list.Data)
		cursor = *list.NextCursor
	}
	all := bytes.Count(get(t, s.url+"/v1/jobs/"+jobID+"/rows?format=jsonl", key), []byte("\n"))
	if all != rows {
		t.Fatalf("%d rows, want %d", all, rows)
	}

	req, _ := http.NewRequest("DELETE", s.url+"/v1/jobs/"+jobID, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 204 {
		t.Fatalf("DELETE = %d", res.StatusCode)
	}
	for _, k := range srv.Keys(t, bucket, "") {
		if strings.Contains(k, "/jobs/"+jobID+"/") {
			t.Fatalf("%s is left after the job was deleted", k)
		}
	}
	if err := s.stop(t); err != nil {
		t.Fatalf("exit after SIGTERM: %v", err)
	}
}

// TestServe_s3NotReady: a missing bucket and wrong credentials leave the
// process up but not ready, with a message that says what to check.
func TestServe_s3NotReady(t *testing.T) {
	t.Parallel()
	srv, ok := blobtest.S3(t)
	if !ok {
		t.Skip("*** SKIPPED: needs an S3-compatible server (" + blobtest.EnvEndpoint + ") ***")
	}
	bucket := srv.Bucket(t)
	cases := map[string]struct {
		env  []string
		want string
	}{
		"missing bucket":    {[]string{"TABNORM_BLOB_URL=" + srv.URL("tabnorm-no-such-bucket")}, "bucket not found"},
		"wrong credentials": {[]string{"TABNORM_BLOB_URL=" + srv.URL(bucket), "AWS_SECRET_ACCESS_KEY=wrong-" + srv.SecretKey}, "refused the credentials"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := startServe(t, t.TempDir(), c.env...)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, "GET", s.url+"/readyz", nil)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != 503 || !strings.Contains(string(body), c.want) {
				t.Fatalf("/readyz = %d %s, want 503 mentioning %q", res.StatusCode, body, c.want)
			}
			if strings.Contains(string(body), srv.Endpoint) || strings.Contains(string(body), srv.SecretKey) {
				t.Fatalf("/readyz shows the endpoint or the secret: %s", body)
			}
		})
	}
}
