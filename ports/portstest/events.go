package portstest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/ports"
	"github.com/tabnorm/tabnorm/test/testtime"
)

// EventBusNodes is what the EventBus suite runs against: the bus a
// publisher uses, the bus a subscriber uses (the same one, or another
// node's on the same backend, to prove notices cross nodes), and the
// Transactor whose transactions Publish joins.
type EventBusNodes struct {
	Publisher  ports.EventBus
	Subscriber ports.EventBus
	Tx         ports.Transactor
}

// EventBus is the suite of ports.EventBus.
func EventBus(t *testing.T, open func(t *testing.T) EventBusNodes) {
	t.Helper()
	runSteps(t, open, []step[EventBusNodes]{
		{"a_subscriber_hears_its_jobs_notices", busHears},
		{"another_jobs_notices_are_not_heard", busOtherJob},
		{"after_unsubscribing_nothing_is_heard", busUnsubscribed},
		{"inside_a_transaction_notices_wait_for_the_commit", busCommit},
		{"a_rolled_back_transaction_sends_nothing", busRollback},
	})
}

// quiet is how long the suite waits to be sure no notice comes.
const quiet = 300 * time.Millisecond

func hear(t *testing.T, ch <-chan int, want int) {
	t.Helper()
	select {
	case seq := <-ch:
		if seq != want {
			t.Fatalf("EventBus.Subscribe: heard seq %d, want %d", seq, want)
		}
	case <-testtime.After(10 * time.Second):
		t.Fatalf("EventBus.Subscribe: seq %d not heard within 10 s, want it heard", want)
	}
}

func hearNothing(t *testing.T, ch <-chan int, what string) {
	t.Helper()
	select {
	case seq := <-ch:
		t.Fatalf("%s: heard seq %d, want nothing heard", what, seq)
	case <-time.After(quiet):
	}
}

func busHears(t *testing.T, n EventBusNodes) {
	ch, stop := n.Subscriber.Subscribe("job_a")
	defer stop()
	for seq := 1; seq <= 3; seq++ {
		ok(t, n.Publisher.Publish(context.Background(), "job_a", seq))
		hear(t, ch, seq)
	}
}

func busOtherJob(t *testing.T, n EventBusNodes) {
	ch, stop := n.Subscriber.Subscribe("job_a")
	defer stop()
	ok(t, n.Publisher.Publish(context.Background(), "job_b", 1))
	hearNothing(t, ch, "a subscriber of job_a after a notice of job_b")
}

func busUnsubscribed(t *testing.T, n EventBusNodes) {
	ch, stop := n.Subscriber.Subscribe("job_a")
	stop()
	ok(t, n.Publisher.Publish(context.Background(), "job_a", 1))
	hearNothing(t, ch, "an ended subscription")
}

func busCommit(t *testing.T, n EventBusNodes) {
	ch, stop := n.Subscriber.Subscribe("job_a")
	defer stop()
	ok(t, n.Tx.InTx(context.Background(), func(ctx context.Context) error {
		if err := n.Publisher.Publish(ctx, "job_a", 7); err != nil {
			return err
		}
		hearNothing(t, ch, "a notice published in a transaction that has not committed")
		return nil
	}))
	hear(t, ch, 7)
}

func busRollback(t *testing.T, n EventBusNodes) {
	ch, stop := n.Subscriber.Subscribe("job_a")
	defer stop()
	boom := errors.New("boom")
	err := n.Tx.InTx(context.Background(), func(ctx context.Context) error {
		if err := n.Publisher.Publish(ctx, "job_a", 7); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Tx.InTx = %v; want fn's error", err)
	}
	hearNothing(t, ch, "a notice published in a rolled-back transaction")
}
