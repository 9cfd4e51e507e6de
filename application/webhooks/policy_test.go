package webhooks_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"

	"github.com/tabnorm/tabnorm/application/webhooks"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/webhook"
	"github.com/tabnorm/tabnorm/ports"
	"github.com/tabnorm/tabnorm/test/mocks"
)

// onMocks is the webhooks' parts on mocks of their ports, for the policies
// that need no database; the outbox itself is tested end to end above.
type onMocks struct {
	endpoints  *mocks.WebhookEndpoints
	deliveries *mocks.WebhookDeliveries
	queue      *mocks.WebhookQueue
	sender     *mocks.WebhookSender
	render     *mocks.JobRenderer
	svc        *service
	now        time.Time
}

func newOnMocks(t *testing.T) onMocks {
	t.Helper()
	f := onMocks{endpoints: mocks.NewWebhookEndpoints(t), deliveries: mocks.NewWebhookDeliveries(t), queue: mocks.NewWebhookQueue(t),
		sender: mocks.NewWebhookSender(t), render: mocks.NewJobRenderer(t), now: time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)}
	tx, clock := mocks.NewTransactor(t), mocks.NewClock(t)
	tx.EXPECT().InTx(mock.Anything, mock.Anything).RunAndReturn(func(ctx context.Context, fn func(context.Context) error) error { return fn(ctx) }).Maybe()
	clock.EXPECT().Now().Return(f.now).Maybe()
	trail := mocks.NewAuditLog(t)
	trail.EXPECT().Record(mock.Anything, mock.Anything).Return(nil).Maybe()
	f.svc = newService(webhooks.Config{}, f.endpoints, f.deliveries, f.queue, f.sender, tx, f.render, clock, slog.New(slog.DiscardHandler), trail)
	return f
}

func TestService_JobEvent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	succeeded := job.Job{ID: "job_1", OrgID: "org_a", Status: job.Succeeded}
	endpoint := func(id string, events ...string) webhook.Endpoint {
		return webhook.Endpoint{ID: id, OrgID: "org_a", URL: "https://hooks.example/" + id, Events: events, Enabled: true, Secret: webhook.NewSecret()}
	}

	t.Run("the job is rendered once and delivered to each subscribed endpoint", func(t *testing.T) {
		t.Parallel()
		f := newOnMocks(t)
		f.endpoints.EXPECT().Enabled(mock.Anything, "org_a").Return([]webhook.Endpoint{
			endpoint("wh_1", webhook.JobSucceeded), endpoint("wh_2", webhook.JobStarted), endpoint("wh_3", webhook.JobSucceeded, webhook.JobFailed)}, nil).Once()
		f.render.EXPECT().Job(succeeded).Return([]byte(`{"id":"job_1","object":"job"}`), nil).Once()
		var to []string
		f.deliveries.EXPECT().Create(mock.Anything, mock.Anything).Run(func(_ context.Context, d webhook.Delivery) {
			to = append(to, d.EndpointID)
			var body struct {
				Type string          `json:"type"`
				Data json.RawMessage `json:"data"`
			}
			if err := json.Unmarshal(d.Payload, &body); err != nil || body.Type != webhook.JobSucceeded || string(body.Data) != `{"id":"job_1","object":"job"}` {
				t.Errorf("payload %s (%v)", d.Payload, err)
			}
		}).Return(nil).Twice()
		f.queue.EXPECT().EnqueueDelivery(mock.Anything, mock.Anything, mock.Anything, 1, f.now).Return(nil).Twice()
		if err := f.svc.JobEvent(ctx, succeeded, ports.Event{JobID: "job_1", Seq: 2, Kind: job.EventSucceeded}); err != nil {
			t.Fatal(err)
		}
		if len(to) != 2 || to[0] != "wh_1" || to[1] != "wh_3" {
			t.Fatalf("delivered to %v", to)
		}
	})

	t.Run("an event that is no webhook event delivers nothing", func(t *testing.T) {
		t.Parallel()
		f := newOnMocks(t)
		running := job.Job{ID: "job_1", OrgID: "org_a", Status: job.Running}
		for seq, kind := range []string{job.EventQueued, job.EventProgress} {
			if err := f.svc.JobEvent(ctx, running, ports.Event{JobID: "job_1", Seq: seq + 1, Kind: kind}); err != nil {
				t.Fatal(err)
			}
		}
		// The mocks fail the test on any call.
	})

	t.Run("a job that cannot be rendered fails the change, and nothing is delivered", func(t *testing.T) {
		t.Parallel()
		f := newOnMocks(t)
		f.endpoints.EXPECT().Enabled(mock.Anything, "org_a").Return([]webhook.Endpoint{endpoint("wh_1", webhook.JobSucceeded)}, nil).Once()
		broken := errors.New("unsupported value")
		f.render.EXPECT().Job(succeeded).Return(nil, broken).Once()
		if err := f.svc.JobEvent(ctx, succeeded, ports.Event{JobID: "job_1", Seq: 2, Kind: job.EventSucceeded}); !errors.Is(err, broken) {
			t.Fatalf("error %v", err)
		}
	})
}

func TestService_Deliver_onlyTheDueAttempt(t *testing.T) {
	t.Parallel()
	f := newOnMocks(t)
	d := webhook.Delivery{ID: "del_1", EndpointID: "wh_1", Status: webhook.Pending, Attempts: 1, NextAt: &f.now}
	f.deliveries.EXPECT().Get(mock.Anything, "", "del_1").Return(d, nil).Twice()
	for _, attempt := range []int{1, 3} { // made already; not yet the next
		if err := f.svc.Deliver(context.Background(), "del_1", attempt); err != nil {
			t.Fatalf("attempt %d: %v", attempt, err)
		}
	}
	// The sender mock fails the test on a Send.
}

func TestService_Sweep_onMocks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newOnMocks(t)
	f.deliveries.EXPECT().Due(mock.Anything, f.now.Add(-webhooks.SweepAfter), 500).Return([]webhook.Delivery{{ID: "del_1", Attempts: 0}, {ID: "del_2", Attempts: 2}}, nil).Once()
	f.queue.EXPECT().EnqueueDelivery(mock.Anything, mock.Anything, "del_1", 1, f.now.Add(2*time.Second)).Return(nil).Once()
	f.queue.EXPECT().EnqueueDelivery(mock.Anything, mock.Anything, "del_2", 3, f.now.Add(2*time.Second)).Return(nil).Once()
	if n, err := f.svc.Sweep(ctx); n != 2 || err != nil {
		t.Fatalf("Sweep = %d, %v", n, err)
	}
	down := errors.New("database down")
	f.deliveries.EXPECT().Due(mock.Anything, mock.Anything, 500).Return(nil, down).Once()
	if n, err := f.svc.Sweep(ctx); n != 0 || !errors.Is(err, down) {
		t.Fatalf("Sweep = %d, %v", n, err)
	}
}
