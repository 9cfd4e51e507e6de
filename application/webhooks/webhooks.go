// Package webhooks manages an organization's webhook endpoints and
// delivers job events to them: the service subscribes to the jobs' events
// (JobEvent, a jobs.Subscriber), so each delivery is written in the
// transaction that changed the job and stored its event, and each attempt
// goes through the queue, so a crash or restart loses none (at least
// once; receivers drop repeats by webhook-id).
package webhooks

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/id"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/webhook"
	"github.com/tabnorm/tabnorm/ports"
)

// Config holds the webhook settings.
type Config struct {
	// AllowPrivate accepts http URLs and internal addresses (tests,
	// closed networks); the sender enforces it again when connecting.
	AllowPrivate bool
	// MaxPerOrg is how many endpoints one organization may have (0: 20).
	MaxPerOrg int
	// InFlightPerOrg is how many attempts of one organization this
	// process makes at once (0: 2).
	InFlightPerOrg int
	// Observer hears of every attempt (nil: nobody).
	Observer ports.WebhookObserver
}

// maxPerOrg is MaxPerOrg's default.
const maxPerOrg = 20

// Service is the webhooks use cases.
type Service struct {
	cfg        Config
	endpoints  ports.WebhookEndpoints
	deliveries ports.WebhookDeliveries
	queue      ports.WebhookQueue
	sender     ports.WebhookSender
	tx         ports.Transactor
	render     ports.JobRenderer
	clock      ports.Clock
	log        *slog.Logger
	inflight   *inFlight
}

// NewService returns the webhooks service.
func NewService(cfg Config, endpoints ports.WebhookEndpoints, deliveries ports.WebhookDeliveries, queue ports.WebhookQueue, sender ports.WebhookSender,
	tx ports.Transactor, render ports.JobRenderer, clock ports.Clock, log *slog.Logger) *Service {
	return &Service{cfg: cfg, endpoints: endpoints, deliveries: deliveries, queue: queue, sender: sender, tx: tx, render: render, clock: clock, log: log,
		inflight: newInFlight(cmp.Or(cfg.InFlightPerOrg, 2))}
}

// Input is a new endpoint as the client sent it.
type Input struct {
	URL         string
	Events      []string
	Description string
}

// Create adds an endpoint and returns it with its secret, which the
// caller shows once.
func (s *Service) Create(ctx context.Context, p identity.Principal, in Input) (webhook.Endpoint, error) {
	if err := webhook.CanManage(p); err != nil {
		return webhook.Endpoint{}, err
	}
	url, err := webhook.ParseURL(in.URL, s.cfg.AllowPrivate)
	if err != nil {
		return webhook.Endpoint{}, err
	}
	events, err := webhook.ParseEvents(in.Events)
	if err != nil {
		return webhook.Endpoint{}, err
	}
	desc, err := webhook.ParseDescription(in.Description)
	if err != nil {
		return webhook.Endpoint{}, err
	}
	now := s.clock.Now()
	e := webhook.Endpoint{ID: id.New(id.Webhook), OrgID: p.OrgID, URL: url, Description: desc, Events: events, Enabled: true,
		Secret: webhook.NewSecret(), CreatedAt: now, UpdatedAt: now}
	err = s.tx.InTx(ctx, func(ctx context.Context) error {
		if err := s.belowLimit(ctx, p.OrgID); err != nil {
			return err
		}
		return s.endpoints.Create(ctx, e)
	})
	if err != nil {
		return webhook.Endpoint{}, fmt.Errorf("create webhook: %w", err)
	}
	return e, nil
}

// belowLimit refuses an endpoint past the organization's limit: each
// endpoint costs a delivery on every event, written in the transaction
// that changes the job.
func (s *Service) belowLimit(ctx context.Context, orgID string) error {
	most := cmp.Or(s.cfg.MaxPerOrg, maxPerOrg)
	have, _, err := s.endpoints.List(ctx, orgID, ports.Page{Limit: most})
	if err != nil {
		return err
	}
	if len(have) >= most {
		return domain.Errorf(domain.ErrConflict, domain.CodeWebhookLimitReached,
			"Your organization has %d webhook endpoints, the most it may have; delete one first.", len(have))
	}
	return nil
}

