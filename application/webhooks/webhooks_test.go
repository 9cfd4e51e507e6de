package webhooks_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/tabnorm/tabnorm/adapters/httpapi"
	"github.com/tabnorm/tabnorm/adapters/queue"
	"github.com/tabnorm/tabnorm/adapters/sqlstore"
	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	sender "github.com/tabnorm/tabnorm/adapters/webhook"
	"github.com/tabnorm/tabnorm/application/webhooks"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/id"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/normalize"
	"github.com/tabnorm/tabnorm/domain/webhook"
	"github.com/tabnorm/tabnorm/ports"
)

// clock is the injected time: tests move it, nothing sleeps.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Set(t time.Time)     { c.mu.Lock(); c.now = t; c.mu.Unlock() }
func (c *clock) Add(d time.Duration) { c.Set(c.Now().Add(d)) }

// receiver is a real HTTP server on loopback that answers with the next
// status of its script (the last one repeats) and keeps what it got.
type receiver struct {
	*httptest.Server
	mu       sync.Mutex
	statuses []int
	got      []received
}

type received struct {
	header http.Header
	body   []byte
}

func newReceiver(t *testing.T, statuses ...int) *receiver {
	r := &receiver{statuses: statuses}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got = append(r.got, received{req.Header.Clone(), body})
		status := r.statuses[min(len(r.got), len(r.statuses))-1]
		r.mu.Unlock()
		w.WriteHeader(status)
		_, _ = io.WriteString(w, "answer "+strconv.Itoa(status))
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) requests() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.got...)
}

type fixture struct {
	db         *sqlstore.DB
	svc        *service
	jobs       ports.Jobs
	tx         ports.Transactor
	deliveries *sqlstore.WebhookDeliveries
	clock      *clock
	org        identity.Organization
	admin      identity.Principal
	endpoints  *sqlstore.WebhookEndpoints
	queue      *queue.Inserter
	events     *sqlstore.JobEvents
}

func setup(t *testing.T, target sqltest.Target) *fixture {
	t.Helper()
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, sqlstore.Config{URL: target.URL})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := queue.Migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	q, err := queue.NewInserter(db, log)
	if err != nil {
		t.Fatal(err)
	}
	org, _ := identity.NewOrganization(id.New(id.Org), "Acme", []identity.Product{identity.Normalize}, time.Now())
	if err := sqlstore.NewOrganizations(db).Create(ctx, org); err != nil {
		t.Fatal(err)
	}
	f := &fixture{db: db, tx: sqlstore.NewTransactor(db), deliveries: sqlstore.NewWebhookDeliveries(db), org: org,
		clock: &clock{now: time.Now().UTC().Truncate(time.Second)},
		admin: identity.Principal{Method: identity.BySession, OrgID: org.ID, Role: identity.Admin}}
	f.endpoints, f.queue = sqlstore.NewWebhookEndpoints(db), q
	f.svc = f.withConfig(webhooks.Config{AllowPrivate: true})
	f.events = sqlstore.NewJobEvents(db)
	f.jobs = sqlstore.NewJobs(db)
	return f
}

// finishJob creates a job and moves it to running, then to succeeded, as
// the jobs service does: each change and its job event in one
// transaction, the service told of the event there, a progress event
// between them.
func (f *fixture) finishJob(t *testing.T) job.Job {
	t.Helper()
	now := f.clock.Now()
	j := job.Job{ID: id.New(id.Job), OrgID: f.org.ID, Mode: normalize.ModeNormalize, Status: job.Queued, SourceType: job.SourceUpload,
		Options: []byte(`{}`), CreatedAt: now}
	if err := f.jobs.Create(context.Background(), j); err != nil {
		t.Fatal(err)
	}
	f.change(t, j.ID, job.EventStarted, func(j *job.Job) error { return j.Start(now) })
	f.change(t, j.ID, job.EventProgress, func(j *job.Job) error { j.Progress.RowsRead = 3; return nil })
	return f.change(t, j.ID, job.EventSucceeded, func(j *job.Job) error { return j.Succeed(now, job.Result{RowCount: 3}) })
}

