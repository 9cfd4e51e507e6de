// Package queue is the job queue on River, in the application's own
// database: riversqlite on SQLite; on PostgreSQL, inserts go through the
// database/sql driver inside the application's bun transactions and work
// is fetched by a pgx client on the same pool (LISTEN/NOTIFY, so pickup
// takes milliseconds, not a polling interval).
package queue

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"

	"github.com/tabnorm/tabnorm/adapters/sqlstore"
	"github.com/tabnorm/tabnorm/ports"
)

// RunArgs is the queue entry of a job: just its id; the job row holds the rest.
type RunArgs struct {
	JobID string `json:"job_id"`
	// OrgID is the job's organization, for the node's fair share (entries
	// queued before it was carried have none and are not counted).
	OrgID string `json:"org_id,omitempty"`
	// Trace carries the creating request's W3C traceparent, so the run
	// is part of the same trace.
	Trace map[string]string `json:"trace,omitempty"`
}

// Kind names the entry type in River's table.
func (RunArgs) Kind() string { return "tabnorm.run_job" }

// Config tunes the workers.
type Config struct {
	Workers    int           // concurrent jobs per process
	JobTimeout time.Duration // wall-time limit of one job
	PurgeEvery time.Duration // how often retention runs (0: hourly)
	// WebhookWorkers is how many webhook attempts a process makes at once,
	// on a queue of their own: they never take a job worker (0: 8). The
	// webhooks service bounds each organization's share of them.
	WebhookWorkers int
	// DestinationWorkers is how many deliveries to destinations a process
	// makes at once, on a queue of their own (0: 4); PushTimeout bounds
	// one (0: 25 min, inside the 30 min claim of an attempt).
	DestinationWorkers int
	PushTimeout        time.Duration
}

// WebhookQueue is the River queue of webhook attempts and their sweep,
// apart from the jobs' default queue.
const WebhookQueue = "webhooks"

// busyJobMost is the longest wait of a job entry whose organization
// holds its share of the node's workers (see backoff): short, since a job
// of its organization may end any moment.
const busyJobMost = 4 * time.Second

// PurgeArgs is the periodic retention job; River runs it on one node.
type PurgeArgs struct{}

// Kind names the entry type in River's table.
func (PurgeArgs) Kind() string { return "tabnorm.purge" }

type purgeWorker struct {
	river.WorkerDefaults[PurgeArgs]
	purger ports.Purger
}

func (w *purgeWorker) Work(ctx context.Context, _ *river.Job[PurgeArgs]) error {
	_, err := w.purger.Purge(ctx)
	return err
}

// Inserter implements ports.Queue: it adds entries inside the
// application's transactions.
type Inserter struct {
	client *river.Client[*sql.Tx]
}

var _ ports.Queue = (*Inserter)(nil)

// NewInserter returns the queue's inserting side.
func NewInserter(db *sqlstore.DB, log *slog.Logger) (*Inserter, error) {
	var driver riverdriver.Driver[*sql.Tx]
	if db.Dialect == sqlstore.SQLite {
		driver = riversqlite.New(db.Bun.DB)
	} else {
		driver = riverdatabasesql.New(db.Bun.DB)
	}
	c, err := river.NewClient(driver, &river.Config{Logger: riverLogger(log)})
	if err != nil {
		return nil, fmt.Errorf("river client: %w", err)
	}
	return &Inserter{client: c}, nil
}

// Enqueue inserts the job's queue entry in the context's transaction.
// River fetches by priority (1 first, 4 last), then age: an
// organization's first active job gets 1, its fourth and later 4.
func (q *Inserter) Enqueue(ctx context.Context, orgID, jobID string, rank int) error {
	tx, ok := sqlstore.TxFrom(ctx)
	if !ok {
		return errors.New("enqueue outside a transaction")
	}
	opts := &river.InsertOpts{Priority: min(max(rank, 0), 3) + 1}
	args := RunArgs{JobID: jobID, OrgID: orgID}
	if carrier := (propagation.MapCarrier{}); true {
		otel.GetTextMapPropagator().Inject(ctx, carrier)
		if len(carrier) > 0 {
			args.Trace = carrier
		}
	}
	if _, err := q.client.InsertTx(ctx, tx.Tx, args, opts); err != nil {
		return fmt.Errorf("enqueue job %s: %w", jobID, err)
	}
	return nil
}

type runWorker struct {
	river.WorkerDefaults[RunArgs]
	runner  ports.JobRunner
	timeout time.Duration
	share   *orgShare
}

// Timeout lets the runner enforce the job's own limit (it fails the job
// with job_timeout); River's is a backstop a little later.
func (w *runWorker) Timeout(*river.Job[RunArgs]) time.Duration { return w.timeout + time.Minute }

// Work runs the job unless its organization already holds its share of
// this node's workers: then the entry waits a moment (a snooze is not an
// attempt), and a worker stays free for the other organizations.
func (w *runWorker) Work(ctx context.Context, j *river.Job[RunArgs]) error {
	if !w.share.take(j.Args.OrgID) {
		return river.JobSnooze(backoff(j.Metadata, busyJobMost))
	}
	defer w.share.give(j.Args.OrgID)
	if j.Args.Trace != nil {
		ctx = otel.GetTextMapPropagator().Extract(ctx, propagation.MapCarrier(j.Args.Trace))
	}
	return w.runner.RunJob(ctx, j.Args.JobID)
}

// Workers fetch queue entries and run them. On PostgreSQL they use the
// pgx driver, which listens for new entries instead of polling.
type Workers struct {
	client interface {
		Start(context.Context) error
		Stop(context.Context) error
		StopAndCancel(context.Context) error
	}
}

