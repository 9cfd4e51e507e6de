package ports

import (
	"context"

	"github.com/tabnorm/tabnorm/domain/job"
)

// Queue hands jobs to workers. Enqueue joins the transaction carried by
// ctx (see Transactor), so a job row and its queue entry commit together or
// not at all.
type Queue interface {
	// Enqueue adds the job's entry; rank is how many jobs of its
	// organization are already active, and a lower rank is fetched first,
	// so a busy organization's later jobs do not hold back another's first.
	// orgID lets a worker share its node fairly between organizations.
	Enqueue(ctx context.Context, orgID, jobID string, rank int) error
}

// JobRunner runs one job to its end; the queue's workers call it. An error
// means the run did not finish and the queue may try again.
type JobRunner interface {
	RunJob(ctx context.Context, jobID string) error
}

// Purger deletes the files of jobs finished longer ago than the retention.
type Purger interface {
	Purge(ctx context.Context) (int, error)
}

// JobObserver hears of every job that reached its end on this node, for
// the operator's metrics.
type JobObserver interface {
	JobFinished(j job.Job)
}
