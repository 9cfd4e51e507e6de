package ports

import (
	"context"
	"time"

	"github.com/tabnorm/tabnorm/domain/job"
)

// JobFilter narrows a job list.
type JobFilter struct {
	Status     job.Status     // "" for every status
	SourceType job.SourceType // "" for every source
	// ImportSessionID keeps the jobs of one import session ("" for all).
	ImportSessionID string
}

// Jobs stores jobs. Reads and writes of an organization's job take its
// organization, so another organization's job is simply not found.
type Jobs interface {
	Create(ctx context.Context, j job.Job) error
	Get(ctx context.Context, orgID, id string) (job.Job, error)
	List(ctx context.Context, orgID string, f JobFilter, page Page) (jobs []job.Job, next string, err error)
	// Update reads the job, lets fn change it and writes it back, in one
	// transaction holding the row; fn's error aborts and is returned.
	Update(ctx context.Context, orgID, id string, fn func(*job.Job) error) (job.Job, error)
	// Heartbeat stores progress and extends the lease of a running job, and
	// returns the job's status, so the worker notices a cancellation.
	Heartbeat(ctx context.Context, id string, p job.Progress, leaseUntil time.Time) (job.Status, error)
	Delete(ctx context.Context, orgID, id string) error
	// Expired lists running jobs whose lease ended before now.
	Expired(ctx context.Context, now time.Time) (orgAndJobIDs [][2]string, err error)
	// FinishedBefore lists finished jobs whose files are not yet purged.
	FinishedBefore(ctx context.Context, t time.Time, limit int) (orgAndJobIDs [][2]string, err error)
	MarkPurged(ctx context.Context, id string, now time.Time) error
}

// Event is one stored job event; Seq increases by one per job from 1.
type Event struct {
	JobID string
	Seq   int
	Kind  string
	Data  []byte // JSON
	At    time.Time
}

// JobEvents stores each job's events in order.
type JobEvents interface {
	// Append stores an event with the job's next sequence number.
	Append(ctx context.Context, jobID, kind string, data []byte, at time.Time) (Event, error)
	// After returns the job's events with Seq > after, in order.
	After(ctx context.Context, jobID string, after int) ([]Event, error)
}

// JobSlots keeps each organization's share of the workers: a queued job
// is either dispatched (it holds a running slot and has a queue entry) or
// waiting for a slot of its organization.
type JobSlots interface {
	// Counts locks the organization's slots until the transaction in ctx
	// ends and counts its active jobs (running, or queued and dispatched)
	// and its pending ones (queued or running).
	Counts(ctx context.Context, orgID string) (active, pending int, err error)
	// Hold marks a queued job as waiting for a slot.
	Hold(ctx context.Context, jobID string) error
	// NextWaiting returns the organization's oldest waiting job and marks
	// it dispatched; "" when none waits.
	NextWaiting(ctx context.Context, orgID string) (jobID string, err error)
	// OrgsWaiting lists organizations that have waiting jobs.
	OrgsWaiting(ctx context.Context, limit int) ([]string, error)
}

// Quotas stores the operator's monthly quotas and sums what an
// organization used against them.
type Quotas interface {
	Get(ctx context.Context, orgID string) (job.Quota, error)
	Set(ctx context.Context, orgID string, q job.Quota, now time.Time) error
	// Usage sums the rows read by the organization's jobs that finished
	// since since, and the bytes of its stored source files.
	Usage(ctx context.Context, orgID string, since time.Time) (rows, storage int64, err error)
}
