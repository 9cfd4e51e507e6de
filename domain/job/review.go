package job

import (
	"fmt"
	"time"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/normalize/review"
)

// AwaitingReview is a job stopped after reading its sample until a person
// confirms its column mapping (options.review). It holds no running slot.
const AwaitingReview Status = "awaiting_review"

// EventAwaitingReview is the event of a job that stopped for its review.
const EventAwaitingReview = "job.awaiting_review"

// ReviewExpired is the failure code of a review nobody confirmed in time:
// the job is canceled with it.
const ReviewExpired = "review_expired"

// NotAwaitingReview is the error for a review change asked of a job that
// is not awaiting its review.
func (j *Job) NotAwaitingReview() error {
	return domain.Errorf(domain.ErrConflict, domain.CodeJobNotAwaitingReview, "The job is %s; only a job awaiting review takes mapping changes or a confirmation.", j.Status)
}

// AwaitReview stops a running job after its sample, with the proposed
// review and mapping, until a person confirms it.
func (j *Job) AwaitReview(now time.Time, rev review.Review, mapping []byte) error {
	if j.Status != Running {
		return j.illegal(AwaitingReview)
	}
	t := now.UTC()
	j.Status, j.Review, j.Mapping, j.ReviewSince = AwaitingReview, &rev, mapping, &t
	return nil
}

// Revise replaces the review of a job awaiting it, after a mapping change.
func (j *Job) Revise(rev review.Review, mapping []byte) error {
	if j.Status != AwaitingReview {
		return j.NotAwaitingReview()
	}
	j.Review, j.Mapping = &rev, mapping
	return nil
}

// ConfirmReview queues a job awaiting review to run as confirmed. The run
// that read the sample does not count as an attempt of the run to come.
func (j *Job) ConfirmReview(now time.Time) error {
	if j.Status != AwaitingReview {
		return j.NotAwaitingReview()
	}
	t := now.UTC()
	j.Status, j.ReviewedAt = Queued, &t
	j.Attempts, j.StartedAt = 0, nil
	j.Progress = Progress{BytesTotal: j.Progress.BytesTotal}
	return nil
}

// ReviewDue reports whether a job awaiting review has waited ttl or more.
func (j *Job) ReviewDue(now time.Time, ttl time.Duration) bool {
	return j.Status == AwaitingReview && j.ReviewSince != nil && !now.Before(j.ReviewSince.Add(ttl))
}

// ExpireReview cancels a job whose review waited ttl without a
// confirmation; its error says so (review_expired).
func (j *Job) ExpireReview(now time.Time, ttl time.Duration) error {
	if !j.ReviewDue(now, ttl) {
		return j.illegal(Canceled)
	}
	j.Status = Canceled
	j.Failure = &Failure{Code: ReviewExpired, Message: "Nobody confirmed the job's review within " + spoken(ttl) + "; it was canceled."}
	j.finish(now)
	return nil
}

// spoken says a duration in days or hours when it is a whole number of
// them ("7 days"), else as Go does.
func spoken(d time.Duration) string {
	switch {
	case d >= 24*time.Hour && d%(24*time.Hour) == 0:
		return plural(int(d/(24*time.Hour)), "day")
	case d >= time.Hour && d%time.Hour == 0:
		return plural(int(d/time.Hour), "hour")
	}
	return d.String()
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}
