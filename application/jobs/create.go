package jobs

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/tabnorm/tabnorm/application/upload"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/id"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/importsession"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/normalize"
	"github.com/tabnorm/tabnorm/domain/schema"
	"github.com/tabnorm/tabnorm/ports"
)

// Creator is the creation of jobs: it takes an upload into storage and,
// in one transaction, inserts its job, the job.queued event and its queue
// entry, under the organization's quotas and limits. It also queues again
// a job its review confirmed (Resume), and reports the organization's
// usage against those limits (usage.go).
type Creator struct {
	cfg      Config
	jobs     ports.Jobs
	sessions ports.ImportSessions
	schemas  ports.Schemas
	quotas   ports.Quotas
	blobs    ports.BlobStore
	tables   ports.TableOpener
	tx       ports.Transactor
	clock    ports.Clock
	outbox   *Outbox
	dispatch *Dispatcher
	hooks    HookOpener // hooks.go
}

// NewCreator returns the creation of jobs.
func NewCreator(cfg Config, jobs ports.Jobs, sessions ports.ImportSessions, schemas ports.Schemas, quotas ports.Quotas, blobs ports.BlobStore,
	tables ports.TableOpener, tx ports.Transactor, clock ports.Clock, outbox *Outbox, dispatcher *Dispatcher) *Creator {
	return &Creator{cfg: cfg.withDefaults(), jobs: jobs, sessions: sessions, schemas: schemas, quotas: quotas, blobs: blobs, tables: tables,
		tx: tx, clock: clock, outbox: outbox, dispatch: dispatcher}
}

// NewUpload reserves a job id for an upload; the file goes to storage
// under it before the job row exists.
func (c *Creator) NewUpload(p identity.Principal, filename string) *Upload {
	jobID := id.New(id.Job)
	return &Upload{JobID: jobID, Upload: upload.New(sourceKey(p.OrgID, jobID), filename)}
}

// Store streams the file into storage.
func (c *Creator) Store(ctx context.Context, u *Upload, r io.Reader) error {
	return upload.Store(ctx, c.blobs, c.tables, &u.Upload, r)
}

// Discard removes an upload that did not become a job.
func (c *Creator) Discard(ctx context.Context, u *Upload) {
	if u != nil {
		upload.Discard(ctx, c.blobs, &u.Upload)
	}
}

// Create validates the parameters and, in one transaction, inserts the
// job of an uploaded file, its job.queued event and its queue entry.
func (c *Creator) Create(ctx context.Context, p identity.Principal, u *Upload, in Params) (job.Job, error) {
	if err := importsession.CanPrincipalDo(p, importsession.CreateJob); err != nil {
		return job.Job{}, err
	}
	f := u.File
	return c.Submit(ctx, p, Submission{JobID: u.JobID, SourceType: job.SourceUpload, Params: in,
		Files: []job.File{{ID: id.New(id.File), Filename: u.Filename, Format: string(f.Format), SizeBytes: f.Size, SHA256: f.SHA256}}})
}

