// Package jobs runs normalization jobs: it takes uploads into storage,
// queues jobs transactionally, runs them on a worker with leases,
// progress and cancellation, and serves their results.
//
// A job's side effects start from its events, and only there: every
// change of a job's status stores its event through one function (append)
// in the transaction that changes the job, and tells the registered
// Subscribers there (outbox.go), so what they write commits with the
// change or not at all. Bootstrap registers them where it wires the jobs
// (bootstrap.newJobs): today the webhooks service, which writes a
// delivery per subscribed endpoint. RunJob's comment lists what follows a
// job's end.
package jobs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/tabnorm/tabnorm/application/upload"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/id"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/normalize"
	"github.com/tabnorm/tabnorm/domain/schema"
	"github.com/tabnorm/tabnorm/domain/table"
	"github.com/tabnorm/tabnorm/ports"
)

// Config holds the job limits.
type Config struct {
	MaxUploadBytes int64
	MaxRows        int64
	Limits         table.Limits
	JobTimeout     time.Duration
	Lease          time.Duration
	Retention      time.Duration // finished jobs' files are deleted after this (0: kept)
	// NewIndex makes the engine's unique-value indexes (nil: in memory).
	NewIndex func() normalize.UniqueIndex
	// Observer hears of every job that ends on this node (nil: nobody).
	Observer ports.JobObserver
	// MaxRunningPerOrg jobs of an organization run at once (0: 4); the
	// rest wait for its slots without holding back other organizations.
	MaxRunningPerOrg int
	// MaxQueuedPerOrg jobs of an organization may be queued or running
	// (0: 1,000); beyond it creation answers quota_exceeded.
	MaxQueuedPerOrg int
}

// Service is the jobs use cases.
type Service struct {
	cfg       Config
	jobs      ports.Jobs
	events    ports.JobEvents
	schemas   ports.Schemas
	learned   ports.LearnedMappings
	bus       ports.EventBus
	queue     ports.Queue
	slots     ports.JobSlots
	quotas    ports.Quotas
	blobs     ports.BlobStore
	staging   ports.Staging
	tables    ports.TableOpener
	tx        ports.Transactor
	render    ports.JobRenderer
	clock     ports.Clock
	log       *slog.Logger
	lists     ListOpener
	edits     ports.JobEdits
	feeds     feeds         // shared event feeds of the jobs followed on this node
	beatEvery time.Duration // how often a running job's lease is renewed

	// subscribers hear each event in its transaction (outbox.go).
	subscribers []Subscriber
}

// Deps are the ports the jobs service works through.
type Deps struct {
	Jobs    ports.Jobs
	Events  ports.JobEvents
	Schemas ports.Schemas
	Learned ports.LearnedMappings
	Bus     ports.EventBus
	Queue   ports.Queue
	Slots   ports.JobSlots
	Quotas  ports.Quotas
	Blobs   ports.BlobStore
	Staging ports.Staging
	Tables  ports.TableOpener
	Tx      ports.Transactor
	Render  ports.JobRenderer
	Clock   ports.Clock
	Log     *slog.Logger
	// Lists opens the reference lists schemas check (nil: a schema with
	// an inList constraint fails its job).
	Lists ListOpener
	// Edits are the jobs' edits of single cells, which their runs apply.
	Edits ports.JobEdits
}

// NewService returns the jobs service.
func NewService(cfg Config, d Deps) *Service {
	if cfg.Lease <= 0 {
		cfg.Lease = 30 * time.Second
	}
	if cfg.JobTimeout <= 0 {
		cfg.JobTimeout = time.Hour
	}
	if cfg.MaxRunningPerOrg <= 0 {
		cfg.MaxRunningPerOrg = 4
	}
	if cfg.MaxQueuedPerOrg <= 0 {
		cfg.MaxQueuedPerOrg = 1000
	}
	return &Service{cfg: cfg, jobs: d.Jobs, events: d.Events, schemas: d.Schemas, learned: d.Learned, bus: d.Bus, queue: d.Queue, slots: d.Slots,
		quotas: d.Quotas, blobs: d.Blobs, staging: d.Staging, tables: d.Tables, tx: d.Tx, render: d.Render, clock: d.Clock, log: d.Log, lists: d.Lists,
		edits: d.Edits, beatEvery: time.Second}
}

