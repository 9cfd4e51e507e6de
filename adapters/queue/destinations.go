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

// PushArgs is the queue entry of one attempt of a delivery to a
// destination. The attempt number makes a repeated entry for an attempt
// already made do nothing.
type PushArgs struct {
	DeliveryID string `json:"delivery_id"`
	Attempt    int    `json:"attempt"`
	OrgID      string `json:"org_id"`
}

// Kind names the entry type in River's table.
func (PushArgs) Kind() string { return "tabnorm.deliver_rows" }

// DestinationQueue is the River queue of deliveries to destinations and
// their sweep, apart from the jobs' and the webhooks': a destination
// that never answers holds its own workers only.
const DestinationQueue = "destinations"

var _ ports.PushQueue = (*Inserter)(nil)

// EnqueuePush inserts an attempt scheduled at `at`, in the context's
// transaction. An attempt for later gets the lowest priority, so fresh
// deliveries go before a backlog of retries.
func (q *Inserter) EnqueuePush(ctx context.Context, orgID, deliveryID string, attempt int, at time.Time) error {
	tx, ok := sqlstore.TxFrom(ctx)
	if !ok {
		return errors.New("enqueue outside a transaction")
	}
	opts := &river.InsertOpts{ScheduledAt: at, Queue: DestinationQueue, Priority: 1}
	if at.After(time.Now().Add(time.Second)) {
		opts.Priority = laterPriority
	}
	if _, err := q.client.InsertTx(ctx, tx.Tx, PushArgs{DeliveryID: deliveryID, Attempt: attempt, OrgID: orgID}, opts); err != nil {
		return fmt.Errorf("enqueue delivery %s: %w", deliveryID, err)
	}
	return nil
}

type pushWorker struct {
	river.WorkerDefaults[PushArgs]
	pusher  ports.PushDeliverer
	timeout time.Duration
}

// Timeout is the claim's: an attempt past it is made again by another
// worker, so this one must stop.
func (w *pushWorker) Timeout(*river.Job[PushArgs]) time.Duration { return w.timeout }

func (w *pushWorker) Work(ctx context.Context, j *river.Job[PushArgs]) error {
	return w.pusher.Push(ctx, j.Args.DeliveryID, j.Args.Attempt)
}

// PushSweepArgs is the periodic search for overdue deliveries to
// destinations; River runs it on one node.
type PushSweepArgs struct{}

// Kind names the entry type in River's table.
func (PushSweepArgs) Kind() string { return "tabnorm.sweep_destinations" }

type pushSweepWorker struct {
	river.WorkerDefaults[PushSweepArgs]
	pusher ports.PushDeliverer
}

func (w *pushSweepWorker) Work(ctx context.Context, _ *river.Job[PushSweepArgs]) error {
	_, err := w.pusher.Sweep(ctx)
	return err
}

// addPushWorkers registers the delivery and sweep workers and returns the
// sweep's periodic job.
func addPushWorkers(workers *river.Workers, p ports.PushDeliverer, timeout time.Duration) []*river.PeriodicJob {
	if p == nil {
		return nil
	}
	river.AddWorker(workers, &pushWorker{pusher: p, timeout: timeout})
	river.AddWorker(workers, &pushSweepWorker{pusher: p})
	return []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(sweepEvery),
		func() (river.JobArgs, *river.InsertOpts) {
			return PushSweepArgs{}, &river.InsertOpts{Queue: DestinationQueue}
		},
		&river.PeriodicJobOpts{RunOnStart: true})}
}