// Submit validates the parameters and, in one transaction (joining the
// caller's, if any), inserts the job, its job.queued event and its queue
// entry.
func (c *Creator) Submit(ctx context.Context, p identity.Principal, sub Submission) (job.Job, error) {
	in := sub.Params
	mode, err := normalize.ParseMode(in.Mode)
	if err != nil {
		return job.Job{}, err
	}
	sch, defaults, err := c.targetSchema(ctx, p, mode, in)
	if err != nil {
		return job.Job{}, err
	}
	opts, err := normalize.ParseOptions(mode, in.Options)
	if err != nil {
		return job.Job{}, err
	}
	if len(opts.DestinationIDs) == 0 { // a saved schema's destinations are the default
		opts.DestinationIDs = defaults
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
	if err := c.checkQuota(ctx, p.OrgID, newBytes); err != nil {
		return job.Job{}, err
	}
	j := job.Job{ID: sub.JobID, OrgID: p.OrgID, Name: in.Name, SchemaID: in.SchemaID, Mode: mode, Status: job.Queued, SourceType: sub.SourceType,
		Files: sub.Files, Options: opts.JSON(), Progress: job.Progress{BytesTotal: total}, CreatedAt: c.clock.Now(), RerunOf: sub.RerunOf,
		ImportSessionID: in.ImportSessionID, Metadata: in.Metadata}
	if sch != nil {
		j.Schema = sch.JSON()
	}
	if err := c.queueNew(ctx, j); err != nil {
		return job.Job{}, fmt.Errorf("create job: %w", err)
	}
	return j, nil
}

// targetSchema is the schema a new job conforms to: the one sent, or the
// saved one it names (with the destinations it delivers to by default),
// or none in infer mode.
func (c *Creator) targetSchema(ctx context.Context, p identity.Principal, mode normalize.Mode, in Params) (*schema.Schema, []string, error) {
	switch {
	case in.SchemaID != "" && len(bytes.TrimSpace(in.Schema)) > 0:
		return nil, nil, domain.Invalid("Send schema or schema_id, not both.")
	case in.SchemaID != "":
		saved, err := c.schemas.Get(ctx, p.OrgID, in.SchemaID)
		if err != nil {
			return nil, nil, err
		}
		sch, err := schema.Parse(saved.Document)
		if err != nil {
			return nil, nil, fmt.Errorf("saved schema %s: %w", saved.ID, err)
		}
		if err := c.checkHooks(ctx, p.OrgID, sch); err != nil {
			return nil, nil, err
		}
		return sch, saved.DestinationIDs, nil
	case len(bytes.TrimSpace(in.Schema)) > 0:
		sch, err := schema.Parse(in.Schema)
		if err != nil {
			return nil, nil, domain.PrefixFields(err, "schema.")
		}
		if err := c.checkHooks(ctx, p.OrgID, sch); err != nil {
			return nil, nil, domain.PrefixFields(err, "schema.")
		}
		return sch, nil, nil
	case mode != normalize.ModeInfer:
		return nil, nil, &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidRequest, Message: "A schema is required in " + string(mode) + " mode.",
			Fields: []domain.FieldError{{Field: "schema", Message: "required"}}}
	}
	return nil, nil, nil
}

// queueNew inserts a new job with its job.queued event, and queues it
// when its organization has a free slot, else holds it for one; at most
// MaxQueuedPerOrg of an organization's jobs wait or run.
func (c *Creator) queueNew(ctx context.Context, j job.Job) error {
	return c.tx.InTx(ctx, func(ctx context.Context) error {
		active, pending, err := c.dispatch.counts(ctx, j.OrgID)
		if err != nil {
			return err
		}
		if err := c.checkSessionRoom(ctx, j); err != nil {
			return err
		}
		if err := c.dispatch.room(pending); err != nil {
			return err
		}
		if err := c.jobs.Create(ctx, j); err != nil {
			return err
		}
		if err := c.outbox.append(ctx, j, job.EventQueued, j.CreatedAt, false); err != nil {
			return err
		}
		return c.dispatch.place(ctx, j, active)
	})
}

// checkSessionRoom refuses a job (an upload or a rerun) of an import
// session that was submitted or has made its max_jobs jobs. The session
// is held until the job is inserted, so jobs at the same moment cannot
// pass max_jobs together, and a submit (which holds it too) lists every
// job made before it and refuses every one after.
func (c *Creator) checkSessionRoom(ctx context.Context, j job.Job) error {
	if j.ImportSessionID == "" {
		return nil
	}
	ses, n, err := c.sessions.Hold(ctx, j.OrgID, j.ImportSessionID)
	if err != nil {
		return err
	}
	return ses.TakesJob(c.clock.Now(), n)
}

// Resume queues again a job that stopped for its review, once change (the
// confirmation, application/review) has moved it to queued, under the
// limits of a new job: the monthly quota, the organization's queued jobs
// and its running slots.
func (c *Creator) Resume(ctx context.Context, orgID, jobID string, change func(*job.Job) error) (job.Job, error) {
	if err := c.checkQuota(ctx, orgID, 0); err != nil {
		return job.Job{}, err
	}
	var out job.Job
	err := c.tx.InTx(ctx, func(ctx context.Context) error {
		active, pending, err := c.dispatch.counts(ctx, orgID)
		if err != nil {
			return err
		}
		if err := c.dispatch.room(pending); err != nil {
			return err
		}
		now := c.clock.Now()
		j, err := c.jobs.Update(ctx, orgID, jobID, change)
		if err != nil {
			return err
		}
		if j.Status != job.Queued {
			return fmt.Errorf("resume job %s: it is %s, not queued", jobID, j.Status)
		}
		out = j
		if err := c.outbox.append(ctx, j, job.EventQueued, now, false); err != nil {
			return err
		}
		return c.dispatch.place(ctx, j, active)
	})
	if err != nil {
		return job.Job{}, err
	}
	return out, nil
}
