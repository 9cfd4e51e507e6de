package jobs_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/mock"

	"github.com/tabnorm/tabnorm/application/jobs"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/ports"
)

// recorder is a subscriber that keeps what it hears, with the events
// stored when it heard it.
type recorder struct {
	name  string
	f     *fixture
	heard *[]string
	fail  error
}

func (r recorder) JobEvent(_ context.Context, j job.Job, ev ports.Event) error {
	*r.heard = append(*r.heard, fmt.Sprintf("%s:%s:%s:%d:stored=%s", r.name, ev.Kind, j.Status, ev.Seq, r.f.kinds()))
	return r.fail
}

// TestOutbox_subscribers: every stored event reaches the subscribers
// once stored, in the order they were registered, with the job as changed
// and the event's sequence number; a subscriber's error fails the change,
// which is undone with its event: they run in its transaction.
func TestOutbox_subscribers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("each event is told to every subscriber, in its transaction", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, jobs.Config{})
		f.put(queuedJob("job_1"))
		var heard []string
		f.outbox.Subscribe(recorder{name: "a", f: f, heard: &heard})
		f.outbox.Subscribe(recorder{name: "b", f: f, heard: &heard})
		f.slots.EXPECT().Counts(mock.Anything, "org_acme").Return(0, 0, nil).Maybe()
		f.slots.EXPECT().NextWaiting(mock.Anything, "org_acme").Return("", nil).Maybe()
		if _, err := f.cancel.Cancel(ctx, acme, "job_1"); err != nil {
			t.Fatal(err)
		}
		if len(heard) != 2 || heard[0] != "a:job.canceled:canceled:1:stored=job.canceled" || heard[1] != "b:job.canceled:canceled:1:stored=job.canceled" {
			t.Fatalf("heard %v", heard)
		}
	})

	t.Run("a subscriber's error fails the change, and the change and its event are undone", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, jobs.Config{})
		f.put(queuedJob("job_1"))
		var heard []string
		down := errors.New("the deliveries table is down")
		f.outbox.Subscribe(recorder{name: "a", f: f, heard: &heard, fail: down})
		f.outbox.Subscribe(recorder{name: "b", f: f, heard: &heard})
		_, err := f.cancel.Cancel(ctx, acme, "job_1")
		if !errors.Is(err, down) || len(heard) != 1 {
			t.Fatalf("Cancel = %v, heard %v; want the subscriber's error, and the next subscriber not told", err, heard)
		}
		if f.job("job_1").Status != job.Queued || f.kinds() != "" {
			t.Fatalf("the failed change stayed: %s, events %q", f.job("job_1").Status, f.kinds())
		}
		// The slots mock fails the test on a dispatch after the failed change.
	})
}
