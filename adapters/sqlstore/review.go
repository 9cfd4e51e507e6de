package sqlstore

import (
	"context"
	"time"

	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/ports"
)

// Reviews implements ports.JobReviews over the jobs table: a job awaiting
// review keeps its review in the job's row (review, review_since,
// reviewed_at).
type Reviews struct{ db *DB }

var _ ports.JobReviews = (*Reviews)(nil)

// NewReviews returns the reviews repository.
func NewReviews(db *DB) *Reviews { return &Reviews{db: db} }

// AwaitingSince implements ports.JobReviews (index jobs_review_since_idx).
func (s *Reviews) AwaitingSince(ctx context.Context, before time.Time, limit int) ([][2]string, error) {
	var rows []jobRow
	err := s.db.conn(ctx).NewSelect().Model(&rows).Column("id", "org_id").
		Where("status = ? AND review_since < ?", string(job.AwaitingReview), before.UTC()).
		OrderExpr("review_since").Limit(int64(limit)).Scan(ctx)
	return pairs(rows), translate(err, "job")
}
