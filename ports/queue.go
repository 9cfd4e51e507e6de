package ports

import "context"

// Queue hands jobs to workers. Enqueue joins the transaction carried by
// ctx (see Transactor), so a job row and its queue entry commit together or
// not at all.
type Queue interface {
	Enqueue(ctx context.Context, jobID string) error
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
