package webhooks

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/webhook"
	"github.com/tabnorm/tabnorm/ports"
)

// Fanout writes the deliveries of an event to every enabled endpoint of
// its organization that subscribed to it, in the caller's transaction.
type Fanout struct {
	endpoints  ports.WebhookEndpoints
	deliveries ports.WebhookDeliveries
	queue      ports.WebhookQueue
	render     ports.JobRenderer
	clock      ports.Clock
}

// NewFanout returns the fan-out of events to endpoints.
func NewFanout(endpoints ports.WebhookEndpoints, deliveries ports.WebhookDeliveries, queue ports.WebhookQueue, render ports.JobRenderer,
	clock ports.Clock) *Fanout {
	return &Fanout{endpoints: endpoints, deliveries: deliveries, queue: queue, render: render, clock: clock}
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
func (s *Fanout) JobEvent(ctx context.Context, j job.Job, ev ports.Event) error {
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
		if _, err := addDelivery(ctx, s.deliveries, s.queue, e, kind, ev.Seq, data, now); err != nil {
			return fmt.Errorf("webhook %s of job %s: %w", kind, j.ID, err)
		}
	}
	return nil
}

// Announce writes the deliveries of an event that is not a job's change
// of status (import_session.submitted) to every enabled endpoint of the
// organization that subscribed to it, in the transaction carried by ctx.
func (s *Fanout) Announce(ctx context.Context, orgID, kind string, data any) error {
	endpoints, err := s.endpoints.Enabled(ctx, orgID)
	if err != nil {
		return err
	}
	now := s.clock.Now()
	for _, e := range endpoints {
		if !e.Subscribed(kind) {
			continue
		}
		if _, err := addDelivery(ctx, s.deliveries, s.queue, e, kind, 0, data, now); err != nil { // no job event: no seq
			return fmt.Errorf("webhook %s: %w", kind, err)
		}
	}
	return nil
}