// List returns the organization's endpoints, newest first.
func (s *Service) List(ctx context.Context, p identity.Principal, page ports.Page) ([]webhook.Endpoint, string, error) {
	return s.endpoints.List(ctx, p.OrgID, page)
}

// Get returns one of the organization's endpoints.
func (s *Service) Get(ctx context.Context, p identity.Principal, endpointID string) (webhook.Endpoint, error) {
	return s.endpoints.Get(ctx, p.OrgID, endpointID)
}

// Patch is a partial change of an endpoint; nil fields stay.
type Patch struct {
	URL         *string
	Events      []string // nil: unchanged
	Description *string
	Enabled     *bool
	Paused      *bool // false resumes a paused endpoint; true pauses it
}

// Update changes an endpoint. Enabling a disabled endpoint forgets its
// failures; deliveries that ended meanwhile can be retried one by one.
// Resuming a paused endpoint forgets its failures too and sends the
// deliveries that waited for it.
func (s *Service) Update(ctx context.Context, p identity.Principal, endpointID string, in Patch) (webhook.Endpoint, error) {
	var out webhook.Endpoint
	err := s.tx.InTx(ctx, func(ctx context.Context) error {
		var resumed bool
		var err error
		out, err = s.change(ctx, p, endpointID, in, &resumed)
		if err != nil || !resumed {
			return err
		}
		return s.release(ctx, out, s.clock.Now())
	})
	return out, err
}

// waitingMost is how many waiting deliveries a resumed endpoint sends at
// once; the rest go at their next look (webhook.PausedRecheck).
const waitingMost = 1000

// release queues now the deliveries that waited for an endpoint.
func (s *Service) release(ctx context.Context, e webhook.Endpoint, now time.Time) error {
	waiting, err := s.deliveries.Waiting(ctx, e.ID, waitingMost)
	if err != nil {
		return err
	}
	for _, w := range waiting {
		d, err := s.deliveries.Update(ctx, "", w.ID, func(d *webhook.Delivery) error {
			d.NextAt = &now
			return nil
		})
		if err != nil {
			return err
		}
		if err := s.queue.EnqueueDelivery(ctx, d.OrgID, d.ID, d.Attempts+1, now); err != nil {
			return err
		}
	}
	return nil
}

// change applies the patch; resumed tells whether it lifted a pause.
func (s *Service) change(ctx context.Context, p identity.Principal, endpointID string, in Patch, resumed *bool) (webhook.Endpoint, error) {
	if err := webhook.CanManage(p); err != nil {
		return webhook.Endpoint{}, err
	}
	var err error
	var url, desc string
	var events []string
	if in.URL != nil {
		if url, err = webhook.ParseURL(*in.URL, s.cfg.AllowPrivate); err != nil {
			return webhook.Endpoint{}, err
		}
	}
	if in.Events != nil {
		if events, err = webhook.ParseEvents(in.Events); err != nil {
			return webhook.Endpoint{}, err
		}
	}
	if in.Description != nil {
		if desc, err = webhook.ParseDescription(*in.Description); err != nil {
			return webhook.Endpoint{}, err
		}
	}
	now := s.clock.Now()
	return s.endpoints.Update(ctx, p.OrgID, endpointID, func(e *webhook.Endpoint) error {
		if in.URL != nil {
			e.URL = url
		}
		if events != nil {
			e.Events = events
		}
		if in.Description != nil {
			e.Description = desc
		}
		if in.Enabled != nil && *in.Enabled != e.Enabled {
			e.SetEnabled(*in.Enabled, now)
		}
		switch {
		case in.Paused == nil || *in.Paused == e.Paused:
		case *in.Paused:
			e.Pause("Paused by the organization.", now)
		default:
			e.Resume(now)
			*resumed = true
		}
		e.UpdatedAt = now
		return nil
	})
}

