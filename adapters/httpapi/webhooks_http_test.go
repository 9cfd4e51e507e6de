package httpapi_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/tabnorm/tabnorm/adapters/httpapi"
	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/test/apptest"
	"github.com/tabnorm/tabnorm/test/testtime"
)

type hookRequest struct {
	header http.Header
	body   []byte
}

// hookReceiver is a real HTTP server on loopback that keeps every request.
type hookReceiver struct {
	*httptest.Server
	mu  sync.Mutex
	got []hookRequest
}

func newHookReceiver(t *testing.T) *hookReceiver {
	r := &hookReceiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got = append(r.got, hookRequest{req.Header.Clone(), body})
		r.mu.Unlock()
		_, _ = io.WriteString(w, "ok")
	}))
	t.Cleanup(r.Close)
	return r
}

// wait returns the n-th request (from 1) once it has arrived.
func (r *hookReceiver) wait(t *testing.T, n int) hookRequest {
	t.Helper()
	deadline := testtime.Deadline(20 * time.Second)
	for time.Now().Before(deadline) {
		r.mu.Lock()
		if len(r.got) >= n {
			req := r.got[n-1]
			r.mu.Unlock()
			return req
		}
		r.mu.Unlock()
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("request %d did not arrive within 20 s", n)
	return hookRequest{}
}

func verifyHook(t *testing.T, secret string, r hookRequest) {
	t.Helper()
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	if err := wh.Verify(r.body, r.header); err != nil {
		t.Fatalf("official verifier: %v\n%v %s", err, r.header, r.body)
	}
}

type webhookView struct {
	ID, URL, Secret, State string
	Enabled, Paused        bool
	Events                 []string
}

type deliveryView struct {
	ID, Status, Type string
	Attempt          int
	StatusCode       *int    `json:"status_code"`
	ResponseBody     *string `json:"response_body"`
}

func TestWebhooks_HTTP(t *testing.T) {
	t.Parallel()
	doc, err := libopenapi.NewDocument(httpapi.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	v, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, target, func(c *bootstrap.Config) { c.WebhookAllowPrivate = true })
			h := &hooks{w: &w, app: w.app, v: v, rcv: newHookReceiver(t), key: apptest.Caller{Key: w.acmeKey},
				admin: w.app.Login(w.acmeAdmin.Email), member: w.app.Login(w.acmeMember.Email)}
			script(t, h,
				scriptStep[*hooks]{"create_by_admins_only", hooksCreate},
				scriptStep[*hooks]{"a_test_event_arrives_signed_and_a_retry_repeats_it", hooksTestAndRetry},
				scriptStep[*hooks]{"after_a_rotation_both_secrets_sign", hooksRotate},
				scriptStep[*hooks]{"a_paused_endpoint_holds_its_deliveries_until_resumed", hooksPauseAndResume},
				scriptStep[*hooks]{"disabled_by_a_person_then_deleted", hooksDisableAndDelete},
			)
		})
	}
}

// hooks is the state of the webhooks script.
type hooks struct {
	w                  *world
	app                *apptest.App
	v                  validator.Validator
	rcv                *hookReceiver
	key, admin, member apptest.Caller
	hook               webhookView // the endpoint the script follows
}

// valid does a request, wants its status, and checks the answer against
// the OpenAPI document.
func (h *hooks) valid(t *testing.T, method, path string, who apptest.Caller, body any, want int) apptest.Response {
	t.Helper()
	res := h.app.Do(method, path, who, body)
	if res.StatusCode != want {
		t.Fatalf("%s %s: %d, want %d: %s", method, path, res.StatusCode, want, res.Body)
	}
	req := httptest.NewRequest(method, path, nil)
	hr := &http.Response{StatusCode: res.StatusCode, Header: res.Header, Body: io.NopCloser(strings.NewReader(res.Body)), Request: req}
	if ok, errs := h.v.ValidateHttpResponse(req, hr); !ok {
		for _, e := range errs {
			t.Errorf("%s %s: %s: %s", method, path, e.Message, e.Reason)
			for _, se := range e.SchemaValidationErrors {
				t.Errorf("  at %s: %s", se.Location, se.Reason)
			}
		}
	}
	return res
}