func sourceKey(orgID, jobID string) string { return "org/" + orgID + "/jobs/" + jobID + "/source" }
func resultKey(orgID, jobID, name string) string {
	return "org/" + orgID + "/jobs/" + jobID + "/" + name
}
func jobPrefix(orgID, jobID string) string { return "org/" + orgID + "/jobs/" + jobID + "/" }

// Upload is a job's file while it streams in.
type Upload struct {
	JobID string
	upload.Upload
}

// NewUpload reserves a job id for an upload; the file goes to storage
// under it before the job row exists.
func (s *Service) NewUpload(p identity.Principal, filename string) *Upload {
	jobID := id.New(id.Job)
	return &Upload{JobID: jobID, Upload: upload.New(sourceKey(p.OrgID, jobID), filename)}
}

// Store streams the file into storage.
func (s *Service) Store(ctx context.Context, u *Upload, r io.Reader) error {
	return upload.Store(ctx, s.blobs, s.tables, &u.Upload, r)
}

// Discard removes an upload that did not become a job.
func (s *Service) Discard(ctx context.Context, u *Upload) {
	if u != nil {
		upload.Discard(ctx, s.blobs, &u.Upload)
	}
}

// Params are a job's settings as the client sent them.
type Params struct {
	Mode     string
	Schema   []byte // JSON, or nil
	SchemaID string
	Options  []byte
	Name     string
	// ImportSessionID and Metadata put the job in an import session and
	// give it the session's metadata: set by the service, never read from
	// a client.
	ImportSessionID string
	Metadata        []byte
	// SessionMaxJobs, with ImportSessionID, is how many jobs the session
	// may have: checked in the transaction that inserts the job, under the
	// organization's lock, so that uploads at the same moment cannot pass
	// it together (0: not checked here).
	SessionMaxJobs int
}

// Create validates the parameters and, in one transaction, inserts the
// job of an uploaded file, its job.queued event and its queue entry.
func (s *Service) Create(ctx context.Context, p identity.Principal, u *Upload, in Params) (job.Job, error) {
	f := u.File
	return s.Submit(ctx, p, Submission{JobID: u.JobID, SourceType: job.SourceUpload, Params: in,
		Files: []job.File{{ID: id.New(id.File), Filename: u.Filename, Format: string(f.Format), SizeBytes: f.Size, SHA256: f.SHA256}}})
}

// Submission is a new job: where its files are and how to run it.
type Submission struct {
	JobID      string // "" for a new id
	SourceType job.SourceType
	Files      []job.File
	Params     Params
	RerunOf    string // the job this one reruns (review hook: application/review)
}

