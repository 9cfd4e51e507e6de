package destinations_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"

	"github.com/tabnorm/tabnorm/application/destinations"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/destination"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/importsession"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/ports"
	"github.com/tabnorm/tabnorm/test/mocks"
)

var now = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

type onMocks struct {
	destinations *mocks.Destinations
	pushes       *mocks.Pushes
	queue        *mocks.PushQueue
	sealer       *mocks.Sealer
	writer       *mocks.DestinationWriter
	jobs         *mocks.Jobs
	sessions     *mocks.ImportSessions
	audit        *mocks.AuditLog
	svc          *destinations.Service
	fanout       *destinations.Fanout
}

func newOnMocks(t *testing.T) onMocks {
	t.Helper()
	f := onMocks{destinations: mocks.NewDestinations(t), pushes: mocks.NewPushes(t), queue: mocks.NewPushQueue(t), sealer: mocks.NewSealer(t),
		writer: mocks.NewDestinationWriter(t), jobs: mocks.NewJobs(t), sessions: mocks.NewImportSessions(t),
		audit: mocks.NewAuditLog(t)}
	tx, clock := mocks.NewTransactor(t), mocks.NewClock(t)
	tx.EXPECT().InTx(mock.Anything, mock.Anything).RunAndReturn(func(ctx context.Context, fn func(context.Context) error) error { return fn(ctx) }).Maybe()
	clock.EXPECT().Now().Return(now).Maybe()
	f.svc = destinations.NewService(destinations.Config{}, f.destinations, f.pushes, f.jobs, f.queue, f.sealer, f.writer, tx, clock, f.audit)
	f.fanout = destinations.NewFanout(f.destinations, f.pushes, f.queue, f.sessions, clock)
	return f
}

var admin = identity.Principal{Method: identity.BySession, OrgID: "org_a", UserID: "usr_1", Role: identity.Admin}

// Changing or deleting a destination is audited in the change's
// transaction: when the record fails, so does the change.
func TestService_changesAreAudited(t *testing.T) {
	t.Parallel()
	f := newOnMocks(t)
	name := "lake"
	f.destinations.EXPECT().Update(mock.Anything, "org_a", "dst_a", mock.Anything).Return(destination.Destination{ID: "dst_a", Name: name}, nil).Once()
	f.destinations.EXPECT().Delete(mock.Anything, "org_a", "dst_a").Return(nil).Once()
	var actions []string
	f.audit.EXPECT().Record(mock.Anything, mock.Anything).Run(func(_ context.Context, e identity.AuditEntry) {
		actions = append(actions, e.Action+" "+e.TargetID)
	}).Return(nil).Twice()
	if _, err := f.svc.Update(context.Background(), admin, "dst_a", destinations.Patch{Name: &name}); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.Delete(context.Background(), admin, "dst_a"); err != nil {
		t.Fatal(err)
	}
	if strings.Join(actions, ", ") != "destination.update dst_a, destination.delete dst_a" {
		t.Fatalf("audited %q", actions)
	}
	failing := newOnMocks(t)
	failing.destinations.EXPECT().Delete(mock.Anything, "org_a", "dst_a").Return(nil).Once()
	failing.audit.EXPECT().Record(mock.Anything, mock.Anything).Return(errors.New("disk full")).Once()
	if err := failing.svc.Delete(context.Background(), admin, "dst_a"); err == nil {
		t.Fatal("a delete whose audit record failed succeeded")
	}
}

