package jobs

import (
	"context"

	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/normalize"
	"github.com/tabnorm/tabnorm/domain/normalize/match"
)

// saveResult completes a run that finished: it stores the result blobs,
// remembers the mappings the job taught, stores the job's mapping and
// final progress, and returns the job's result.
func (r *Runner) saveResult(ctx context.Context, j job.Job, res normalize.Result, out results) (job.Result, error) {
	ctx, span := tracer.Start(ctx, "job.write")
	defer span.End()
	if err := out.close(); err != nil {
		return job.Result{}, err
	}
	mapping, err := r.render.Mapping(res.Mapping)
	if err != nil {
		return job.Result{}, err
	}
	if err := r.learn(ctx, j, res.Mapping); err != nil {
		return job.Result{}, err
	}
	_, err = r.jobs.Update(context.WithoutCancel(ctx), "", j.ID, func(jj *job.Job) error {
		jj.Mapping = mapping
		p := res.Progress
		jj.Progress = job.Progress{RowsRead: p.RowsRead, RowsValid: p.RowsValid, RowsRejected: p.RowsRejected,
			BytesRead: jj.Progress.BytesTotal, BytesTotal: jj.Progress.BytesTotal}
		return nil
	})
	if err != nil {
		return job.Result{}, err
	}
	return job.NewResult(res), nil
}

// learn remembers the explicit mappings of a job with a saved schema, for
// the organization's next jobs with that schema (method "learned").
func (r *Runner) learn(ctx context.Context, j job.Job, mapping []match.Entry) error {
	if !j.Teaches() {
		return nil
	}
	for _, m := range mapping {
		if m.Method != match.MethodExplicit {
			continue
		}
		if err := r.learned.Put(ctx, j.OrgID, j.SchemaID, match.HeaderKey(m.SourceColumn), m.Field, r.clock.Now()); err != nil {
			return err
		}
	}
	return nil
}
