package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
)

// TestWebhookSurvivesWorkerKill kills the only process while it is
// delivering a job's job.succeeded event (the receiver holds the first
// request open): the next process delivers it, with the same webhook-id,
// so after de-duplication the receiver has the event exactly once.
func TestWebhookSurvivesWorkerKill(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			env := []string{"TABNORM_DATABASE_URL=" + target.URL, "TABNORM_BLOB_URL=file://" + filepath.Join(dir, "blobs"), "TABNORM_WEBHOOK_ALLOW_PRIVATE=true"}
			if target.Name == "sqlite" {
				env[0] = "TABNORM_DATABASE_URL=sqlite://" + filepath.Join(dir, "tabnorm.db")
			}

			var mu sync.Mutex
			var got []*http.Request
			var bodies [][]byte
			hung := make(chan struct{})
			var once sync.Once
			rcv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				first := false
				once.Do(func() { first = true })
				if first { // hold the first attempt open until its sender dies
					close(hung)
					<-r.Context().Done()
					return
				}
				mu.Lock()
				got, bodies = append(got, r), append(bodies, body)
				mu.Unlock()
			}))
			defer rcv.Close()

			api := startServe(t, dir, env...)
			key := createKey(t, dir, env)
			req, _ := http.NewRequest("POST", api.url+"/v1/webhooks", strings.NewReader(`{"url":"`+rcv.URL+`/hook","events":["job.succeeded"]}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+key)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var hook struct{ ID, Secret string }
			raw, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != 201 || json.Unmarshal(raw, &hook) != nil {
				t.Fatalf("create webhook: %d %s", res.StatusCode, raw)
			}
			jobID := submit(t, api.url, key, "id,email\n1,a@example.com\n", `{"fields":[{"name":"id","type":"integer"},{"name":"email"}]}`)
			select {
			case <-hung:
			case <-time.After(60 * time.Second):
				t.Fatal("the first attempt did not arrive within 60 s")
			}
			_ = api.cmd.Process.Signal(syscall.SIGKILL)
			if err := <-api.exited; err == nil {
				t.Fatal("serve exited cleanly after SIGKILL")
			}

			next := startServe(t, dir, env...)
			deadline := time.Now().Add(120 * time.Second)
			for {
				mu.Lock()
				n := len(got)
				mu.Unlock()
				if n > 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the event was not delivered within 120 s of the restart; deliveries: %s", get(t, next.url+"/v1/webhooks/"+hook.ID+"/deliveries", key))
				}
				time.Sleep(100 * time.Millisecond)
			}
			time.Sleep(time.Second) // any repeat would come now
			wh, _ := standardwebhooks.NewWebhook(hook.Secret)
			mu.Lock()
			defer mu.Unlock()
			ids := map[string]bool{}
			for i, r := range got {
				if err := wh.Verify(bodies[i], r.Header); err != nil {
					t.Fatalf("signature: %v", err)
				}
				if !bytes.Contains(bodies[i], []byte(`"type":"job.succeeded"`)) || !bytes.Contains(bodies[i], []byte(jobID)) {
					t.Fatalf("body %s", bodies[i])
				}
				ids[r.Header.Get("webhook-id")] = true
			}
			if len(ids) != 1 {
				t.Fatalf("%d distinct webhook-ids for one event: %v", len(ids), ids)
			}
			var page struct{ Data []struct{ Status string } }
			_ = json.Unmarshal(get(t, next.url+"/v1/webhooks/"+hook.ID+"/deliveries", key), &page)
			if len(page.Data) != 1 || page.Data[0].Status != "succeeded" {
				t.Fatalf("deliveries: %+v", page.Data)
			}
		})
	}
}
