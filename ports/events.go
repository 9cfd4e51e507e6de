package ports

import "context"

// EventBus tells subscribers that a job has a new stored event. It carries
// no event data, only the job id and sequence number: subscribers read the
// events from the store, so a lost notice delays an event, never loses it.
type EventBus interface {
	// Publish announces event seq of a job; inside a transaction it is
	// delivered when the transaction commits (where the bus supports it).
	Publish(ctx context.Context, jobID string, seq int) error
	// Subscribe returns a channel of notices for the job and a function
	// that ends the subscription.
	Subscribe(jobID string) (<-chan int, func())
}
