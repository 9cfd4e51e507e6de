package webhooks

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/tabnorm/tabnorm/application/audit"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/id"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/webhook"
	"github.com/tabnorm/tabnorm/ports"
)

// Endpoints manages an organization's webhook endpoints and their
// deliveries.
type Endpoints struct {
	cfg        Config
	endpoints  ports.WebhookEndpoints
	deliveries ports.WebhookDeliveries
	queue      ports.WebhookQueue
	tx         ports.Transactor
	clock      ports.Clock
	audit      ports.AuditLog
}

// NewEndpoints returns the management of endpoints. Every change of an
// endpoint is audited in its transaction.
func NewEndpoints(cfg Config, endpoints ports.WebhookEndpoints, deliveries ports.WebhookDeliveries, queue ports.WebhookQueue, tx ports.Transactor,
	clock ports.Clock, log ports.AuditLog) *Endpoints {
	return &Endpoints{cfg: cfg, endpoints: endpoints, deliveries: deliveries, queue: queue, tx: tx, clock: clock, audit: log}
}

// Input is a new endpoint as the client sent it.
type Input struct {
	URL         string
	Events      []string
	Description string
}

// Create adds an endpoint and returns it with its secret, which the
// caller shows once.
func (s *Endpoints) Create(ctx context.Context, p identity.Principal, in Input) (webhook.Endpoint, error) {
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
		if err := s.endpoints.Create(ctx, e); err != nil {
			return err
		}
		return audit.Record(ctx, s.audit, p, "webhook.create", e.ID, now)
	})
	if err != nil {
		return webhook.Endpoint{}, fmt.Errorf("create webhook: %w", err)
	}
	return e, nil
}

// belowLimit refuses an endpoint past the organization's limit: each
// endpoint costs a delivery on every event, written in the transaction
// that changes the job.
func (s *Endpoints) belowLimit(ctx context.Context, orgID string) error {
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
func (s *Endpoints) List(ctx context.Context, p identity.Principal, page ports.Page) ([]webhook.Endpoint, string, error) {
	return s.endpoints.List(ctx, p.OrgID, page)
}

// Get returns one of the organization's endpoints.
func (s *Endpoints) Get(ctx context.Context, p identity.Principal, endpointID string) (webhook.Endpoint, error) {
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
func (s *Endpoints) Update(ctx context.Context, p identity.Principal, endpointID string, in Patch) (webhook.Endpoint, error) {
	var out webhook.Endpoint
	err := s.tx.InTx(ctx, func(ctx context.Context) error {
		var resumed bool
		var err error
		out, err = s.change(ctx, p, endpointID, in, &resumed)
		if err != nil {
			return err
		}
		if err := audit.Record(ctx, s.audit, p, "webhook.update", out.ID, s.clock.Now()); err != nil || !resumed {
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
func (s *Endpoints) release(ctx context.Context, e webhook.Endpoint, now time.Time) error {
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
func (s *Endpoints) change(ctx context.Context, p identity.Principal, endpointID string, in Patch, resumed *bool) (webhook.Endpoint, error) {
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
func (s *Endpoints) Delete(ctx context.Context, p identity.Principal, endpointID string) error {
	if err := webhook.CanManage(p); err != nil {
		return err
	}
	return s.tx.InTx(ctx, func(ctx context.Context) error {
		if err := s.endpoints.Delete(ctx, p.OrgID, endpointID); err != nil {
			return err
		}
		return audit.Record(ctx, s.audit, p, "webhook.delete", endpointID, s.clock.Now())
	})
}

// RotateSecret gives the endpoint a new secret, returned once; the old one
// keeps signing alongside it for a day.
func (s *Endpoints) RotateSecret(ctx context.Context, p identity.Principal, endpointID string) (webhook.Endpoint, error) {
	if err := webhook.CanManage(p); err != nil {
		return webhook.Endpoint{}, err
	}
	now := s.clock.Now()
	var out webhook.Endpoint
	err := s.tx.InTx(ctx, func(ctx context.Context) error {
		var err error
		if out, err = s.endpoints.Update(ctx, p.OrgID, endpointID, func(e *webhook.Endpoint) error {
			e.Rotate(webhook.NewSecret(), now)
			return nil
		}); err != nil {
			return err
		}
		return audit.Record(ctx, s.audit, p, "webhook.rotate_secret", endpointID, now)
	})
	return out, err
}

// enabled reads an endpoint that may be sent to: a disabled one is the
// conflict webhook_disabled.
func (s *Endpoints) enabled(ctx context.Context, orgID, endpointID string) (webhook.Endpoint, error) {
	e, err := s.endpoints.Get(ctx, orgID, endpointID)
	if err == nil && !e.Enabled {
		err = domain.Errorf(domain.ErrConflict, domain.CodeWebhookDisabled, "The webhook is disabled; enable it first.")
	}
	return e, err
}

// SendTest queues a webhook.test event to the endpoint.
func (s *Endpoints) SendTest(ctx context.Context, p identity.Principal, endpointID string) (webhook.Delivery, error) {
	if err := webhook.CanManage(p); err != nil {
		return webhook.Delivery{}, err
	}
	var d webhook.Delivery
	err := s.tx.InTx(ctx, func(ctx context.Context) error {
		e, err := s.enabled(ctx, p.OrgID, endpointID)
		if err != nil {
			return err
		}
		now := s.clock.Now()
		d, err = addDelivery(ctx, s.deliveries, s.queue, e, webhook.Test, 0, map[string]string{"webhook_id": e.ID}, now)
		return err
	})
	return d, err
}

// Deliveries returns an endpoint's deliveries, newest first.
func (s *Endpoints) Deliveries(ctx context.Context, p identity.Principal, endpointID string, page ports.Page) ([]webhook.Delivery, string, error) {
	if _, err := s.endpoints.Get(ctx, p.OrgID, endpointID); err != nil {
		return nil, "", err
	}
	return s.deliveries.List(ctx, p.OrgID, endpointID, page)
}

// Retry queues one more attempt of a delivery that has ended, with the
// same webhook-id.
func (s *Endpoints) Retry(ctx context.Context, p identity.Principal, endpointID, deliveryID string) (webhook.Delivery, error) {
	if err := webhook.CanManage(p); err != nil {
		return webhook.Delivery{}, err
	}
	var d webhook.Delivery
	err := s.tx.InTx(ctx, func(ctx context.Context) error {
		e, err := s.enabled(ctx, p.OrgID, endpointID)
		if err != nil {
			return err
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