// Submit validates the parameters and, in one transaction (joining the
// caller's, if any), inserts the job, its job.queued event and its queue
// entry.
func (s *Service) Submit(ctx context.Context, p identity.Principal, sub Submission) (job.Job, error) {
	in := sub.Params
	mode, err := normalize.ParseMode(in.Mode)
	if err != nil {
		return job.Job{}, err
	}
	sch, err := s.targetSchema(ctx, p, mode, in)
	if err != nil {
		return job.Job{}, err
	}
	opts, err := normalize.ParseOptions(mode, in.Options)
	if err != nil {
		return job.Job{}, err
	}
	if err := opts.CheckFields(sch); err != nil { // value_map names the schema's fields
		return job.Job{}, err
	}
	if len(in.Name) > 200 {
		return job.Job{}, domain.Invalid("name must be at most 200 characters")
	}
	if sub.JobID == "" {
		sub.JobID = id.New(id.Job)
	}
	var total int64
	for _, f := range sub.Files {
		total += f.SizeBytes
	}
	var newBytes int64 // a connect job's files are stored, and counted, already
	if sub.SourceType != job.SourceConnect {
		newBytes = total
	}
	if err := s.checkQuota(ctx, p.OrgID, newBytes); err != nil {
		return job.Job{}, err
	}
	j := job.Job{ID: sub.JobID, OrgID: p.OrgID, Name: in.Name, SchemaID: in.SchemaID, Mode: mode, Status: job.Queued, SourceType: sub.SourceType,
		Files: sub.Files, Options: opts.JSON(), Progress: job.Progress{BytesTotal: total}, CreatedAt: s.clock.Now(), RerunOf: sub.RerunOf,
		ImportSessionID: in.ImportSessionID, Metadata: in.Metadata}
	if sch != nil {
		j.Schema = sch.JSON()
	}
	if err := s.queueNew(ctx, j, in.SessionMaxJobs); err != nil {
		return job.Job{}, fmt.Errorf("create job: %w", err)
	}
	return j, nil
}

// targetSchema is the schema a new job conforms to: the one sent, or the
// saved one it names, or none in infer mode.
func (s *Service) targetSchema(ctx context.Context, p identity.Principal, mode normalize.Mode, in Params) (*schema.Schema, error) {
	switch {
	case in.SchemaID != "" && len(bytes.TrimSpace(in.Schema)) > 0:
		return nil, domain.Invalid("Send schema or schema_id, not both.")
	case in.SchemaID != "":
		saved, err := s.schemas.Get(ctx, p.OrgID, in.SchemaID)
		if err != nil {
			return nil, err
		}
		sch, err := schema.Parse(saved.Document)
		if err != nil {
			return nil, fmt.Errorf("saved schema %s: %w", saved.ID, err)
		}
		return sch, nil
	case len(bytes.TrimSpace(in.Schema)) > 0:
		sch, err := schema.Parse(in.Schema)
		if err != nil {
			return nil, domain.PrefixFields(err, "schema.")
		}
		return sch, nil
	case mode != normalize.ModeInfer:
		return nil, &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidRequest, Message: "A schema is required in " + string(mode) + " mode.",
			Fields: []domain.FieldError{{Field: "schema", Message: "required"}}}
	}
	return nil, nil
}

// queueNew inserts a new job with its job.queued event, and queues it
// when its organization has a free slot, else holds it for one; at most
// MaxQueuedPerOrg of an organization's jobs wait or run.
func (s *Service) queueNew(ctx context.Context, j job.Job, sessionMaxJobs int) error {
	return s.tx.InTx(ctx, func(ctx context.Context) error {
		active, pending, err := s.slots.Counts(ctx, j.OrgID)
		if err != nil {
			return err
		}
		if err := s.checkSessionRoom(ctx, j, sessionMaxJobs); err != nil {
			return err
		}
		if pending >= s.cfg.MaxQueuedPerOrg {
			return &domain.Error{Kind: domain.ErrTooMany, Code: domain.CodeQuotaExceeded, RetryAfter: 60,
				Message: fmt.Sprintf("Your organization has %d jobs queued or running, the most it may have; retry when some have finished.", pending)}
		}
		if err := s.jobs.Create(ctx, j); err != nil {
			return err
		}
		if err := s.append(ctx, j, job.EventQueued, j.CreatedAt, false); err != nil {
			return err
		}
		if active >= s.cfg.MaxRunningPerOrg { // it waits for a slot of its organization
			return s.slots.Hold(ctx, j.ID)
		}
		return s.queue.Enqueue(ctx, j.OrgID, j.ID, active)
	})
}

