package ports

import (
	"context"
	"time"

	"github.com/tabnorm/tabnorm/domain/webhook"
)

// WebhookEndpoints stores an organization's webhook endpoints. Reads take
// the organization, so another organization's endpoint is simply not found.
type WebhookEndpoints interface {
	Create(ctx context.Context, e webhook.Endpoint) error
	// Get returns an endpoint; orgID "" finds any organization's (workers).
	Get(ctx context.Context, orgID, id string) (webhook.Endpoint, error)
	List(ctx context.Context, orgID string, page Page) (endpoints []webhook.Endpoint, next string, err error)
	// Update reads the endpoint, lets fn change it and writes it back in one
	// transaction holding the row; orgID "" finds any organization's.
	Update(ctx context.Context, orgID, id string, fn func(*webhook.Endpoint) error) (webhook.Endpoint, error)
	// Delete removes an endpoint and its deliveries.
	Delete(ctx context.Context, orgID, id string) error
	// Enabled returns the organization's enabled endpoints.
	Enabled(ctx context.Context, orgID string) ([]webhook.Endpoint, error)
}

// WebhookDeliveries stores deliveries, the outbox of webhook events.
type WebhookDeliveries interface {
	Create(ctx context.Context, d webhook.Delivery) error
	// Get returns a delivery; orgID "" finds any organization's (workers).
	Get(ctx context.Context, orgID, id string) (webhook.Delivery, error)
	// List returns an endpoint's deliveries, newest first.
	List(ctx context.Context, orgID, endpointID string, page Page) (deliveries []webhook.Delivery, next string, err error)
	// Due returns up to limit pending deliveries whose next attempt was due
	// at or before t, oldest first.
	Due(ctx context.Context, t time.Time, limit int) ([]webhook.Delivery, error)
	// Waiting returns up to limit pending deliveries of an endpoint, oldest
	// first (those a resumed endpoint sends at once).
	Waiting(ctx context.Context, endpointID string, limit int) ([]webhook.Delivery, error)
	// Update is a read-modify-write of one delivery, like WebhookEndpoints.Update.
	Update(ctx context.Context, orgID, id string, fn func(*webhook.Delivery) error) (webhook.Delivery, error)
}

// WebhookQueue schedules a delivery's attempt. It joins the transaction
// carried by ctx, so a delivery row and its queue entry commit together.
// orgID lets the delivery workers bound each organization's attempts in
// flight.
type WebhookQueue interface {
	EnqueueDelivery(ctx context.Context, orgID, deliveryID string, attempt int, at time.Time) error
}

// WebhookRequest is one signed attempt to send a delivery.
type WebhookRequest struct {
	URL     string
	Headers map[string]string
	Body    []byte
}

// WebhookSender makes one attempt. It never follows redirects and refuses
// addresses the settings do not allow; a refused address or a network
// failure comes back as Attempt.Error, not as an error of the call.
type WebhookSender interface {
	Send(ctx context.Context, r WebhookRequest) webhook.Attempt
}

// WebhookDeliverer attempts a delivery; the queue's workers call it. An
// error means the attempt could not be recorded and the queue may try again.
type WebhookDeliverer interface {
	Deliver(ctx context.Context, deliveryID string, attempt int) error
	// Sweep queues the attempts that are overdue: those whose worker died
	// in the middle of one. It returns how many it queued.
	Sweep(ctx context.Context) (int, error)
}

// WebhookObserver hears of every delivery attempt this process made, for
// the operator's metrics. outcome is succeeded (a 2xx), failed (another
// answer) or error (no answer: refused, timeout, address not allowed).
type WebhookObserver interface {
	DeliveryAttempted(outcome string, latency time.Duration)
}
