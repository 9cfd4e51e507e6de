package queue_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/queue"
	"github.com/tabnorm/tabnorm/adapters/sqlstore"
	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/ports"
	"github.com/tabnorm/tabnorm/ports/portstest"
)

// openDB opens a fresh database with the store's and River's migrations.
func openDB(t *testing.T, target sqltest.Target) *sqlstore.DB {
	t.Helper()
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, sqlstore.Config{URL: target.URL})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := queue.Migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	return db
}

// start runs workers on db with the runner and deliverer until the test
// ends, and returns the inserter.
func start(t *testing.T, db *sqlstore.DB, runner ports.JobRunner, deliverer ports.WebhookDeliverer) *queue.Inserter {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	q, err := queue.NewInserter(db, log)
	if err != nil {
		t.Fatal(err)
	}
	w, err := queue.NewWorkers(db, queue.Config{Workers: 2, JobTimeout: time.Minute}, runner, nil, deliverer, nil, log)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Stop(context.Background()) })
	return q
}

type idle struct{}

func (idle) RunJob(context.Context, string) error       { return nil }
func (idle) Deliver(context.Context, string, int) error { return nil }
func (idle) Sweep(context.Context) (int, error)         { return 0, nil }

func TestQueue_conformance(t *testing.T) {
	t.Parallel()
	for _, kind := range sqltest.Kinds(t) {
		t.Run(kind.Name, func(t *testing.T) {
			t.Parallel()
			portstest.Queue(t, func(t *testing.T, runner ports.JobRunner) portstest.QueueNode {
				db := openDB(t, kind.New(t))
				return portstest.QueueNode{Queue: start(t, db, runner, idle{}), Tx: sqlstore.NewTransactor(db)}
			})
		})
	}
}

func TestWebhookQueue_conformance(t *testing.T) {
	t.Parallel()
	for _, kind := range sqltest.Kinds(t) {
		t.Run(kind.Name, func(t *testing.T) {
			t.Parallel()
			portstest.WebhookQueue(t, func(t *testing.T, deliverer ports.WebhookDeliverer) portstest.WebhookQueueNode {
				db := openDB(t, kind.New(t))
				return portstest.WebhookQueueNode{Queue: start(t, db, idle{}, deliverer), Tx: sqlstore.NewTransactor(db)}
			})
		})
	}
}

// TestMigrate: River's tables are reported pending until migrated.
func TestMigrate(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			ctx := context.Background()
			db, err := sqlstore.Open(ctx, sqlstore.Config{URL: target.URL})
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = db.Close() }()
			if _, err := db.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			if n, _ := queue.Pending(ctx, db); n == 0 {
				t.Fatal("River migrations reported applied before running them")
			}
			if _, err := queue.Migrate(ctx, db); err != nil {
				t.Fatal(err)
			}
			if n, err := queue.Pending(ctx, db); err != nil || n != 0 {
				t.Fatalf("pending after migrate: %d %v", n, err)
			}
		})
	}
}

// busy is a runner whose jobs run until their context ends.
type busy struct {
	idle
	started chan struct{}
	ended   chan error
}

func (b busy) RunJob(ctx context.Context, _ string) error {
	b.started <- struct{}{}
	<-ctx.Done()
	b.ended <- ctx.Err()
	return ctx.Err()
}

// TestStop_cancelsRunningJobs: a stop whose deadline comes while a job
// still runs cancels the job's context before the deadline, so that the
// job ends and the stop returns in time, instead of waiting for the job
// to its end.
func TestStop_cancelsRunningJobs(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			db := openDB(t, target)
			log := slog.New(slog.DiscardHandler)
			q, err := queue.NewInserter(db, log)
			if err != nil {
				t.Fatal(err)
			}
			b := busy{started: make(chan struct{}, 1), ended: make(chan error, 1)}
			w, err := queue.NewWorkers(db, queue.Config{Workers: 2, JobTimeout: time.Hour}, b, nil, idle{}, nil, log)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			if err := sqlstore.NewTransactor(db).InTx(t.Context(), func(ctx context.Context) error { return q.Enqueue(ctx, "org_1", "job_1", 0) }); err != nil {
				t.Fatal(err)
			}
			select {
			case <-b.started:
			case <-time.After(30 * time.Second):
				t.Fatal("the job did not start")
			}
			const grace = 4 * time.Second
			ctx, cancel := context.WithTimeout(context.Background(), grace)
			defer cancel()
			start := time.Now()
			stopErr := w.Stop(ctx)
			took := time.Since(start)
			select {
			case err := <-b.ended:
				if err == nil {
					t.Fatal("the job ended without its context ending")
				}
			default:
				t.Fatalf("Stop returned (%v) after %s with the job still running", stopErr, took)
			}
			if stopErr != nil || took >= grace {
				t.Fatalf("Stop: %v after %s; want nil before the %s deadline", stopErr, took, grace)
			}
		})
	}
}
