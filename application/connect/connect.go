// Package connect is the connect product's use cases: an organization's
// library of files, and jobs that read several of them, in order, as one
// table (API.md §8).
package connect

import (
	"context"
	"io"
	"log/slog"

	"github.com/tabnorm/tabnorm/application/jobs"
	"github.com/tabnorm/tabnorm/application/upload"
	"github.com/tabnorm/tabnorm/domain/connect"
	"github.com/tabnorm/tabnorm/domain/id"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/ports"
)

// Service is the connect use cases.
type Service struct {
	files  ports.Files
	jobs   *jobs.Creator // creates the jobs over library files
	blobs  ports.BlobStore
	tables ports.TableOpener
	tx     ports.Transactor
	clock  ports.Clock
	log    *slog.Logger
}

// NewService returns the connect service.
func NewService(files ports.Files, jobs *jobs.Creator, blobs ports.BlobStore, tables ports.TableOpener, tx ports.Transactor, clock ports.Clock, log *slog.Logger) *Service {
	return &Service{files: files, jobs: jobs, blobs: blobs, tables: tables, tx: tx, clock: clock, log: log}
}

// Upload is a library file while it streams in.
type Upload struct {
	id string
	upload.Upload
}

// NewUpload reserves a file id; the bytes go to storage under it before
// the record exists.
func (s *Service) NewUpload(p identity.Principal, filename string) *Upload {
	fileID := id.New(id.File)
	return &Upload{id: fileID, Upload: upload.New(connect.BlobKey(p.OrgID, fileID), filename)}
}

// Store streams the file into storage, exactly as job uploads are.
func (s *Service) Store(ctx context.Context, u *Upload, r io.Reader) error {
	return upload.Store(ctx, s.blobs, s.tables, &u.Upload, r)
}

// Discard removes an upload that did not become a file record.
func (s *Service) Discard(ctx context.Context, u *Upload) {
	if u != nil {
		upload.Discard(ctx, s.blobs, &u.Upload)
	}
}

// CreateFile records a stored upload in the organization's library.
func (s *Service) CreateFile(ctx context.Context, p identity.Principal, u *Upload) (connect.File, error) {
	f := connect.File{ID: u.id, OrgID: p.OrgID, Filename: u.Filename, Format: string(u.File.Format), SizeBytes: u.File.Size,
		SHA256: u.File.SHA256, CreatedAt: s.clock.Now()}
	return f, s.files.Create(ctx, f)
}

// GetFile returns one of the organization's files.
func (s *Service) GetFile(ctx context.Context, p identity.Principal, fileID string) (connect.File, error) {
	return s.files.Get(ctx, p.OrgID, fileID)
}

// ListFiles returns the organization's files, newest first.
func (s *Service) ListFiles(ctx context.Context, p identity.Principal, page ports.Page) ([]connect.File, string, error) {
	return s.files.List(ctx, p.OrgID, page)
}

// DeleteFile removes a file and its bytes. A file that a queued or
// running job still reads is refused with 409 conflict: the job would
// otherwise fail halfway. Once its jobs have ended the file may go; they
// keep their results and their record of the file.
func (s *Service) DeleteFile(ctx context.Context, p identity.Principal, fileID string) error {
	err := s.tx.InTx(ctx, func(ctx context.Context) error {
		active, err := s.files.ActiveJobs(ctx, p.OrgID, fileID)
		if err != nil {
			return err
		}
		if len(active) > 0 {
			return connect.InUse(fileID, active)
		}
		return s.files.Delete(ctx, p.OrgID, fileID)
	})
	if err != nil {
		return err
	}
	if err := s.blobs.Delete(ctx, connect.BlobKey(p.OrgID, fileID)); err != nil {
		s.log.ErrorContext(ctx, "delete file bytes", "file_id", fileID, "error", err)
	}
	return nil
}

// CreateJob queues a job over library files read in the order of
// fileIDs. The files are held in the creating transaction, so none can be
// deleted between the check and the job's commit.
func (s *Service) CreateJob(ctx context.Context, p identity.Principal, fileIDs []string, in jobs.Params) (job.Job, error) {
	return s.createJob(ctx, p, fileIDs, in, "")
}

// Rerun queues a new job over the files an earlier job read, in the same
// order (application/review): files deleted since are 422 file_not_found.
func (s *Service) Rerun(ctx context.Context, p identity.Principal, fileIDs []string, in jobs.Params, rerunOf string) (job.Job, error) {
	return s.createJob(ctx, p, fileIDs, in, rerunOf)
}

func (s *Service) createJob(ctx context.Context, p identity.Principal, fileIDs []string, in jobs.Params, rerunOf string) (job.Job, error) {
	if err := connect.CheckFileIDs(fileIDs); err != nil {
		return job.Job{}, err
	}
	var out job.Job
	err := s.tx.InTx(ctx, func(ctx context.Context) error {
		found, err := s.files.Hold(ctx, p.OrgID, fileIDs)
		if err != nil {
			return err
		}
		files, err := connect.InOrder(fileIDs, found)
		if err != nil {
			return err
		}
		sources := make([]job.File, len(files))
		for i, f := range files {
			sources[i] = f.JobFile()
		}
		if out, err = s.jobs.Submit(ctx, p, jobs.Submission{SourceType: job.SourceConnect, Files: sources, Params: in, RerunOf: rerunOf}); err != nil {
			return err
		}
		return s.files.Link(ctx, out.ID, fileIDs)
	})
	return out, err
}
