package jobs

import (
	"context"
	"fmt"

	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/ports"
)

// Subscriber is a side effect of a job's events. Every change of a job's
// status stores its event (job.queued, job.started, job.awaiting_review,
// job.succeeded, job.failed, job.canceled; and job.progress while it runs)
// through one function, append, in the transaction that changes the job;
// each subscriber is told of the event there, before the transaction
// commits. What a subscriber writes (a webhook delivery and its queue
// entry) therefore commits with the job's change and its event, or none of
// them does: the job's events are an outbox, and the subscribers are the
// only place a job's side effects start.
//
// A subscriber must be quick and must not call outside the database: it
// runs inside the job's transaction, holding the job's row. Its error
// fails the change.
type Subscriber interface {
	JobEvent(ctx context.Context, j job.Job, ev ports.Event) error
}

// Subscribe registers sub for every event of every job, after those
// registered before it. Bootstrap registers the subscribers where it
// wires the jobs service, before the service is used: today the webhooks
// service (application/webhooks), which writes the deliveries of the
// events endpoints subscribed to.
func (s *Service) Subscribe(sub Subscriber) { s.subscribers = append(s.subscribers, sub) }

// tell hands a stored event to the subscribers, in its transaction.
func (s *Service) tell(ctx context.Context, j job.Job, ev ports.Event) error {
	for _, sub := range s.subscribers {
		if err := sub.JobEvent(ctx, j, ev); err != nil {
			return fmt.Errorf("%s of job %s: %w", ev.Kind, j.ID, err)
		}
	}
	return nil
}
