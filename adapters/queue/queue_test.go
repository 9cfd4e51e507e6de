package queue_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/queue"
	"github.com/tabnorm/tabnorm/adapters/sqlstore"
	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
)

type recorder struct {
	mu   sync.Mutex
	ran  []string
	done chan string
}

func (r *recorder) RunJob(_ context.Context, id string) error {
	r.mu.Lock()
	r.ran = append(r.ran, id)
	r.mu.Unlock()
	r.done <- id
	return nil
}

func TestQueue_transactionalEnqueueAndWork(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db, err := sqlstore.Open(ctx, sqlstore.Config{URL: target.URL})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
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
			rec := &recorder{done: make(chan string, 10)}
			q, err := queue.NewInserter(db, slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			w, err := queue.NewWorkers(db, queue.Config{Workers: 2, JobTimeout: time.Minute}, rec, nil, nil, slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Start(ctx); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = w.Stop(ctx) }()
			tx := sqlstore.NewTransactor(db)
			boom := errors.New("rolled back")
			if err := tx.InTx(ctx, func(ctx context.Context) error {
				if err := q.Enqueue(ctx, "job_rolled_back", 0); err != nil {
					return err
				}
				return boom
			}); !errors.Is(err, boom) {
				t.Fatal(err)
			}
			if err := tx.InTx(ctx, func(ctx context.Context) error { return q.Enqueue(ctx, "job_committed", 0) }); err != nil {
				t.Fatal(err)
			}
			select {
			case id := <-rec.done:
				if id != "job_committed" {
					t.Fatalf("ran %s", id)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("committed job not worked within 10 s")
			}
			time.Sleep(500 * time.Millisecond)
			rec.mu.Lock()
			defer rec.mu.Unlock()
			if len(rec.ran) != 1 {
				t.Fatalf("ran %v; the rolled-back entry must not exist", rec.ran)
			}
			if err := q.Enqueue(ctx, "job_no_tx", 0); err == nil {
				t.Fatal("enqueue outside a transaction accepted")
			}
		})
	}
}
