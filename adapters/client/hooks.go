package client

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Hook is a validation hook: the organization's own service that checks,
// and may correct, a job's rows while it runs (API.md §9a, docs/hooks.md).
type Hook struct {
	ID                  string     `json:"id"`
	Name                string     `json:"name"`
	URL                 string     `json:"url"`
	TimeoutMS           int64      `json:"timeout_ms"`
	Concurrency         int        `json:"concurrency"`
	Enabled             bool       `json:"enabled"`
	PreviousSecretUntil *time.Time `json:"previous_secret_until"`
	Secret              string     `json:"secret,omitempty"` // only when created or rotated
	Created             time.Time  `json:"created_at"`
	Updated             time.Time  `json:"updated_at"`
	// RecentBatches are its last batches of jobs on the node that
	// answered, newest first.
	RecentBatches []HookBatchOutcome `json:"recent_batches"`
	Raw           json.RawMessage    `json:"-"`
}

func (h *Hook) keep(raw []byte) { h.Raw = raw }

// HookBatchOutcome is how one of a hook's recent batches went: Status is
// succeeded, refused, failed, error or not_sent; Error says why it failed.
type HookBatchOutcome struct {
	At        time.Time `json:"at"`
	Status    string    `json:"status"`
	LatencyMS int64     `json:"latency_ms"`
	Rows      int       `json:"rows"`
	Error     *string   `json:"error"`
}

// HookSampleRow is a row of a sample batch: a row number (from 1, once
// each) and its values (strings, numbers, booleans or nil).
type HookSampleRow struct {
	Row    int64          `json:"row"`
	Values map[string]any `json:"values"`
}

// HookTest is what a hook made of a sample batch. Status is succeeded (an
// answer taken), refused (an answer a job would refuse), failed (a status
// other than 2xx) or error (no answer); Error says why a job's batch would
// have failed.
type HookTest struct {
	Hook       string        `json:"hook"`
	Status     string        `json:"status"`
	StatusCode *int          `json:"status_code"`
	DurationMS int64         `json:"duration_ms"`
	Rows       []HookTestRow `json:"rows"`
	Error      *string       `json:"error"`
	// Raw is the answer as the server sent it.
	Raw json.RawMessage `json:"-"`
}

func (t *HookTest) keep(raw []byte) { t.Raw = raw }

// HookTestRow is the hook's answer for one sample row: its issues, and its
// corrections as the cell text a job would read (nil: emptied).
type HookTestRow struct {
	Row    int64              `json:"row"`
	Issues []HookIssue        `json:"issues"`
	Values map[string]*string `json:"values"`
}

// TestHook sends a hook one signed sample batch, as a job would, and
// returns its answer; the hook's failure is in the answer, not an error.
func (c *Client) TestHook(ctx context.Context, id string, rows []HookSampleRow) (*HookTest, error) {
	b, err := jsonBody(map[string]any{"rows": rows})
	if err != nil {
		return nil, err
	}
	var t HookTest
	return &t, c.call(ctx, request{method: http.MethodPost, path: hookPath(id) + "/test", body: b, contentType: "application/json"}, &t)
}

// HookParams is a new hook: the name schemas call it by, its https URL,
// and optionally its timeout per request and its concurrency.
type HookParams struct {
	Name        string `json:"name"`
	URL         string `json:"url"`
	TimeoutMS   int64  `json:"timeout_ms,omitempty"`
	Concurrency int    `json:"concurrency,omitempty"`
}

// HookPatch changes a hook: a nil field stays as it is.
type HookPatch struct {
	Name        *string `json:"name,omitempty"`
	URL         *string `json:"url,omitempty"`
	TimeoutMS   *int64  `json:"timeout_ms,omitempty"`
	Concurrency *int    `json:"concurrency,omitempty"`
	Enabled     *bool   `json:"enabled,omitempty"`
}

func hookPath(id string) string { return "/v1/hooks/" + esc(id) }

// CreateHook registers a hook. The answer's Secret is shown this once.
func (c *Client) CreateHook(ctx context.Context, p HookParams) (*Hook, error) {
	b, err := jsonBody(p)
	if err != nil {
		return nil, err
	}
	var h Hook
	return &h, c.call(ctx, request{method: http.MethodPost, path: "/v1/hooks", body: b, contentType: "application/json", replayable: true}, &h)
}

// Hooks iterates over the organization's hooks, newest first.
func (c *Client) Hooks(ctx context.Context, p ListParams) iter.Seq2[*Hook, error] {
	return pages[*Hook](ctx, c, "/v1/hooks", url.Values{}, p.PageSize)
}

// GetHook reads a hook (never its secret).
func (c *Client) GetHook(ctx context.Context, id string) (*Hook, error) {
	var h Hook
	return &h, c.call(ctx, request{method: http.MethodGet, path: hookPath(id)}, &h)
}

