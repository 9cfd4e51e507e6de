package jobs

import (
	"context"
	"errors"
	"fmt"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/connect"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/normalize"
)

// stage makes each of the job's files a local file that the readers can
// seek and re-read (copies go to dir, the run's working folder), and
// returns their paths in order. A file gone from storage fails the job.
func (s *Service) stage(ctx context.Context, j job.Job, dir string) ([]string, error) {
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

// sourceBlobKey is where a file of the job is stored: with the job when it
// was uploaded with it, else in the connect library.
func sourceBlobKey(j job.Job, f job.File) string {
	if j.SourceType == job.SourceConnect {
		return connect.BlobKey(j.OrgID, f.ID)
	}
	return sourceKey(j.OrgID, j.ID)
}

func missingFile(f job.File) error {
	return &normalize.Failure{Code: domain.CodeUnreadableFile, Message: fmt.Sprintf("The file %s (%s) is no longer in storage.", f.ID, f.Filename)}
}
