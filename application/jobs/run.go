package jobs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/normalize"
	"github.com/tabnorm/tabnorm/domain/schema"
	"github.com/tabnorm/tabnorm/ports"
)

// Runner runs queued jobs, one RunJob a queue entry: it is the queue's
// ports.JobRunner. A run stages the job's files (Sources), runs the engine
// over them into its result blobs while a lease keeps the job alive
// (lease.go), stops for a review when the job asks for one (review.go),
// and stores its result and the mappings it taught (result.go). Its
// events go through the Outbox, where the job's side effects start; its
// slot goes back to the Dispatcher.
type Runner struct {
	cfg       Config
	jobs      ports.Jobs
	learned   ports.LearnedMappings
	edits     ports.JobEdits
	blobs     ports.BlobStore
	render    ports.JobRenderer
	tx        ports.Transactor
	clock     ports.Clock
	log       *slog.Logger
	sources   *Sources
	outbox    *Outbox
	dispatch  *Dispatcher
	beatEvery time.Duration // how often a running job's lease is renewed
}

// NewRunner returns the runner of jobs. edits are the jobs' edits of
// single cells, which their runs apply (nil: none).
func NewRunner(cfg Config, jobs ports.Jobs, learned ports.LearnedMappings, edits ports.JobEdits, blobs ports.BlobStore, render ports.JobRenderer,
	tx ports.Transactor, clock ports.Clock, log *slog.Logger, sources *Sources, outbox *Outbox, dispatcher *Dispatcher) *Runner {
	return &Runner{cfg: cfg.withDefaults(), jobs: jobs, learned: learned, edits: edits, blobs: blobs, render: render, tx: tx, clock: clock, log: log,
		sources: sources, outbox: outbox, dispatch: dispatcher, beatEvery: time.Second}
}

var _ ports.JobRunner = (*Runner)(nil)

var tracer = otel.Tracer("github.com/tabnorm/tabnorm/application/jobs")

// errSkip means the queue entry has nothing to do: the job was canceled,
// finished, or is being run by a live worker.
var errSkip = errors.New("nothing to run")

// errCanceled means the job was canceled while it ran.
var errCanceled = errors.New("job canceled")

// RunJob runs one queued job to its end. It is what the queue's workers
// call; an error asks the queue to try again later.
//
// Everything that follows a job's end starts here:
//   - end (finish) moves the job to succeeded or failed and stores its
//     terminal event through the Outbox (outbox.go) in one transaction,
//     in which the Outbox's subscribers (bootstrap.newOutbox registers
//     the webhooks, which write their deliveries) act; on commit the
//     event bus tells the job's followers (its event streams);
//   - announce then logs the end, counts it for the metrics
//     (Config.Observer) and gives the job's slot to its organization's
//     waiting jobs (the Dispatcher).
//
// A job that ends otherwise (the Canceler, the Reaper's worker_lost, a
// review's expiry, awaiting_review) stores its event through the same
// Outbox, so the subscribers hear of every end.
func (r *Runner) RunJob(ctx context.Context, jobID string) (err error) {
	ctx, span := tracer.Start(ctx, "job.run", trace.WithAttributes(attribute.String("tabnorm.job_id", jobID)))
	defer func() {
		if err != nil {
			span.SetStatus(codes.Error, err.Error())
		}
		span.End()
	}()
	j, err := r.start(ctx, jobID)
	if err != nil {
		return skipped(err)
	}
	span.SetAttributes(attribute.String("tabnorm.org_id", j.OrgID))
	runCtx, cancel := context.WithTimeout(ctx, r.cfg.JobTimeout)
	defer cancel()
	res, runErr := r.run(runCtx, cancel, j)
	if j, err = r.end(ctx, j, res, runErr); err != nil {
		return skipped(err)
	}
	r.announce(ctx, j)
	return nil
}

// skipped is err, or nil when it only says there is nothing to do.
func skipped(err error) error {
	if errors.Is(err, errSkip) {
		return nil
	}
	return err
}