// UpdateHook changes a hook.
func (c *Client) UpdateHook(ctx context.Context, id string, p HookPatch) (*Hook, error) {
	b, err := jsonBody(p)
	if err != nil {
		return nil, err
	}
	var h Hook
	return &h, c.call(ctx, request{method: http.MethodPatch, path: hookPath(id), body: b, contentType: "application/json", replayable: true}, &h)
}

// DeleteHook deletes a hook.
func (c *Client) DeleteHook(ctx context.Context, id string) error {
	return c.call(ctx, request{method: http.MethodDelete, path: hookPath(id)}, nil)
}

// RotateHookSecret gives a hook a new secret, in the answer's Secret; the
// old one signs alongside it for 24 hours.
func (c *Client) RotateHookSecret(ctx context.Context, id string) (*Hook, error) {
	var h Hook
	return &h, c.call(ctx, request{method: http.MethodPost, path: hookPath(id) + "/rotate-secret"}, &h)
}

// HookBatch is a batch of rows a job sends to a hook (type rows.validate).
type HookBatch struct {
	Type  string    `json:"type"`
	JobID string    `json:"job_id"`
	Hook  string    `json:"hook"`
	Rows  []HookRow `json:"rows"`
}

// HookRow is one row of a batch: its number in the file and the values of
// the fields the schema's declaration lists, as the job's rows hold them.
type HookRow struct {
	Row    int64                      `json:"row"`
	Values map[string]json.RawMessage `json:"values"`
}

// HookIssue is a problem a hook found: severity "error" rejects the row,
// "warning" keeps it; code is lower-case letters, digits and _.
type HookIssue struct {
	Field    string `json:"field,omitempty"`
	Severity string `json:"severity"`
	Code     string `json:"code"`
	Message  string `json:"message"`
}

// HookRowAnswer is what a hook says of one row of its batch: issues, and
// values correcting fields the declaration lists (a string, number,
// boolean or null each).
type HookRowAnswer struct {
	Row    int64          `json:"row"`
	Issues []HookIssue    `json:"issues,omitempty"`
	Values map[string]any `json:"values,omitempty"`
}

// HookAnswer is the answer to a batch: only rows of the batch, each at
// most once; rows with nothing to say may be left out.
type HookAnswer struct {
	Rows []HookRowAnswer `json:"rows"`
}

// HookFunc checks a batch. An error answers 500, which the service
// retries, then treats as the declaration's on_error says.
type HookFunc func(ctx context.Context, b HookBatch) (HookAnswer, error)

// ErrHookSignature is a request whose signature does not verify.
var ErrHookSignature = errors.New("the hook request's signature does not verify")

// HookTolerance is how far a request's webhook-timestamp may be from the
// receiver's clock.
const HookTolerance = 5 * time.Minute

// maxHookBatch bounds a batch the handler reads: 1,000 rows of generous
// values.
const maxHookBatch = 64 << 20

// HookHandler is an http.Handler for a hook: it verifies each request's
// Standard Webhooks signature against secret (whsec_…; during a
// rotation, pass both secrets), refuses stale or replayed timestamps,
// decodes the batch, calls check, and encodes its answer.
func HookHandler(check HookFunc, secrets ...string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "POST only", http.StatusMethodNotAllowed)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxHookBatch+1))
		if err != nil || len(body) > maxHookBatch {
			http.Error(w, "the batch cannot be read", http.StatusRequestEntityTooLarge)
			return
		}
		if err := VerifyHookSignature(r.Header, body, time.Now(), secrets...); err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		var b HookBatch
		if err := json.Unmarshal(body, &b); err != nil {
			http.Error(w, "the batch is not JSON", http.StatusBadRequest)
			return
		}
		ans, err := check(r.Context(), b)
		if err != nil {
			http.Error(w, "the check failed", http.StatusInternalServerError)
			return
		}
		if ans.Rows == nil {
			ans.Rows = []HookRowAnswer{}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(ans)
	})
}

// VerifyHookSignature checks a request's webhook-id, webhook-timestamp
// (within HookTolerance of now) and webhook-signature headers against any
// of the secrets, in constant time.
func VerifyHookSignature(h http.Header, body []byte, now time.Time, secrets ...string) error {
	id, ts, sigs := h.Get("webhook-id"), h.Get("webhook-timestamp"), h.Get("webhook-signature")
	sec, err := strconv.ParseInt(ts, 10, 64)
	if id == "" || sigs == "" || err != nil {
		return ErrHookSignature
	}
	if d := now.Sub(time.Unix(sec, 0)); d > HookTolerance || d < -HookTolerance {
		return ErrHookSignature
	}
	for _, s := range secrets {
		key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, "whsec_"))
		if err != nil {
			continue
		}
		m := hmac.New(sha256.New, key)
		m.Write([]byte(id + "." + ts + "."))
		m.Write(body)
		want := m.Sum(nil)
		for sig := range strings.FieldsSeq(sigs) {
			got, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(sig, "v1,"))
			if err == nil && strings.HasPrefix(sig, "v1,") && hmac.Equal(got, want) {
				return nil
			}
		}
	}
	return ErrHookSignature
}
