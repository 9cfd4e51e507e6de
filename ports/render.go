package ports

import (
	"time"

	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/normalize/match"
)

// JobRenderer writes a job's documents in the format its clients read.
// The use cases store some of them as things happen (a job's events, its
// mapping, the payload of a webhook delivery), but the format is the
// API's: the HTTP adapter renders them, so that each is written in one
// place. A job's result is not one of them: the job keeps it typed
// (job.Result), and the HTTP adapter renders it when the job is read.
type JobRenderer interface {
	// Job is the job object.
	Job(j job.Job) ([]byte, error)
	// Event is the data of an event of the job at time at; withJob adds
	// the job object (the events that end a job carry it).
	Event(j job.Job, at time.Time, withJob bool) ([]byte, error)
	// Mapping is the job's mapping of source columns to fields.
	Mapping(entries []match.Entry) ([]byte, error)
}
