package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/tabnorm/tabnorm/application/webhooks"
	"github.com/tabnorm/tabnorm/domain/webhook"
)

// WebhookJSON is a webhook endpoint. Secret appears only in the answers
// to its creation and to a rotation.
type WebhookJSON struct {
	ID                  string   `json:"id"`
	Object              string   `json:"object"`
	URL                 string   `json:"url"`
	Description         string   `json:"description"`
	Events              []string `json:"events"`
	Enabled             bool     `json:"enabled"`
	DisabledReason      *string  `json:"disabled_reason"`
	State               string   `json:"state"`
	Paused              bool     `json:"paused"`
	PausedReason        *string  `json:"paused_reason"`
	FailingSince        *string  `json:"failing_since"`
	ConsecutiveFailures int      `json:"consecutive_failures"`
	NextAttemptAt       *string  `json:"next_attempt_at"`
	PreviousSecretUntil *string  `json:"previous_secret_until"`
	CreatedAt           string   `json:"created_at"`
	UpdatedAt           string   `json:"updated_at"`
	Secret              string   `json:"secret,omitempty"`
}

// NewWebhookJSON converts an endpoint for output, with its secret when
// withSecret.
func NewWebhookJSON(e webhook.Endpoint, withSecret bool) WebhookJSON {
	out := WebhookJSON{ID: e.ID, Object: "webhook", URL: e.URL, Description: e.Description, Events: e.Events, Enabled: e.Enabled,
		State: e.State(), Paused: e.Paused, FailingSince: formatTimePtr(e.FailingSince), ConsecutiveFailures: e.Failures,
		NextAttemptAt: formatTimePtr(e.RetryAt), PreviousSecretUntil: formatTimePtr(e.PreviousUntil),
		CreatedAt: formatTime(e.CreatedAt), UpdatedAt: formatTime(e.UpdatedAt)}
	if e.PausedReason != "" {
		out.PausedReason = &e.PausedReason
	}
	if out.Events == nil {
		out.Events = []string{}
	}
	if e.DisabledReason != "" {
		out.DisabledReason = &e.DisabledReason
	}
	if withSecret {
		out.Secret = e.Secret
	}
	return out
}

// DeliveryJSON is one event on its way to an endpoint, with its latest
// attempt. Its id is the webhook-id header.
type DeliveryJSON struct {
	ID            string  `json:"id"`
	Object        string  `json:"object"`
	WebhookID     string  `json:"webhook_id"`
	Type          string  `json:"type"`
	Status        string  `json:"status"`
	Attempt       int     `json:"attempt"`
	NextAttemptAt *string `json:"next_attempt_at"`
	CreatedAt     string  `json:"created_at"`
	AttemptedAt   *string `json:"attempted_at"`
	StatusCode    *int    `json:"status_code"`
	LatencyMS     *int64  `json:"latency_ms"`
	Error         *string `json:"error"`
	ResponseBody  *string `json:"response_body"`
}

// NewDeliveryJSON converts a delivery for output.
func NewDeliveryJSON(d webhook.Delivery) DeliveryJSON {
	out := DeliveryJSON{ID: d.ID, Object: "webhook_delivery", WebhookID: d.EndpointID, Type: d.EventType, Status: d.Status, Attempt: d.Attempts,
		NextAttemptAt: formatTimePtr(d.NextAt), CreatedAt: formatTime(d.CreatedAt)}
	if a := d.Last; a != nil {
		out.AttemptedAt = formatTimePtr(&a.At)
		if a.StatusCode != 0 {
			out.StatusCode = &a.StatusCode
		}
		if a.Error != "" {
			out.Error = &a.Error
		}
		if a.StatusCode != 0 || a.Latency > 0 {
			ms := a.Latency.Milliseconds()
			out.LatencyMS = &ms
		}
		if a.StatusCode != 0 {
			out.ResponseBody = &a.ResponseBody
		}
	}
	return out
}

type createWebhookRequest struct {
	URL         string   `json:"url"`
	Events      []string `json:"events"`
	Description string   `json:"description"`
}

