// Package webhook sends webhook deliveries over HTTP. It is where the
// service reaches out to addresses its customers choose, so it refuses
// loopback, private, link-local and other internal addresses at the moment
// of connecting (a dialer control sees the address a name resolved to, so
// DNS rebinding cannot slip past a check made earlier), follows no
// redirects, and bounds every attempt in time and in what it reads back.
package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"

	"github.com/tabnorm/tabnorm/domain/webhook"
	"github.com/tabnorm/tabnorm/ports"
)

// Config holds the sender's settings.
type Config struct {
	// AllowPrivate lets deliveries reach loopback and private addresses
	// (tests, closed networks). Off by default.
	AllowPrivate bool
	// Timeout bounds one attempt (0: webhook.Timeout, 15 s).
	Timeout time.Duration
	// UserAgent names the sender to receivers.
	UserAgent string
}

// Sender implements ports.WebhookSender.
type Sender struct {
	cfg    Config
	client *http.Client
}

var _ ports.WebhookSender = (*Sender)(nil)

// errRefused is the dialer control's answer to an address it won't reach.
var errRefused = errors.New("the address is private, loopback or link-local")

// NewSender returns a sender.
func NewSender(cfg Config) *Sender {
	if cfg.Timeout <= 0 {
		cfg.Timeout = webhook.Timeout
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = "tabnorm-webhooks"
	}
	return &Sender{cfg: cfg, client: newClient(cfg.AllowPrivate, cfg.Timeout)}
}

// newClient is an HTTP client for addresses customers choose: internal
// addresses refused at connect time unless allowPrivate, no proxy, no
// redirects followed.
func newClient(allowPrivate bool, timeout time.Duration) *http.Client {
	dialer := &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}
	if !allowPrivate {
		// Control runs for every address the dialer tries, after name
		// resolution, right before connect(2).
		dialer.Control = func(_, address string, _ syscall.RawConn) error {
			if webhook.RefusedHostPort(address) {
				return fmt.Errorf("%s: %w", address, errRefused)
			}
			return nil
		}
	}
	transport := &http.Transport{
		Proxy:                 nil, // a proxy would connect for us, past the control
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   timeout,
		ResponseHeaderTimeout: timeout,
		MaxIdleConns:          32,
		MaxIdleConnsPerHost:   2,
		IdleConnTimeout:       90 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	return &http.Client{
		Transport: transport,
		Timeout:   timeout,
		// A redirect could lead anywhere, internal addresses included; the
		// 3xx is the answer, and counts as a failure.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// Send makes one attempt and reports its outcome.
func (s *Sender) Send(ctx context.Context, r ports.WebhookRequest) webhook.Attempt {
	start := time.Now()
	a := webhook.Attempt{At: start}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.URL, bytes.NewReader(r.Body))
	if err != nil {
		a.Error = "invalid URL"
		return a
	}
	if !s.cfg.AllowPrivate && req.URL.Scheme != "https" {
		a.Error = "the URL must use https"
		return a
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", s.cfg.UserAgent)
	for k, v := range r.Headers {
		req.Header.Set(k, v)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		a.Latency = time.Since(start)
		a.Error = describe(err)
		return a
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, webhook.MaxResponseBody))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // lets the connection be reused, within reason
	a.Latency = time.Since(start)
	a.StatusCode = resp.StatusCode
	a.ResponseBody = strings.ToValidUTF8(string(body), "\uFFFD")
	return a
}

// describe turns a transport error into a sentence for the delivery log,
// without the request's URL (already shown) and without internals.
func describe(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, errRefused):
		return "refused: the address is private, loopback or link-local (TABNORM_WEBHOOK_ALLOW_PRIVATE is off)"
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		return "timed out"
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return "the name did not resolve: " + dnsErr.Err
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) {
		return opErr.Op + ": " + opErr.Err.Error()
	}
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 {
		msg = msg[i+2:]
	}
	return msg
}