// start claims a queued job for this worker: it moves to running, takes
// its lease and tells its subscribers. errSkip: there is nothing to run,
// or the job was canceled already (Cancel told its subscribers and freed
// its slot).
//
// The change and its job.started event share one transaction, as every
// change of status and its event do: the event's sequence number is the
// one the change's webhook deliveries carry.
func (r *Runner) start(ctx context.Context, jobID string) (job.Job, error) {
	var j job.Job
	var status job.Status
	err := r.tx.InTx(context.WithoutCancel(ctx), func(ctx context.Context) error {
		now := r.clock.Now()
		var err error
		j, err = r.jobs.Update(ctx, "", jobID, func(j *job.Job) error {
			if j.Status != job.Queued {
				return errSkip
			}
			return j.Start(now)
		})
		if err != nil {
			return fmt.Errorf("start job %s: %w", jobID, err)
		}
		status, err = r.runningEvent(ctx, j, job.EventStarted)
		return err
	})
	if err != nil {
		return job.Job{}, err
	}
	if status != job.Running {
		return job.Job{}, errSkip
	}
	return j, nil
}

// end records how a run ended: the job succeeds with its result or fails
// with a code. errSkip: the job was canceled meanwhile, and Cancel already
// moved it, told its subscribers and freed its slot. Any other error asks
// for the run to be tried again.
func (r *Runner) end(ctx context.Context, j job.Job, result job.Result, runErr error) (job.Job, error) {
	now := r.clock.Now()
	switch {
	case runErr == nil:
		return r.finish(ctx, j.ID, func(j *job.Job) error { return j.Succeed(now, result) })
	case errors.Is(runErr, errCanceled):
		return j, errSkip
	case errors.Is(runErr, errAwaitingReview):
		return j, errSkip // the job stopped for its review (review.go), which told its subscribers
	case errors.Is(runErr, context.DeadlineExceeded) && ctx.Err() == nil:
		return r.finish(ctx, j.ID, func(j *job.Job) error {
			return j.Fail(now, job.Failure{Code: domain.CodeJobTimeout, Message: fmt.Sprintf("The job ran longer than %s.", r.cfg.JobTimeout)})
		})
	case ctx.Err() != nil:
		return j, ctx.Err() // the worker is stopping: the queue retries, the lease reaper requeues
	}
	var f *normalize.Failure
	if !errors.As(runErr, &f) { // infrastructure trouble: try again
		r.log.WarnContext(ctx, "job will be retried", "job_id", j.ID, "org_id", j.OrgID, "error", runErr)
		return j, fmt.Errorf("run job %s: %w", j.ID, runErr)
	}
	if f.Stack != "" { // a bug: the job fails as internal_error, the stack goes to the log
		r.log.ErrorContext(ctx, "engine panic", "job_id", j.ID, "stack", f.Stack)
	}
	return r.finish(ctx, j.ID, func(j *job.Job) error { return j.Fail(now, job.Failure{Code: f.Code, Message: f.Message}) })
}

// finish applies the final transition unless the job was canceled
// meanwhile, and stores its terminal event in the same transaction: a
// job is never over without the event that tells its followers (and its
// webhooks) so.
func (r *Runner) finish(ctx context.Context, jobID string, fn func(*job.Job) error) (job.Job, error) {
	var out job.Job
	err := r.tx.InTx(context.WithoutCancel(ctx), func(ctx context.Context) error {
		j, err := r.jobs.Update(ctx, "", jobID, func(j *job.Job) error {
			if j.Status != job.Running {
				return errSkip
			}
			return fn(j)
		})
		if err != nil {
			return err
		}
		out = j
		return r.outbox.append(ctx, j, terminalEvent(j), r.clock.Now(), true)
	})
	return out, err
}

// terminalEvent is the kind of the event a finished run ends with.
func terminalEvent(j job.Job) string {
	if j.Status == job.Failed {
		return job.EventFailed
	}
	return job.EventSucceeded
}

// announce tells of a job that ended on this node: the operator's log and
// metrics, the job's subscribers, and its organization's waiting jobs,
// which get its slot.
func (r *Runner) announce(ctx context.Context, j job.Job) {
	if j.Status == job.Failed {
		// The caller sees the failure in the job; the operator sees it here,
		// by ids and code only (the message may quote the caller's data).
		r.log.WarnContext(ctx, "job failed", "job_id", j.ID, "org_id", j.OrgID, "code", j.Failure.Code)
	} else {
		r.log.InfoContext(ctx, "job succeeded", "job_id", j.ID, "org_id", j.OrgID, "rows", j.Progress.RowsRead)
	}
	if r.cfg.Observer != nil {
		r.cfg.Observer.JobFinished(j)
	}
	r.dispatch.dispatch(ctx, j.OrgID)
}

