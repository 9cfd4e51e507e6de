package client_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/client"
)

const hookedPeople = `{"fields":[{"name":"id","type":"integer"},{"name":"email","type":"string","format":"email"},{"name":"customer","type":"string"}],
 "hooks":[{"hook":"crm","fields":["customer"],"on_error":"fail_job"}]}`

// A hook written with HookHandler checks a job's rows end to end: the
// SDK registers it, the service signs its batches, the handler verifies
// and decodes them, and its issues and corrections reach the job.
func TestHookHandler_endToEnd(t *testing.T) {
	ctx := context.Background()
	c := client.New(serverURL, newOrgKey(t))
	var secret string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		client.HookHandler(func(_ context.Context, b client.HookBatch) (client.HookAnswer, error) {
			var ans client.HookAnswer
			for _, r := range b.Rows {
				switch string(r.Values["customer"]) {
				case `"acme"`:
					ans.Rows = append(ans.Rows, client.HookRowAnswer{Row: r.Row, Values: map[string]any{"customer": "ACME-001"}})
				case `"ghost"`:
					ans.Rows = append(ans.Rows, client.HookRowAnswer{Row: r.Row,
						Issues: []client.HookIssue{{Field: "customer", Severity: "error", Code: "unknown_customer", Message: "No such customer"}}})
				}
			}
			return ans, nil
		}, secret).ServeHTTP(w, r)
	}))
	defer srv.Close()
	h, err := c.CreateHook(ctx, client.HookParams{Name: "crm", URL: srv.URL, TimeoutMS: 2000})
	if err != nil || !strings.HasPrefix(h.ID, "hook_") || !strings.HasPrefix(h.Secret, "whsec_") || h.Concurrency != 4 {
		t.Fatalf("create: %+v %v", h, err)
	}
	secret = h.Secret
	j, err := c.CreateJob(ctx, client.Upload{Filename: "c.csv", Body: strings.NewReader("id,email,customer\n1,a@x.io,acme\n2,b@x.io,ghost\n")},
		client.JobParams{Schema: []byte(hookedPeople)})
	if err != nil {
		t.Fatal(err)
	}
	if j, err = c.Wait(ctx, j.ID); err != nil || j.Status != "succeeded" {
		t.Fatalf("job %+v: %v", j, err)
	}
	if r := j.Result; r.RowCount != 1 || r.RejectedCount != 1 || len(r.Hooks) != 1 || r.Hooks[0].Hook != "crm" || r.Hooks[0].ValuesChanged != 1 || r.Hooks[0].Issues != 1 {
		t.Fatalf("result: %+v", r)
	}
	// A sample batch gets the same answer, and the job's batch is among
	// the hook's recent ones.
	tried, err := c.TestHook(ctx, h.ID, []client.HookSampleRow{{Row: 1, Values: map[string]any{"customer": "acme"}}, {Row: 2, Values: map[string]any{"customer": "ghost"}}})
	if err != nil || tried.Status != "succeeded" || tried.Error != nil || len(tried.Rows) != 2 || tried.Rows[0].Values["customer"] == nil ||
		*tried.Rows[0].Values["customer"] != "ACME-001" || len(tried.Rows[1].Issues) != 1 || tried.Rows[1].Issues[0].Code != "unknown_customer" {
		t.Fatalf("TestHook: %+v %v", tried, err)
	}
	if got, err := c.GetHook(ctx, h.ID); err != nil || len(got.RecentBatches) != 1 || got.RecentBatches[0].Status != "succeeded" || got.RecentBatches[0].Rows != 2 {
		t.Fatalf("the hook's recent batches: %+v %v", got, err)
	}
	var listed int
	for x, err := range c.Hooks(ctx, client.ListParams{}) {
		if err != nil || x.Secret != "" {
			t.Fatalf("listed %+v %v", x, err)
		}
		listed++
	}
	off := false
	if u, err := c.UpdateHook(ctx, h.ID, client.HookPatch{Enabled: &off}); err != nil || u.Enabled || listed != 1 {
		t.Fatalf("update: %+v %v (listed %d)", u, err, listed)
	}
	if err := c.DeleteHook(ctx, h.ID); err != nil {
		t.Fatal(err)
	}
	var apiErr *client.Error
	if _, err := c.GetHook(ctx, h.ID); !errors.As(err, &apiErr) || apiErr.Status != 404 {
		t.Fatalf("after delete: %v", err)
	}
}

func signed(secret, id string, at time.Time, body []byte) http.Header {
	key, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	m := hmac.New(sha256.New, key)
	ts := strconv.FormatInt(at.Unix(), 10)
	m.Write([]byte(id + "." + ts + "."))
	m.Write(body)
	h := http.Header{}
	h.Set("webhook-id", id)
	h.Set("webhook-timestamp", ts)
	h.Set("webhook-signature", "v1,"+base64.StdEncoding.EncodeToString(m.Sum(nil)))
	return h
}

// The handler refuses a tampered body, another secret, a stale
// timestamp and a missing signature; it accepts either secret of a
// rotation.
func TestHookHandler_refusesWhatIsNotSigned(t *testing.T) {
	secret, other := "whsec_"+base64.StdEncoding.EncodeToString([]byte("0123456789abcdef0123456789abcdef")), "whsec_"+base64.StdEncoding.EncodeToString([]byte("fedcba9876543210fedcba9876543210"))
	called := 0
	h := client.HookHandler(func(context.Context, client.HookBatch) (client.HookAnswer, error) {
		called++
		return client.HookAnswer{}, nil
	}, other, secret)
	body := []byte(`{"type":"rows.validate","job_id":"job_1","hook":"crm","rows":[{"row":1,"values":{}}]}`)
	now := time.Now()
	for _, c := range []struct {
		name   string
		header http.Header
		body   []byte
		want   int
	}{
		{"signed", signed(secret, "m1", now, body), body, 200},
		{"tampered", signed(secret, "m1", now, body), append([]byte(nil), strings.Replace(string(body), "crm", "erp", 1)...), 401},
		{"another_secret", signed("whsec_"+base64.StdEncoding.EncodeToString([]byte("not the secret at all, not at all")), "m1", now, body), body, 401},
		{"stale", signed(secret, "m1", now.Add(-10*time.Minute), body), body, 401},
		{"unsigned", http.Header{}, body, 401},
	} {
		req := httptest.NewRequest("POST", "/", strings.NewReader(string(c.body)))
		for k, v := range c.header {
			req.Header[k] = v
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != c.want {
			t.Fatalf("%s: %d, want %d: %s", c.name, rec.Code, c.want, rec.Body)
		}
		if c.want == 200 {
			var ans client.HookAnswer
			if err := json.Unmarshal(rec.Body.Bytes(), &ans); err != nil || ans.Rows == nil {
				t.Fatalf("%s: answer %s", c.name, rec.Body)
			}
		}
	}
	if called != 1 {
		t.Fatalf("the check ran %d times, want once", called)
	}
}
