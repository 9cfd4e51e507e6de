package client

import (
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"net/url"
	"time"
)

// Webhook is an endpoint that receives signed deliveries of job events
// (API.md §9, docs/webhooks.md).
type Webhook struct {
	ID                  string          `json:"id"`
	URL                 string          `json:"url"`
	Description         string          `json:"description"`
	Events              []string        `json:"events"`
	Enabled             bool            `json:"enabled"`
	DisabledReason      *string         `json:"disabled_reason"`
	State               string          `json:"state"` // active, failing, paused or disabled
	Paused              bool            `json:"paused"`
	PausedReason        *string         `json:"paused_reason"`
	FailingSince        *time.Time      `json:"failing_since"`
	ConsecutiveFailures int             `json:"consecutive_failures"`
	NextAttemptAt       *time.Time      `json:"next_attempt_at"`
	PreviousSecretUntil *time.Time      `json:"previous_secret_until"`
	Secret              string          `json:"secret,omitempty"` // only when created or rotated
	Created             time.Time       `json:"created_at"`
	Updated             time.Time       `json:"updated_at"`
	Raw                 json.RawMessage `json:"-"`
}

func (w *Webhook) keep(raw []byte) { w.Raw = raw }

// WebhookParams is a new endpoint: its https URL, the job events it
// subscribes to (job.started, job.awaiting_review, job.succeeded,
// job.failed, job.canceled) and an optional description.
type WebhookParams struct {
	URL         string   `json:"url"`
	Events      []string `json:"events"`
	Description string   `json:"description,omitempty"`
}

// WebhookPatch changes an endpoint: a nil field stays as it is. Enabled
// true forgets past failures; Paused false resumes a paused endpoint and
// sends the deliveries that waited, true pauses it.
type WebhookPatch struct {
	URL         *string  `json:"url,omitempty"`
	Events      []string `json:"events,omitempty"`
	Description *string  `json:"description,omitempty"`
	Enabled     *bool    `json:"enabled,omitempty"`
	Paused      *bool    `json:"paused,omitempty"`
}

// Delivery is one event's delivery to an endpoint, with its latest
// attempt. Its ID is also the webhook-id header the receiver sees.
type Delivery struct {
	ID            string          `json:"id"`
	WebhookID     string          `json:"webhook_id"`
	Type          string          `json:"type"`
	Status        string          `json:"status"` // pending, succeeded or failed
	Attempt       int             `json:"attempt"`
	NextAttemptAt *time.Time      `json:"next_attempt_at"`
	Created       time.Time       `json:"created_at"`
	AttemptedAt   *time.Time      `json:"attempted_at"`
	StatusCode    *int            `json:"status_code"`
	LatencyMS     *int64          `json:"latency_ms"`
	Error         *string         `json:"error"`
	ResponseBody  *string         `json:"response_body"`
	Raw           json.RawMessage `json:"-"`
}

func (d *Delivery) keep(raw []byte) { d.Raw = raw }

func webhookPath(id string) string { return "/v1/webhooks/" + esc(id) }

// CreateWebhook adds an endpoint. The answer's Secret is shown this once.
func (c *Client) CreateWebhook(ctx context.Context, p WebhookParams) (*Webhook, error) {
	b, err := jsonBody(p)
	if err != nil {
		return nil, err
	}
	var w Webhook
	return &w, c.call(ctx, request{method: http.MethodPost, path: "/v1/webhooks", body: b, contentType: "application/json", replayable: true}, &w)
}

// Webhooks iterates over the organization's endpoints, newest first.
func (c *Client) Webhooks(ctx context.Context, p ListParams) iter.Seq2[*Webhook, error] {
	return pages[*Webhook](ctx, c, "/v1/webhooks", url.Values{}, p.PageSize)
}

// GetWebhook reads an endpoint (never its secret).
func (c *Client) GetWebhook(ctx context.Context, id string) (*Webhook, error) {
	var w Webhook
	return &w, c.call(ctx, request{method: http.MethodGet, path: webhookPath(id)}, &w)
}

// UpdateWebhook changes an endpoint's URL, events, description, enabled
// or paused state.
func (c *Client) UpdateWebhook(ctx context.Context, id string, p WebhookPatch) (*Webhook, error) {
	b, err := jsonBody(p)
	if err != nil {
		return nil, err
	}
	var w Webhook
	return &w, c.call(ctx, request{method: http.MethodPatch, path: webhookPath(id), body: b, contentType: "application/json", replayable: true}, &w)
}

// DeleteWebhook deletes an endpoint and its deliveries.
func (c *Client) DeleteWebhook(ctx context.Context, id string) error {
	return c.call(ctx, request{method: http.MethodDelete, path: webhookPath(id)}, nil)
}

// RotateWebhookSecret gives an endpoint a new secret, in the answer's
// Secret; the old one signs alongside it for 24 hours.
func (c *Client) RotateWebhookSecret(ctx context.Context, id string) (*Webhook, error) {
	var w Webhook
	return &w, c.call(ctx, request{method: http.MethodPost, path: webhookPath(id) + "/rotate-secret"}, &w)
}

// TestWebhook sends a webhook.test event to an endpoint and returns its
// delivery, which the queue attempts at once.
func (c *Client) TestWebhook(ctx context.Context, id string) (*Delivery, error) {
	var d Delivery
	return &d, c.call(ctx, request{method: http.MethodPost, path: webhookPath(id) + "/test"}, &d)
}

// Deliveries iterates over an endpoint's deliveries, newest first.
func (c *Client) Deliveries(ctx context.Context, webhookID string, p ListParams) iter.Seq2[*Delivery, error] {
	return pages[*Delivery](ctx, c, webhookPath(webhookID)+"/deliveries", url.Values{}, p.PageSize)
}

// RetryDelivery makes one more attempt, now, of a delivery that has
// ended (same webhook-id); delivery_pending while it has one scheduled.
func (c *Client) RetryDelivery(ctx context.Context, webhookID, deliveryID string) (*Delivery, error) {
	var d Delivery
	return &d, c.call(ctx, request{method: http.MethodPost, path: webhookPath(webhookID) + "/deliveries/" + esc(deliveryID) + "/retry"}, &d)
}