// Delete removes an endpoint and its deliveries.
func (s *Service) Delete(ctx context.Context, p identity.Principal, endpointID string) error {
	if err := webhook.CanManage(p); err != nil {
		return err
	}
	return s.endpoints.Delete(ctx, p.OrgID, endpointID)
}

// RotateSecret gives the endpoint a new secret, returned once; the old one
// keeps signing alongside it for a day.
func (s *Service) RotateSecret(ctx context.Context, p identity.Principal, endpointID string) (webhook.Endpoint, error) {
	if err := webhook.CanManage(p); err != nil {
		return webhook.Endpoint{}, err
	}
	now := s.clock.Now()
	return s.endpoints.Update(ctx, p.OrgID, endpointID, func(e *webhook.Endpoint) error {
		e.Rotate(webhook.NewSecret(), now)
		return nil
	})
}

func disabled() error {
	return domain.Errorf(domain.ErrConflict, domain.CodeWebhookDisabled, "The webhook is disabled; enable it first.")
}

// SendTest queues a webhook.test event to the endpoint.
func (s *Service) SendTest(ctx context.Context, p identity.Principal, endpointID string) (webhook.Delivery, error) {
	if err := webhook.CanManage(p); err != nil {
		return webhook.Delivery{}, err
	}
	var d webhook.Delivery
	err := s.tx.InTx(ctx, func(ctx context.Context) error {
		e, err := s.endpoints.Get(ctx, p.OrgID, endpointID)
		if err != nil {
			return err
		}
		if !e.Enabled {
			return disabled()
		}
		now := s.clock.Now()
		d, err = s.add(ctx, e, webhook.Test, 0, map[string]string{"webhook_id": e.ID}, now)
		return err
	})
	return d, err
}

// Deliveries returns an endpoint's deliveries, newest first.
func (s *Service) Deliveries(ctx context.Context, p identity.Principal, endpointID string, page ports.Page) ([]webhook.Delivery, string, error) {
	if _, err := s.endpoints.Get(ctx, p.OrgID, endpointID); err != nil {
		return nil, "", err
	}
	return s.deliveries.List(ctx, p.OrgID, endpointID, page)
}

// Retry queues one more attempt of a delivery that has ended, with the
// same webhook-id.
func (s *Service) Retry(ctx context.Context, p identity.Principal, endpointID, deliveryID string) (webhook.Delivery, error) {
	if err := webhook.CanManage(p); err != nil {
		return webhook.Delivery{}, err
	}
	var d webhook.Delivery
	err := s.tx.InTx(ctx, func(ctx context.Context) error {
		e, err := s.endpoints.Get(ctx, p.OrgID, endpointID)
		if err != nil {
			return err
		}
		if !e.Enabled {
			return disabled()
		}
		now := s.clock.Now()
		d, err = s.deliveries.Update(ctx, p.OrgID, deliveryID, func(d *webhook.Delivery) error {
			if d.EndpointID != e.ID {
				return domain.NotFound("webhook delivery")
			}
			return d.Retry(now)
		})
		if err != nil {
			return err
		}
		return s.queue.EnqueueDelivery(ctx, d.OrgID, d.ID, d.Attempts+1, now)
	})
	return d, err
}

// message is the body of every delivery.
type message struct {
	Type      string `json:"type"`
	Timestamp string `json:"timestamp"`
	// Seq is the job event's sequence number (none on webhook.test).
	Seq  int `json:"seq,omitempty"`
	Data any `json:"data"`
}

// add writes a delivery of an event to an endpoint and queues its first
// attempt, in the transaction carried by ctx.
func (s *Service) add(ctx context.Context, e webhook.Endpoint, eventType string, seq int, data any, now time.Time) (webhook.Delivery, error) {
	body, err := json.Marshal(message{Type: eventType, Timestamp: now.UTC().Format("2006-01-02T15:04:05.000Z07:00"), Seq: seq, Data: data})
	if err != nil {
		return webhook.Delivery{}, err
	}
	d := webhook.NewDelivery(id.New(id.Delivery), e, eventType, body, now)
	if err := s.deliveries.Create(ctx, d); err != nil {
		return webhook.Delivery{}, err
	}
	return d, s.queue.EnqueueDelivery(ctx, d.OrgID, d.ID, 1, now)
}

