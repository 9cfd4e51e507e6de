package ports

import (
	"context"
	"time"
)

// JobReviews finds the jobs whose review (options.review) has waited for
// a person too long.
type JobReviews interface {
	// AwaitingSince lists jobs awaiting review since before t, oldest
	// first, at most limit of them.
	AwaitingSince(ctx context.Context, before time.Time, limit int) (orgAndJobIDs [][2]string, err error)
}
