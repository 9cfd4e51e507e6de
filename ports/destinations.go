package ports

import (
	"context"
	"io"
	"time"

	"github.com/tabnorm/tabnorm/domain/destination"
)

// Destinations stores an organization's destinations. Reads take the
// organization, so another organization's destination is not found.
type Destinations interface {
	Create(ctx context.Context, d destination.Destination) error
	// Get returns a destination; orgID "" finds any organization's (workers).
	Get(ctx context.Context, orgID, id string) (destination.Destination, error)
	List(ctx context.Context, orgID string, page Page) (list []destination.Destination, next string, err error)
	// Update reads the destination, lets fn change it and writes it back
	// in one transaction holding the row.
	Update(ctx context.Context, orgID, id string, fn func(*destination.Destination) error) (destination.Destination, error)
	// Delete removes a destination and its deliveries.
	Delete(ctx context.Context, orgID, id string) error
}

// Pushes stores the deliveries of jobs' rows to destinations: at most one
// per job and destination (Create of a second is a conflict).
type Pushes interface {
	Create(ctx context.Context, d destination.Delivery) error
	// Get returns a delivery; orgID "" finds any organization's (workers).
	Get(ctx context.Context, orgID, id string) (destination.Delivery, error)
	// OfJob returns a job's deliveries, oldest first.
	OfJob(ctx context.Context, orgID, jobID string) ([]destination.Delivery, error)
	// Recent returns a destination's deliveries, newest first.
	Recent(ctx context.Context, orgID, destinationID string, page Page) (list []destination.Delivery, next string, err error)
	// Due returns up to limit deliveries whose attempt was due at or
	// before t (pending ones, and claims that lapsed), oldest first.
	Due(ctx context.Context, t time.Time, limit int) ([]destination.Delivery, error)
	// Update is a read-modify-write of one delivery, like Destinations.Update.
	Update(ctx context.Context, orgID, id string, fn func(*destination.Delivery) error) (destination.Delivery, error)
}

// PushQueue schedules a delivery's attempt. It joins the transaction
// carried by ctx, so a delivery row and its queue entry commit together.
type PushQueue interface {
	EnqueuePush(ctx context.Context, orgID, deliveryID string, attempt int, at time.Time) error
}

// Rows opens a job's valid rows (stored JSON lines) from the start; a
// writer may open them more than once (Parquet reads them twice).
type Rows func(ctx context.Context) (io.ReadCloser, error)

// Shipment is what one attempt delivers: a succeeded job's rows.
type Shipment struct {
	JobID string
	// Replaces are the earlier jobs of the job's rerun chain, whose rows
	// the job's replace where the destination can (a table).
	Replaces []string
	// Job is the job's API document, carried in a manifest.
	Job []byte
	// Schema is the job's target schema (canonical JSON), nil when none.
	Schema []byte
	Fields []string
	Rows   Rows
}

// Shipped is what an attempt wrote.
type Shipped struct {
	Rows, Bytes int64
	// Checksum is the SHA-256 (hex) of what was written.
	Checksum string
}

// DestinationWriter delivers rows to destinations of its type. An attempt
// writes everything or leaves the destination as it was (a transaction, a
// manifest written last, a complete call sent last), and a repeated
// attempt of the same job replaces the earlier one's rows: a delivery is
// exactly once in what the destination shows.
type DestinationWriter interface {
	Deliver(ctx context.Context, t destination.Target, s Shipment) (Shipped, error)
	// Check connects and proves the destination takes writes, leaving
	// nothing behind but what it must (a test object of its own).
	Check(ctx context.Context, t destination.Target) error
}

// PushDeliverer attempts deliveries; the queue's workers call it.
type PushDeliverer interface {
	Push(ctx context.Context, deliveryID string, attempt int) error
	// Sweep queues the attempts that are overdue (their worker died).
	Sweep(ctx context.Context) (int, error)
}

// PushObserver hears of every delivery attempt this process made, for
// the operator's metrics. outcome is delivered or failed.
type PushObserver interface {
	PushAttempted(destinationType, outcome string, rows, bytes int64, took time.Duration)
}
