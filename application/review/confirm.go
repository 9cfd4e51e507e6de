package review

import (
	"context"
	"sort"

	"github.com/tabnorm/tabnorm/application/jobs"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/importsession"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/normalize"
	"github.com/tabnorm/tabnorm/domain/normalize/match"
	"github.com/tabnorm/tabnorm/ports"
)

// Confirmer confirms reviews: the job is queued again with the mapping
// confirmed, and a saved schema learns it.
type Confirmer struct {
	jobs    ports.Jobs
	create  *jobs.Creator
	learned ports.LearnedMappings
	tx      ports.Transactor
	clock   ports.Clock
}

// NewConfirmer returns the confirmation of reviews.
func NewConfirmer(jobsRepo ports.Jobs, create *jobs.Creator, learned ports.LearnedMappings, tx ports.Transactor, clock ports.Clock) *Confirmer {
	return &Confirmer{jobs: jobsRepo, create: create, learned: learned, tx: tx, clock: clock}
}

// Confirm queues a job awaiting review to run with the reviewed mapping,
// which becomes its options.mapping: every column mapped as reviewed, the
// others ignored. With a saved schema, the mapping is learned for the
// organization's next jobs. A review with blocking problems is refused.
func (s *Confirmer) Confirm(ctx context.Context, p identity.Principal, jobID string) (job.Job, error) {
	j, err := s.jobs.Get(ctx, p.OrgID, jobID)
	if err != nil {
		return job.Job{}, err
	}
	if err := importsession.CanPrincipalUseJob(p, importsession.ConfirmJob, j.ID, j.ImportSessionID); err != nil {
		return job.Job{}, err
	}
	if j.Status != job.AwaitingReview {
		return job.Job{}, j.NotAwaitingReview()
	}
	var out job.Job
	err = s.tx.InTx(ctx, func(ctx context.Context) error {
		now := s.clock.Now()
		var confirmed normalize.Mapping
		var err error
		out, err = s.create.Resume(ctx, p.OrgID, jobID, func(j *job.Job) error {
			if j.Status != job.AwaitingReview {
				return j.NotAwaitingReview()
			}
			if err := j.Review.Blocked(); err != nil {
				return err
			}
			st, err := settingsOf(*j)
			if err != nil {
				return err
			}
			confirmed = j.Review.Confirmed()
			st.options.Mapping = confirmed
			j.Options = st.options.JSON()
			return j.ConfirmReview(now)
		})
		if err != nil || !out.Teaches() {
			return err
		}
		headers := make([]string, 0, len(confirmed))
		for h := range confirmed {
			headers = append(headers, h)
		}
		sort.Strings(headers)
		for _, h := range headers {
			if f := confirmed[h]; f != "" {
				if err := s.learned.Put(ctx, out.OrgID, out.SchemaID, match.HeaderKey(h), f, now); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return job.Job{}, err
	}
	return out, nil
}
