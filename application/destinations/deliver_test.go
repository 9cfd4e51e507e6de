package destinations_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"

	"github.com/tabnorm/tabnorm/application/destinations"
	"github.com/tabnorm/tabnorm/application/webhooks"
	"github.com/tabnorm/tabnorm/domain/destination"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/webhook"
	"github.com/tabnorm/tabnorm/ports"
	"github.com/tabnorm/tabnorm/test/mocks"
)

// deliverer is a Deliverer on mocks whose one delivery lives in cur.
type deliverer struct {
	onMocks
	observer  *mocks.PushObserver
	endpoints *mocks.WebhookEndpoints
	d         *destinations.Deliverer
	cur       destination.Delivery
}

func newDeliverer(t *testing.T) *deliverer {
	t.Helper()
	f := &deliverer{onMocks: newOnMocks(t), observer: mocks.NewPushObserver(t), endpoints: mocks.NewWebhookEndpoints(t)}
	tx, clock, render := mocks.NewTransactor(t), mocks.NewClock(t), mocks.NewJobRenderer(t)
	tx.EXPECT().InTx(mock.Anything, mock.Anything).RunAndReturn(func(ctx context.Context, fn func(context.Context) error) error { return fn(ctx) }).Maybe()
	clock.EXPECT().Now().Return(now).Maybe()
	render.EXPECT().Job(mock.Anything).Return([]byte(`{"id":"job_1"}`), nil).Maybe()
	hooks := webhooks.NewFanout(f.endpoints, mocks.NewWebhookDeliveries(t), mocks.NewWebhookQueue(t), render, clock)
	f.d = destinations.NewDeliverer(destinations.Config{Observer: f.observer}, f.destinations, f.pushes, f.queue, f.jobs, mocks.NewBlobStore(t), render,
		f.sealer, f.writer, hooks, tx, clock, slog.New(slog.DiscardHandler))
	f.cur = destination.New("psh_1", "org_a", "job_1", "dst_a", now)
	f.pushes.EXPECT().Get(mock.Anything, "", "psh_1").RunAndReturn(func(context.Context, string, string) (destination.Delivery, error) { return f.cur, nil }).Maybe()
	f.pushes.EXPECT().Update(mock.Anything, "", "psh_1", mock.Anything).RunAndReturn(
		func(_ context.Context, _, _ string, fn func(*destination.Delivery) error) (destination.Delivery, error) {
			d := f.cur
			if err := fn(&d); err != nil {
				return destination.Delivery{}, err
			}
			f.cur = d
			return d, nil
		}).Maybe()
	f.destinations.EXPECT().Get(mock.Anything, "org_a", "dst_a").Return(destination.Destination{ID: "dst_a", OrgID: "org_a", Type: destination.Postgres,
		Config: map[string]string{"table": "t"}, Sealed: []byte("sealed")}, nil).Maybe()
	f.sealer.EXPECT().Open([]byte("sealed"), []byte("org_a/dst_a")).Return([]byte(`{"url":"postgres://db.example.com/app"}`), nil).Maybe()
	f.jobs.EXPECT().Get(mock.Anything, "org_a", "job_1").Return(job.Job{ID: "job_1", OrgID: "org_a", Status: job.Succeeded, RerunOf: "job_0",
		Schema: []byte(`{"fields":[{"name":"id","type":"integer"}]}`)}, nil).Maybe()
	f.jobs.EXPECT().Get(mock.Anything, "org_a", "job_0").Return(job.Job{ID: "job_0", OrgID: "org_a", Status: job.Succeeded}, nil).Maybe()
	return f
}

func TestDeliverer_Push(t *testing.T) {
	t.Parallel()

	t.Run("a failed attempt is recorded, the next is queued on the schedule, and the observer hears it", func(t *testing.T) {
		t.Parallel()
		f := newDeliverer(t)
		f.writer.EXPECT().Deliver(mock.Anything, mock.Anything, mock.Anything).RunAndReturn(
			func(_ context.Context, tg destination.Target, s ports.Shipment) (ports.Shipped, error) {
				if tg.Secrets["url"] == "" || s.JobID != "job_1" || len(s.Replaces) != 1 || s.Replaces[0] != "job_0" {
					t.Errorf("the writer got %+v, %+v", tg, s)
				}
				return ports.Shipped{}, errors.New("could not connect to the database: timed out")
			}).Once()
		f.observer.EXPECT().PushAttempted(destination.Postgres, destination.Failed, int64(0), int64(0), mock.Anything).Once()
		f.queue.EXPECT().EnqueuePush(mock.Anything, "org_a", "psh_1", 2, now.Add(destination.Schedule[1])).Return(nil).Once()
		if err := f.d.Push(context.Background(), "psh_1", 1); err != nil {
			t.Fatal(err)
		}
		if f.cur.Status != destination.Pending || f.cur.Attempts != 1 || f.cur.LastError != "could not connect to the database: timed out" {
			t.Fatalf("after the attempt: %+v", f.cur)
		}
		// The same queue entry again (a repeat) does nothing.
		if err := f.d.Push(context.Background(), "psh_1", 1); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("a delivered attempt ends the delivery and is announced as job.delivered", func(t *testing.T) {
		t.Parallel()
		f := newDeliverer(t)
		f.writer.EXPECT().Deliver(mock.Anything, mock.Anything, mock.Anything).Return(ports.Shipped{Rows: 5, Bytes: 50, Checksum: "ab"}, nil).Once()
		f.observer.EXPECT().PushAttempted(destination.Postgres, destination.Delivered, int64(5), int64(50), mock.Anything).Once()
		f.endpoints.EXPECT().Enabled(mock.Anything, "org_a").Return([]webhook.Endpoint{}, nil).Once()
		if err := f.d.Push(context.Background(), "psh_1", 1); err != nil {
			t.Fatal(err)
		}
		if f.cur.Status != destination.Delivered || f.cur.Rows != 5 || f.cur.Bytes != 50 || f.cur.DeliveredAt == nil {
			t.Fatalf("after the attempt: %+v", f.cur)
		}
	})

	t.Run("a claim whose worker died is swept up once it lapses", func(t *testing.T) {
		t.Parallel()
		f := newDeliverer(t)
		f.cur.Claim(now.Add(-time.Hour), time.Minute) // attempt 1, long lapsed
		f.pushes.EXPECT().Due(mock.Anything, now.Add(-destinations.SweepAfter), 500).Return([]destination.Delivery{f.cur}, nil).Once()
		f.queue.EXPECT().EnqueuePush(mock.Anything, "org_a", "psh_1", 2, mock.Anything).Return(nil).Once()
		if n, err := f.d.Sweep(context.Background()); err != nil || n != 1 {
			t.Fatalf("Sweep = %d, %v", n, err)
		}
	})
}
