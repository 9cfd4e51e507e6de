package jobs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/connect"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/normalize"
	"github.com/tabnorm/tabnorm/domain/schema"
	"github.com/tabnorm/tabnorm/domain/table"
	"github.com/tabnorm/tabnorm/ports"
)

var _ ports.JobRunner = (*Service)(nil)

var tracer = otel.Tracer("github.com/tabnorm/tabnorm/application/jobs")

// errSkip means the queue entry has nothing to do: the job was canceled,
// finished, or is being run by a live worker.
var errSkip = errors.New("nothing to run")

// RunJob runs one queued job to its end. It is what the queue's workers
// call; an error asks the queue to try again later.
func (s *Service) RunJob(ctx context.Context, jobID string) (err error) {
	ctx, span := tracer.Start(ctx, "job.run", trace.WithAttributes(attribute.String("tabnorm.job_id", jobID)))
	defer func() {
		if err != nil {
			span.SetStatus(codes.Error, err.Error())
		}
		span.End()
	}()
	now := s.clock.Now()
	j, err := s.jobs.Update(ctx, "", jobID, func(j *job.Job) error {
		if j.Status != job.Queued {
			return errSkip
		}
		return j.Start(now)
	})
	if errors.Is(err, errSkip) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("start job %s: %w", jobID, err)
	}
	span.SetAttributes(attribute.String("tabnorm.org_id", j.OrgID))
	if _, err := s.jobs.Heartbeat(ctx, j.ID, j.Progress, now.Add(s.cfg.Lease)); err != nil {
		return err
	}
	s.event(ctx, j, job.EventStarted, false)

	runCtx, cancel := context.WithTimeout(ctx, s.cfg.JobTimeout)
	defer cancel()
	res, runErr := s.run(runCtx, cancel, j)
	end := s.clock.Now()
	switch {
	case runErr == nil:
		j, err = s.finish(ctx, j.ID, func(j *job.Job) error { return j.Succeed(end, res) })
	case errors.Is(runErr, errCanceled):
		return nil // Cancel already moved the job, told its subscribers and freed its slot
	case errors.Is(runErr, context.DeadlineExceeded) && ctx.Err() == nil:
		j, err = s.finish(ctx, j.ID, func(j *job.Job) error {
			return j.Fail(end, job.Failure{Code: "job_timeout", Message: fmt.Sprintf("The job ran longer than %s.", s.cfg.JobTimeout)})
		})
	case ctx.Err() != nil:
		return ctx.Err() // the worker is stopping: the queue retries, the lease reaper requeues
	default:
		var f *normalize.Failure
		if !errors.As(runErr, &f) { // infrastructure trouble: try again
			s.log.WarnContext(ctx, "job will be retried", "job_id", j.ID, "org_id", j.OrgID, "error", runErr)
			return fmt.Errorf("run job %s: %w", j.ID, runErr)
		}
		if f.Stack != "" { // a bug: the job fails as internal_error, the stack goes to the log
			s.log.ErrorContext(ctx, "engine panic", "job_id", j.ID, "stack", f.Stack)
		}
		j, err = s.finish(ctx, j.ID, func(j *job.Job) error { return j.Fail(end, job.Failure{Code: f.Code, Message: f.Message}) })
	}
	if errors.Is(err, errSkip) {
		return nil
	}
	if err != nil {
		return err
	}
	kind := job.EventSucceeded
	if j.Status == job.Failed {
		kind = job.EventFailed
		// The caller sees the failure in the job; the operator sees it here,
		// by ids and code only (the message may quote the caller's data).
		s.log.WarnContext(ctx, "job failed", "job_id", j.ID, "org_id", j.OrgID, "code", j.Failure.Code)
	} else {
		s.log.InfoContext(ctx, "job succeeded", "job_id", j.ID, "org_id", j.OrgID, "rows", j.Progress.RowsRead)
	}
	if s.cfg.Observer != nil {
		s.cfg.Observer.JobFinished(j)
	}
	s.event(ctx, j, kind, true)
	s.dispatch(ctx, j.OrgID)
	return nil
}

var errCanceled = errors.New("job canceled")

// finish applies the final transition unless the job was canceled meanwhile.
func (s *Service) finish(ctx context.Context, jobID string, fn func(*job.Job) error) (job.Job, error) {
	return s.jobs.Update(ctx, "", jobID, func(j *job.Job) error {
		if j.Status != job.Running {
			return errSkip
		}
		return fn(j)
	})
}

