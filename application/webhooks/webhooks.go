// Package webhooks manages an organization's webhook endpoints and
// delivers events to them, in three parts, each a type of its own on the
// ports it uses:
//
//   - Endpoints (endpoints.go) manages the endpoints: creating, changing,
//     pausing, deleting them, rotating their secret, listing their
//     deliveries, a test event and a retry.
//   - Fanout (fanout.go) writes the deliveries of an event to every
//     subscribed endpoint: it subscribes to the jobs' events (JobEvent, a
//     jobs.Subscriber), so each delivery is written in the transaction
//     that changed the job and stored its event, and Announce does the same
//     for the events that are not a job's (import_session.submitted).
//   - Deliverer (delivery.go) is the queue's worker: it makes each
//     attempt, records it and schedules the next, and sweeps up the
//     attempts whose queue entry was lost. Each attempt goes through the
//     queue, so a crash or restart loses none (at least once; receivers
//     drop repeats by webhook-id).
//
// Every delivery is written by addDelivery (delivery.go), with its first
// queue entry, in the caller's transaction.
package webhooks

import (
	"github.com/tabnorm/tabnorm/ports"
)

// Config holds the webhook settings.
type Config struct {
	// AllowPrivate accepts http URLs and internal addresses (tests,
	// closed networks); the sender enforces it again when connecting.
	AllowPrivate bool
	// MaxPerOrg is how many endpoints one organization may have (0: 20).
	MaxPerOrg int
	// InFlightPerOrg is how many attempts of one organization this
	// process makes at once (0: 2).
	InFlightPerOrg int
	// Observer hears of every attempt (nil: nobody).
	Observer ports.WebhookObserver
}

// maxPerOrg is MaxPerOrg's default.
const maxPerOrg = 20
