package webhook_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/webhook"
	"github.com/tabnorm/tabnorm/ports"
	"github.com/tabnorm/tabnorm/ports/portstest"
)

// counter is a receiver on loopback that counts the requests reaching it.
func counter(t *testing.T, tls bool, h http.HandlerFunc) (srv *httptest.Server, requests, conns *atomic.Int32) {
	t.Helper()
	requests, conns = new(atomic.Int32), new(atomic.Int32)
	wrapped := func(w http.ResponseWriter, r *http.Request) { requests.Add(1); h(w, r) }
	srv = httptest.NewUnstartedServer(http.HandlerFunc(wrapped))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	if tls {
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	return srv, requests, conns
}

func TestSender_deliversAndKeepsTheAnswer(t *testing.T) {
	t.Parallel()
	var got http.Header
	var body string
	srv, _, _ := counter(t, false, func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		b, _ := io.ReadAll(r.Body)
		body = string(b)
		w.WriteHeader(202)
		_, _ = io.WriteString(w, strings.Repeat("x", 5000))
	})
	s := webhook.NewSender(webhook.Config{AllowPrivate: true})
	a := s.Send(context.Background(), ports.WebhookRequest{URL: srv.URL + "/hook", Body: []byte(`{"a":1}`), Headers: map[string]string{"webhook-id": "dlv_1"}})
	if a.StatusCode != 202 || !a.OK() || a.Error != "" || len(a.ResponseBody) != 1024 || a.Latency <= 0 {
		t.Fatalf("attempt: %+v", a)
	}
	if body != `{"a":1}` || got.Get("Webhook-Id") != "dlv_1" || got.Get("Content-Type") != "application/json" {
		t.Fatalf("receiver saw %q %v", body, got)
	}
}

func TestSender_followsNoRedirect(t *testing.T) {
	t.Parallel()
	target, hits, _ := counter(t, false, func(http.ResponseWriter, *http.Request) {})
	redirector, _, _ := counter(t, false, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL, http.StatusTemporaryRedirect)
	})
	a := webhook.NewSender(webhook.Config{AllowPrivate: true}).Send(context.Background(), ports.WebhookRequest{URL: redirector.URL})
	if a.StatusCode != 307 || a.OK() || hits.Load() != 0 {
		t.Fatalf("attempt %+v, redirect target hit %d times", a, hits.Load())
	}
}

func TestSender_timesOut(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv, _, _ := counter(t, false, func(http.ResponseWriter, *http.Request) { <-release })
	defer close(release)
	start := time.Now()
	a := webhook.NewSender(webhook.Config{AllowPrivate: true, Timeout: 200 * time.Millisecond}).Send(context.Background(), ports.WebhookRequest{URL: srv.URL})
	if a.StatusCode != 0 || a.Error != "timed out" || time.Since(start) > 5*time.Second {
		t.Fatalf("attempt %+v after %s", a, time.Since(start))
	}
}

// By default every internal address is refused when connecting, whether
// the URL names it or a name resolves to it; nothing reaches the server.
func TestSender_refusesInternalAddressesByDefault(t *testing.T) {
	t.Parallel()
	srv, _, conns := counter(t, true, func(http.ResponseWriter, *http.Request) {})
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	s := webhook.NewSender(webhook.Config{Timeout: 2 * time.Second})
	for _, url := range []string{
		"https://127.0.0.1:" + port + "/hook",
		"https://localhost:" + port + "/hook", // a DNS name resolving to loopback
		"https://[::1]:" + port + "/hook",
		"https://10.0.0.1/hook",
		"https://192.168.0.1/hook",
		"https://169.254.169.254/latest/meta-data", // cloud metadata
		"https://[fe80::1]/hook",
		"https://0.0.0.0:" + port + "/hook",
	} {
		a := s.Send(context.Background(), ports.WebhookRequest{URL: url})
		if a.StatusCode != 0 || !strings.Contains(a.Error, "refused: the address is private") {
			t.Errorf("%s: %+v", url, a)
		}
	}
	if a := s.Send(context.Background(), ports.WebhookRequest{URL: "http://example.com/"}); !strings.Contains(a.Error, "https") {
		t.Errorf("plain http: %+v", a)
	}
	if n := conns.Load(); n != 0 {
		t.Fatalf("%d connections reached the loopback server", n)
	}
}

// TestSender_conformance runs the WebhookSender suite on a sender allowed
// to reach loopback, where the suite's receivers listen.
func TestSender_conformance(t *testing.T) {
	t.Parallel()
	portstest.WebhookSender(t, func(*testing.T) ports.WebhookSender { return webhook.NewSender(webhook.Config{AllowPrivate: true}) })
}
