package sqlstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/sqlstore"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/id"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/normalize"
	"github.com/tabnorm/tabnorm/ports"
)

func newJob(orgID string, now time.Time) job.Job {
	return job.Job{ID: id.New(id.Job), OrgID: orgID, Mode: normalize.ModeNormalize, Status: job.Queued, SourceType: job.SourceUpload,
		Files:  []job.File{{ID: id.New(id.File), Filename: "contacts.csv", Format: "csv", SizeBytes: 1234, SHA256: "ab"}},
		Schema: []byte(`{"fields":[]}`), Options: []byte(`{"trim":true}`), Progress: job.Progress{BytesTotal: 1234}, CreatedAt: now}
}

func TestJobs_contract(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		org, _ := seedOrgUser(t, db)
		other, _ := seedOrgUser(t, db)
		jobs := sqlstore.NewJobs(db)
		now := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
		j := newJob(org.ID, now)
		if err := jobs.Create(ctx, j); err != nil {
			t.Fatal(err)
		}
		got, err := jobs.Get(ctx, org.ID, j.ID)
		if err != nil || got.Status != job.Queued || len(got.Files) != 1 || got.Files[0].Filename != "contacts.csv" ||
			string(got.Schema) != `{"fields":[]}` || got.Mapping != nil || got.Result != nil || !got.CreatedAt.Equal(now) || got.Progress.BytesTotal != 1234 {
			t.Fatalf("Get = %+v, %v", got, err)
		}
		if _, err := jobs.Get(ctx, other.ID, j.ID); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("another org's job: %v", err)
		}
		started, err := jobs.Update(ctx, "", j.ID, func(j *job.Job) error { return j.Start(now) })
		if err != nil || started.Status != job.Running || started.Attempts != 1 {
			t.Fatalf("Update(start) = %+v, %v", started, err)
		}
		status, err := jobs.Heartbeat(ctx, j.ID, job.Progress{RowsRead: 10, RowsValid: 9, RowsRejected: 1, BytesRead: 100}, now.Add(time.Minute))
		if err != nil || status != job.Running {
			t.Fatalf("Heartbeat = %s, %v", status, err)
		}
		if expired, _ := jobs.Expired(ctx, now.Add(30*time.Second)); len(expired) != 0 {
			t.Fatalf("lease not yet over, expired = %v", expired)
		}
		if expired, _ := jobs.Expired(ctx, now.Add(2*time.Minute)); len(expired) != 1 || expired[0] != [2]string{org.ID, j.ID} {
			t.Fatalf("expired = %v", expired)
		}
		got, _ = jobs.Get(ctx, org.ID, j.ID)
		if got.Progress.RowsRead != 10 || got.Progress.BytesTotal != 1234 {
			t.Fatalf("progress %+v", got.Progress)
		}
		if _, err := jobs.Update(ctx, other.ID, j.ID, func(j *job.Job) error { return j.Cancel(now) }); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("cancel through another org: %v", err)
		}
		if _, err := jobs.Update(ctx, org.ID, j.ID, func(j *job.Job) error { return j.Cancel(now) }); err != nil {
			t.Fatal(err)
		}
		if status, _ := jobs.Heartbeat(ctx, j.ID, job.Progress{RowsRead: 20}, now.Add(time.Hour)); status != job.Canceled {
			t.Fatalf("heartbeat after cancel sees %s", status)
		}
		if got, _ := jobs.Get(ctx, org.ID, j.ID); got.Progress.RowsRead != 10 {
			t.Fatal("heartbeat wrote progress to a canceled job")
		}
		refused := errors.New("refused")
		if _, err := jobs.Update(ctx, org.ID, j.ID, func(*job.Job) error { return refused }); !errors.Is(err, refused) {
			t.Fatalf("fn error not returned: %v", err)
		}

		done := newJob(org.ID, now)
		done.Status = job.Succeeded
		done.FinishedAt = &now
		done.Result = []byte(`{"row_count":1}`)
		if err := jobs.Create(ctx, done); err != nil {
			t.Fatal(err)
		}
		old, _ := jobs.FinishedBefore(ctx, now.Add(time.Hour), 10)
		if len(old) != 2 { // the canceled and the succeeded job
			t.Fatalf("FinishedBefore = %v", old)
		}
		if err := jobs.MarkPurged(ctx, done.ID, now); err != nil {
			t.Fatal(err)
		}
		if old, _ := jobs.FinishedBefore(ctx, now.Add(time.Hour), 10); len(old) != 1 {
			t.Fatalf("purged job listed again: %v", old)
		}
		list, next, err := jobs.List(ctx, org.ID, ports.JobFilter{Status: job.Succeeded}, ports.Page{})
		if err != nil || len(list) != 1 || list[0].ID != done.ID || next != "" || string(list[0].Result) != `{"row_count":1}` {
			t.Fatalf("List(succeeded) = %v %q %v", list, next, err)
		}
		if list, _, _ := jobs.List(ctx, org.ID, ports.JobFilter{}, ports.Page{Limit: 1}); len(list) != 1 || list[0].ID != done.ID {
			t.Fatalf("newest first: %v", list)
		}

		events := sqlstore.NewJobEvents(db)
		for i, kind := range []string{job.EventQueued, job.EventStarted, job.EventProgress} {
			ev, err := events.Append(ctx, j.ID, kind, []byte(`{"n":1}`), now)
			if err != nil || ev.Seq != i+1 {
				t.Fatalf("Append #%d = %+v, %v", i, ev, err)
			}
		}
		after, err := events.After(ctx, j.ID, 1)
		if err != nil || len(after) != 2 || after[0].Seq != 2 || after[1].Kind != job.EventProgress || string(after[1].Data) != `{"n":1}` {
			t.Fatalf("After = %+v, %v", after, err)
		}
		if err := jobs.Delete(ctx, other.ID, j.ID); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("delete through another org: %v", err)
		}
		if err := jobs.Delete(ctx, org.ID, j.ID); err != nil {
			t.Fatal(err)
		}
		if evs, _ := events.After(ctx, j.ID, 0); len(evs) != 0 {
			t.Fatal("events outlived their job")
		}
	})
}
