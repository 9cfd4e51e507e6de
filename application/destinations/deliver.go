package destinations

import (
	"cmp"
	"context"
	"errors"
	"io"
	"log/slog"
	"math/rand/v2"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/tabnorm/tabnorm/application/internal/orgshare"
	"github.com/tabnorm/tabnorm/application/jobs"
	"github.com/tabnorm/tabnorm/application/webhooks"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/destination"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/webhook"
	"github.com/tabnorm/tabnorm/ports"
)

// Deliverer is the queue's worker of deliveries to destinations.
type Deliverer struct {
	cfg          Config
	destinations ports.Destinations
	pushes       ports.Pushes
	queue        ports.PushQueue
	jobs         ports.Jobs
	blobs        ports.BlobStore
	render       ports.JobRenderer
	sealer       ports.Sealer
	writer       ports.DestinationWriter
	hooks        *webhooks.Fanout
	tx           ports.Transactor
	clock        ports.Clock
	log          *slog.Logger
	inflight     *orgshare.InFlight
}

// NewDeliverer returns the worker of deliveries.
func NewDeliverer(cfg Config, destinations ports.Destinations, pushes ports.Pushes, queue ports.PushQueue, jobStore ports.Jobs, blobs ports.BlobStore,
	render ports.JobRenderer, sealer ports.Sealer, writer ports.DestinationWriter, hooks *webhooks.Fanout, tx ports.Transactor, clock ports.Clock,
	log *slog.Logger) *Deliverer {
	return &Deliverer{cfg: cfg, destinations: destinations, pushes: pushes, queue: queue, jobs: jobStore, blobs: blobs, render: render, sealer: sealer,
		writer: writer, hooks: hooks, tx: tx, clock: clock, log: log, inflight: orgshare.New(cmp.Or(cfg.InFlightPerOrg, 2))}
}

var _ ports.PushDeliverer = (*Deliverer)(nil)

// errStale means the queue entry's attempt was made, or is being made,
// by someone else; errBusy that it was put off for its organization's
// share of this process.
var (
	errStale = errors.New("attempt already made")
	errBusy  = errors.New("organization has its share in flight")
)

// SweepAfter is how overdue a delivery must be before the sweep queues it
// again: its own queue entry normally runs within milliseconds.
const SweepAfter = 10 * time.Second

// failure is an attempt's failure: its reason, safe to show, and whether
// another attempt could go otherwise.
type failure struct {
	reason string
	final  bool
}

