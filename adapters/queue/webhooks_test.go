package queue_test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/queue"
	"github.com/tabnorm/tabnorm/adapters/sqlstore"
	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
)

type deliveries chan string

func (d deliveries) Sweep(context.Context) (int, error) { return 0, nil }

func (d deliveries) Deliver(_ context.Context, id string, attempt int) error {
	d <- fmt.Sprintf("%s#%d", id, attempt)
	return nil
}

func TestQueue_webhookDeliveriesRunWhenScheduled(t *testing.T) {
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
			if _, err := queue.Migrate(ctx, db); err != nil {
				t.Fatal(err)
			}
			q, err := queue.NewInserter(db, slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			got := make(deliveries, 10)
			w, err := queue.NewWorkers(db, queue.Config{Workers: 2, JobTimeout: time.Minute}, &recorder{done: make(chan string, 1)}, nil, got, slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Start(ctx); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = w.Stop(ctx) }()
			if err := sqlstore.NewTransactor(db).InTx(ctx, func(ctx context.Context) error {
				if err := q.EnqueueDelivery(ctx, "dlv_later", 2, time.Now().Add(time.Hour)); err != nil {
					return err
				}
				return q.EnqueueDelivery(ctx, "dlv_now", 1, time.Now())
			}); err != nil {
				t.Fatal(err)
			}
			select {
			case s := <-got:
				if s != "dlv_now#1" {
					t.Fatalf("delivered %s", s)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("a due delivery was not worked within 10 s")
			}
			select {
			case s := <-got:
				t.Fatalf("delivered %s before its time", s)
			case <-time.After(300 * time.Millisecond):
			}
			if err := q.EnqueueDelivery(ctx, "dlv_no_tx", 1, time.Now()); err == nil {
				t.Fatal("enqueue outside a transaction accepted")
			}
		})
	}
}
