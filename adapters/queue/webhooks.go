package queue

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/tabnorm/tabnorm/adapters/sqlstore"
	"github.com/tabnorm/tabnorm/ports"
)

// DeliveryArgs is the queue entry of one attempt of a webhook delivery.
// The attempt number makes a repeated entry for an attempt already made
// do nothing.
type DeliveryArgs struct {
	DeliveryID string `json:"delivery_id"`
	Attempt    int    `json:"attempt"`
	// OrgID bounds the organization's attempts in flight (entries queued
	// before it was carried have none and are not counted).
	OrgID string `json:"org_id,omitempty"`
}

// Kind names the entry type in River's table.
func (DeliveryArgs) Kind() string { return "tabnorm.deliver_webhook" }

var _ ports.WebhookQueue = (*Inserter)(nil)

// EnqueueDelivery inserts an attempt scheduled at `at`, in the context's
// transaction, on the webhooks' own queue. An attempt for later (a retry,
// one its endpoint's breaker holds, one put off for its organization's
// share, a swept one) gets the lowest priority: when both are due, River
// fetches fresh attempts first, so one organization's backlog, however
// long, does not hold back another's new deliveries.
func (q *Inserter) EnqueueDelivery(ctx context.Context, orgID, deliveryID string, attempt int, at time.Time) error {
	tx, ok := sqlstore.TxFrom(ctx)
	if !ok {
		return errors.New("enqueue outside a transaction")
	}
	args := DeliveryArgs{DeliveryID: deliveryID, Attempt: attempt, OrgID: orgID}
	opts := &river.InsertOpts{ScheduledAt: at, Queue: WebhookQueue, Priority: 1}
	if at.After(time.Now().Add(time.Second)) {
		opts.Priority = laterPriority
	}
	if _, err := q.client.InsertTx(ctx, tx.Tx, args, opts); err != nil {
		return fmt.Errorf("enqueue webhook delivery %s: %w", deliveryID, err)
	}
	return nil
}

// laterPriority is River's lowest, for attempts scheduled for later.
const laterPriority = 4

type deliveryWorker struct {
	river.WorkerDefaults[DeliveryArgs]
	deliverer ports.WebhookDeliverer
}

// Timeout leaves the sender's own 15 s limit room to answer first.
func (w *deliveryWorker) Timeout(*river.Job[DeliveryArgs]) time.Duration { return time.Minute }

func (w *deliveryWorker) Work(ctx context.Context, j *river.Job[DeliveryArgs]) error {
	return w.deliverer.Deliver(ctx, j.Args.DeliveryID, j.Args.Attempt)
}

// SweepArgs is the periodic search for overdue deliveries; River runs it
// on one node.
type SweepArgs struct{}

// Kind names the entry type in River's table.
func (SweepArgs) Kind() string { return "tabnorm.sweep_webhooks" }

type sweepWorker struct {
	river.WorkerDefaults[SweepArgs]
	deliverer ports.WebhookDeliverer
}

func (w *sweepWorker) Work(ctx context.Context, _ *river.Job[SweepArgs]) error {
	_, err := w.deliverer.Sweep(ctx)
	return err
}

// sweepEvery is how often overdue deliveries are looked for.
const sweepEvery = 10 * time.Second

// addDeliveryWorkers registers the delivery and sweep workers and returns
// the sweep's periodic job.
func addDeliveryWorkers(workers *river.Workers, d ports.WebhookDeliverer) []*river.PeriodicJob {
	if d == nil {
		return nil
	}
	river.AddWorker(workers, &deliveryWorker{deliverer: d})
	river.AddWorker(workers, &sweepWorker{deliverer: d})
	return []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(sweepEvery),
		func() (river.JobArgs, *river.InsertOpts) { return SweepArgs{}, &river.InsertOpts{Queue: WebhookQueue} },
		&river.PeriodicJobOpts{RunOnStart: true})}
}
