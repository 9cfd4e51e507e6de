package queue

import (
	"context"
	"encoding/json"
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
// transaction, on the webhooks' own queue.
func (q *Inserter) EnqueueDelivery(ctx context.Context, orgID, deliveryID string, attempt int, at time.Time) error {
	tx, ok := sqlstore.TxFrom(ctx)
	if !ok {
		return errors.New("enqueue outside a transaction")
	}
	args := DeliveryArgs{DeliveryID: deliveryID, Attempt: attempt, OrgID: orgID}
	if _, err := q.client.InsertTx(ctx, tx.Tx, args, &river.InsertOpts{ScheduledAt: at, Queue: WebhookQueue}); err != nil {
		return fmt.Errorf("enqueue webhook delivery %s: %w", deliveryID, err)
	}
	return nil
}

type deliveryWorker struct {
	river.WorkerDefaults[DeliveryArgs]
	deliverer ports.WebhookDeliverer
	share     *orgShare
	// insert adds an entry (set once the client exists).
	insert func(context.Context, river.JobArgs, *river.InsertOpts) error
}

// Timeout leaves the sender's own 15 s limit room to answer first.
func (w *deliveryWorker) Timeout(*river.Job[DeliveryArgs]) time.Duration { return time.Minute }

// deferred is the priority of an attempt put back because its
// organization had its share in flight: River fetches by priority first,
// so another organization's fresh attempts (priority 1) go ahead of a
// backlog that cannot run yet, however long it is.
const deferred = 4

// Work makes the attempt unless its organization already has its share
// of attempts in flight here: endpoints that never answer hold a worker
// up to the sender's timeout, and one organization's must not hold them
// all. Such an attempt is queued again behind every fresh one, after a
// wait that grows while the organization stays busy, and this entry ends
// (a repeat, should both run, finds the attempt made and does nothing).
func (w *deliveryWorker) Work(ctx context.Context, j *river.Job[DeliveryArgs]) error {
	if !w.share.take(j.Args.OrgID) {
		wait := backoff(j.Metadata, busyDeliveryMost)
		if w.insert == nil {
			return river.JobSnooze(wait)
		}
		meta, _ := json.Marshal(map[string]int{"snoozes": snoozes(j.Metadata) + 1})
		return w.insert(ctx, j.Args, &river.InsertOpts{Queue: WebhookQueue, Priority: deferred, ScheduledAt: time.Now().Add(wait), Metadata: meta})
	}
	defer w.share.give(j.Args.OrgID)
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
func addDeliveryWorkers(workers *river.Workers, dw *deliveryWorker) []*river.PeriodicJob {
	if dw.deliverer == nil {
		return nil
	}
	river.AddWorker(workers, dw)
	river.AddWorker(workers, &sweepWorker{deliverer: dw.deliverer})
	return []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(sweepEvery),
		func() (river.JobArgs, *river.InsertOpts) { return SweepArgs{}, &river.InsertOpts{Queue: WebhookQueue} },
		&river.PeriodicJobOpts{RunOnStart: true})}
}
