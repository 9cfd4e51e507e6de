package destinations

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/destination"
	"github.com/tabnorm/tabnorm/domain/id"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/normalize"
	"github.com/tabnorm/tabnorm/ports"
)

// Fanout writes a job's deliveries, in the transaction that carries ctx.
type Fanout struct {
	destinations ports.Destinations
	pushes       ports.Pushes
	queue        ports.PushQueue
	sessions     ports.ImportSessions
	clock        ports.Clock
}

// NewFanout returns the fan-out of succeeded jobs to their destinations.
func NewFanout(destinations ports.Destinations, pushes ports.Pushes, queue ports.PushQueue, sessions ports.ImportSessions, clock ports.Clock) *Fanout {
	return &Fanout{destinations: destinations, pushes: pushes, queue: queue, sessions: sessions, clock: clock}
}

// JobEvent is a subscriber of the jobs' outbox (jobs.Subscriber,
// registered in bootstrap): on a new job's job.queued it checks that the
// destinations its options name are its organization's (an unknown one
// refuses the job, 400); on job.succeeded it writes a delivery to each,
// with its queue entry, in the transaction that made the job succeed. A
// job of an import session waits for its session's submit (Submitted),
// unless the session was submitted before the job ended.
func (f *Fanout) JobEvent(ctx context.Context, j job.Job, ev ports.Event) error {
	switch {
	case ev.Kind == job.EventQueued && j.StartedAt == nil:
		return f.check(ctx, j)
	case ev.Kind == job.EventSucceeded && j.ImportSessionID == "":
		return f.deliver(ctx, j)
	case ev.Kind == job.EventSucceeded:
		return f.afterSubmit(ctx, j)
	}
	return nil
}

// afterSubmit delivers a job of an import session that succeeds once its
// session has been submitted: the submit delivered the jobs that had
// succeeded, and this one is counted by the session's summary from now
// on. The session's row is held (ImportSessions.Hold) so that a submit
// running at the same time either sees this job succeeded or is seen
// here as submitted: the job is delivered by one of the two, never by
// neither.
func (f *Fanout) afterSubmit(ctx context.Context, j job.Job) error {
	if j.Superseded || len(targets(j)) == 0 {
		return nil
	}
	ses, _, err := f.sessions.Hold(ctx, j.OrgID, j.ImportSessionID)
	if err != nil {
		return err
	}
	if ses.SubmittedAt == nil {
		return nil // the submit will deliver it
	}
	return f.deliver(ctx, j)
}

// targets are the destinations a job's options name.
func targets(j job.Job) []string {
	o, err := normalize.ParseOptions(j.Mode, j.Options)
	if err != nil {
		return nil // stored options were checked when the job was made
	}
	return o.DestinationIDs
}

func (f *Fanout) check(ctx context.Context, j job.Job) error {
	for i, dst := range targets(j) {
		_, err := f.destinations.Get(ctx, j.OrgID, dst)
		if errors.Is(err, domain.ErrNotFound) {
			return &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidRequest, Message: "The options name a destination your organization does not have.",
				Fields: []domain.FieldError{{Field: "options.destination_ids[" + strconv.Itoa(i) + "]", Message: "unknown destination"}}}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// deliver writes a delivery of the job to each of its destinations that
// still exists (one deleted since the job was made is left out).
func (f *Fanout) deliver(ctx context.Context, j job.Job) error {
	ids := targets(j)
	if len(ids) == 0 {
		return nil // most jobs: no read at all
	}
	now := f.clock.Now()
	have, err := f.pushes.OfJob(ctx, j.OrgID, j.ID)
	if err != nil {
		return err
	}
	for _, dst := range ids {
		if slices.ContainsFunc(have, func(d destination.Delivery) bool { return d.DestinationID == dst }) {
			continue // written already (a conflict would end a PostgreSQL transaction)
		}
		if _, err := f.destinations.Get(ctx, j.OrgID, dst); errors.Is(err, domain.ErrNotFound) {
			continue
		} else if err != nil {
			return err
		}
		d := destination.New(id.New(id.Push), j.OrgID, j.ID, dst, now)
		if err := f.pushes.Create(ctx, d); err != nil {
			return fmt.Errorf("delivery of job %s to %s: %w", j.ID, dst, err)
		}
		if err := f.queue.EnqueuePush(ctx, d.OrgID, d.ID, 1, now); err != nil {
			return err
		}
	}
	return nil
}

// Submitted writes the deliveries of an import session's jobs when its
// end user submits it, in the submit's transaction: only the final jobs
// (none a rerun replaced) that succeeded, so a destination receives the
// rows the session's summary counts.
func (f *Fanout) Submitted(ctx context.Context, jobs []job.Job) error {
	for _, j := range jobs {
		if j.Superseded || j.Status != job.Succeeded {
			continue
		}
		if err := f.deliver(ctx, j); err != nil {
			return err
		}
	}
	return nil
}