// NewWorkers returns the queue's working side.
func NewWorkers(db *sqlstore.DB, cfg Config, runner ports.JobRunner, purger ports.Purger, deliverer ports.WebhookDeliverer, pusher ports.PushDeliverer,
	log *slog.Logger) (*Workers, error) {
	if cfg.Workers <= 0 {
		cfg.Workers = 2
	}
	if cfg.PurgeEvery <= 0 {
		cfg.PurgeEvery = time.Hour
	}
	if cfg.WebhookWorkers <= 0 {
		cfg.WebhookWorkers = 8
	}
	if cfg.DestinationWorkers <= 0 {
		cfg.DestinationWorkers = 4
	}
	if cfg.PushTimeout <= 0 {
		cfg.PushTimeout = 25 * time.Minute
	}
	workers := river.NewWorkers()
	// One organization may hold every job worker of a node but one, so
	// another's job always finds a worker here (a node of one worker
	// cannot keep one apart).
	river.AddWorker(workers, &runWorker{runner: runner, timeout: cfg.JobTimeout, share: newOrgShare(max(1, cfg.Workers-1))})
	periodic := addDeliveryWorkers(workers, deliverer)
	periodic = append(periodic, addPushWorkers(workers, pusher, cfg.PushTimeout)...)
	if purger != nil {
		river.AddWorker(workers, &purgeWorker{purger: purger})
		periodic = append(periodic, river.NewPeriodicJob(river.PeriodicInterval(cfg.PurgeEvery),
			func() (river.JobArgs, *river.InsertOpts) { return PurgeArgs{}, nil }, &river.PeriodicJobOpts{RunOnStart: true}))
	}
	// SQLite has no LISTEN: workers poll, often enough that a job waits
	// for a worker a few tens of milliseconds, not a second.
	c := &river.Config{Logger: riverLogger(log), MaxAttempts: 25, FetchPollInterval: 50 * time.Millisecond, FetchCooldown: 20 * time.Millisecond,
		RescueStuckJobsAfter: cfg.JobTimeout + 5*time.Minute, Workers: workers, PeriodicJobs: periodic,
		Queues: map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: cfg.Workers}, WebhookQueue: {MaxWorkers: cfg.WebhookWorkers},
			DestinationQueue: {MaxWorkers: cfg.DestinationWorkers}}}
	var err error
	w := &Workers{}
	if db.Dialect == sqlstore.SQLite {
		w.client, err = river.NewClient(riversqlite.New(db.Bun.DB), c)
	} else {
		w.client, err = river.NewClient(riverpgxv5.New(db.Pool), c)
	}
	if err != nil {
		return nil, fmt.Errorf("river client: %w", err)
	}
	return w, nil
}

// Start starts fetching. River runs until Stop or until the context it
// was started with ends, so it gets one that outlives a start-up deadline.
func (w *Workers) Start(ctx context.Context) error { return w.client.Start(context.WithoutCancel(ctx)) }

// Stop lets running jobs finish until shortly before ctx ends, then
// cancels their contexts (a job stops within a second or two of that: its
// readers check it) and waits for them until ctx ends; their leases lapse
// and another worker picks them up. River's Stop alone never cancels a
// running job, so a long one held the shutdown to its deadline.
func (w *Workers) Stop(ctx context.Context) error {
	soft := ctx
	if deadline, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		soft, cancel = context.WithDeadline(ctx, deadline.Add(-hardStopMargin(time.Until(deadline))))
		defer cancel()
	}
	err := w.client.Stop(soft)
	if err == nil || ctx.Err() != nil {
		return err
	}
	return w.client.StopAndCancel(ctx)
}

// hardStopMargin is the part of a shutdown's time left for canceled jobs
// to end: a quarter, at most 5 s.
func hardStopMargin(left time.Duration) time.Duration {
	return min(left/4, 5*time.Second)
}

// Migrate applies River's own migrations.
func Migrate(ctx context.Context, db *sqlstore.DB) (int, error) {
	var res *rivermigrate.MigrateResult
	var err error
	switch db.Dialect {
	case sqlstore.SQLite:
		res, err = migrator(riversqlite.New(db.Bun.DB)).Migrate(ctx, rivermigrate.DirectionUp, nil)
	default:
		res, err = migrator(riverpgxv5.New(db.Pool)).Migrate(ctx, rivermigrate.DirectionUp, nil)
	}
	if err != nil {
		return 0, fmt.Errorf("river migrations: %w", err)
	}
	return len(res.Versions), nil
}

// Pending counts River migrations not applied yet.
func Pending(ctx context.Context, db *sqlstore.DB) (int, error) {
	var res *rivermigrate.ValidateResult
	var err error
	switch db.Dialect {
	case sqlstore.SQLite:
		res, err = migrator(riversqlite.New(db.Bun.DB)).Validate(ctx, nil)
	default:
		res, err = migrator(riverpgxv5.New(db.Pool)).Validate(ctx, nil)
	}
	if err != nil {
		return 0, err
	}
	if res.OK {
		return 0, nil
	}
	return max(1, len(res.Messages)), nil
}

func migrator[TTx any](d riverdriver.Driver[TTx]) *rivermigrate.Migrator[TTx] {
	m, err := rivermigrate.New(d, nil)
	if err != nil {
		panic(err) // only for an invalid config, which nil is not
	}
	return m
}

// Depth counts the entries waiting for a worker (available now), on
// every node's behalf: it reads River's table.
func Depth(ctx context.Context, db *sqlstore.DB) (int64, error) {
	n, err := db.Bun.NewSelect().Table("river_job").Where("state = 'available'").Count(ctx)
	if err != nil {
		return 0, fmt.Errorf("queue depth: %w", err)
	}
	return int64(n), nil
}