// Push makes attempt number attempt of a delivery: it claims it, has the
// writer deliver the job's rows, and records the outcome, queuing the
// next attempt on the schedule. A repeated queue entry finds the attempt
// made or claimed and does nothing; an attempt whose worker died is swept
// up once its claim lapses, and replaces whatever the dead one wrote.
func (s *Deliverer) Push(ctx context.Context, deliveryID string, attempt int) error {
	now := s.clock.Now()
	d, err := s.claim(ctx, deliveryID, attempt, now)
	if errors.Is(err, errStale) || errors.Is(err, errBusy) || errors.Is(err, domain.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	defer s.inflight.Give(d.OrgID)
	typ, shipped, fail := s.attempt(ctx, d)
	took := s.clock.Now().Sub(now)
	if s.cfg.Observer != nil {
		outcome := destination.Delivered
		if fail != nil {
			outcome = destination.Failed
		}
		s.cfg.Observer.PushAttempted(typ, outcome, shipped.Rows, shipped.Bytes, took)
	}
	err = s.record(context.WithoutCancel(ctx), d, shipped, fail)
	if errors.Is(err, errStale) || errors.Is(err, domain.ErrNotFound) {
		return nil
	}
	return err
}

// claim takes a due delivery for this attempt, or puts it off when its
// organization has its share of attempts in flight here.
func (s *Deliverer) claim(ctx context.Context, deliveryID string, attempt int, now time.Time) (destination.Delivery, error) {
	var d destination.Delivery
	busy := !s.inflight.Take(deliveryOrg(ctx, s.pushes, deliveryID))
	err := s.tx.InTx(ctx, func(ctx context.Context) error {
		var err error
		d, err = s.pushes.Update(ctx, "", deliveryID, func(d *destination.Delivery) error {
			switch {
			case d.Attempts+1 != attempt || !d.Due(now):
				return errStale
			case busy:
				later := now.Add(time.Second + rand.N(4*time.Second))
				d.NextAt = &later
			default:
				d.Claim(now, cmp.Or(s.cfg.ClaimFor, destination.ClaimFor))
			}
			return nil
		})
		if err != nil || !busy {
			return err
		}
		if err := s.queue.EnqueuePush(ctx, d.OrgID, d.ID, attempt, *d.NextAt); err != nil {
			return err
		}
		return errBusy
	})
	if err != nil && !busy {
		s.inflight.Give(d.OrgID)
	}
	return d, err
}

// deliveryOrg reads a delivery's organization, for the share count ("" when
// it cannot: the claim then finds out why).
func deliveryOrg(ctx context.Context, pushes ports.Pushes, deliveryID string) string {
	d, err := pushes.Get(ctx, "", deliveryID)
	if err != nil {
		return ""
	}
	return d.OrgID
}

var tracer = otel.Tracer("github.com/tabnorm/tabnorm/application/destinations")

// attempt delivers the job's rows to the destination, in a span.
func (s *Deliverer) attempt(ctx context.Context, d destination.Delivery) (string, ports.Shipped, *failure) {
	dst, err := s.destinations.Get(ctx, d.OrgID, d.DestinationID)
	if err != nil {
		return "", ports.Shipped{}, &failure{reason: "the destination was deleted", final: true}
	}
	ctx, span := tracer.Start(ctx, "destination.deliver", trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		attribute.String("tabnorm.delivery_id", d.ID), attribute.String("tabnorm.destination_id", dst.ID), attribute.String("tabnorm.destination_type", dst.Type),
		attribute.String("tabnorm.job_id", d.JobID), attribute.String("tabnorm.org_id", d.OrgID), attribute.Int("tabnorm.attempt", d.Attempts)))
	defer span.End()
	shipped, fail := s.ship(ctx, d, dst)
	if fail != nil {
		span.SetStatus(codes.Error, fail.reason)
	}
	span.SetAttributes(attribute.Int64("tabnorm.rows", shipped.Rows), attribute.Int64("tabnorm.bytes", shipped.Bytes))
	return dst.Type, shipped, fail
}

func (s *Deliverer) ship(ctx context.Context, d destination.Delivery, dst destination.Destination) (ports.Shipped, *failure) {
	t, err := open(s.sealer, dst)
	if err != nil {
		return ports.Shipped{}, &failure{reason: err.Error(), final: true}
	}
	j, err := s.jobs.Get(ctx, d.OrgID, d.JobID)
	if errors.Is(err, domain.ErrNotFound) || err == nil && j.Status != job.Succeeded {
		return ports.Shipped{}, &failure{reason: "the job was deleted", final: true}
	}
	if err != nil {
		return ports.Shipped{}, &failure{reason: "the job could not be read"}
	}
	doc, err := s.render.Job(j)
	if err != nil {
		return ports.Shipped{}, &failure{reason: "the job could not be read"}
	}
	key := jobs.RowsKey(j.OrgID, j.ID)
	shipment := ports.Shipment{JobID: j.ID, Replaces: s.chain(ctx, j), Job: doc, Schema: j.Schema, Fields: jobs.FieldNames(j),
		Rows: func(ctx context.Context) (io.ReadCloser, error) { return s.blobs.Open(ctx, key, 0, -1) }}
	shipped, err := s.writer.Deliver(ctx, t, shipment)
	if err != nil {
		return ports.Shipped{}, &failure{reason: err.Error()}
	}
	return shipped, nil
}

