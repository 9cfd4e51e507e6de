package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/connect"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/normalize"
	"github.com/tabnorm/tabnorm/domain/table"
	"github.com/tabnorm/tabnorm/ports"
)

// Sources reads jobs' files: it stages them as local files in a working
// folder, opens them with a job's read options, and opens the reference
// lists a job's schema checks. The Runner reads a job's files through it,
// the Reader its files again for the annotated workbook (ReadSource), and
// application/review its samples and rows again (Resample, CheckRows).
type Sources struct {
	limits  table.Limits
	staging ports.Staging
	tables  ports.TableOpener
	lists   ListOpener
	hooks   HookOpener // nil: a schema with hooks fails its job (hooks.go)
	log     *slog.Logger
	// checks shares the node among organizations' row checks (CheckRows):
	// each reads a job's file again up to the rows it checks.
	checks *Gate
}

// Row checks a node runs at once (CheckRows), and of one organization:
// each reads a job's file again, which for a big file is a CPU-second.
const (
	CheckSlots       = 4
	CheckSlotsPerOrg = 2
)

// NewSources returns the reading of jobs' files. lists opens the
// reference lists schemas check (nil: a schema with an inList constraint
// fails its job).
func NewSources(cfg Config, staging ports.Staging, tables ports.TableOpener, lists ListOpener, log *slog.Logger) *Sources {
	return &Sources{limits: cfg.Limits, staging: staging, tables: tables, lists: lists, log: log, checks: NewGate(CheckSlots, CheckSlotsPerOrg)}
}

// workdir makes a working folder for what (a run, a check) of job jobID;
// the returned function removes it.
func (s *Sources) workdir(ctx context.Context, what, jobID string) (string, func(), error) {
	dir, err := os.MkdirTemp("", workdirPrefix)
	if err != nil {
		return "", nil, err
	}
	return dir, func() {
		if err := os.RemoveAll(dir); err != nil { // the reaper's hourly sweep takes what is left
			s.log.WarnContext(ctx, "remove a "+what+"'s working folder", "job_id", jobID, "error", err)
		}
	}, nil
}

// stage makes each of the job's files a local file that the readers can
// seek and re-read (copies go to dir, the run's working folder), and
// returns their paths in order. A file gone from storage fails the job.
func (s *Sources) stage(ctx context.Context, j job.Job, dir string) ([]string, error) {
	ctx, span := tracer.Start(ctx, "job.read")
	defer span.End()
	paths := make([]string, len(j.Files))
	for i, f := range j.Files {
		path, err := s.staging.Stage(ctx, sourceBlobKey(j, f), dir)
		if errors.Is(err, domain.ErrNotFound) {
			return nil, missingFile(f)
		}
		if err != nil {
			return nil, err
		}
		paths[i] = path
	}
	return paths, nil
}

// open are the job's staged files, read with the options' reader
// settings.
func (s *Sources) open(ctx context.Context, j job.Job, paths []string, opts normalize.Options) []normalize.Source {
	sources := make([]normalize.Source, len(j.Files))
	for i, f := range j.Files {
		sources[i] = normalize.Source{Open: func() (table.Reader, error) {
			return s.tables.Open(ctx, paths[i], f.Filename, opts.ReadOptions(s.limits))
		}, OpenRaw: func() (table.Reader, error) {
			raw := opts
			raw.HeaderRow, raw.SkipRows, raw.FooterRows = normalize.HeaderNone, 0, table.FooterNone
			return s.tables.Open(ctx, paths[i], f.Filename, raw.ReadOptions(s.limits))
		}}
		if j.SourceType == job.SourceConnect { // issues and mappings name the file they come from
			sources[i].FileID = f.ID
		}
	}
	return sources
}

// Resample reads the samples of a job's files again with other reader
// options (another sheet of a workbook), for a review a person changes.
// The files are staged in a working folder of their own, removed after.
func (s *Sources) Resample(ctx context.Context, j job.Job, opts normalize.Options) ([]normalize.Sample, error) {
	dir, remove, err := s.workdir(ctx, "resample", j.ID)
	if err != nil {
		return nil, err
	}
	defer remove()
	paths, err := s.stage(ctx, j, dir)
	if err != nil {
		return nil, sourceDeleted(err)
	}
	return normalize.ReadSamples(ctx, s.open(ctx, j, paths, opts))
}

// sourceBlobKey is where a file of the job is stored: with the job when it
// was uploaded with it, else in the connect library.
func sourceBlobKey(j job.Job, f job.File) string {
	if j.SourceType == job.SourceConnect {
		return connect.BlobKey(j.OrgID, f.ID)
	}
	return sourceKey(j.OrgID, j.ID)
}

// sourceDeleted answers a request that reads a job's files again when
// one is gone from storage (retention deleted it): 409 source_deleted,
// where a run fails as unreadable_file. Other errors are left as they are.
func sourceDeleted(err error) error {
	var failure *normalize.Failure
	if errors.As(err, &failure) {
		return domain.Errorf(domain.ErrConflict, domain.CodeSourceDeleted, "%s", failure.Message)
	}
	return err
}

func missingFile(f job.File) error {
	return &normalize.Failure{Code: domain.CodeUnreadableFile, Message: fmt.Sprintf("The file %s (%s) is no longer in storage.", f.ID, f.Filename)}
}