func TestService_Create(t *testing.T) {
	t.Parallel()
	pg := destinations.Input{Name: "warehouse", Type: destination.Postgres, Config: map[string]any{"url": "postgres://u:secret@db.example.com/app", "table": "contacts"}}

	t.Run("without a secret key the answer is secret_key_required and nothing is stored", func(t *testing.T) {
		t.Parallel()
		f := newOnMocks(t)
		f.sealer.EXPECT().Seal(mock.Anything, mock.Anything).Return(nil, ports.ErrNoSecretKey).Once()
		_, err := f.svc.Create(context.Background(), admin, pg)
		if !errors.Is(err, domain.ErrConflict) || domain.CodeOf(err) != domain.CodeSecretKeyRequired {
			t.Fatalf("Create = %v, want 409 secret_key_required", err)
		}
	})

	t.Run("secrets are sealed bound to the organization and id, and kept out of the config", func(t *testing.T) {
		t.Parallel()
		f := newOnMocks(t)
		var plain, ad []byte
		f.sealer.EXPECT().Seal(mock.Anything, mock.Anything).RunAndReturn(func(p, a []byte) ([]byte, error) {
			plain, ad = p, a
			return []byte("sealed"), nil
		}).Once()
		f.destinations.EXPECT().List(mock.Anything, "org_a", mock.Anything).Return(nil, "", nil).Once()
		var stored destination.Destination
		f.destinations.EXPECT().Create(mock.Anything, mock.Anything).Run(func(_ context.Context, d destination.Destination) { stored = d }).Return(nil).Once()
		var recorded identity.AuditEntry
		f.audit.EXPECT().Record(mock.Anything, mock.Anything).Run(func(_ context.Context, e identity.AuditEntry) { recorded = e }).Return(nil).Once()
		got, err := f.svc.Create(context.Background(), admin, pg)
		if err != nil {
			t.Fatal(err)
		}
		if recorded.Action != "destination.create" || recorded.TargetID != got.ID || recorded.ActorUserID != "usr_1" {
			t.Fatalf("audited %+v", recorded)
		}
		if string(ad) != "org_a/"+got.ID || string(plain) != `{"url":"postgres://u:secret@db.example.com/app"}` || string(stored.Sealed) != "sealed" {
			t.Fatalf("sealed %q with %q; stored %+v", plain, ad, stored)
		}
		for _, v := range stored.Config {
			if v == "" || strings.Contains(v, "secret") {
				t.Fatalf("config %v shows the password", stored.Config)
			}
		}
	})

	t.Run("a member is refused before anything is read", func(t *testing.T) {
		t.Parallel()
		f := newOnMocks(t)
		member := admin
		member.Role = identity.Member
		_, err := f.svc.Create(context.Background(), member, pg)
		if domain.CodeOf(err) != domain.CodeInsufficientPermissions {
			t.Fatalf("Create by a member = %v", err)
		}
	})
}

