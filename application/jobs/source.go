package jobs

import (
	"context"
	"errors"
	"io"

	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/normalize"
	"github.com/tabnorm/tabnorm/domain/table"
)

// SourceVisit receives a finished job's files as its run read them: File
// once a file, with its header (the source column names), then Row for
// each of its records. SourceFile is what the job's issues name the file
// by: its id for a connect job, "" for an uploaded file.
type SourceVisit struct {
	File func(sourceFile, filename string, header []string) error
	Row  func(rec table.Record) error
}

// ReadSource reads a finished job's files again, with the job's read
// options, so that its issues can be shown on the values they are about
// (the annotated workbook). A file gone from storage is source_deleted.
func (r *Reader) ReadSource(ctx context.Context, p identity.Principal, jobID string, visit SourceVisit) (job.Job, error) {
	j, err := r.Get(ctx, p, jobID)
	if err != nil {
		return j, err
	}
	if j.Status != job.Succeeded {
		return j, j.NotFinished()
	}
	opts, err := normalize.ParseOptions(j.Mode, j.Options)
	if err != nil {
		return j, err
	}
	return j, r.sources.read(ctx, j, opts, visit)
}

// read stages a job's files and hands them to visit, one after the other.
func (s *Sources) read(ctx context.Context, j job.Job, opts normalize.Options, visit SourceVisit) error {
	dir, remove, err := s.workdir(ctx, "source read", j.ID)
	if err != nil {
		return err
	}
	defer remove()
	paths, err := s.stage(ctx, j, dir)
	if err != nil {
		return sourceDeleted(err)
	}
	for i, f := range j.Files {
		sourceFile := ""
		if j.SourceType == job.SourceConnect {
			sourceFile = f.ID
		}
		if err := s.readFile(ctx, paths[i], f.Filename, sourceFile, opts.ReadOptions(s.limits), visit); err != nil {
			return err
		}
	}
	return nil
}

func (s *Sources) readFile(ctx context.Context, path, filename, sourceFile string, opts table.ReadOptions, visit SourceVisit) error {
	r, err := s.tables.Open(ctx, path, filename, opts)
	if err != nil {
		return err
	}
	defer func() { _ = r.Close() }() // a reader: nothing was written that closing could lose
	if err := visit.File(sourceFile, filename, r.Header()); err != nil {
		return err
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := visit.Row(rec); err != nil {
			return err
		}
	}
}
