// Package client is tabnorm's Go SDK: a small, documented client of the
// /v1 API for programs, CI and the `tabnorm` remote commands.
//
// Every call takes a context. Errors the server answers are *Error, with
// the problem's stable Code and the RequestID to quote to an operator.
// Creating calls (POST) carry an Idempotency-Key the client makes, so they
// are retried safely, like reads, on 429 and 5xx answers (honouring
// Retry-After) and on broken connections. Uploads stream from an io.Reader
// without holding the file in memory; Follow streams a job's events and
// reconnects with Last-Event-ID; lists, rows and issues are iter.Seq2
// iterators that fetch pages by cursor as they are consumed.
//
// The package imports nothing else of tabnorm, so programs can use it
// without the server's dependencies. It is named client, and used as
// client.New(url, key): the one stutter, client.Client, is rarely written.
package client

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Client calls one tabnorm server with one API key. It is safe for
// concurrent use.
type Client struct {
	base    string
	key     string
	http    *http.Client
	retries int
	backoff time.Duration // first wait; doubles each retry
	maxWait time.Duration
	// maxAnswer bounds a JSON answer read into memory.
	maxAnswer int64
}

// DefaultMaxAnswer is the largest JSON answer a client reads (32 MiB):
// far above any page the server sends, and a bound on what a broken or
// hostile server can make it hold. Downloads are streamed, never read
// whole.
const DefaultMaxAnswer = 32 << 20

// ErrAnswerTooLarge is wrapped by the error of a call whose JSON answer
// is larger than the client's limit.
var ErrAnswerTooLarge = errors.New("the answer is larger than the client's limit")

// WithMaxAnswer sets the largest JSON answer the client reads
// (DefaultMaxAnswer).
func WithMaxAnswer(n int64) Option { return func(c *Client) { c.maxAnswer = n } }

// Option changes a Client.
type Option func(*Client)

// WithRetries sets how many times a failed attempt is retried (default 4)
// and the first wait between attempts (default 500 ms, doubling, at most 30 s
// unless the server's Retry-After asks for longer).
func WithRetries(n int, first time.Duration) Option {
	return func(c *Client) { c.retries, c.backoff = n, first }
}

// New returns a client of the server at baseURL (e.g.
// "https://tabnorm.example.com") authenticating with apiKey.
func New(baseURL, apiKey string, opts ...Option) *Client {
	c := &Client{base: strings.TrimRight(baseURL, "/"), key: apiKey, http: &http.Client{}, retries: 4, backoff: 500 * time.Millisecond, maxWait: 30 * time.Second,
		maxAnswer: DefaultMaxAnswer}
	for _, o := range opts {
		o(c)
	}
	return c
}

// Error is an error answer of the server (RFC 9457 problem details).
type Error struct {
	Status    int    `json:"status"`
	Code      string `json:"code"` // stable, e.g. "not_found", "invalid_schema"
	Title     string `json:"title"`
	Detail    string `json:"detail"`
	RequestID string `json:"request_id"`
	// RequiredScope is the scope the API key lacked, with the code
	// "insufficient_scope" (403): create a key holding it.
	RequiredScope string       `json:"required_scope,omitempty"`
	Errors        []FieldError `json:"errors,omitempty"`
}

// FieldError is one problem of a validation error.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s (HTTP %d, request %s)", e.Code, e.Detail, e.Status, e.RequestID)
	for _, f := range e.Errors {
		fmt.Fprintf(&b, "; %s: %s", f.Field, f.Message)
	}
	return b.String()
}

// The codes of a key's limits: a request outside its scopes (403), and a
// key past its expires_at (401; it will not work again).
const (
	CodeInsufficientScope = "insufficient_scope"
	CodeAPIKeyExpired     = "api_key_expired"
)

// IsCode reports whether err is an *Error with the given code.
func IsCode(err error, code string) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}

// request is one call; body makes a fresh body for each attempt (nil: no
// body, or a body that cannot be replayed, when once is set).
type request struct {
	method, path string
	query        url.Values
	header       http.Header
	body         func() (io.Reader, error)
	contentType  string
	// replayable is false when body can be made only once (a stream):
	// such a request is sent once, never retried.
	replayable bool
}

// newKey is an Idempotency-Key: 128 random bits.
func newKey() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return "tn_" + hex.EncodeToString(b[:])
}

