package webhook

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"time"

	"github.com/tabnorm/tabnorm/domain/hook"
	"github.com/tabnorm/tabnorm/ports"
)

// HookSender implements ports.HookSender with the webhooks' safeguards;
// it reads an answer up to the request's MaxAnswer.
type HookSender struct {
	allowPrivate bool
	userAgent    string
	client       *http.Client
}

var _ ports.HookSender = (*HookSender)(nil)

// NewHookSender returns the sender of the validation hooks' batches.
func NewHookSender(allowPrivate bool) *HookSender {
	client := newClient(allowPrivate, hook.MaxTimeout)
	// A hook has up to its concurrency requests in flight: as many
	// connections stay open for it, where a webhook's two would make every
	// further request connect (and shake hands) again.
	client.Transport.(*http.Transport).MaxIdleConnsPerHost = hook.MaxConcurrency
	return &HookSender{allowPrivate: allowPrivate, userAgent: "tabnorm-hooks", client: client}
}

// Call makes one request.
func (s *HookSender) Call(ctx context.Context, r ports.HookRequest) ports.HookResponse {
	start := time.Now()
	var out ports.HookResponse
	ctx, cancel := context.WithTimeout(ctx, r.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.URL, bytes.NewReader(r.Body))
	if err != nil {
		out.Error = "invalid URL"
		return out
	}
	if !s.allowPrivate && req.URL.Scheme != "https" {
		out.Error = "the URL must use https"
		return out
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", s.userAgent)
	for k, v := range r.Headers {
		req.Header.Set(k, v)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		out.Latency = time.Since(start)
		out.Error = describe(err)
		return out
	}
	defer func() { _ = resp.Body.Close() }()
	out.StatusCode = resp.StatusCode
	out.RetryAfter = resp.Header.Get("Retry-After")
	body, err := io.ReadAll(io.LimitReader(resp.Body, r.MaxAnswer+1))
	out.Latency = time.Since(start)
	switch {
	case err != nil:
		out.Error = "reading the answer: " + describe(err)
	case int64(len(body)) > r.MaxAnswer:
		out.TooLarge = true
	default:
		out.Body = body
	}
	return out
}
