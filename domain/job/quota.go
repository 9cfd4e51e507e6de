package job

import "time"

// Quota is an organization's monthly allowance, set by the operator; a
// zero field is no limit.
type Quota struct {
	RowsPerMonth int64
	StorageBytes int64
}

// Usage is what an organization used against its quota.
type Usage struct {
	PeriodStart  time.Time // the first instant of the current calendar month, UTC
	Rows         int64     // rows read by jobs that finished in the period
	StorageBytes int64     // source files of jobs whose files are not yet purged
	Pending      int       // jobs queued or running
}

// MonthStart is the first instant of now's calendar month in UTC.
func MonthStart(now time.Time) time.Time {
	y, m, _ := now.UTC().Date()
	return time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
}
