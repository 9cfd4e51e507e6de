package jobs

import (
	"context"
	"fmt"
	"time"

	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/ports"
)

// Outbox is the one path of a job's events, and so the one place a job's
// side effects start. Every change of a job's status (job.queued,
// job.started, job.awaiting_review, job.succeeded, job.failed,
// job.canceled; and job.progress while it runs), by whichever use case
// makes it (Creator, Runner, Canceler, Reaper, application/review),
// stores its event through the Outbox in the transaction that changes the
// job; each Subscriber is told of the event there, before the transaction
// commits, and the event bus tells the job's followers (its event
// streams) on commit. What a subscriber writes (a webhook delivery and its
// queue entry) therefore commits with the job's change and its event, or
// none of them does.
type Outbox struct {
	events ports.JobEvents
	render ports.JobRenderer
	bus    ports.EventBus

	// subscribers hear each event in its transaction.
	subscribers []Subscriber
}

// NewOutbox returns the outbox of the jobs' events, with no subscriber.
func NewOutbox(events ports.JobEvents, render ports.JobRenderer, bus ports.EventBus) *Outbox {
	return &Outbox{events: events, render: render, bus: bus}
}

// Subscriber is a side effect of a job's events: told of each event in
// the transaction that stores it.
//
// A subscriber must be quick and must not call outside the database: it
// runs inside the job's transaction, holding the job's row. Its error
// fails the change.
type Subscriber interface {
	JobEvent(ctx context.Context, j job.Job, ev ports.Event) error
}

// Subscribe registers sub for every event of every job, after those
// registered before it. Bootstrap registers the subscribers where it
// wires the jobs (bootstrap.newOutbox), before any use case runs: today
// the webhooks' fan-out (webhooks.Fanout), which writes the
// deliveries of the events endpoints subscribed to.
func (o *Outbox) Subscribe(sub Subscriber) { o.subscribers = append(o.subscribers, sub) }

// Announce stores a job's event, with the job, and tells its subscribers
// and followers; inside a transaction, the followers hear of it when it
// commits. application/review announces an expired review's job.canceled
// with it.
func (o *Outbox) Announce(ctx context.Context, j job.Job, kind string, at time.Time) error {
	return o.append(ctx, j, kind, at, true)
}

// append stores an event, tells the subscribers and announces it to the
// job's followers. It runs in the transaction that changes the job: the
// subscribers' writes commit with it, and the announcement goes out on
// commit where the bus supports it.
func (o *Outbox) append(ctx context.Context, j job.Job, kind string, at time.Time, withJob bool) error {
	data, err := o.render.Event(j, at, withJob)
	if err != nil {
		return fmt.Errorf("render %s event of job %s: %w", kind, j.ID, err)
	}
	ev, err := o.events.Append(ctx, j.ID, kind, data, at)
	if err != nil {
		return err
	}
	if err := o.tell(ctx, j, ev); err != nil {
		return err
	}
	return o.bus.Publish(ctx, j.ID, ev.Seq)
}

// tell hands a stored event to the subscribers, in its transaction.
func (o *Outbox) tell(ctx context.Context, j job.Job, ev ports.Event) error {
	for _, sub := range o.subscribers {
		if err := sub.JobEvent(ctx, j, ev); err != nil {
			return fmt.Errorf("%s of job %s: %w", ev.Kind, j.ID, err)
		}
	}
	return nil
}