// run runs the engine over the job's files, staged locally in a working
// folder, into its result blobs, and returns the job's result. A lease
// keeps the job alive and watches for its cancellation (which calls
// cancel) from the start: a job canceled while its files are staged or
// its sample read stops within a beat, as one canceled in the engine does.
func (r *Runner) run(ctx context.Context, cancel context.CancelFunc, j job.Job) (job.Result, error) {
	l := r.holdLease(ctx, j, cancel)
	res, err := r.runLeased(ctx, l, j)
	if l.end() {
		return job.Result{}, errCanceled
	}
	return res, err
}

func (r *Runner) runLeased(ctx context.Context, l *lease, j job.Job) (job.Result, error) {
	dir, remove, err := r.sources.workdir(ctx, "run", j.ID)
	if err != nil {
		return job.Result{}, err
	}
	defer remove()
	paths, err := r.sources.stage(ctx, j, dir)
	if err != nil {
		return job.Result{}, err
	}
	in, err := r.input(ctx, j, paths)
	if err != nil {
		return job.Result{}, err
	}
	closeLists, err := r.sources.openLists(ctx, j, &in)
	if err != nil {
		return job.Result{}, err
	}
	defer closeLists()
	if err := r.sources.openHooks(ctx, j, &in); err != nil {
		return job.Result{}, err
	}
	if in.Options.Review && j.ReviewedAt == nil { // review hook (review.go): stop after the sample
		return job.Result{}, r.review(ctx, l, j, in)
	}
	out, err := r.createResults(ctx, j)
	if err != nil {
		return job.Result{}, err
	}
	in.OnProgress = r.reportProgress(ctx, j, l)
	normCtx, normSpan := tracer.Start(ctx, "job.normalize")
	res, err := normalize.Run(normCtx, in, normalize.Output{Rows: out.rows, Issues: out.issues})
	normSpan.SetAttributes(attribute.Int64("tabnorm.rows", res.RowCount))
	normSpan.End()
	if canceled := l.isCanceled(); canceled || err != nil {
		out.abandon()
		if canceled {
			return job.Result{}, errCanceled
		}
		return job.Result{}, err
	}
	return r.saveResult(ctx, j, res, out)
}

// input is the engine's input for a job: its mode, options and schema,
// its staged files in order, and the mappings learned for its saved
// schema. Options or a schema stored unreadable fail the job.
func (r *Runner) input(ctx context.Context, j job.Job, paths []string) (normalize.Input, error) {
	opts, err := normalize.ParseOptions(j.Mode, j.Options)
	if err != nil {
		return normalize.Input{}, &normalize.Failure{Code: domain.CodeInvalidRequest, Message: err.Error()}
	}
	var sch *schema.Schema
	if j.Schema != nil {
		if sch, err = schema.Parse(j.Schema); err != nil {
			return normalize.Input{}, &normalize.Failure{Code: domain.CodeInvalidSchema, Message: err.Error()}
		}
	}
	sources := r.sources.open(ctx, j, paths, opts)
	var learned map[string]string
	if j.SchemaID != "" {
		if learned, err = r.learned.Get(ctx, j.OrgID, j.SchemaID); err != nil {
			return normalize.Input{}, err
		}
	}
	var edits []normalize.Edit
	var repl []normalize.Replacement
	if r.edits != nil && j.Mode != normalize.ModeInfer {
		if edits, err = r.edits.All(ctx, j.OrgID, j.ID); err != nil {
			return normalize.Input{}, err
		}
		if repl, err = r.edits.Replacements(ctx, j.OrgID, j.ID); err != nil {
			return normalize.Input{}, err
		}
	}
	return normalize.Input{Mode: j.Mode, Schema: sch, Options: opts, Sources: sources, Learned: learned, MaxRows: r.cfg.MaxRows,
		NewIndex: r.cfg.NewIndex, Edits: edits, Replacements: repl}, nil
}

// results are the blobs a run writes its rows and issues to.
type results struct {
	rows, issues io.WriteCloser
}

func (r *Runner) createResults(ctx context.Context, j job.Job) (results, error) {
	rows, err := r.blobs.Create(ctx, resultKey(j.OrgID, j.ID, string(Rows)))
	if err != nil {
		return results{}, err
	}
	issues, err := r.blobs.Create(ctx, resultKey(j.OrgID, j.ID, string(Issues)))
	if err != nil {
		_ = rows.Close()
		return results{}, err
	}
	return results{rows: rows, issues: issues}, nil
}

// close stores both blobs; they exist once it returns nil.
func (r results) close() error {
	err := r.rows.Close()
	if ierr := r.issues.Close(); err == nil {
		err = ierr
	}
	return err
}

// abandon closes the blobs of a run that did not finish.
func (r results) abandon() { _ = r.close() }
