package webhook

import (
	"time"

	"github.com/tabnorm/tabnorm/domain"
)

// Delivery states.
const (
	Pending   = "pending"   // waiting for its next attempt
	Delivered = "succeeded" // a 2xx answer ended it
	Failed    = "failed"    // no attempt left, or the endpoint was disabled
)

// Delivery is one event on its way to one endpoint. Its ID is the
// webhook-id header, the same on every attempt, so receivers can drop
// repeats.
type Delivery struct {
	ID         string
	EndpointID string
	OrgID      string
	EventType  string
	Payload    []byte // the exact body sent, signed on every attempt
	Status     string
	Attempts   int
	NextAt     *time.Time // when pending: the next attempt's time
	CreatedAt  time.Time
	Last       *Attempt // the latest attempt, if any
}

// Attempt is the outcome of sending a delivery once.
type Attempt struct {
	At           time.Time
	StatusCode   int // 0 when no answer came
	Latency      time.Duration
	Error        string // why it failed without an answer ("" otherwise)
	ResponseBody string // the first MaxResponseBody bytes of the answer
}

// OK reports whether the receiver took the message.
func (a Attempt) OK() bool { return a.StatusCode >= 200 && a.StatusCode < 300 }

// NewDelivery is a delivery due now.
func NewDelivery(id string, e Endpoint, eventType string, payload []byte, now time.Time) Delivery {
	return Delivery{ID: id, EndpointID: e.ID, OrgID: e.OrgID, EventType: eventType, Payload: payload, Status: Pending, NextAt: &now, CreatedAt: now}
}

// Due reports whether the delivery waits for an attempt at now.
func (d Delivery) Due(now time.Time) bool {
	return d.Status == Pending && (d.NextAt == nil || !now.Before(*d.NextAt))
}

// Record applies an attempt's outcome: a 2xx ends the delivery; a failure
// schedules the next attempt on Schedule, or fails the delivery after the
// last one. It returns the next attempt's time when there is one.
func (d *Delivery) Record(a Attempt) (next time.Time, retry bool) {
	d.Attempts++
	d.Last = &a
	if a.OK() {
		d.Status, d.NextAt = Delivered, nil
		return time.Time{}, false
	}
	if d.Attempts >= len(Schedule) {
		d.Status, d.NextAt = Failed, nil
		return time.Time{}, false
	}
	next = a.At.Add(Schedule[d.Attempts])
	d.NextAt = &next
	return next, true
}

// Claim marks the delivery as being attempted until `until`: another
// worker leaves it alone meanwhile, and if this one dies, the attempt is
// due again once the claim lapses.
func (d *Delivery) Claim(until time.Time) { d.NextAt = &until }

// Abandon fails a pending delivery without sending it (its endpoint was
// disabled).
func (d *Delivery) Abandon(reason string, now time.Time) {
	d.Status, d.NextAt = Failed, nil
	d.Last = &Attempt{At: now, Error: reason}
}

// Retry asks for one more attempt now, of a delivery that has ended.
func (d *Delivery) Retry(now time.Time) error {
	if d.Status == Pending {
		return domain.Errorf(domain.ErrConflict, domain.CodeDeliveryPending, "The delivery is still pending; its next attempt is scheduled.")
	}
	d.Status, d.NextAt = Pending, &now
	return nil
}

// End fails a pending delivery after its latest attempt, without further
// attempts (the attempt disabled its endpoint).
func (d *Delivery) End() {
	if d.Status == Pending {
		d.Status, d.NextAt = Failed, nil
	}
}
