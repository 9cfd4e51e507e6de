package portstest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/ports"
	"github.com/tabnorm/tabnorm/test/testtime"
)

// QueueNode is a queue under test: the port, and the Transactor whose
// transactions Enqueue joins. Its workers, started by the adapter's open
// function, call the runner the suite passes.
type QueueNode struct {
	Queue ports.Queue
	Tx    ports.Transactor
}

// Queue is the suite of ports.Queue. open starts a fresh queue whose
// workers run jobs with runner, and stops it when the test ends.
func Queue(t *testing.T, open func(t *testing.T, runner ports.JobRunner) QueueNode) {
	t.Helper()
	for _, s := range []struct {
		name string
		run  func(*testing.T, QueueNode, runs)
	}{
		{"a_committed_entry_runs_once", queueCommitted},
		{"a_rolled_back_entry_never_runs", queueRolledBack},
		{"enqueue_outside_a_transaction_is_refused", queueOutsideTx},
	} {
		t.Run(s.name, func(t *testing.T) {
			r := make(runs, 16)
			s.run(t, open(t, r), r)
		})
	}
}

// runs records the jobs the queue's workers run.
type runs chan string

func (r runs) RunJob(_ context.Context, jobID string) error {
	r <- jobID
	return nil
}

func (r runs) Deliver(_ context.Context, deliveryID string, attempt int) error {
	r <- fmt.Sprintf("%s#%d", deliveryID, attempt)
	return nil
}

func (r runs) Sweep(context.Context) (int, error) { return 0, nil }

func (r runs) expect(t *testing.T, want string) {
	t.Helper()
	select {
	case got := <-r:
		if got != want {
			t.Fatalf("Queue: ran %s, want %s", got, want)
		}
	case <-testtime.After(15 * time.Second):
		t.Fatalf("Queue: %s did not run within 15 s, want it run", want)
	}
}

func (r runs) expectNothing(t *testing.T, what string) {
	t.Helper()
	select {
	case got := <-r:
		t.Fatalf("%s: ran %s, want nothing run", what, got)
	case <-time.After(500 * time.Millisecond):
	}
}

func queueCommitted(t *testing.T, n QueueNode, r runs) {
	ok(t, n.Tx.InTx(context.Background(), func(ctx context.Context) error { return n.Queue.Enqueue(ctx, "org_1", "job_committed", 0) }))
	r.expect(t, "job_committed")
	r.expectNothing(t, "after the committed entry ran")
}

func queueRolledBack(t *testing.T, n QueueNode, r runs) {
	boom := errors.New("rolled back")
	err := n.Tx.InTx(context.Background(), func(ctx context.Context) error {
		if err := n.Queue.Enqueue(ctx, "org_1", "job_rolled_back", 0); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Tx.InTx = %v; want fn's error", err)
	}
	ok(t, n.Tx.InTx(context.Background(), func(ctx context.Context) error { return n.Queue.Enqueue(ctx, "org_1", "job_committed", 0) }))
	r.expect(t, "job_committed")
	r.expectNothing(t, "an entry whose transaction rolled back")
}

// queueOutsideTx: a job row and its queue entry commit together or not at
// all, so an entry without a transaction is a bug the queue refuses.
func queueOutsideTx(t *testing.T, n QueueNode, _ runs) {
	if err := n.Queue.Enqueue(context.Background(), "org_1", "job_no_tx", 0); err == nil {
		t.Fatal("Queue.Enqueue outside a transaction: accepted, want an error")
	}
}

// WebhookQueueNode is a webhook queue under test, like QueueNode.
type WebhookQueueNode struct {
	Queue ports.WebhookQueue
	Tx    ports.Transactor
}

// WebhookQueue is the suite of ports.WebhookQueue. open starts a fresh
// queue whose workers attempt deliveries with deliverer.
func WebhookQueue(t *testing.T, open func(t *testing.T, deliverer ports.WebhookDeliverer) WebhookQueueNode) {
	t.Helper()
	for _, s := range []struct {
		name string
		run  func(*testing.T, WebhookQueueNode, runs)
	}{
		{"a_due_attempt_runs_and_a_later_one_waits", webhookQueueScheduled},
		{"enqueue_outside_a_transaction_is_refused", webhookQueueOutsideTx},
	} {
		t.Run(s.name, func(t *testing.T) {
			r := make(runs, 16)
			s.run(t, open(t, r), r)
		})
	}
}

func webhookQueueScheduled(t *testing.T, n WebhookQueueNode, r runs) {
	ok(t, n.Tx.InTx(context.Background(), func(ctx context.Context) error {
		if err := n.Queue.EnqueueDelivery(ctx, "org_1", "dlv_later", 2, time.Now().Add(time.Hour)); err != nil {
			return err
		}
		return n.Queue.EnqueueDelivery(ctx, "org_1", "dlv_now", 1, time.Now())
	}))
	r.expect(t, "dlv_now#1")
	r.expectNothing(t, "an attempt scheduled an hour ahead")
}

func webhookQueueOutsideTx(t *testing.T, n WebhookQueueNode, _ runs) {
	if err := n.Queue.EnqueueDelivery(context.Background(), "org_1", "dlv_no_tx", 1, time.Now()); err == nil {
		t.Fatal("WebhookQueue.EnqueueDelivery outside a transaction: accepted, want an error")
	}
}