func hooksCreate(t *testing.T, h *hooks) {
	body := map[string]any{"url": h.rcv.URL + "/hook", "events": []string{"job.succeeded"}, "description": "ci"}
	res := h.valid(t, "POST", "/v1/webhooks", h.admin, body, 201)
	res.JSON(t, &h.hook)
	if !strings.HasPrefix(h.hook.Secret, "whsec_") || res.Header.Get("Location") != "/v1/webhooks/"+h.hook.ID || res.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("create: %s %v", res.Body, res.Header)
	}
	replay := h.app.Do("POST", "/v1/webhooks", h.admin, body, "Idempotency-Key", "k1")
	again := h.app.Do("POST", "/v1/webhooks", h.admin, body, "Idempotency-Key", "k1")
	if replay.StatusCode != 201 || again.Body != replay.Body || again.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("idempotent create: %d %s / %s", replay.StatusCode, replay.Body, again.Body)
	}
	var extra webhookView
	replay.JSON(t, &extra)
	h.valid(t, "DELETE", "/v1/webhooks/"+extra.ID, h.admin, nil, 204)
	expect(t, h.app.Do("POST", "/v1/webhooks", h.member, map[string]any{"url": h.rcv.URL, "events": []string{"job.failed"}}), 403, "insufficient_permissions")
	expect(t, h.app.Do("POST", "/v1/webhooks/"+h.hook.ID+"/test", h.member, nil), 403, "insufficient_permissions")
	expect(t, h.app.Do("POST", "/v1/webhooks", h.admin, map[string]any{"url": h.rcv.URL, "events": []string{"job.progress"}}), 400, "invalid_request")
	expect(t, h.app.Do("GET", "/v1/webhooks/"+h.hook.ID, apptest.Caller{Key: h.w.bareKey}, nil), 404, "not_found")
	// Not under a product: an organization without any may use them.
	h.valid(t, "POST", "/v1/webhooks", apptest.Caller{Key: h.w.bareKey}, map[string]any{"url": h.rcv.URL, "events": []string{"job.failed"}}, 201)
	list := h.valid(t, "GET", "/v1/webhooks", h.member, nil, 200)
	if strings.Contains(list.Body, "whsec_") || !strings.Contains(list.Body, h.hook.ID) {
		t.Fatalf("a member's list: %s", list.Body)
	}
}

func hooksTestAndRetry(t *testing.T, h *hooks) {
	var d deliveryView
	h.valid(t, "POST", "/v1/webhooks/"+h.hook.ID+"/test", h.key, nil, 202).JSON(t, &d)
	first := h.rcv.wait(t, 1)
	verifyHook(t, h.hook.Secret, first)
	if first.header.Get("webhook-id") != d.ID || !bytes.Contains(first.body, []byte(`"type":"webhook.test"`)) {
		t.Fatalf("test event: %v %s", first.header, first.body)
	}
	var page struct{ Data []deliveryView }
	for deadline := testtime.Deadline(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		h.valid(t, "GET", "/v1/webhooks/"+h.hook.ID+"/deliveries", h.member, nil, 200).JSON(t, &page)
		if len(page.Data) == 1 && page.Data[0].Status == "succeeded" || time.Now().After(deadline) {
			break
		}
	}
	if got := page.Data[0]; got.Status != "succeeded" || got.Attempt != 1 || got.StatusCode == nil || *got.StatusCode != 200 || *got.ResponseBody != "ok" {
		t.Fatalf("delivery: %+v", page.Data)
	}
	expect(t, h.app.Do("POST", "/v1/webhooks/"+h.hook.ID+"/deliveries/"+d.ID+"/retry", h.member, nil), 403, "insufficient_permissions")
	h.valid(t, "POST", "/v1/webhooks/"+h.hook.ID+"/deliveries/"+d.ID+"/retry", h.admin, nil, 202)
	if again := h.rcv.wait(t, 2); again.header.Get("webhook-id") != d.ID {
		t.Fatalf("retry has webhook-id %q, want %q", again.header.Get("webhook-id"), d.ID)
	}
}

// hooksRotate: after a rotation both secrets sign for a day.
func hooksRotate(t *testing.T, h *hooks) {
	var rotated webhookView
	h.valid(t, "POST", "/v1/webhooks/"+h.hook.ID+"/rotate-secret", h.key, nil, 200).JSON(t, &rotated)
	if rotated.Secret == h.hook.Secret || !strings.HasPrefix(rotated.Secret, "whsec_") {
		t.Fatalf("rotate: %+v", rotated)
	}
	h.valid(t, "POST", "/v1/webhooks/"+h.hook.ID+"/test", h.key, nil, 202)
	third := h.rcv.wait(t, 3)
	verifyHook(t, h.hook.Secret, third)
	verifyHook(t, rotated.Secret, third)
}

