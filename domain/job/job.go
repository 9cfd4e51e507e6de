// Package job is the job entity and its state machine (API.md §5.3):
//
//	queued → running → succeeded | failed
//	queued | running → canceled            (by the client)
//	running → queued                       (worker lost; after 3 attempts → failed worker_lost)
//	running → awaiting_review → queued     (options.review: a person confirms the mapping; review.go)
//	awaiting_review → canceled             (by the client, or when the review expires)
//
// Terminal: succeeded, failed, canceled. Every change is a method taking
// the time, returning ErrTransition for a move the table does not allow.
package job

import (
	"fmt"
	"time"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/normalize/mode"
	"github.com/tabnorm/tabnorm/domain/normalize/review"
)

// Status is where a job is in its life.
type Status string

// The statuses (API.md §5.3).
const (
	Queued    Status = "queued"
	Running   Status = "running"
	Succeeded Status = "succeeded"
	Failed    Status = "failed"
	Canceled  Status = "canceled"
)

// Statuses lists every status.
var Statuses = []Status{Queued, Running, AwaitingReview, Succeeded, Failed, Canceled}

// ParseStatus validates a status filter.
func ParseStatus(s string) (Status, error) {
	for _, st := range Statuses {
		if string(st) == s {
			return st, nil
		}
	}
	return "", domain.Invalid("status must be one of queued, running, awaiting_review, succeeded, failed, canceled")
}

// Terminal reports whether no further transition is possible.
func (s Status) Terminal() bool { return s == Succeeded || s == Failed || s == Canceled }

// MaxAttempts is how many times a job may start before a lost worker
// fails it.
const MaxAttempts = 3

// File is one input file of a job.
type File struct {
	ID        string
	Filename  string
	Format    string
	SizeBytes int64
	SHA256    string
}

// Progress counts what a run has done so far.
type Progress struct {
	RowsRead     int64
	RowsValid    int64
	RowsRejected int64
	BytesRead    int64
	BytesTotal   int64
}

// Percent is the share of input bytes read, 0–100.
func (p Progress) Percent() float64 {
	if p.BytesTotal <= 0 {
		return 0
	}
	v := float64(p.BytesRead) * 100 / float64(p.BytesTotal)
	return min(100, float64(int(v*10))/10)
}

// SourceType is where a job's files come from (source.type).
type SourceType string

// The sources.
const (
	SourceUpload  SourceType = "upload"  // one file uploaded with the job
	SourceConnect SourceType = "connect" // files of the connect library, read in order as one table
)

// Failure is why a job failed, with a stable code.
type Failure struct {
	Code    domain.Code
	Message string
}

// Job is one normalization run over one or more files.
type Job struct {
	ID         string
	OrgID      string
	Name       string // "" when unnamed
	Mode       mode.Mode
	Status     Status
	SourceType SourceType
	Files      []File
	SchemaID   string
	Schema     []byte // canonical JSON of the target schema; nil in infer mode without one
	Options    []byte // canonical JSON of the effective options
	Progress   Progress
	Mapping    []byte  // the API's JSON array of mapping entries, once known
	Result     *Result // once succeeded
	Failure    *Failure
	Attempts   int
	CreatedAt  time.Time
	StartedAt  *time.Time
	FinishedAt *time.Time
	// Review is the review of the job's column mapping (options.review),
	// as the engine made it; nil for a job that was never reviewed.
	Review *review.Review
	// ReviewSince is when the job last stopped to await its review; the
	// review expires a TTL later.
	ReviewSince *time.Time
	// ReviewedAt is when a person confirmed the review: the job then runs
	// without stopping again.
	ReviewedAt *time.Time
	// RerunOf is the job this one reruns on the same files ("" for none).
	RerunOf string
	// Superseded says a later job reruns this one: the rerun replaces it,
	// so a summary of its import session counts the rerun instead. It is
	// found when the job is read, never stored.
	Superseded bool
	// ImportSessionID is the import session the job was created in ("" for
	// none), and Metadata the session's metadata (a JSON object) it carries.
	ImportSessionID string
	Metadata        []byte
}

// Teaches reports whether the job's explicit mappings are learned for
// its organization's next jobs: only with a saved schema, and never from
// an import session, whose end users are not the organization's people
// and must not change how its own files are mapped.
func (j Job) Teaches() bool { return j.SchemaID != "" && j.ImportSessionID == "" }

// Event names of API.md §5.5.
const (
	EventQueued    = "job.queued"
	EventStarted   = "job.started"
	EventProgress  = "job.progress"
	EventSucceeded = "job.succeeded"
	EventFailed    = "job.failed"
	EventCanceled  = "job.canceled"
)

// ErrTransition is returned for a move the state machine does not allow.
var ErrTransition = fmt.Errorf("%w: job state transition not allowed", domain.ErrConflict)

func (j *Job) illegal(to Status) error {
	return fmt.Errorf("%w: %s → %s", ErrTransition, j.Status, to)
}

// Start moves a queued job to running and counts the attempt.
func (j *Job) Start(now time.Time) error {
	if j.Status != Queued {
		return j.illegal(Running)
	}
	j.Status = Running
	j.Attempts++
	if j.StartedAt == nil {
		t := now.UTC()
		j.StartedAt = &t
	}
	return nil
}

// Succeed ends a running job with its result.
func (j *Job) Succeed(now time.Time, result Result) error {
	if j.Status != Running {
		return j.illegal(Succeeded)
	}
	j.Status, j.Result = Succeeded, &result
	j.finish(now)
	return nil
}

// Fail ends a running job with a reason.
func (j *Job) Fail(now time.Time, f Failure) error {
	if j.Status != Running {
		return j.illegal(Failed)
	}
	j.Status, j.Failure = Failed, &f
	j.finish(now)
	return nil
}

// Cancel ends a queued or running job at the client's request; a
// terminal job answers job_not_cancelable.
func (j *Job) Cancel(now time.Time) error {
	if j.Status.Terminal() {
		return domain.Errorf(domain.ErrConflict, domain.CodeJobNotCancelable, "The job is already %s.", j.Status)
	}
	j.Status = Canceled
	j.finish(now)
	return nil
}

// Requeue puts a running job whose worker was lost back in the queue, or
// fails it with worker_lost once it has used its attempts. It reports
// whether the job will run again.
func (j *Job) Requeue(now time.Time) (bool, error) {
	if j.Status != Running {
		return false, j.illegal(Queued)
	}
	if j.Attempts >= MaxAttempts {
		j.Status = Failed
		j.Failure = &Failure{Code: domain.CodeWorkerLost, Message: fmt.Sprintf("The job's worker was lost %d times.", j.Attempts)}
		j.finish(now)
		return false, nil
	}
	j.Status = Queued
	j.Progress = Progress{BytesTotal: j.Progress.BytesTotal}
	return true, nil
}

func (j *Job) finish(now time.Time) {
	t := now.UTC()
	j.FinishedAt = &t
}

// NotFinished is the error for results asked of a job that has not succeeded.
func (j *Job) NotFinished() error {
	return domain.Errorf(domain.ErrConflict, domain.CodeJobNotFinished, "The job is %s; results exist once it has succeeded.", j.Status)
}
