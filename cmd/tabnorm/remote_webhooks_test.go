package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
	"github.com/tabnorm/tabnorm/test/testtime"
)

// TestRemote_webhooks drives every webhooks command against a real server
// and a receiver on loopback: create (the secret printed once), list,
// get, update, pause and resume, rotate-secret, test, deliveries, retry
// and delete.
func TestRemote_webhooks(t *testing.T) {
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) { remoteWebhooks(t, target) })
	}
}

func remoteWebhooks(t *testing.T, target sqltest.Target) {
	app := apptest.Start(t, target, func(c *bootstrap.Config) { c.WebhookAllowPrivate = true })
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	t.Setenv("TABNORM_API_URL", app.URL)
	t.Setenv("TABNORM_API_KEY", app.Key(app.Org("Hooks", identity.Normalize)))
	var mu sync.Mutex
	var seen []string
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("webhook-id"))
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(rcv.Close)
	run := func(args ...string) string {
		t.Helper()
		out, errOut, err := runRemote(t, args...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, errOut)
		}
		return out
	}

	out := run("webhooks", "create", rcv.URL+"/hook", "--event", "job.succeeded", "--event", "job.failed", "--description", "orders")
	id, _, _ := strings.Cut(out, "\t")
	if !strings.HasPrefix(id, "whk_") || !strings.Contains(out, "\tactive\t"+rcv.URL+"/hook\tjob.succeeded,job.failed\n") || !strings.Contains(out, "\nsecret whsec_") {
		t.Fatalf("create printed %q", out)
	}
	if out := run("webhooks", "list"); !strings.HasPrefix(out, id+"\tactive\t") {
		t.Fatalf("list printed %q", out)
	}
	if out := run("webhooks", "get", id, "--json"); !strings.Contains(out, `"id":"`+id+`"`) || strings.Contains(out, "whsec_") {
		t.Fatalf("get printed %q", out)
	}
	if out := run("webhooks", "update", id, "--event", "job.canceled", "--url", rcv.URL+"/v2"); out != id+"\tactive\t"+rcv.URL+"/v2\tjob.canceled\n" {
		t.Fatalf("update printed %q", out)
	}
	if out := run("webhooks", "pause", id); !strings.HasPrefix(out, id+"\tpaused\t") {
		t.Fatalf("pause printed %q", out)
	}
	if out := run("webhooks", "resume", id); !strings.HasPrefix(out, id+"\tactive\t") {
		t.Fatalf("resume printed %q", out)
	}
	if out := run("webhooks", "update", id, "--enabled=false"); !strings.HasPrefix(out, id+"\tdisabled\t") {
		t.Fatalf("update --enabled=false printed %q", out)
	}
	if _, _, err := runRemote(t, "webhooks", "test", id); err == nil || !strings.Contains(err.Error(), "webhook_disabled") {
		t.Fatalf("test of a disabled endpoint: %v", err)
	}
	run("webhooks", "update", id, "--enabled=true")
	if out := run("webhooks", "rotate-secret", id); !strings.Contains(out, "\nsecret whsec_") {
		t.Fatalf("rotate-secret printed %q", out)
	}
	if _, _, err := runRemote(t, "webhooks", "update", id); err == nil || exitCode(err) != 2 || !strings.Contains(err.Error(), "nothing to change") {
		t.Fatalf("update without a change: %v", err)
	}

	out = run("webhooks", "test", id)
	dlv, _, _ := strings.Cut(out, "\t")
	if !strings.HasPrefix(dlv, "dlv_") || !strings.Contains(out, "\twebhook.test\tpending\t") {
		t.Fatalf("test printed %q", out)
	}
	awaitCLIDelivery(t, id, dlv, "attempts 1\t204")
	if out := run("webhooks", "retry", id, dlv); !strings.HasPrefix(out, dlv+"\twebhook.test\t") {
		t.Fatalf("retry printed %q", out)
	}
	awaitCLIDelivery(t, id, dlv, "attempts 2\t204")
	mu.Lock()
	if len(seen) != 2 || seen[0] != dlv || seen[1] != dlv {
		t.Errorf("the receiver saw %v, want %s twice", seen, dlv)
	}
	mu.Unlock()

	if out := run("webhooks", "delete", id); out != "deleted "+id+"\n" {
		t.Fatalf("delete printed %q", out)
	}
	if _, _, err := runRemote(t, "webhooks", "get", id); err == nil || !strings.Contains(err.Error(), "not_found") {
		t.Fatalf("get after delete: %v", err)
	}
}

// awaitCLIDelivery runs `webhooks deliveries` until the delivery's line
// says it succeeded with the given attempts and answer.
func awaitCLIDelivery(t *testing.T, webhookID, dlv, want string) {
	t.Helper()
	var out string
	for deadline := testtime.Deadline(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		var err error
		out, _, err = runRemote(t, "webhooks", "deliveries", webhookID)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out, dlv+"\twebhook.test\tsucceeded\t"+want+"\n") {
			return
		}
	}
	t.Fatalf("delivery %s: deliveries printed %q, want %q", dlv, out, want)
}