func TestFanout_JobEvent(t *testing.T) {
	t.Parallel()
	opts := []byte(`{"destination_ids":["dst_a","dst_gone"]}`)

	t.Run("a new job naming a destination of another organization is refused", func(t *testing.T) {
		t.Parallel()
		f := newOnMocks(t)
		f.destinations.EXPECT().Get(mock.Anything, "org_a", "dst_a").Return(destination.Destination{ID: "dst_a"}, nil).Once()
		f.destinations.EXPECT().Get(mock.Anything, "org_a", "dst_gone").Return(destination.Destination{}, domain.NotFound("destination")).Once()
		err := f.fanout.JobEvent(context.Background(), job.Job{ID: "job_1", OrgID: "org_a", Status: job.Queued, Options: opts}, ports.Event{Kind: job.EventQueued})
		var de *domain.Error
		if !errors.As(err, &de) || !errors.Is(err, domain.ErrInvalid) || de.Fields[0].Field != "options.destination_ids[1]" {
			t.Fatalf("JobEvent = %v, want 400 naming the unknown id", err)
		}
	})

	t.Run("a succeeded job gets one delivery per destination that still exists, queued", func(t *testing.T) {
		t.Parallel()
		f := newOnMocks(t)
		f.pushes.EXPECT().OfJob(mock.Anything, "org_a", "job_1").Return(nil, nil).Once()
		f.destinations.EXPECT().Get(mock.Anything, "org_a", "dst_a").Return(destination.Destination{ID: "dst_a"}, nil).Once()
		f.destinations.EXPECT().Get(mock.Anything, "org_a", "dst_gone").Return(destination.Destination{}, domain.NotFound("destination")).Once()
		var made destination.Delivery
		f.pushes.EXPECT().Create(mock.Anything, mock.Anything).Run(func(_ context.Context, d destination.Delivery) { made = d }).Return(nil).Once()
		f.queue.EXPECT().EnqueuePush(mock.Anything, "org_a", mock.Anything, 1, now).Return(nil).Once()
		err := f.fanout.JobEvent(context.Background(), job.Job{ID: "job_1", OrgID: "org_a", Status: job.Succeeded, Options: opts}, ports.Event{Kind: job.EventSucceeded})
		if err != nil || made.DestinationID != "dst_a" || made.JobID != "job_1" || made.Status != destination.Pending {
			t.Fatalf("JobEvent = %v; made %+v", err, made)
		}
	})

	t.Run("a job of an import session waits for its submit; a superseded one is never delivered", func(t *testing.T) {
		t.Parallel()
		f := newOnMocks(t)
		inSession := job.Job{ID: "job_2", OrgID: "org_a", Status: job.Succeeded, Options: opts, ImportSessionID: "imp_1"}
		f.sessions.EXPECT().Hold(mock.Anything, "org_a", "imp_1").Return(importsession.Session{ID: "imp_1", OrgID: "org_a"}, 1, nil).Once()
		if err := f.fanout.JobEvent(context.Background(), inSession, ports.Event{Kind: job.EventSucceeded}); err != nil {
			t.Fatal(err)
		}
		replaced := inSession
		replaced.Superseded = true
		if err := f.fanout.Submitted(context.Background(), []job.Job{replaced}); err != nil {
			t.Fatal(err)
		}
		// The mocks fail the test on any call: none was made.
	})

	t.Run("a job of an import session that succeeds after its submit is delivered then", func(t *testing.T) {
		t.Parallel()
		f := newOnMocks(t)
		submitted := now.Add(-time.Minute)
		late := job.Job{ID: "job_3", OrgID: "org_a", Status: job.Succeeded, Options: []byte(`{"destination_ids":["dst_a"]}`), ImportSessionID: "imp_1"}
		f.sessions.EXPECT().Hold(mock.Anything, "org_a", "imp_1").Return(importsession.Session{ID: "imp_1", OrgID: "org_a", SubmittedAt: &submitted}, 1, nil).Once()
		f.pushes.EXPECT().OfJob(mock.Anything, "org_a", "job_3").Return(nil, nil).Once()
		f.destinations.EXPECT().Get(mock.Anything, "org_a", "dst_a").Return(destination.Destination{ID: "dst_a"}, nil).Once()
		f.pushes.EXPECT().Create(mock.Anything, mock.Anything).Return(nil).Once()
		f.queue.EXPECT().EnqueuePush(mock.Anything, "org_a", mock.Anything, 1, now).Return(nil).Once()
		if err := f.fanout.JobEvent(context.Background(), late, ports.Event{Kind: job.EventSucceeded}); err != nil {
			t.Fatal(err)
		}
		// A rerun replaced it before it ended: its rows are not the session's.
		late.Superseded = true
		if err := f.fanout.JobEvent(context.Background(), late, ports.Event{Kind: job.EventSucceeded}); err != nil {
			t.Fatal(err)
		}
	})
}

func TestService_Retry(t *testing.T) {
	t.Parallel()
	f := newOnMocks(t)
	pending := destination.New("psh_1", "org_a", "job_1", "dst_a", now)
	f.pushes.EXPECT().OfJob(mock.Anything, "org_a", "job_1").Return([]destination.Delivery{pending}, nil).Once()
	f.pushes.EXPECT().Update(mock.Anything, "org_a", "psh_1", mock.Anything).RunAndReturn(
		func(_ context.Context, _, _ string, fn func(*destination.Delivery) error) (destination.Delivery, error) {
			d := pending
			return d, fn(&d)
		}).Once()
	_, err := f.svc.Retry(context.Background(), admin, "job_1", "dst_a")
	if domain.CodeOf(err) != domain.CodeDeliveryPending {
		t.Fatalf("Retry of a pending delivery = %v, want delivery_pending", err)
	}
}