// change updates a job and appends its event in one transaction, telling
// the service of the event there, as the jobs service does with its
// subscribers.
func (f *fixture) change(t *testing.T, jobID, kind string, fn func(*job.Job) error) job.Job {
	t.Helper()
	var out job.Job
	err := f.tx.InTx(context.Background(), func(ctx context.Context) error {
		var err error
		out, err = f.changeIn(ctx, jobID, kind, fn)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// changeIn is change inside the caller's transaction.
func (f *fixture) changeIn(ctx context.Context, jobID, kind string, fn func(*job.Job) error) (job.Job, error) {
	j, err := f.jobs.Update(ctx, "", jobID, fn)
	if err != nil {
		return job.Job{}, err
	}
	ev, err := f.events.Append(ctx, jobID, kind, []byte(`{}`), f.clock.Now())
	if err != nil {
		return job.Job{}, err
	}
	return j, f.svc.JobEvent(ctx, j, ev)
}

// service is the webhooks' three parts, called through one value.
type service struct {
	*webhooks.Endpoints
	*webhooks.Fanout
	*webhooks.Deliverer
}

// newService builds the three parts on the same ports.
func newService(cfg webhooks.Config, endpoints ports.WebhookEndpoints, deliveries ports.WebhookDeliveries, queue ports.WebhookQueue,
	sender ports.WebhookSender, tx ports.Transactor, render ports.JobRenderer, clock ports.Clock, log *slog.Logger, trail ports.AuditLog) *service {
	return &service{
		Endpoints: webhooks.NewEndpoints(cfg, endpoints, deliveries, queue, tx, clock, trail),
		Fanout:    webhooks.NewFanout(endpoints, deliveries, queue, render, clock),
		Deliverer: webhooks.NewDeliverer(cfg, endpoints, deliveries, queue, sender, tx, clock, log),
	}
}

// withConfig is a service on the fixture's stores with other settings.
func (f *fixture) withConfig(cfg webhooks.Config) *service {
	return newService(cfg, f.endpoints, f.deliveries, f.queue,
		sender.NewSender(sender.Config{AllowPrivate: true, Timeout: 5 * time.Second}), f.tx, httpapi.JobRenderer{}, f.clock, slog.New(slog.DiscardHandler), sqlstore.NewAuditLog(f.db))
}

func (f *fixture) get(t *testing.T, deliveryID string) webhook.Delivery {
	t.Helper()
	d, err := f.deliveries.Get(context.Background(), f.org.ID, deliveryID)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func (f *fixture) list(t *testing.T, endpointID string) []webhook.Delivery {
	t.Helper()
	ds, _, err := f.svc.Deliveries(context.Background(), f.admin, endpointID, ports.Page{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func verify(t *testing.T, secret string, r received) {
	t.Helper()
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	// The timestamp is the injected clock's, which tests move ahead.
	if err := wh.VerifyIgnoringTimestamp(r.body, r.header); err != nil {
		t.Fatalf("signature of %s: %v", r.header.Get("webhook-id"), err)
	}
}

func forEach(t *testing.T, fn func(t *testing.T, f *fixture)) {
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			fn(t, setup(t, target))
		})
	}
}

func TestService_retriesOnTheScheduleUntilA2xx(t *testing.T) {
	t.Parallel()
	forEach(t, retriesOnTheScheduleUntilA2xx)
}

func retriesOnTheScheduleUntilA2xx(t *testing.T, f *fixture) {
	ctx := context.Background()
	rcv := newReceiver(t, 500, 503, 202)
	e, err := f.svc.Create(ctx, f.admin, webhooks.Input{URL: rcv.URL + "/hook", Events: []string{webhook.JobSucceeded}})
	if err != nil {
		t.Fatal(err)
	}
	j := f.finishJob(t)
	ds := f.list(t, e.ID)
	if len(ds) != 1 || ds[0].EventType != webhook.JobSucceeded { // job.started is not subscribed
		t.Fatalf("deliveries: %+v", ds)
	}
	d := ds[0]
	start := f.clock.Now()
	if err := f.svc.Deliver(ctx, d.ID, 1); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.Deliver(ctx, d.ID, 2); err != nil { // 5 s early: nothing is sent
		t.Fatal(err)
	}
	if n := len(rcv.requests()); n != 1 {
		t.Fatalf("%d requests before the second attempt's time", n)
	}
	f.clock.Add(5 * time.Second)
	if err := f.svc.Deliver(ctx, d.ID, 2); err != nil {
		t.Fatal(err)
	}
	got := f.list(t, e.ID)[0]
	if got.Status != webhook.Pending || got.Attempts != 2 || !got.NextAt.Equal(start.Add(5*time.Second+5*time.Minute)) || got.Last.StatusCode != 503 {
		t.Fatalf("after two failures: %+v", got)
	}
	f.clock.Add(5 * time.Minute)
	if err := f.svc.Deliver(ctx, d.ID, 3); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.Deliver(ctx, d.ID, 3); err != nil { // a repeated queue entry
		t.Fatal(err)
	}
	got = f.list(t, e.ID)[0]
	if got.Status != webhook.Delivered || got.Attempts != 3 || got.Last.StatusCode != 202 || got.Last.ResponseBody != "answer 202" {
		t.Fatalf("after the 2xx: %+v", got)
	}
	reqs := rcv.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	for i, r := range reqs {
		checkSucceededRequest(t, e.Secret, r, d.ID, j.ID, i)
	}
	if ts := reqs[2].header.Get("webhook-timestamp"); ts != strconv.FormatInt(f.clock.Now().Unix(), 10) {
		t.Fatalf("webhook-timestamp %s, want the clock's", ts)
	}
}

// checkSucceededRequest: request i is signed, carries the delivery's id,
// and its body is the job.succeeded event of the job.
func checkSucceededRequest(t *testing.T, secret string, r received, deliveryID, jobID string, i int) {
	t.Helper()
	verify(t, secret, r)
	if r.header.Get("webhook-id") != deliveryID {
		t.Fatalf("request %d: webhook-id %q, want %q on every attempt", i, r.header.Get("webhook-id"), deliveryID)
	}
	var body struct {
		Type string
		Data struct{ ID, Status string }
	}
	if err := json.Unmarshal(r.body, &body); err != nil || body.Type != webhook.JobSucceeded || body.Data.ID != jobID || body.Data.Status != "succeeded" {
		t.Fatalf("body %s: %v", r.body, err)
	}
}

func TestService_goneDisablesTheEndpoint(t *testing.T) {
	t.Parallel()
	forEach(t, func(t *testing.T, f *fixture) {
		ctx := context.Background()
		rcv := newReceiver(t, 410)
		e, err := f.svc.Create(ctx, f.admin, webhooks.Input{URL: rcv.URL, Events: []string{webhook.JobSucceeded, webhook.JobStarted}})
		if err != nil {
			t.Fatal(err)
		}
		f.finishJob(t)
		ds := f.list(t, e.ID)
		if len(ds) != 2 {
			t.Fatalf("deliveries: %+v", ds)
		}
		if err := f.svc.Deliver(ctx, ds[1].ID, 1); err != nil { // job.started, the older
			t.Fatal(err)
		}
		e, _ = f.svc.Get(ctx, f.admin, e.ID)
		if e.Enabled || !strings.Contains(e.DisabledReason, "410") {
			t.Fatalf("after a 410: %+v", e)
		}
		if d := f.list(t, e.ID)[1]; d.Status != webhook.Failed || d.NextAt != nil {
			t.Fatalf("the 410's delivery: %+v", d)
		}
		if err := f.svc.Deliver(ctx, ds[0].ID, 1); err != nil { // the other one is abandoned unsent
			t.Fatal(err)
		}
		if d := f.list(t, e.ID)[0]; d.Status != webhook.Failed || d.Last == nil || !strings.Contains(d.Last.Error, "disabled") {
			t.Fatalf("a disabled endpoint's delivery: %+v", d)
		}
		if n := len(rcv.requests()); n != 1 {
			t.Fatalf("%d requests reached a disabled endpoint", n)
		}
		f.finishJob(t)
		if n := len(f.list(t, e.ID)); n != 2 {
			t.Fatalf("a disabled endpoint got new deliveries: %d", n)
		}
		if _, err := f.svc.SendTest(ctx, f.admin, e.ID); domain.CodeOf(err) != "webhook_disabled" {
			t.Fatalf("test to a disabled endpoint: %v", err)
		}
	})
}

func TestService_fiveDaysOfFailuresDisableTheEndpoint(t *testing.T) {
	t.Parallel()
	forEach(t, fiveDaysOfFailuresDisableTheEndpoint)
}

func fiveDaysOfFailuresDisableTheEndpoint(t *testing.T, f *fixture) {
	ctx := context.Background()
	rcv := newReceiver(t, 500)
	e, err := f.svc.Create(ctx, f.admin, webhooks.Input{URL: rcv.URL, Events: []string{webhook.JobSucceeded}})
	if err != nil {
		t.Fatal(err)
	}
	first := f.clock.Now()
	d, err := f.svc.SendTest(ctx, f.admin, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	// The schedule's attempts go on until the endpoint has failed for
	// PauseAfter; then it is paused and the delivery waits, unattempted.
	attempt := 1
	for ; ; attempt++ {
		if err := f.svc.Deliver(ctx, d.ID, attempt); err != nil {
			t.Fatal(err)
		}
		got := f.list(t, e.ID)[0]
		if got.Attempts != attempt {
			t.Fatalf("attempt %d not made: %+v", attempt, got)
		}
		if e, _ = f.svc.Get(ctx, f.admin, e.ID); e.Paused {
			break
		}
		if !e.Enabled || got.NextAt == nil {
			t.Fatalf("after attempt %d, at %s of failures: %+v, %+v", attempt, f.clock.Now().Sub(first), e, got)
		}
		f.clock.Set(*got.NextAt)
	}
	if f.clock.Now().Sub(first) < webhook.PauseAfter || e.State() != webhook.StatePaused || !e.Enabled {
		t.Fatalf("paused after %s of failures: %+v", f.clock.Now().Sub(first), e)
	}
	f.clock.Set(*f.list(t, e.ID)[0].NextAt)
	if err := f.svc.Deliver(ctx, d.ID, attempt+1); err != nil {
		t.Fatal(err)
	}
	if got := f.list(t, e.ID)[0]; got.Attempts != attempt || got.Status != webhook.Pending || got.NextAt == nil || got.NextAt.Before(f.clock.Now().Add(webhook.PausedRecheck)) {
		t.Fatalf("a paused endpoint's delivery: %+v", got)
	}
	if n := len(rcv.requests()); n != attempt {
		t.Fatalf("%d requests for %d attempts", n, attempt)
	}
	// Still paused after FailingLimit: the endpoint is disabled, and its
	// waiting delivery ends.
	f.clock.Set(first.Add(webhook.FailingLimit + webhook.PausedRecheck*2))
	if err := f.svc.Deliver(ctx, d.ID, attempt+1); err != nil {
		t.Fatal(err)
	}
	if e, _ = f.svc.Get(ctx, f.admin, e.ID); e.Enabled || !strings.Contains(e.DisabledReason, "5 days") {
		t.Fatalf("after 5 days of failures: %+v", e)
	}
	if got := f.list(t, e.ID)[0]; got.Status != webhook.Failed {
		t.Fatalf("the waiting delivery of a disabled endpoint: %+v", got)
	}
	// Enabling it again forgets the failures; a retry then delivers.
	on := true
	if e, err = f.svc.Update(ctx, f.admin, e.ID, webhooks.Patch{Enabled: &on}); err != nil || !e.Enabled || e.DisabledReason != "" || e.FailingSince != nil {
		t.Fatalf("enable: %+v %v", e, err)
	}
	if _, err := f.svc.Retry(ctx, f.admin, e.ID, d.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Retry(ctx, f.admin, e.ID, d.ID); domain.CodeOf(err) != "delivery_pending" {
		t.Fatalf("second retry: %v", err)
	}
	rcv.mu.Lock()
	rcv.statuses = []int{200}
	rcv.mu.Unlock()
	if err := f.svc.Deliver(ctx, d.ID, attempt+1); err != nil {
		t.Fatal(err)
	}
	if got := f.list(t, e.ID)[0]; got.Status != webhook.Delivered || got.Attempts != attempt+1 {
		t.Fatalf("the retried delivery: %+v", got)
	}
}

func TestService_eventsCommitWithTheJob(t *testing.T) {
	t.Parallel()
	forEach(t, func(t *testing.T, f *fixture) {
		ctx := context.Background()
		e, err := f.svc.Create(ctx, f.admin, webhooks.Input{URL: "http://127.0.0.1:9/", Events: webhook.Subscribable})
		if err != nil {
			t.Fatal(err)
		}
		now := f.clock.Now()
		j := job.Job{ID: id.New(id.Job), OrgID: f.org.ID, Mode: normalize.ModeNormalize, Status: job.Queued, SourceType: job.SourceUpload, Options: []byte(`{}`), CreatedAt: now}
		if err := f.jobs.Create(ctx, j); err != nil {
			t.Fatal(err)
		}
		boom := errors.New("rolled back")
		err = f.tx.InTx(ctx, func(ctx context.Context) error {
			if _, err := f.changeIn(ctx, j.ID, job.EventStarted, func(j *job.Job) error { return j.Start(now) }); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatal(err)
		}
		if n := len(f.list(t, e.ID)); n != 0 {
			t.Fatalf("a rolled-back change left %d deliveries", n)
		}
		f.change(t, j.ID, job.EventStarted, func(j *job.Job) error { return j.Start(now) })
		f.change(t, j.ID, job.EventProgress, func(j *job.Job) error { j.Progress.RowsRead = 10; return nil })
		f.change(t, j.ID, job.EventCanceled, func(j *job.Job) error { return j.Cancel(now) })
		var kinds []string
		for _, d := range f.list(t, e.ID) {
			kinds = append(kinds, d.EventType)
		}
		if strings.Join(kinds, ",") != "job.canceled,job.started" {
			t.Fatalf("events %v, want one per change of status", kinds)
		}
	})
}

// A job's deliveries carry the sequence number of its event for the
// change, the same for every endpoint, increasing with each change, so a
// receiver can order deliveries that arrive out of order.
func TestService_payloadsCarryTheEventsSequence(t *testing.T) {
	t.Parallel()
	forEach(t, func(t *testing.T, f *fixture) {
		ctx := context.Background()
		var endpoints []webhook.Endpoint
		for range 2 {
			e, err := f.svc.Create(ctx, f.admin, webhooks.Input{URL: "http://127.0.0.1:9/", Events: webhook.Subscribable})
			if err != nil {
				t.Fatal(err)
			}
			endpoints = append(endpoints, e)
		}
		j := f.finishJob(t)
		stored, err := f.events.After(ctx, j.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]int{}
		for _, ev := range stored {
			want[ev.Kind] = ev.Seq
		}
		if want[job.EventStarted] == 0 || want[job.EventSucceeded] <= want[job.EventStarted] {
			t.Fatalf("stored events %+v", stored)
		}
		for _, e := range endpoints {
			ds := f.list(t, e.ID)
			if len(ds) != 2 {
				t.Fatalf("endpoint %s: %d deliveries, want 2", e.ID, len(ds))
			}
			for _, d := range ds {
				var body struct {
					Type string
					Seq  int
				}
				if err := json.Unmarshal(d.Payload, &body); err != nil {
					t.Fatal(err)
				}
				if body.Type != d.EventType || body.Seq != want[body.Type] {
					t.Fatalf("payload %s: seq %d, want %d (the %s event's)", d.Payload, body.Seq, want[body.Type], body.Type)
				}
			}
		}
	})
}

func TestService_sweepRecoversADeadWorkersAttempt(t *testing.T) {
	t.Parallel()
	forEach(t, func(t *testing.T, f *fixture) {
		ctx := context.Background()
		rcv := newReceiver(t, 200)
		e, err := f.svc.Create(ctx, f.admin, webhooks.Input{URL: rcv.URL, Events: []string{webhook.JobFailed}})
		if err != nil {
			t.Fatal(err)
		}
		d, err := f.svc.SendTest(ctx, f.admin, e.ID)
		if err != nil {
			t.Fatal(err)
		}
		// A worker claims the attempt and dies before recording it.
		if _, err := f.deliveries.Update(ctx, "", d.ID, func(d *webhook.Delivery) error { d.Claim(f.clock.Now().Add(webhook.ClaimFor)); return nil }); err != nil {
			t.Fatal(err)
		}
		if err := f.svc.Deliver(ctx, d.ID, 1); err != nil || len(rcv.requests()) != 0 {
			t.Fatalf("a claimed delivery was sent again at once: %v", err)
		}
		if n, err := f.svc.Sweep(ctx); err != nil || n != 0 {
			t.Fatalf("swept %d within the claim: %v", n, err)
		}
		f.clock.Add(webhook.ClaimFor + webhooks.SweepAfter)
		if n, err := f.svc.Sweep(ctx); err != nil || n != 1 {
			t.Fatalf("swept %d after the claim lapsed: %v", n, err)
		}
		if err := f.svc.Deliver(ctx, d.ID, 1); err != nil {
			t.Fatal(err)
		}
		if got := f.list(t, e.ID)[0]; got.Status != webhook.Delivered || len(rcv.requests()) != 1 {
			t.Fatalf("after the sweep: %+v", got)
		}
	})
}

func TestService_rotationSignsWithBothSecretsForADay(t *testing.T) {
	t.Parallel()
	forEach(t, func(t *testing.T, f *fixture) {
		ctx := context.Background()
		rcv := newReceiver(t, 200)
		e, err := f.svc.Create(ctx, f.admin, webhooks.Input{URL: rcv.URL, Events: []string{webhook.JobSucceeded}})
		if err != nil {
			t.Fatal(err)
		}
		rotated, err := f.svc.RotateSecret(ctx, f.admin, e.ID)
		if err != nil || rotated.Secret == e.Secret {
			t.Fatal(err)
		}
		send := func() received {
			d, err := f.svc.SendTest(ctx, f.admin, e.ID)
			if err != nil {
				t.Fatal(err)
			}
			if err := f.svc.Deliver(ctx, d.ID, 1); err != nil {
				t.Fatal(err)
			}
			reqs := rcv.requests()
			return reqs[len(reqs)-1]
		}
		r := send()
		if n := len(strings.Fields(r.header.Get("webhook-signature"))); n != 2 {
			t.Fatalf("%d signatures during the overlap", n)
		}
		verify(t, e.Secret, r)
		verify(t, rotated.Secret, r)
		f.clock.Add(webhook.RotationOverlap)
		r = send()
		verify(t, rotated.Secret, r)
		wh, _ := standardwebhooks.NewWebhook(e.Secret)
		if wh.VerifyIgnoringTimestamp(r.body, r.header) == nil {
			t.Fatal("the old secret still signs after a day")
		}
	})
}

func TestService_membersOnlyRead(t *testing.T) {
	t.Parallel()
	forEach(t, func(t *testing.T, f *fixture) {
		ctx := context.Background()
		member := identity.Principal{Method: identity.BySession, OrgID: f.org.ID, Role: identity.Member}
		key := identity.Principal{Method: identity.ByAPIKey, OrgID: f.org.ID}
		e, err := f.svc.Create(ctx, key, webhooks.Input{URL: "https://hooks.example.com/x", Events: []string{webhook.JobFailed}})
		if err != nil {
			t.Fatalf("an API key creates: %v", err)
		}
		if _, err := f.svc.Create(ctx, member, webhooks.Input{URL: "https://hooks.example.com/x", Events: []string{webhook.JobFailed}}); domain.CodeOf(err) != "insufficient_permissions" {
			t.Fatalf("a member creates: %v", err)
		}
		for name, err := range map[string]error{
			"delete": f.svc.Delete(ctx, member, e.ID),
			"rotate": func() error { _, err := f.svc.RotateSecret(ctx, member, e.ID); return err }(),
			"test":   func() error { _, err := f.svc.SendTest(ctx, member, e.ID); return err }(),
			"update": func() error { _, err := f.svc.Update(ctx, member, e.ID, webhooks.Patch{}); return err }(),
		} {
			if domain.CodeOf(err) != "insufficient_permissions" {
				t.Errorf("a member can %s: %v", name, err)
			}
		}
		if list, _, err := f.svc.List(ctx, member, ports.Page{}); err != nil || len(list) != 1 {
			t.Fatalf("a member lists: %v %v", list, err)
		}
		if _, _, err := f.svc.Deliveries(ctx, member, e.ID, ports.Page{}); err != nil {
			t.Fatalf("a member reads deliveries: %v", err)
		}
		other := identity.Principal{Method: identity.ByAPIKey, OrgID: "org_other"}
		if _, err := f.svc.Get(ctx, other, e.ID); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("another organization reads: %v", err)
		}
	})
}
