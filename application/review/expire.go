package review

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/tabnorm/tabnorm/application/jobs"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/ports"
)

// Expirer cancels the jobs whose review nobody confirmed in time.
type Expirer struct {
	ttl     time.Duration
	jobs    ports.Jobs
	reviews ports.JobReviews
	outbox  *jobs.Outbox
	tx      ports.Transactor
	clock   ports.Clock
	log     *slog.Logger
}

// NewExpirer returns the expiry of reviews.
func NewExpirer(cfg Config, jobsRepo ports.Jobs, reviews ports.JobReviews, outbox *jobs.Outbox, tx ports.Transactor, clock ports.Clock, log *slog.Logger) *Expirer {
	return &Expirer{ttl: cfg.withDefaults().TTL, jobs: jobsRepo, reviews: reviews, outbox: outbox, tx: tx, clock: clock, log: log}
}

// errSkip: the job changed since it was listed.
var errSkip = errors.New("nothing to expire")

// Expire cancels the jobs whose review waited longer than the TTL, with
// the error review_expired, at most 500 a call; the workers call it every
// few seconds.
func (s *Expirer) Expire(ctx context.Context) (int, error) {
	now := s.clock.Now()
	due, err := s.reviews.AwaitingSince(ctx, now.Add(-s.ttl), 500)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, pair := range due {
		err := s.tx.InTx(ctx, func(ctx context.Context) error {
			j, err := s.jobs.Update(ctx, pair[0], pair[1], func(j *job.Job) error {
				if !j.ReviewDue(now, s.ttl) {
					return errSkip
				}
				return j.ExpireReview(now, s.ttl)
			})
			if err != nil {
				return err
			}
			return s.outbox.Announce(ctx, j, job.EventCanceled, now)
		})
		if errors.Is(err, errSkip) || errors.Is(err, domain.ErrNotFound) {
			continue
		}
		if err != nil {
			return n, fmt.Errorf("expire the review of job %s: %w", pair[1], err)
		}
		s.log.InfoContext(ctx, "job review expired", "job_id", pair[1], "org_id", pair[0])
		n++
	}
	return n, nil
}