type updateWebhookRequest struct {
	URL         *string             `json:"url"`
	Events      sentField[[]string] `json:"events"`
	Description *string             `json:"description"`
	Enabled     *bool               `json:"enabled"`
	Paused      *bool               `json:"paused"`
}

// sentField tells a field left out of a body from one sent as null, which
// a pointer cannot: both leave it nil.
type sentField[T any] struct {
	sent  bool
	value T
}

func (f *sentField[T]) UnmarshalJSON(b []byte) error {
	f.sent = true
	return json.Unmarshal(b, &f.value)
}

func (a *API) createWebhook(c *gin.Context) {
	var req createWebhookRequest
	if err := decodeJSON(c, &req); err != nil {
		fail(c, err)
		return
	}
	p := principal(c)
	hash := requestHash(c, req.URL, strings.Join(req.Events, "\x00"), req.Description)
	a.createOnce(c, hash, answer{status: http.StatusCreated, noStore: true}, func(ctx context.Context) (string, any, error) {
		e, err := a.deps.Webhooks.Create(ctx, p, webhooks.Input{URL: req.URL, Events: req.Events, Description: req.Description})
		if err != nil {
			return "", nil, err
		}
		return "/v1/webhooks/" + e.ID, NewWebhookJSON(e, true), nil
	})
}

func (a *API) listWebhooks(c *gin.Context) {
	page, err := pageOf(c)
	if err != nil {
		fail(c, err)
		return
	}
	list, next, err := a.deps.Webhooks.List(c.Request.Context(), principal(c), page)
	if err != nil {
		fail(c, err)
		return
	}
	out := make([]WebhookJSON, len(list))
	for i, e := range list {
		out[i] = NewWebhookJSON(e, false)
	}
	c.JSON(http.StatusOK, newList(out, next))
}

func (a *API) getWebhook(c *gin.Context) {
	e, err := a.deps.Webhooks.Get(c.Request.Context(), principal(c), c.Param("id"))
	if err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusOK, NewWebhookJSON(e, false))
}

func (a *API) updateWebhook(c *gin.Context) {
	var req updateWebhookRequest
	if err := decodeJSON(c, &req); err != nil {
		fail(c, err)
		return
	}
	in := webhooks.Patch{URL: req.URL, Description: req.Description, Enabled: req.Enabled, Paused: req.Paused}
	if req.Events.sent {
		in.Events = req.Events.value
		if in.Events == nil {
			in.Events = []string{} // "events": null is a request for none, which is refused
		}
	}
	e, err := a.deps.Webhooks.Update(c.Request.Context(), principal(c), c.Param("id"), in)
	if err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusOK, NewWebhookJSON(e, false))
}

func (a *API) deleteWebhook(c *gin.Context) {
	if err := a.deps.Webhooks.Delete(c.Request.Context(), principal(c), c.Param("id")); err != nil {
		fail(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}

func (a *API) rotateWebhookSecret(c *gin.Context) {
	e, err := a.deps.Webhooks.RotateSecret(c.Request.Context(), principal(c), c.Param("id"))
	if err != nil {
		fail(c, err)
		return
	}
	c.Header("Cache-Control", "no-store")
	c.JSON(http.StatusOK, NewWebhookJSON(e, true))
}

func (a *API) testWebhook(c *gin.Context) {
	d, err := a.deps.Webhooks.SendTest(c.Request.Context(), principal(c), c.Param("id"))
	if err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusAccepted, NewDeliveryJSON(d))
}

func (a *API) listDeliveries(c *gin.Context) {
	page, err := pageOf(c)
	if err != nil {
		fail(c, err)
		return
	}
	list, next, err := a.deps.Webhooks.Deliveries(c.Request.Context(), principal(c), c.Param("id"), page)
	if err != nil {
		fail(c, err)
		return
	}
	out := make([]DeliveryJSON, len(list))
	for i, d := range list {
		out[i] = NewDeliveryJSON(d)
	}
	c.JSON(http.StatusOK, newList(out, next))
}

func (a *API) retryDelivery(c *gin.Context) {
	d, err := a.deps.Webhooks.Retry(c.Request.Context(), principal(c), c.Param("id"), c.Param("delivery_id"))
	if err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusAccepted, NewDeliveryJSON(d))
}