// checkSessionRoom refuses a job past its import session's max_jobs; it
// runs after Counts has locked the organization's slots.
func (s *Service) checkSessionRoom(ctx context.Context, j job.Job, limit int) error {
	if j.ImportSessionID == "" || limit <= 0 {
		return nil
	}
	have, _, err := s.jobs.List(ctx, j.OrgID, ports.JobFilter{ImportSessionID: j.ImportSessionID}, ports.Page{Limit: limit})
	if err != nil {
		return err
	}
	if len(have) >= limit {
		return domain.Errorf(domain.ErrForbidden, domain.CodeQuotaExceeded, "The import session has made its %d jobs, the most it may make.", limit)
	}
	return nil
}

// append stores an event, tells the subscribers (the job's side effects,
// outbox.go) and announces it to the job's followers. It is the one path
// of a job's events and runs in the transaction that changes the job: the
// subscribers' writes commit with it, and the announcement goes out on
// commit where the bus supports it.
func (s *Service) append(ctx context.Context, j job.Job, kind string, at time.Time, withJob bool) error {
	data, err := s.render.Event(j, at, withJob)
	if err != nil {
		return fmt.Errorf("render %s event of job %s: %w", kind, j.ID, err)
	}
	ev, err := s.events.Append(ctx, j.ID, kind, data, at)
	if err != nil {
		return err
	}
	if err := s.tell(ctx, j, ev); err != nil {
		return err
	}
	return s.bus.Publish(ctx, j.ID, ev.Seq)
}

// Events returns a job's stored events after a sequence number.
func (s *Service) Events(ctx context.Context, p identity.Principal, jobID string, after int) ([]ports.Event, error) {
	if _, err := s.jobs.Get(ctx, p.OrgID, jobID); err != nil {
		return nil, err
	}
	return s.events.After(ctx, jobID, after)
}

// Get returns one of the organization's jobs.
func (s *Service) Get(ctx context.Context, p identity.Principal, jobID string) (job.Job, error) {
	return s.jobs.Get(ctx, p.OrgID, jobID)
}

// List returns the organization's jobs, newest first.
func (s *Service) List(ctx context.Context, p identity.Principal, f ports.JobFilter, page ports.Page) ([]job.Job, string, error) {
	return s.jobs.List(ctx, p.OrgID, f, page)
}

// Cancel stops a queued or running job; a running job's worker notices at
// its next heartbeat (within a second) and stops.
func (s *Service) Cancel(ctx context.Context, p identity.Principal, jobID string) (job.Job, error) {
	var out job.Job
	err := s.tx.InTx(ctx, func(ctx context.Context) error {
		now := s.clock.Now()
		j, err := s.jobs.Update(ctx, p.OrgID, jobID, func(j *job.Job) error { return j.Cancel(now) })
		if err != nil {
			return err
		}
		out = j
		return s.append(ctx, j, job.EventCanceled, now, true)
	})
	if err == nil {
		s.dispatch(ctx, out.OrgID) // its slot, if it held one, is free
	}
	return out, err
}

// dispatch hands the organization's waiting jobs to the queue while it
// has free slots. A failure is only logged: Dispatch, which the workers
// run every few seconds, catches up.
func (s *Service) dispatch(ctx context.Context, orgID string) {
	if _, err := s.dispatchOrg(context.WithoutCancel(ctx), orgID); err != nil {
		s.log.ErrorContext(ctx, "dispatch waiting jobs", "org_id", orgID, "error", err)
	}
}

