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
	return NewResult(res), nil
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

// NewResult is the job's record (job.Result) of a run that ended with r.
func NewResult(r normalize.Result) job.Result {
	out := job.Result{RowCount: r.RowCount, RejectedCount: r.RejectedCount, IssueCount: r.IssueCount, IssuesTruncated: r.IssuesTruncated,
		EditsApplied: r.EditsApplied, Detected: r.DetectedJSON()}
	for _, is := range r.FileIssues {
		out.FileIssues = append(out.FileIssues, job.FileIssue{SourceFile: is.SourceFile, Column: is.Column, Field: is.Field, Severity: is.Severity,
			Code: is.Code, Message: is.Message})
	}
	for _, h := range r.Hooks {
		out.Hooks = append(out.Hooks, job.HookStats{Name: h.Name, Batches: h.Batches, RowsSent: h.RowsSent, Issues: h.Issues,
			ValuesChanged: h.ValuesChanged, Failures: h.Failures, TimeMS: h.Time.Milliseconds(), FirstFailure: h.FirstFailure})
	}
	if r.InferredSchema != nil {
		out.InferredSchema = r.InferredSchema.JSON()
		out.Profile = make([]job.ColumnProfile, len(r.Profile))
		for i, p := range r.Profile {
			out.Profile[i] = job.ColumnProfile{Column: p.Column, Field: p.Field, Type: string(p.Type), Format: string(p.Format), NullRate: p.NullRate(),
				DistinctCount: p.DistinctCount, DistinctCapped: p.DistinctCapped, Examples: p.Examples,
				Currency: p.Currency, Currencies: p.Currencies}
		}
	}
	return out
}
