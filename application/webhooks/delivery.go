package webhooks

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/tabnorm/tabnorm/application/internal/orgshare"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/id"
	"github.com/tabnorm/tabnorm/domain/webhook"
	"github.com/tabnorm/tabnorm/ports"
)

// Deliverer is the queue's worker of deliveries: it makes their
// attempts, records them and schedules the next, and sweeps up overdue
// ones.
type Deliverer struct {
	cfg        Config
	endpoints  ports.WebhookEndpoints
	deliveries ports.WebhookDeliveries
	queue      ports.WebhookQueue
	sender     ports.WebhookSender
	tx         ports.Transactor
	clock      ports.Clock
	log        *slog.Logger
	inflight   *orgshare.InFlight
}

// NewDeliverer returns the worker of deliveries.
func NewDeliverer(cfg Config, endpoints ports.WebhookEndpoints, deliveries ports.WebhookDeliveries, queue ports.WebhookQueue, sender ports.WebhookSender,
	tx ports.Transactor, clock ports.Clock, log *slog.Logger) *Deliverer {
	return &Deliverer{cfg: cfg, endpoints: endpoints, deliveries: deliveries, queue: queue, sender: sender, tx: tx, clock: clock, log: log,
		inflight: orgshare.New(cmp.Or(cfg.InFlightPerOrg, 2))}
}

var _ ports.WebhookDeliverer = (*Deliverer)(nil)

// errStale means the queue entry's attempt was made, or is being made,
// by someone else.
var errStale = errors.New("attempt already made")

// SweepAfter is how overdue a pending delivery must be before the sweep
// queues it again: its own queue entry normally runs within milliseconds.
const SweepAfter = 10 * time.Second

// Deliver makes attempt number attempt of a delivery, records it, and
// queues the next one on the schedule. Before sending it claims the
// delivery for webhook.ClaimFor, so a repeated queue entry does nothing
// and an attempt whose worker died is swept up once the claim lapses.
func (s *Deliverer) Deliver(ctx context.Context, deliveryID string, attempt int) error {
	now := s.clock.Now()
	d, e, err := s.claim(ctx, deliveryID, attempt, now)
	if errors.Is(err, errStale) || errors.Is(err, errHeld) || errors.Is(err, domain.ErrNotFound) {
		return nil // done, being done, not due yet, held, or its endpoint was deleted
	}
	if err != nil || !e.Enabled {
		return err
	}
	defer s.inflight.Give(d.OrgID)
	a, err := s.send(ctx, d, e, attempt, now)
	if err != nil {
		return err
	}
	err = s.record(context.WithoutCancel(ctx), d, e, attempt, a, now)
	if errors.Is(err, errStale) || errors.Is(err, domain.ErrNotFound) {
		return nil
	}
	return err
}

// claim takes a due delivery for this attempt and returns it with its
// endpoint; a disabled endpoint's delivery is abandoned instead, and one
// the endpoint holds (paused, or its breaker open) waits for it without
// spending an attempt. errStale: the attempt is not this one to make.
func (s *Deliverer) claim(ctx context.Context, deliveryID string, attempt int, now time.Time) (webhook.Delivery, webhook.Endpoint, error) {
	var d webhook.Delivery
	var e webhook.Endpoint
	var held, taken bool
	err := s.tx.InTx(ctx, func(ctx context.Context) error {
		held, taken = false, false
		var err error
		if d, err = s.deliveries.Get(ctx, "", deliveryID); err != nil {
			return err
		}
		if d.Attempts+1 != attempt || !d.Due(now) {
			return errStale
		}
		if !s.inflight.Take(d.OrgID) { // the organization has its share in flight here
			held = true
			return s.wait(ctx, &d, attempt, now.Add(busyWait+rand.N(busyJitter)))
		}
		taken = true
		var until time.Time
		e, err = s.endpoints.Update(ctx, "", d.EndpointID, func(e *webhook.Endpoint) error {
			e.Lapse(now)
			if until, held = e.Held(now); !held && e.Enabled {
				e.Probe(now, webhook.ClaimFor)
			}
			return nil
		})
		if err != nil {
			return err
		}
		if held && e.Enabled {
			return s.wait(ctx, &d, attempt, until.Add(rand.N(holdJitter)))
		}
		d, err = s.deliveries.Update(ctx, "", d.ID, func(d *webhook.Delivery) error {
			switch {
			case d.Attempts+1 != attempt || !d.Due(now):
				return errStale
			case !e.Enabled:
				d.Abandon("The webhook is disabled.", now)
			default:
				d.Claim(now.Add(webhook.ClaimFor))
			}
			return nil
		})
		return err
	})
	if taken && (err != nil || held || !e.Enabled) {
		s.inflight.Give(d.OrgID) // no attempt after all
	}
	if err == nil && held {
		err = errHeld
	}
	return d, e, err
}

// wait puts a due delivery off until `until` without spending an attempt,
// and queues that attempt for then.
func (s *Deliverer) wait(ctx context.Context, d *webhook.Delivery, attempt int, until time.Time) error {
	var err error
	*d, err = s.deliveries.Update(ctx, "", d.ID, func(d *webhook.Delivery) error {
		if d.Attempts+1 != attempt || d.Status != webhook.Pending {
			return errStale
		}
		d.NextAt = &until
		return nil
	})
	if err != nil {
		return err
	}
	return s.queue.EnqueueDelivery(ctx, d.OrgID, d.ID, attempt, until)
}

// busyWait and busyJitter: how long a delivery waits when its
// organization has its share of attempts in flight on this process.
const (
	busyWait   = time.Second
	busyJitter = 4 * time.Second
)

