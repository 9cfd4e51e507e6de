// Package destinations delivers succeeded jobs' rows to the places their
// organization keeps data (an S3 bucket, a PostgreSQL table, an HTTP
// endpoint), exactly once, in three parts, each a type of its own on the
// ports it uses:
//
//   - Service (service.go) manages an organization's destinations:
//     creating, changing, deleting and testing them, with their secrets
//     sealed and never shown again; it lists a job's deliveries and a
//     destination's recent ones, and retries one.
//   - Fanout (fanout.go) writes the deliveries of a job: it subscribes to
//     the jobs' events (jobs.Subscriber), so a job's deliveries are
//     written in the transaction that made it succeed, and it checks the
//     ids a new job names. A job of an import session is delivered when
//     its session is submitted, and only if no rerun replaced it.
//   - Deliverer (deliver.go) is the queue's worker: it claims a delivery,
//     has the destination's writer deliver the rows, records the outcome
//     and schedules the next attempt, and sweeps up attempts whose worker
//     died (their claim lapsed).
//
// Exactly once rests on the writers (ports.DestinationWriter): an
// attempt writes all of a job's rows or nothing, keyed by the job's id,
// so an attempt made again (after a crash, a retry) replaces what an
// earlier one wrote instead of adding to it.
package destinations

import (
	"time"

	"github.com/tabnorm/tabnorm/ports"
)

// Config holds the destinations' settings.
type Config struct {
	// AllowPrivate accepts private, loopback and link-local addresses
	// (tests, closed networks); the writers enforce it again when
	// connecting.
	AllowPrivate bool
	// MaxPerOrg is how many destinations one organization may have (0: 20).
	MaxPerOrg int
	// InFlightPerOrg is how many deliveries of one organization this
	// process makes at once (0: 2).
	InFlightPerOrg int
	// ClaimFor bounds one attempt (0: destination.ClaimFor).
	ClaimFor time.Duration
	// Observer hears of every attempt (nil: nobody).
	Observer ports.PushObserver
}
