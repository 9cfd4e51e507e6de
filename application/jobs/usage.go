package jobs

import (
	"context"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/job"
)

// Usage is an organization's use against its quotas and job limits.
type Usage struct {
	job.Usage
	Quota            job.Quota
	MaxRunningPerOrg int
	MaxQueuedPerOrg  int
}

// Usage reports the caller's organization's use this month.
func (c *Creator) Usage(ctx context.Context, p identity.Principal) (Usage, error) {
	u, q, err := c.usage(ctx, p.OrgID)
	if err != nil {
		return Usage{}, err
	}
	return Usage{Usage: u, Quota: q, MaxRunningPerOrg: c.cfg.MaxRunningPerOrg, MaxQueuedPerOrg: c.cfg.MaxQueuedPerOrg}, nil
}

func (c *Creator) usage(ctx context.Context, orgID string) (job.Usage, job.Quota, error) {
	q, err := c.quotas.Get(ctx, orgID)
	if err != nil {
		return job.Usage{}, job.Quota{}, err
	}
	u := job.Usage{PeriodStart: job.MonthStart(c.clock.Now())}
	if u.Rows, u.StorageBytes, err = c.quotas.Usage(ctx, orgID, u.PeriodStart); err != nil {
		return job.Usage{}, job.Quota{}, err
	}
	if _, u.Pending, err = c.dispatch.counts(ctx, orgID); err != nil {
		return job.Usage{}, job.Quota{}, err
	}
	return u, q, nil
}

// checkQuota refuses a new job when the organization spent its monthly
// rows, or when the job's files would take its storage over its quota.
func (c *Creator) checkQuota(ctx context.Context, orgID string, newBytes int64) error {
	q, err := c.quotas.Get(ctx, orgID)
	if err != nil || (q.RowsPerMonth == 0 && q.StorageBytes == 0) {
		return err
	}
	rows, storage, err := c.quotas.Usage(ctx, orgID, job.MonthStart(c.clock.Now()))
	if err != nil {
		return err
	}
	if q.RowsPerMonth > 0 && rows >= q.RowsPerMonth {
		return domain.Errorf(domain.ErrForbidden, domain.CodeQuotaExceeded, "Your organization used its %d rows this month; see GET /v1/usage.", q.RowsPerMonth)
	}
	if q.StorageBytes > 0 && storage+newBytes > q.StorageBytes {
		return domain.Errorf(domain.ErrForbidden, domain.CodeQuotaExceeded,
			"This job's files would take your organization's storage over its %d bytes; delete jobs or files, see GET /v1/usage.", q.StorageBytes)
	}
	return nil
}