func (s *Service) dispatchOrg(ctx context.Context, orgID string) (int, error) {
	n := 0
	err := s.tx.InTx(ctx, func(ctx context.Context) error {
		n = 0
		active, _, err := s.slots.Counts(ctx, orgID)
		if err != nil {
			return err
		}
		for ; active < s.cfg.MaxRunningPerOrg; active++ {
			id, err := s.slots.NextWaiting(ctx, orgID)
			if err != nil || id == "" {
				return err
			}
			if err := s.queue.Enqueue(ctx, orgID, id, active); err != nil {
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
// catches up after a node stopped between the two.
func (s *Service) Dispatch(ctx context.Context) (int, error) {
	orgs, err := s.slots.OrgsWaiting(ctx, 1000)
	if err != nil {
		return 0, err
	}
	total := 0
	for _, org := range orgs {
		n, err := s.dispatchOrg(ctx, org)
		if err != nil {
			return total, fmt.Errorf("dispatch jobs of %s: %w", org, err)
		}
		total += n
	}
	return total, nil
}

// Delete removes a job, its file and its results. A running job is
// canceled first.
func (s *Service) Delete(ctx context.Context, p identity.Principal, jobID string) error {
	j, err := s.jobs.Get(ctx, p.OrgID, jobID)
	if err != nil {
		return err
	}
	if !j.Status.Terminal() {
		if _, err := s.Cancel(ctx, p, jobID); err != nil && domain.CodeOf(err) != domain.CodeJobNotCancelable {
			return err
		}
	}
	if err := s.jobs.Delete(ctx, p.OrgID, jobID); err != nil {
		return err
	}
	if err := s.blobs.DeletePrefix(ctx, jobPrefix(p.OrgID, jobID)); err != nil {
		s.log.ErrorContext(ctx, "delete job files", "job_id", jobID, "error", err)
	}
	return nil
}

var _ ports.Purger = (*Service)(nil)

// Purge deletes the files (source and results) of jobs that finished more
// than the retention ago; the jobs themselves stay, and their results then
// answer 404. It works in batches until none is left.
func (s *Service) Purge(ctx context.Context) (int, error) {
	if s.cfg.Retention <= 0 {
		return 0, nil
	}
	n := 0
	for {
		old, err := s.jobs.FinishedBefore(ctx, s.clock.Now().Add(-s.cfg.Retention), 200)
		if err != nil || len(old) == 0 {
			return n, err
		}
		for _, pair := range old {
			if err := s.blobs.DeletePrefix(ctx, jobPrefix(pair[0], pair[1])); err != nil {
				return n, err
			}
			if err := s.jobs.MarkPurged(ctx, pair[1], s.clock.Now()); err != nil {
				return n, err
			}
			n++
		}
	}
}

// Result names a result file of a job.
type Result string

// The result files of a job.
const (
	Rows   Result = "rows.jsonl"   // the valid rows, one JSON object a line
	Issues Result = "issues.jsonl" // the issues, one JSON object a line
)

// OpenResult opens a finished job's rows or issues from a byte offset.
func (s *Service) OpenResult(ctx context.Context, p identity.Principal, jobID string, r Result, offset int64) (job.Job, io.ReadCloser, error) {
	j, err := s.jobs.Get(ctx, p.OrgID, jobID)
	if err != nil {
		return j, nil, err
	}
	if j.Status != job.Succeeded {
		return j, nil, j.NotFinished()
	}
	rc, err := s.blobs.Open(ctx, resultKey(j.OrgID, j.ID, string(r)), offset, -1)
	if errors.Is(err, domain.ErrNotFound) {
		return j, nil, domain.Errorf(domain.ErrNotFound, domain.CodeNotFound, "The job's results were deleted (retention).")
	}
	return j, rc, err
}

// ResultSize is the size in bytes of a job's rows or issues, for a
// download's length and ranges.
func (s *Service) ResultSize(ctx context.Context, j job.Job, r Result) (int64, error) {
	return s.blobs.Size(ctx, resultKey(j.OrgID, j.ID, string(r)))
}

// FieldNames returns a job's schema field names in order (the CSV header).
func FieldNames(j job.Job) []string {
	if j.Schema == nil {
		return nil
	}
	s, err := schema.Parse(j.Schema)
	if err != nil {
		return nil
	}
	names := make([]string, len(s.Fields))
	for i, f := range s.Fields {
		names[i] = f.Name
	}
	return names
}
