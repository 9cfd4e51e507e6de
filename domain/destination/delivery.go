package destination

import (
	"time"

	"github.com/tabnorm/tabnorm/domain"
)

// The states of a delivery.
const (
	Pending    = "pending"    // waiting for its next attempt
	Delivering = "delivering" // an attempt is being made
	Delivered  = "delivered"  // every row arrived, once
	Failed     = "failed"     // no attempt left
)

// Schedule is the delay before each attempt after the previous one
// failed; after the last fails, the delivery has failed. The first
// attempt is immediate.
var Schedule = []time.Duration{0, 10 * time.Second, time.Minute, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 6 * time.Hour}

// ClaimFor is how long an attempt keeps other workers off its delivery:
// an attempt whose worker died is made again once its claim lapses. It
// bounds one attempt (a writer's own limits are shorter).
const ClaimFor = 30 * time.Minute

// Delivery is one job's rows on their way to one destination. There is
// at most one per (job, destination): every attempt writes the same
// rows, keyed by the job's id, so a repeated attempt replaces what an
// earlier one may have left.
type Delivery struct {
	ID            string
	OrgID         string
	JobID         string
	DestinationID string
	Status        string
	Attempts      int
	Rows          int64
	Bytes         int64
	LastError     string
	// NextAt is when a pending delivery's next attempt is due, or until
	// when a delivering one is claimed.
	NextAt      *time.Time
	CreatedAt   time.Time
	UpdatedAt   time.Time
	DeliveredAt *time.Time
}

// New is a delivery due now.
func New(id, orgID, jobID, destinationID string, now time.Time) Delivery {
	return Delivery{ID: id, OrgID: orgID, JobID: jobID, DestinationID: destinationID, Status: Pending, NextAt: &now, CreatedAt: now, UpdatedAt: now}
}

// Due reports whether an attempt may start at now: a pending delivery at
// its time, or a delivering one whose claim lapsed (its worker died).
func (d Delivery) Due(now time.Time) bool {
	switch d.Status {
	case Pending, Delivering:
		return d.NextAt == nil || !now.Before(*d.NextAt)
	}
	return false
}

// Claim starts attempt number Attempts+1, held until now+claim.
func (d *Delivery) Claim(now time.Time, claim time.Duration) {
	until := now.Add(claim)
	d.Status, d.NextAt, d.UpdatedAt = Delivering, &until, now
	d.Attempts++
}

// Succeed ends the delivery with what was written.
func (d *Delivery) Succeed(rows, bytes int64, now time.Time) {
	d.Status, d.NextAt, d.UpdatedAt, d.DeliveredAt = Delivered, nil, now, &now
	d.Rows, d.Bytes, d.LastError = rows, bytes, ""
}

// Fail records a failed attempt: the next is scheduled, or the delivery
// fails after the last one, or at once when the failure is final (the
// destination is gone, the job's rows are). It returns the next
// attempt's time when there is one.
func (d *Delivery) Fail(reason string, final bool, now time.Time) (next time.Time, retry bool) {
	d.LastError, d.UpdatedAt = reason, now
	if final || d.Attempts >= len(Schedule) {
		d.Status, d.NextAt = Failed, nil
		return time.Time{}, false
	}
	next = now.Add(Schedule[d.Attempts])
	d.Status, d.NextAt = Pending, &next
	return next, true
}

// Retry asks for one more round of attempts, now, of a delivery that
// failed or was delivered (its destination was emptied, say): the
// attempt replaces what the job delivered before.
func (d *Delivery) Retry(now time.Time) error {
	if d.Status == Pending || d.Status == Delivering {
		return domain.Errorf(domain.ErrConflict, domain.CodeDeliveryPending, "The delivery is still %s.", d.Status)
	}
	d.Status, d.NextAt, d.UpdatedAt, d.Attempts, d.DeliveredAt = Pending, &now, now, 0, nil
	return nil
}