// holdJitter spreads the deliveries an endpoint held, so they do not all
// come back at the same instant.
const holdJitter = 5 * time.Second

// errHeld means the endpoint holds the delivery: it was queued again for
// when the endpoint lets it through.
var errHeld = errors.New("held by its endpoint")

// send makes the attempt, signed with the endpoint's secrets, in a span
// of its own, and tells the observer how it went.
func (s *Deliverer) send(ctx context.Context, d webhook.Delivery, e webhook.Endpoint, attempt int, now time.Time) (webhook.Attempt, error) {
	sig, err := webhook.Sign(e.Secrets(now), d.ID, now, d.Payload)
	if err != nil {
		return webhook.Attempt{}, err
	}
	ctx, span := tracer.Start(ctx, "webhook.deliver", trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		attribute.String("tabnorm.delivery_id", d.ID), attribute.String("tabnorm.webhook_id", e.ID),
		attribute.String("tabnorm.org_id", d.OrgID), attribute.String("tabnorm.event", d.EventType), attribute.Int("tabnorm.attempt", attempt)))
	defer span.End()
	a := s.sender.Send(ctx, ports.WebhookRequest{URL: e.URL, Body: d.Payload, Headers: map[string]string{
		"webhook-id": d.ID, "webhook-timestamp": strconv.FormatInt(now.Unix(), 10), "webhook-signature": sig}})
	a.At = now // the service's clock, so schedules follow it
	outcome := Outcome(a)
	span.SetAttributes(attribute.String("tabnorm.outcome", outcome))
	if a.StatusCode != 0 {
		span.SetAttributes(attribute.Int("http.response.status_code", a.StatusCode))
	}
	if !a.OK() {
		span.SetStatus(codes.Error, a.Error)
	}
	if s.cfg.Observer != nil {
		s.cfg.Observer.DeliveryAttempted(outcome, a.Latency)
	}
	return a, nil
}

// Outcome names how an attempt went: succeeded (a 2xx), failed (another
// answer) or error (no answer).
func Outcome(a webhook.Attempt) string {
	switch {
	case a.OK():
		return "succeeded"
	case a.StatusCode != 0:
		return "failed"
	}
	return "error"
}

var tracer = otel.Tracer("github.com/tabnorm/tabnorm/application/webhooks")

// record stores an attempt's outcome on the endpoint (whose failures may
// disable it) and the delivery, and queues the next attempt when the
// schedule has one.
func (s *Deliverer) record(ctx context.Context, d webhook.Delivery, e webhook.Endpoint, attempt int, a webhook.Attempt, now time.Time) error {
	return s.tx.InTx(ctx, func(ctx context.Context) error {
		var off bool
		if _, err := s.endpoints.Update(ctx, "", e.ID, func(e *webhook.Endpoint) error {
			if a.OK() {
				e.Succeeded(now)
			} else {
				off = e.Failed(a.StatusCode, now)
			}
			return nil
		}); err != nil {
			return err
		}
		var next time.Time
		var retry bool
		if _, err := s.deliveries.Update(ctx, "", d.ID, func(d *webhook.Delivery) error {
			if d.Status != webhook.Pending || d.Attempts+1 != attempt {
				return errStale
			}
			next, retry = d.Record(a)
			if off {
				d.End()
				retry = false
			}
			return nil
		}); err != nil {
			return err
		}
		if retry {
			return s.queue.EnqueueDelivery(ctx, d.OrgID, d.ID, attempt+1, next)
		}
		return nil
	})
}

// sweptLater schedules a swept attempt a moment ahead: the queue puts
// attempts for later behind fresh ones, so a backlog the sweep finds does
// not go ahead of other organizations' new deliveries.
const sweptLater = 2 * time.Second

// Sweep queues again the attempts overdue by SweepAfter: those whose
// worker died holding a claim. A queue entry that is merely late finds
// the delivery claimed or done and does nothing.
func (s *Deliverer) Sweep(ctx context.Context) (int, error) {
	due, err := s.deliveries.Due(ctx, s.clock.Now().Add(-SweepAfter), 500)
	if err != nil || len(due) == 0 {
		return 0, err
	}
	now := s.clock.Now()
	err = s.tx.InTx(ctx, func(ctx context.Context) error {
		for _, d := range due {
			if err := s.queue.EnqueueDelivery(ctx, d.OrgID, d.ID, d.Attempts+1, now.Add(sweptLater)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	s.log.WarnContext(ctx, "queued overdue webhook deliveries again", "deliveries", len(due))
	return len(due), nil
}

// message is the body of every delivery.
type message struct {
	Type      string `json:"type"`
	Timestamp string `json:"timestamp"`
	// Seq is the job event's sequence number (none on webhook.test).
	Seq  int `json:"seq,omitempty"`
	Data any `json:"data"`
}

// addDelivery writes a delivery of an event to an endpoint and queues its
// first attempt, in the transaction carried by ctx.
func addDelivery(ctx context.Context, deliveries ports.WebhookDeliveries, queue ports.WebhookQueue, e webhook.Endpoint, eventType string, seq int,
	data any, now time.Time) (webhook.Delivery, error) {
	body, err := json.Marshal(message{Type: eventType, Timestamp: now.UTC().Format("2006-01-02T15:04:05.000Z07:00"), Seq: seq, Data: data})
	if err != nil {
		return webhook.Delivery{}, err
	}
	d := webhook.NewDelivery(id.New(id.Delivery), e, eventType, body, now)
	if err := deliveries.Create(ctx, d); err != nil {
		return webhook.Delivery{}, err
	}
	return d, queue.EnqueueDelivery(ctx, d.OrgID, d.ID, 1, now)
}