// hooksDisableAndDelete: disabled by a person, no test, and PATCH shows it.
func hooksDisableAndDelete(t *testing.T, h *hooks) {
	var off webhookView
	h.valid(t, "PATCH", "/v1/webhooks/"+h.hook.ID, h.admin, map[string]any{"enabled": false, "events": []string{"job.failed", "job.canceled"}}, 200).JSON(t, &off)
	if off.Enabled || strings.Join(off.Events, ",") != "job.failed,job.canceled" {
		t.Fatalf("patch: %+v", off)
	}
	expect(t, h.app.Do("POST", "/v1/webhooks/"+h.hook.ID+"/test", h.key, nil), 409, "webhook_disabled")
	expect(t, h.app.Do("PATCH", "/v1/webhooks/"+h.hook.ID, h.member, map[string]any{"enabled": true}), 403, "insufficient_permissions")
	expect(t, h.app.Do("DELETE", "/v1/webhooks/"+h.hook.ID, h.member, nil), 403, "insufficient_permissions")
	h.valid(t, "DELETE", "/v1/webhooks/"+h.hook.ID, h.admin, nil, 204)
	expect(t, h.app.Do("GET", "/v1/webhooks/"+h.hook.ID+"/deliveries", h.admin, nil), 404, "not_found")
}

// By default private and loopback endpoints are refused: literal ones
// when created, and names resolving to them when connecting.
func TestWebhooks_refusePrivateAddressesByDefault(t *testing.T) {
	t.Parallel()
	w := sqliteWorld(t)
	app := w.app
	key := apptest.Caller{Key: w.acmeKey}
	rcv := newHookReceiver(t)
	port := rcv.URL[strings.LastIndex(rcv.URL, ":")+1:]
	for _, url := range []string{rcv.URL, "https://127.0.0.1:" + port, "https://localhost:" + port, "https://[::1]/", "https://169.254.169.254/", "https://10.0.0.7/", "https://192.168.1.1/"} {
		res := app.Do("POST", "/v1/webhooks", key, map[string]any{"url": url, "events": []string{"job.succeeded"}})
		expect(t, res, 400, "invalid_request")
	}
	// A name that resolves to loopback passes the form check; the
	// connection to it is refused.
	host, _ := os.Hostname()
	addrs, _ := net.LookupHost(host)
	if len(addrs) == 0 || !net.ParseIP(addrs[0]).IsLoopback() {
		t.Logf("this machine's name %q does not resolve to loopback (%v): the sender's own test covers names", host, addrs)
		return
	}
	var hook webhookView
	res := app.Do("POST", "/v1/webhooks", key, map[string]any{"url": "https://" + host + ":" + port + "/hook", "events": []string{"job.succeeded"}})
	if res.StatusCode != 201 {
		t.Fatalf("create with %s: %d %s", host, res.StatusCode, res.Body)
	}
	res.JSON(t, &hook)
	app.Do("POST", "/v1/webhooks/"+hook.ID+"/test", key, nil)
	deadline := testtime.Deadline(10 * time.Second)
	var page struct {
		Data []struct {
			Attempt int
			Error   *string
		}
	}
	for time.Now().Before(deadline) {
		app.Do("GET", "/v1/webhooks/"+hook.ID+"/deliveries", key, nil).JSON(t, &page)
		if len(page.Data) == 1 && page.Data[0].Attempt > 0 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(page.Data) != 1 || page.Data[0].Error == nil || !strings.Contains(*page.Data[0].Error, "refused") {
		b, _ := json.Marshal(page)
		t.Fatalf("delivery to %s: %s", host, b)
	}
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	if len(rcv.got) != 0 {
		t.Fatalf("%d requests reached the loopback receiver", len(rcv.got))
	}
}

// A PATCH that sends "events": null asks for no events, which is refused
// like an empty list; leaving events out keeps them.
func TestWebhooks_patchNullEvents(t *testing.T) {
	t.Parallel()
	app := apptest.StartRole(t, sqltest.SQLite(t), bootstrap.RoleAPI)
	key := apptest.Caller{Key: app.Key(app.Org("Acme"))}
	res := app.Do("POST", "/v1/webhooks", key, map[string]any{"url": "https://hooks.example.com/a", "events": []string{"job.failed"}})
	expect(t, res, 201, "")
	var hook webhookView
	res.JSON(t, &hook)
	expect(t, app.Do("PATCH", "/v1/webhooks/"+hook.ID, key, `{"events":null}`), 400, "invalid_request")
	res = app.Do("PATCH", "/v1/webhooks/"+hook.ID, key, `{"description":"kept"}`)
	expect(t, res, 200, "")
	if !strings.Contains(res.Body, `"events":["job.failed"]`) {
		t.Fatalf("events changed: %s", res.Body)
	}
}