// chainMost bounds the walk up a rerun chain.
const chainMost = 100

// chain returns the jobs the job reruns, nearest first: the rows they
// delivered are the ones the job's replace.
func (s *Deliverer) chain(ctx context.Context, j job.Job) []string {
	var out []string
	for at := j.RerunOf; at != "" && len(out) < chainMost; {
		out = append(out, at)
		prev, err := s.jobs.Get(ctx, j.OrgID, at)
		if err != nil {
			break // deleted: its id is still replaced
		}
		at = prev.RerunOf
	}
	return out
}

// record stores an attempt's outcome and queues the next attempt, or
// announces the delivery's end to the organization's webhooks.
func (s *Deliverer) record(ctx context.Context, d destination.Delivery, shipped ports.Shipped, fail *failure) error {
	now := s.clock.Now()
	return s.tx.InTx(ctx, func(ctx context.Context) error {
		var next time.Time
		var retry bool
		out, err := s.pushes.Update(ctx, "", d.ID, func(cur *destination.Delivery) error {
			if cur.Status != destination.Delivering || cur.Attempts != d.Attempts {
				return errStale // the claim lapsed and another attempt took it
			}
			if fail == nil {
				cur.Succeed(shipped.Rows, shipped.Bytes, now)
				return nil
			}
			next, retry = cur.Fail(fail.reason, fail.final, now)
			return nil
		})
		if err != nil {
			return err
		}
		switch {
		case retry:
			return s.queue.EnqueuePush(ctx, out.OrgID, out.ID, out.Attempts+1, next)
		case out.Status == destination.Delivered:
			return s.hooks.Announce(ctx, out.OrgID, webhook.JobDelivered, Event(out, shipped.Checksum))
		}
		s.log.WarnContext(ctx, "a delivery to a destination failed", "delivery_id", out.ID, "destination_id", out.DestinationID, "job_id", out.JobID,
			"attempts", out.Attempts, "error", out.LastError)
		return s.hooks.Announce(ctx, out.OrgID, webhook.JobDeliveryFailed, Event(out, ""))
	})
}

// EventData is the data of the job.delivered and job.delivery_failed
// webhook events.
type EventData struct {
	JobID         string `json:"job_id"`
	DestinationID string `json:"destination_id"`
	DeliveryID    string `json:"delivery_id"`
	Status        string `json:"status"`
	Attempts      int    `json:"attempts"`
	Rows          int64  `json:"rows"`
	Bytes         int64  `json:"bytes"`
	Checksum      string `json:"checksum,omitempty"`
	Error         string `json:"error,omitempty"`
}

// Event is the webhook data of a delivery that ended.
func Event(d destination.Delivery, checksum string) EventData {
	return EventData{JobID: d.JobID, DestinationID: d.DestinationID, DeliveryID: d.ID, Status: d.Status, Attempts: d.Attempts, Rows: d.Rows,
		Bytes: d.Bytes, Checksum: checksum, Error: d.LastError}
}

// sweptLater schedules a swept attempt a moment ahead.
const sweptLater = 2 * time.Second

// Sweep queues again the attempts overdue by SweepAfter: pending ones
// whose queue entry was lost and claims whose worker died.
func (s *Deliverer) Sweep(ctx context.Context) (int, error) {
	due, err := s.pushes.Due(ctx, s.clock.Now().Add(-SweepAfter), 500)
	if err != nil || len(due) == 0 {
		return 0, err
	}
	now := s.clock.Now()
	err = s.tx.InTx(ctx, func(ctx context.Context) error {
		for _, d := range due {
			if err := s.queue.EnqueuePush(ctx, d.OrgID, d.ID, d.Attempts+1, now.Add(sweptLater)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	s.log.WarnContext(ctx, "queued overdue destination deliveries again", "deliveries", len(due))
	return len(due), nil
}
