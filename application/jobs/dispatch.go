package jobs

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/ports"
)

// Dispatcher keeps the organizations' running slots: a job is queued
// when its organization has a free slot, else held for one, and a job
// that ends, stops for its review, is canceled or is reaped gives its
// slot to its organization's next waiting job. The Creator, the Runner,
// the Canceler and the Reaper share it.
type Dispatcher struct {
	maxRunning int // MaxRunningPerOrg
	maxQueued  int // MaxQueuedPerOrg
	slots      ports.JobSlots
	queue      ports.Queue
	tx         ports.Transactor
	log        *slog.Logger
}

// NewDispatcher returns the dispatcher of the jobs to the queue.
func NewDispatcher(cfg Config, slots ports.JobSlots, queue ports.Queue, tx ports.Transactor, log *slog.Logger) *Dispatcher {
	cfg = cfg.withDefaults()
	return &Dispatcher{maxRunning: cfg.MaxRunningPerOrg, maxQueued: cfg.MaxQueuedPerOrg, slots: slots, queue: queue, tx: tx, log: log}
}

// counts are the organization's running jobs and those queued or
// running; in a transaction it locks the organization's slots.
func (d *Dispatcher) counts(ctx context.Context, orgID string) (active, pending int, err error) {
	return d.slots.Counts(ctx, orgID)
}

// room refuses another job to an organization with pending jobs queued or
// running, when that is the most it may have.
func (d *Dispatcher) room(pending int) error {
	if pending >= d.maxQueued {
		return &domain.Error{Kind: domain.ErrTooMany, Code: domain.CodeQuotaExceeded, RetryAfter: 60,
			Message: fmt.Sprintf("Your organization has %d jobs queued or running, the most it may have; retry when some have finished.", pending)}
	}
	return nil
}

// place queues a queued job when its organization, running active jobs,
// has a free slot, else holds it for one.
func (d *Dispatcher) place(ctx context.Context, j job.Job, active int) error {
	if active >= d.maxRunning { // it waits for a slot of its organization
		return d.slots.Hold(ctx, j.ID)
	}
	return d.queue.Enqueue(ctx, j.OrgID, j.ID, active)
}

// requeue puts a job whose worker was lost back in the queue first in
// line; it keeps the slot it held.
func (d *Dispatcher) requeue(ctx context.Context, j job.Job) error {
	return d.queue.Enqueue(ctx, j.OrgID, j.ID, 0)
}

// dispatch hands the organization's waiting jobs to the queue while it
// has free slots. A failure is only logged: Dispatch, which the workers
// run every few seconds, catches up.
func (d *Dispatcher) dispatch(ctx context.Context, orgID string) {
	if _, err := d.dispatchOrg(context.WithoutCancel(ctx), orgID); err != nil {
		d.log.ErrorContext(ctx, "dispatch waiting jobs", "org_id", orgID, "error", err)
	}
}

func (d *Dispatcher) dispatchOrg(ctx context.Context, orgID string) (int, error) {
	n := 0
	err := d.tx.InTx(ctx, func(ctx context.Context) error {
		n = 0
		active, _, err := d.slots.Counts(ctx, orgID)
		if err != nil {
			return err
		}
		for ; active < d.maxRunning; active++ {
			id, err := d.slots.NextWaiting(ctx, orgID)
			if err != nil || id == "" {
				return err
			}
			if err := d.queue.Enqueue(ctx, orgID, id, active); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	return n, err
}

// Dispatch hands waiting jobs to the queue for every organization with a
// free slot. Jobs end and are canceled with a dispatch of their own; this
// catches up after a node stopped between the two (the Reaper runs it).
func (d *Dispatcher) Dispatch(ctx context.Context) (int, error) {
	orgs, err := d.slots.OrgsWaiting(ctx, 1000)
	if err != nil {
		return 0, err
	}
	total := 0
	for _, org := range orgs {
		n, err := d.dispatchOrg(ctx, org)
		if err != nil {
			return total, fmt.Errorf("dispatch jobs of %s: %w", org, err)
		}
		total += n
	}
	return total, nil
}