// do sends r, retrying what may be retried, and returns a 2xx response
// (the caller closes its body) or an error.
func (c *Client) do(ctx context.Context, r request) (*http.Response, error) {
	if r.method == http.MethodPost && (r.header == nil || r.header.Get("Idempotency-Key") == "") {
		if r.header == nil {
			r.header = http.Header{}
		}
		r.header.Set("Idempotency-Key", newKey()) // the same key on every attempt
	}
	u := c.base + r.path
	if len(r.query) > 0 {
		u += "?" + r.query.Encode()
	}
	for attempt := 0; ; attempt++ {
		req, err := c.newRequest(ctx, r, u)
		if err != nil {
			return nil, err
		}
		res, err := c.http.Do(req)
		canRetry := attempt < c.retries && (r.body == nil || r.replayable) && ctx.Err() == nil
		if err != nil {
			if !canRetry {
				return nil, err
			}
			if werr := sleep(ctx, c.wait(attempt, 0)); werr != nil {
				return nil, err
			}
			continue
		}
		if res.StatusCode < 300 {
			return res, nil
		}
		perr := readError(res)
		if canRetry && (res.StatusCode == http.StatusTooManyRequests || res.StatusCode >= 500) {
			if werr := sleep(ctx, c.wait(attempt, retryAfter(res))); werr != nil {
				return nil, perr
			}
			continue
		}
		return nil, perr
	}
}

// newRequest builds one attempt of r to the URL u, with a fresh body.
func (c *Client) newRequest(ctx context.Context, r request, u string) (*http.Request, error) {
	var body io.Reader
	if r.body != nil {
		var err error
		if body, err = r.body(); err != nil {
			return nil, err
		}
	}
	req, err := http.NewRequestWithContext(ctx, r.method, u, body)
	if err != nil {
		return nil, err
	}
	for k, v := range r.header {
		req.Header[k] = v
	}
	if r.contentType != "" {
		req.Header.Set("Content-Type", r.contentType)
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	req.Header.Set("User-Agent", "tabnorm-go-client")
	return req, nil
}

// wait is the pause before retry attempt+1: exponential, or what the
// server asked for when that is longer.
func (c *Client) wait(attempt int, asked time.Duration) time.Duration {
	d := time.Duration(float64(c.backoff) * math.Pow(2, float64(attempt)))
	if d > c.maxWait {
		d = c.maxWait
	}
	return max(d, asked)
}

// MaxRetryAfter is the longest pause a server's Retry-After gets: past it
// the client retries anyway, so a broken or hostile server cannot park a
// command for hours.
const MaxRetryAfter = time.Minute

// retryAfter is the pause a response's Retry-After asks for, at most
// MaxRetryAfter.
func retryAfter(res *http.Response) time.Duration {
	v := res.Header.Get("Retry-After")
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return min(time.Duration(min(s, int(MaxRetryAfter/time.Second)))*time.Second, MaxRetryAfter)
	}
	if t, err := http.ParseTime(v); err == nil {
		return min(max(time.Until(t), 0), MaxRetryAfter)
	}
	return 0
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// readError turns a non-2xx answer into an *Error; an answer that is not
// problem+json (a proxy's page) keeps its status.
func readError(res *http.Response) error {
	defer func() { _ = res.Body.Close() }()
	raw, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	e := &Error{}
	if json.Unmarshal(raw, e) != nil || e.Code == "" {
		e = &Error{Code: "http_" + strconv.Itoa(res.StatusCode), Detail: strings.TrimSpace(string(raw))}
	}
	e.Status = res.StatusCode
	if e.RequestID == "" {
		e.RequestID = res.Header.Get("X-Request-Id")
	}
	return e
}

// call sends r and decodes the JSON answer into out (nil: discard it).
func (c *Client) call(ctx context.Context, r request, out any) error {
	res, err := c.do(ctx, r)
	if err != nil {
		return err
	}
	defer func() { _ = res.Body.Close() }()
	if out == nil {
		_, _ = io.Copy(io.Discard, res.Body)
		return nil
	}
	raw, err := io.ReadAll(io.LimitReader(res.Body, c.maxAnswer+1))
	if err != nil {
		return fmt.Errorf("%s %s: read answer: %w", r.method, r.path, err)
	}
	if int64(len(raw)) > c.maxAnswer {
		return fmt.Errorf("%s %s: %w (%d bytes)", r.method, r.path, ErrAnswerTooLarge, c.maxAnswer)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("%s %s: decode answer: %w", r.method, r.path, err)
	}
	if k, ok := out.(interface{ keep([]byte) }); ok {
		k.keep(raw)
	}
	return nil
}

// jsonBody is a replayable JSON request body.
func jsonBody(v any) (func() (io.Reader, error), error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return func() (io.Reader, error) { return bytes.NewReader(raw), nil }, nil
}

func esc(id string) string { return url.PathEscape(id) }