func (s *Service) event(ctx context.Context, j job.Job, kind string, withJob bool) {
	if err := s.append(context.WithoutCancel(ctx), j, kind, s.clock.Now(), withJob); err != nil {
		s.log.ErrorContext(ctx, "store job event", "job_id", j.ID, "kind", kind, "error", err)
	}
}

// run copies the source to a local file (readers need to seek and
// re-read), runs the engine into the result blobs, and keeps the lease
// alive with progress until it ends or the job is canceled.
func (s *Service) run(ctx context.Context, cancel context.CancelFunc, j job.Job) ([]byte, error) {
	tmp, err := os.MkdirTemp("", "tabnorm-job-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	readCtx, readSpan := tracer.Start(ctx, "job.read")
	locals, err := s.localFiles(readCtx, j, tmp)
	readSpan.End()
	if err != nil {
		return nil, err
	}
	mode := j.Mode
	opts, err := normalize.ParseOptions(mode, j.Options)
	if err != nil {
		return nil, &normalize.Failure{Code: "invalid_request", Message: err.Error()}
	}
	var sch *schema.Schema
	if j.Schema != nil {
		if sch, err = schema.Parse(j.Schema); err != nil {
			return nil, &normalize.Failure{Code: "invalid_schema", Message: err.Error()}
		}
	}
	rows, err := s.blobs.Create(ctx, resultKey(j.OrgID, j.ID, string(Rows)))
	if err != nil {
		return nil, err
	}
	issues, err := s.blobs.Create(ctx, resultKey(j.OrgID, j.ID, string(Issues)))
	if err != nil {
		rows.Close()
		return nil, err
	}

	var mu sync.Mutex
	var canceled bool
	latest := job.Progress{BytesTotal: j.Progress.BytesTotal}
	beat := func() {
		mu.Lock()
		p := latest
		mu.Unlock()
		status, err := s.jobs.Heartbeat(context.WithoutCancel(ctx), j.ID, p, s.clock.Now().Add(s.cfg.Lease))
		if err == nil && status == job.Canceled {
			mu.Lock()
			canceled = true
			mu.Unlock()
			cancel()
		}
	}
	stopBeats := make(chan struct{})
	beatsDone := make(chan struct{})
	go func() { // the lease and the cancellation check, also while the engine is between reports
		defer close(beatsDone)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-stopBeats:
				return
			case <-t.C:
				beat()
			}
		}
	}()
	lastEvent := time.Time{}
	onProgress := func(p normalize.Progress) {
		mu.Lock()
		latest = job.Progress{RowsRead: p.RowsRead, RowsValid: p.RowsValid, RowsRejected: p.RowsRejected, BytesRead: p.BytesRead, BytesTotal: j.Progress.BytesTotal}
		cur := latest
		mu.Unlock()
		if now := time.Now(); now.Sub(lastEvent) >= 250*time.Millisecond { // at most 4 events a second
			lastEvent = now
			jj := j
			jj.Progress = cur
			s.event(ctx, jj, job.EventProgress, false)
		}
	}
	sources := make([]normalize.Source, len(j.Files))
	for i, f := range j.Files {
		sources[i] = normalize.Source{Open: func() (table.Reader, error) {
			return s.tables.Open(ctx, locals[i], f.Filename, opts.ReadOptions(s.cfg.Limits))
		}}
		if j.SourceType == job.SourceConnect { // issues and mappings name the file they come from
			sources[i].FileID = f.ID
		}
	}
	var learned map[string]string
	if j.SchemaID != "" {
		if learned, err = s.learned.Get(ctx, j.OrgID, j.SchemaID); err != nil {
			return nil, err
		}
	}
	normCtx, normSpan := tracer.Start(ctx, "job.normalize")
	res, runErr := normalize.Run(normCtx, normalize.Input{Mode: mode, Schema: sch, Options: opts, Sources: sources,
		Learned: learned, MaxRows: s.cfg.MaxRows, OnProgress: onProgress, NewIndex: s.cfg.NewIndex}, normalize.Output{Rows: rows, Issues: issues})
	normSpan.SetAttributes(attribute.Int64("tabnorm.rows", res.RowCount))
	normSpan.End()
	close(stopBeats)
	<-beatsDone
	mu.Lock()
	wasCanceled := canceled
	mu.Unlock()
	if wasCanceled {
		_ = rows.Close()
		_ = issues.Close()
		return nil, errCanceled
	}
	if runErr != nil {
		_ = rows.Close()
		_ = issues.Close()
		return nil, runErr
	}
	ctx, writeSpan := tracer.Start(ctx, "job.write")
	defer writeSpan.End()
	if err := rows.Close(); err != nil {
		return nil, err
	}
	if err := issues.Close(); err != nil {
		return nil, err
	}
	mappingBytes, err := s.render.Mapping(res.Mapping)
	if err != nil {
		return nil, err
	}
	// Explicit mappings made for a saved schema are remembered for the
	// organization's next jobs with that schema (method "learned").
	if j.SchemaID != "" {
		for _, m := range res.Mapping {
			if m.Method == normalize.MethodExplicit {
				if err := s.learned.Put(ctx, j.OrgID, j.SchemaID, normalize.NormalizeHeader(m.SourceColumn), m.Field, s.clock.Now()); err != nil {
					return nil, err
				}
			}
		}
	}
	_, err = s.jobs.Update(context.WithoutCancel(ctx), "", j.ID, func(jj *job.Job) error {
		jj.Mapping = mappingBytes
		jj.Progress = job.Progress{RowsRead: res.Progress.RowsRead, RowsValid: res.Progress.RowsValid, RowsRejected: res.Progress.RowsRejected,
			BytesRead: jj.Progress.BytesTotal, BytesTotal: jj.Progress.BytesTotal}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.render.Result(j, res)
}

// localFiles returns a path for each of the job's files that readers can
// seek and re-read: the store's own file when it is a local folder, else
// a copy in tmp.
func (s *Service) localFiles(ctx context.Context, j job.Job, tmp string) ([]string, error) {
	paths := make([]string, len(j.Files))
	for i, f := range j.Files {
		key := sourceKey(j.OrgID, j.ID)
		if j.SourceType == job.SourceConnect {
			key = connect.BlobKey(j.OrgID, f.ID)
		}
		local, inPlace := s.blobs.LocalPath(key)
		if !inPlace {
			local = filepath.Join(tmp, fmt.Sprintf("source-%d", i))
			err := s.download(ctx, key, local)
			if errors.Is(err, domain.ErrNotFound) {
				return nil, missingFile(f)
			}
			if err != nil {
				return nil, err
			}
		} else if _, err := os.Stat(local); err != nil {
			return nil, missingFile(f)
		}
		paths[i] = local
	}
	return paths, nil
}

func missingFile(f job.File) error {
	return &normalize.Failure{Code: "unreadable_file", Message: fmt.Sprintf("The file %s (%s) is no longer in storage.", f.ID, f.Filename)}
}

func (s *Service) download(ctx context.Context, key, path string) error {
	r, err := s.blobs.Open(ctx, key, 0, -1)
	if err != nil {
		return err
	}
	defer r.Close()
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Reap requeues running jobs whose worker stopped renewing its lease, or
// fails them with worker_lost after their third attempt. Any node may run
// it; the row lock makes each requeue happen once.
func (s *Service) Reap(ctx context.Context) (int, error) {
	expired, err := s.jobs.Expired(ctx, s.clock.Now())
	if err != nil {
		return 0, err
	}
	n := 0
	for _, pair := range expired {
		err := s.tx.InTx(ctx, func(ctx context.Context) error {
			now := s.clock.Now()
			var again bool
			j, err := s.jobs.Update(ctx, pair[0], pair[1], func(j *job.Job) error {
				if j.Status != job.Running {
					return errSkip
				}
				var err error
				again, err = j.Requeue(now)
				return err
			})
			if err != nil {
				return err
			}
			if again { // it keeps its slot, and goes first
				return s.queue.Enqueue(ctx, j.ID, 0)
			}
			if j.Failure != nil {
				s.log.WarnContext(ctx, "job failed", "job_id", j.ID, "org_id", j.OrgID, "code", j.Failure.Code)
			}
			return s.append(ctx, j, job.EventFailed, now, true)
		})
		if errors.Is(err, errSkip) {
			continue
		}
		if err != nil {
			return n, err
		}
		s.dispatch(ctx, pair[0])
		n++
	}
	return n, nil
}
