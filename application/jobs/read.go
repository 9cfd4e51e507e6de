package jobs

import (
	"context"
	"errors"
	"io"

	"github.com/tabnorm/tabnorm/application/audit"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/importsession"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/ports"
)

// Reader reads an organization's jobs: the jobs themselves, their events
// as stored and as they happen (feed.go), their results, and their files
// again for the annotated workbook (source.go).
type Reader struct {
	jobs    ports.Jobs
	events  ports.JobEvents
	bus     ports.EventBus
	blobs   ports.BlobStore
	sources *Sources
	feeds   feeds // shared event feeds of the jobs followed on this node
	audit   ports.AuditLog
	clock   ports.Clock
}

// NewReader returns the reading of jobs; each read of a job's rows from
// their start is audited as an export of rows.
func NewReader(jobs ports.Jobs, events ports.JobEvents, bus ports.EventBus, blobs ports.BlobStore, sources *Sources, log ports.AuditLog, clock ports.Clock) *Reader {
	return &Reader{jobs: jobs, events: events, bus: bus, blobs: blobs, sources: sources, audit: log, clock: clock}
}

// Get returns one of the organization's jobs.
func (r *Reader) Get(ctx context.Context, p identity.Principal, jobID string) (job.Job, error) {
	j, err := r.jobs.Get(ctx, p.OrgID, jobID)
	if err != nil {
		return j, err
	}
	return j, importsession.CanPrincipalUseJob(p, importsession.ReadJob, j.ID, j.ImportSessionID)
}

// List returns the organization's jobs, newest first.
func (r *Reader) List(ctx context.Context, p identity.Principal, f ports.JobFilter, page ports.Page) ([]job.Job, string, error) {
	if err := importsession.CanPrincipalDo(p, importsession.ListJobs); err != nil {
		return nil, "", err
	}
	return r.jobs.List(ctx, p.OrgID, f, page)
}

// Events returns a job's stored events after a sequence number.
func (r *Reader) Events(ctx context.Context, p identity.Principal, jobID string, after int) ([]ports.Event, error) {
	if _, err := r.Get(ctx, p, jobID); err != nil {
		return nil, err
	}
	return r.events.After(ctx, jobID, after)
}

// OpenResult opens a finished job's rows or issues from a byte offset.
func (r *Reader) OpenResult(ctx context.Context, p identity.Principal, jobID string, res Result, offset int64) (job.Job, io.ReadCloser, error) {
	j, err := r.Get(ctx, p, jobID)
	if err != nil {
		return j, nil, err
	}
	if j.Status != job.Succeeded {
		return j, nil, j.NotFinished()
	}
	rc, err := r.blobs.Open(ctx, resultKey(j.OrgID, j.ID, string(res)), offset, -1)
	if errors.Is(err, domain.ErrNotFound) {
		return j, nil, domain.Errorf(domain.ErrNotFound, domain.CodeNotFound, "The job's results were deleted (retention).")
	}
	if err != nil {
		return j, nil, err
	}
	// Rows read from their start are an export of the organization's data
	// (a download, or the first page); the rest of a resumed download is not
	// another one.
	if res == Rows && offset == 0 {
		if err := audit.Record(ctx, r.audit, p, "rows.export", j.ID, r.clock.Now()); err != nil {
			_ = rc.Close()
			return j, nil, err
		}
	}
	return j, rc, nil
}

// KeepExport stores a download built from a succeeded job's result
// (Export), for the job's later downloads.
func (r *Reader) KeepExport(ctx context.Context, j job.Job, name Result, from io.Reader) error {
	w, err := r.blobs.Create(ctx, resultKey(j.OrgID, j.ID, string(name)))
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, from); err != nil {
		_ = w.Close() // the copy's error is the one to report
		return err
	}
	return w.Close()
}

// ResultSize is the size in bytes of a job's rows or issues, for a
// download's length and ranges.
func (r *Reader) ResultSize(ctx context.Context, j job.Job, res Result) (int64, error) {
	return r.blobs.Size(ctx, resultKey(j.OrgID, j.ID, string(res)))
}