// jobEvents are the job events that are webhook events: a job's changes
// of status but to queued (job.queued, job.progress deliver nothing).
var jobEvents = map[string]string{
	job.EventStarted:        webhook.JobStarted,
	job.EventAwaitingReview: webhook.JobAwaitingReview,
	job.EventSucceeded:      webhook.JobSucceeded,
	job.EventFailed:         webhook.JobFailed,
	job.EventCanceled:       webhook.JobCanceled,
}

// JobEvent writes the deliveries of a job's event to every enabled
// endpoint of its organization that subscribed to it, with their queue
// entries. It is a subscriber of the jobs' outbox (jobs.Subscriber,
// registered in bootstrap where the jobs are wired): it runs in the
// transaction that changes the job and stores the event, so the job, its
// event and its deliveries commit together. Every payload carries the
// event's sequence number, the same for every endpoint.
func (s *Service) JobEvent(ctx context.Context, j job.Job, ev ports.Event) error {
	kind, ok := jobEvents[ev.Kind]
	if !ok {
		return nil
	}
	endpoints, err := s.endpoints.Enabled(ctx, j.OrgID)
	if err != nil {
		return err
	}
	var data json.RawMessage
	now := s.clock.Now()
	for _, e := range endpoints {
		if !e.Subscribed(kind) {
			continue
		}
		if data == nil {
			if data, err = s.render.Job(j); err != nil {
				return fmt.Errorf("render job %s: %w", j.ID, err)
			}
		}
		if _, err := s.add(ctx, e, kind, ev.Seq, data, now); err != nil {
			return fmt.Errorf("webhook %s of job %s: %w", kind, j.ID, err)
		}
	}
	return nil
}

// Announce writes the deliveries of an event that is not a job's change
// of status (import_session.submitted) to every enabled endpoint of the
// organization that subscribed to it, in the transaction carried by ctx.
func (s *Service) Announce(ctx context.Context, orgID, kind string, data any) error {
	endpoints, err := s.endpoints.Enabled(ctx, orgID)
	if err != nil {
		return err
	}
	now := s.clock.Now()
	for _, e := range endpoints {
		if !e.Subscribed(kind) {
			continue
		}
		if _, err := s.add(ctx, e, kind, 0, data, now); err != nil { // no job event: no seq
			return fmt.Errorf("webhook %s: %w", kind, err)
		}
	}
	return nil
}

var _ ports.WebhookDeliverer = (*Service)(nil)

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
func (s *Service) Deliver(ctx context.Context, deliveryID string, attempt int) error {
	now := s.clock.Now()
	d, e, err := s.claim(ctx, deliveryID, attempt, now)
	if errors.Is(err, errStale) || errors.Is(err, errHeld) || errors.Is(err, domain.ErrNotFound) {
		return nil // done, being done, not due yet, held, or its endpoint was deleted
	}
	if err != nil || !e.Enabled {
		return err
	}
	defer s.inflight.give(d.OrgID)
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
func (s *Service) claim(ctx context.Context, deliveryID string, attempt int, now time.Time) (webhook.Delivery, webhook.Endpoint, error) {
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
		if !s.inflight.take(d.OrgID) { // the organization has its share in flight here
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
		s.inflight.give(d.OrgID) // no attempt after all
	}
	if err == nil && held {
		err = errHeld
	}
	return d, e, err
}

// wait puts a due delivery off until `until` without spending an attempt,
// and queues that attempt for then.
func (s *Service) wait(ctx context.Context, d *webhook.Delivery, attempt int, until time.Time) error {
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
func (s *Service) send(ctx context.Context, d webhook.Delivery, e webhook.Endpoint, attempt int, now time.Time) (webhook.Attempt, error) {
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
func (s *Service) record(ctx context.Context, d webhook.Delivery, e webhook.Endpoint, attempt int, a webhook.Attempt, now time.Time) error {
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
func (s *Service) Sweep(ctx context.Context) (int, error) {
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
