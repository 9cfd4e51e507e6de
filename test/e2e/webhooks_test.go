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
	"github.com/tabnorm/tabnorm/test/testtime"
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
			webhookSurvivesWorkerKill(t, target)
		})
	}
}

func webhookSurvivesWorkerKill(t *testing.T, target sqltest.Target) {
	dir := t.TempDir()
	env := []string{"TABNORM_DATABASE_URL=" + target.URL, "TABNORM_BLOB_URL=file://" + filepath.Join(dir, "blobs"), "TABNORM_WEBHOOK_ALLOW_PRIVATE=true"}
	if target.Name == "sqlite" {
		env[0] = "TABNORM_DATABASE_URL=sqlite://" + filepath.Join(dir, "tabnorm.db")
	}
	rcv := newHookReceiver()
	defer rcv.Close()

	api := startServe(t, dir, env...)
	key := createKey(t, dir, env)
	hookID, secret := createWebhook(t, api.url, key, rcv.URL+"/hook")
	jobID := submit(t, api.url, key, "id,email\n1,a@example.com\n", `{"fields":[{"name":"id","type":"integer"},{"name":"email"}]}`)
	select {
	case <-rcv.hung:
	case <-testtime.After(60 * time.Second):
		t.Fatal("the first attempt did not arrive within 60 s")
	}
	_ = api.cmd.Process.Signal(syscall.SIGKILL)
	if err := <-api.exited; err == nil {
		t.Fatal("serve exited cleanly after SIGKILL")
	}

	next := startServe(t, dir, env...)
	deliveries := func() []byte { return get(t, next.url+"/v1/webhooks/"+hookID+"/deliveries", key) }
	if !rcv.waitDelivered(120 * time.Second) {
		t.Fatalf("the event was not delivered within 120 s of the restart; deliveries: %s", deliveries())
	}
	time.Sleep(time.Second) // any repeat would come now
	rcv.checkOnce(t, secret, jobID)
	var page struct{ Data []struct{ Status string } }
	_ = json.Unmarshal(deliveries(), &page)
	if len(page.Data) != 1 || page.Data[0].Status != "succeeded" {
		t.Fatalf("deliveries: %+v", page.Data)
	}
}

// createWebhook makes a webhook of job.succeeded to url and returns its id
// and signing secret.
func createWebhook(t *testing.T, base, key, url string) (id, secret string) {
	t.Helper()
	req, _ := http.NewRequest("POST", base+"/v1/webhooks", strings.NewReader(`{"url":"`+url+`","events":["job.succeeded"]}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var hook struct{ ID, Secret string }
	raw, _ := io.ReadAll(res.Body)
	_ = res.Body.Close()
	if res.StatusCode != 201 || json.Unmarshal(raw, &hook) != nil {
		t.Fatalf("create webhook: %d %s", res.StatusCode, raw)
	}
	return hook.ID, hook.Secret
}

// hookReceiver holds the first request open until its sender dies (hung
// is closed when it arrives) and keeps the others.
type hookReceiver struct {
	*httptest.Server
	hung   chan struct{}
	once   sync.Once
	mu     sync.Mutex
	got    []*http.Request
	bodies [][]byte
}

func newHookReceiver() *hookReceiver {
	rcv := &hookReceiver{hung: make(chan struct{})}
	rcv.Server = httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		first := false
		rcv.once.Do(func() { first = true })
		if first {
			close(rcv.hung)
			<-r.Context().Done()
			return
		}
		rcv.mu.Lock()
		rcv.got, rcv.bodies = append(rcv.got, r), append(rcv.bodies, body)
		rcv.mu.Unlock()
	}))
	return rcv
}

// waitDelivered waits up to d for a request after the first.
func (rcv *hookReceiver) waitDelivered(d time.Duration) bool {
	for deadline := testtime.Deadline(d); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		rcv.mu.Lock()
		n := len(rcv.got)
		rcv.mu.Unlock()
		if n > 0 {
			return true
		}
	}
	return false
}

// checkOnce: every request kept is the job's job.succeeded, signed, and
// all carry one webhook-id: after de-duplication, one event.
func (rcv *hookReceiver) checkOnce(t *testing.T, secret, jobID string) {
	t.Helper()
	wh, _ := standardwebhooks.NewWebhook(secret)
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	ids := map[string]bool{}
	for i, r := range rcv.got {
		if err := wh.Verify(rcv.bodies[i], r.Header); err != nil {
			t.Fatalf("signature: %v", err)
		}
		if !bytes.Contains(rcv.bodies[i], []byte(`"type":"job.succeeded"`)) || !bytes.Contains(rcv.bodies[i], []byte(jobID)) {
			t.Fatalf("body %s", rcv.bodies[i])
		}
		ids[r.Header.Get("webhook-id")] = true
	}
	if len(ids) != 1 {
		t.Fatalf("%d distinct webhook-ids for one event: %v", len(ids), ids)
	}
}
