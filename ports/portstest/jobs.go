package portstest

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/normalize/match"
	"github.com/tabnorm/tabnorm/domain/normalize/review"
	"github.com/tabnorm/tabnorm/ports"
)

// Jobs is the suite of ports.Jobs.
func Jobs(t *testing.T, open func(t *testing.T) Stores) {
	t.Helper()
	runSteps(t, open, []step[Stores]{
		{"create_then_get", jobsCreateThenGet},
		{"another_organizations_job_is_not_found", jobsOtherOrg},
		{"update_reads_modifies_and_writes", jobsUpdate},
		{"update_returns_fns_error_and_writes_nothing", jobsUpdateRefused},
		{"failure_and_result_round_trip", jobsFinishedRoundTrip},
		{"heartbeat_stores_progress_and_extends_the_lease", jobsHeartbeat},
		{"heartbeat_of_a_canceled_job_writes_nothing", jobsHeartbeatCanceled},
		{"finished_before_until_purged", jobsFinishedBefore},
		{"list_filters_and_pages_newest_first", jobsList},
		{"delete_takes_the_events_along", jobsDelete},
		{"a_review_round_trips_and_lists_leave_it_out", jobsReview},
		{"a_rerun_or_a_later_rerun_of_the_same_job_supersedes", jobsSuperseded},
	})
}

// jobsSuperseded: a job is superseded once a later job reruns it, or once
// a later rerun of the job it reruns exists (the same file rerun twice,
// or two reruns at once): a chain has one final job, which a summary of
// final jobs lists alone.
func jobsSuperseded(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	lone := seedJob(t, s, org.ID, now.Add(-time.Minute)) // no rerun of it, and jobs after it: final
	first := seedJob(t, s, org.ID, now)
	rerun := newJob(org.ID, now.Add(time.Minute))
	rerun.RerunOf = first.ID
	ok(t, s.Jobs.Create(ctx, rerun))
	again := newJob(org.ID, now.Add(2*time.Minute))
	again.RerunOf = first.ID
	ok(t, s.Jobs.Create(ctx, again))
	other := seedJob(t, s, org.ID, now.Add(3*time.Minute))
	want := map[string]bool{lone.ID: false, first.ID: true, rerun.ID: true, again.ID: false, other.ID: false}
	for id, superseded := range want {
		if got, err := s.Jobs.Get(ctx, org.ID, id); err != nil || got.Superseded != superseded {
			t.Fatalf("Jobs.Get(%s).Superseded = %v, %v; want %v", id, got.Superseded, err, superseded)
		}
	}
	list, _, err := s.Jobs.List(ctx, org.ID, ports.JobFilter{}, ports.Page{Limit: 10})
	ok(t, err)
	for _, j := range list {
		if j.Superseded != want[j.ID] {
			t.Fatalf("Jobs.List shows %s superseded %v; want %v", j.ID, j.Superseded, want[j.ID])
		}
	}
}

func jobsCreateThenGet(t *testing.T, s Stores) {
	org := seedOrg(t, s)
	j := seedJob(t, s, org.ID, now)
	got, err := s.Jobs.Get(context.Background(), org.ID, j.ID)
	if err != nil || got.Status != job.Queued || got.Mode != j.Mode || got.SourceType != j.SourceType || len(got.Files) != 1 || got.Files[0] != j.Files[0] ||
		string(got.Schema) != `{"fields":[]}` || string(got.Options) != `{"trim":true}` || got.Mapping != nil || got.Result != nil ||
		got.Failure != nil || !got.CreatedAt.Equal(now) || got.Progress.BytesTotal != 1234 || got.StartedAt != nil || got.FinishedAt != nil {
		t.Fatalf("Jobs.Get = %+v, %v; want the job as created: queued, its mode, source, file, schema, options and created_at, nothing else set", got, err)
	}
}

func jobsOtherOrg(t *testing.T, s Stores) {
	ctx := context.Background()
	org, other := seedOrg(t, s), seedOrg(t, s)
	j := seedJob(t, s, org.ID, now)
	_, err := s.Jobs.Get(ctx, other.ID, j.ID)
	isKind(t, err, domain.ErrNotFound, "Jobs.Get through another organization")
	_, err = s.Jobs.Update(ctx, other.ID, j.ID, func(j *job.Job) error { return j.Cancel(now) })
	isKind(t, err, domain.ErrNotFound, "Jobs.Update through another organization")
	isKind(t, s.Jobs.Delete(ctx, other.ID, j.ID), domain.ErrNotFound, "Jobs.Delete through another organization")
}

func jobsUpdate(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	j := seedJob(t, s, org.ID, now)
	started, err := s.Jobs.Update(ctx, "", j.ID, func(j *job.Job) error { return j.Start(now) })
	if err != nil || started.Status != job.Running || started.Attempts != 1 {
		t.Fatalf("Jobs.Update(start) = %+v, %v; want running, attempt 1", started, err)
	}
	got, _ := s.Jobs.Get(ctx, org.ID, j.ID)
	if got.Status != job.Running || got.Attempts != 1 || got.StartedAt == nil || !got.StartedAt.Equal(now) {
		t.Fatalf("Jobs.Get after Update(start) = %+v; want running, attempt 1, started at %v", got, now)
	}
}

func jobsUpdateRefused(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	j := seedJob(t, s, org.ID, now)
	refused := errors.New("refused")
	_, err := s.Jobs.Update(ctx, org.ID, j.ID, func(j *job.Job) error {
		j.Status = job.Canceled
		return refused
	})
	if !errors.Is(err, refused) {
		t.Fatalf("Jobs.Update = %v, want fn's error", err)
	}
	if got, _ := s.Jobs.Get(ctx, org.ID, j.ID); got.Status != job.Queued {
		t.Fatalf("Jobs.Get after a refused Update = status %s, want queued (nothing written)", got.Status)
	}
}

func jobsFinishedRoundTrip(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	failed := seedJob(t, s, org.ID, now)
	_, err := s.Jobs.Update(ctx, org.ID, failed.ID, func(j *job.Job) error {
		if err := j.Start(now); err != nil {
			return err
		}
		j.Mapping = []byte(`[{"source_column":"a","field":"a"}]`)
		return j.Fail(now.Add(time.Second), job.Failure{Code: domain.CodeRowLimitExceeded, Message: "too many rows"})
	})
	ok(t, err)
	got, _ := s.Jobs.Get(ctx, org.ID, failed.ID)
	if got.Status != job.Failed || got.Failure == nil || *got.Failure != (job.Failure{Code: domain.CodeRowLimitExceeded, Message: "too many rows"}) ||
		string(got.Mapping) != `[{"source_column":"a","field":"a"}]` || got.FinishedAt == nil || !got.FinishedAt.Equal(now.Add(time.Second)) {
		t.Fatalf("Jobs.Get of a failed job = %+v; want its failure, mapping and finished_at as written", got)
	}
	succeeded := seedJob(t, s, org.ID, now)
	_, err = s.Jobs.Update(ctx, org.ID, succeeded.ID, func(j *job.Job) error {
		if err := j.Start(now); err != nil {
			return err
		}
		return j.Succeed(now, sampleResult)
	})
	ok(t, err)
	if got, _ := s.Jobs.Get(ctx, org.ID, succeeded.ID); got.Status != job.Succeeded || got.Result == nil || !reflect.DeepEqual(*got.Result, sampleResult) || got.Failure != nil {
		t.Fatalf("Jobs.Get of a succeeded job = %+v (result %+v); want its result as written and no failure", got, got.Result)
	}
	inferred := sampleResult
	inferred.InferredSchema = []byte(`{"fields":[{"name":"a","type":"integer"}]}`)
	inferred.Profile = []job.ColumnProfile{{Column: "A", Field: "a", Type: "integer", Format: "default", NullRate: 0.25, DistinctCount: 3, Examples: []string{"1", "2"}},
		{Column: "B", Field: "b", Type: "string", Format: "default", DistinctCount: 10000, DistinctCapped: true}}
	inferJob := seedJob(t, s, org.ID, now)
	_, err = s.Jobs.Update(ctx, org.ID, inferJob.ID, func(j *job.Job) error {
		if err := j.Start(now); err != nil {
			return err
		}
		return j.Succeed(now, inferred)
	})
	ok(t, err)
	if got, _ := s.Jobs.Get(ctx, org.ID, inferJob.ID); got.Result == nil || !reflect.DeepEqual(*got.Result, inferred) {
		t.Fatalf("Jobs.Get of an infer job = result %+v; want the inferred schema as written", got.Result)
	}
}

func jobsHeartbeat(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	j := seedJob(t, s, org.ID, now)
	_, err := s.Jobs.Update(ctx, org.ID, j.ID, func(j *job.Job) error { return j.Start(now) })
	ok(t, err)
	status, err := s.Jobs.Heartbeat(ctx, j.ID, job.Progress{RowsRead: 10, RowsValid: 9, RowsRejected: 1, BytesRead: 100}, now.Add(time.Minute))
	if err != nil || status != job.Running {
		t.Fatalf("Jobs.Heartbeat = %s, %v; want running", status, err)
	}
	if expired, err := s.Jobs.Expired(ctx, now.Add(30*time.Second)); err != nil || len(expired) != 0 {
		t.Fatalf("Jobs.Expired before the lease ends = %v, %v; want none", expired, err)
	}
	if expired, err := s.Jobs.Expired(ctx, now.Add(2*time.Minute)); err != nil || len(expired) != 1 || expired[0] != [2]string{org.ID, j.ID} {
		t.Fatalf("Jobs.Expired after the lease ends = %v, %v; want the job", expired, err)
	}
	got, _ := s.Jobs.Get(ctx, org.ID, j.ID)
	if got.Progress != (job.Progress{RowsRead: 10, RowsValid: 9, RowsRejected: 1, BytesRead: 100, BytesTotal: 1234}) {
		t.Fatalf("Jobs.Get after Heartbeat = progress %+v; want the heartbeat's progress", got.Progress)
	}
}

func jobsHeartbeatCanceled(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	j := seedJob(t, s, org.ID, now)
	_, err := s.Jobs.Update(ctx, org.ID, j.ID, func(j *job.Job) error { return j.Start(now) })
	ok(t, err)
	_, err = s.Jobs.Update(ctx, org.ID, j.ID, func(j *job.Job) error { return j.Cancel(now) })
	ok(t, err)
	if status, err := s.Jobs.Heartbeat(ctx, j.ID, job.Progress{RowsRead: 20}, now.Add(time.Hour)); err != nil || status != job.Canceled {
		t.Fatalf("Jobs.Heartbeat after Cancel = %s, %v; want canceled", status, err)
	}
	if got, _ := s.Jobs.Get(ctx, org.ID, j.ID); got.Progress.RowsRead != 0 {
		t.Fatal("Jobs.Heartbeat of a canceled job wrote progress, want nothing written")
	}
}

func jobsFinishedBefore(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	seedJob(t, s, org.ID, now) // still queued: never listed
	done := newJob(org.ID, now)
	done.Status, done.FinishedAt, done.Result = job.Succeeded, &now, &sampleResult
	ok(t, s.Jobs.Create(ctx, done))
	if old, err := s.Jobs.FinishedBefore(ctx, now.Add(-time.Hour), 10); err != nil || len(old) != 0 {
		t.Fatalf("Jobs.FinishedBefore an earlier time = %v, %v; want none", old, err)
	}
	if old, err := s.Jobs.FinishedBefore(ctx, now.Add(time.Hour), 10); err != nil || len(old) != 1 || old[0] != [2]string{org.ID, done.ID} {
		t.Fatalf("Jobs.FinishedBefore = %v, %v; want the finished job only", old, err)
	}
	ok(t, s.Jobs.MarkPurged(ctx, done.ID, now))
	if old, _ := s.Jobs.FinishedBefore(ctx, now.Add(time.Hour), 10); len(old) != 0 {
		t.Fatalf("Jobs.FinishedBefore after its purge = %v; want the purged job left out", old)
	}
}

func jobsList(t *testing.T, s Stores) {
	ctx := context.Background()
	org, other := seedOrg(t, s), seedOrg(t, s)
	seedJob(t, s, other.ID, now)
	var created []string
	for i := range 3 {
		created = append(created, seedJob(t, s, org.ID, now.Add(time.Duration(i)*time.Second)).ID)
	}
	connectJob := newJob(org.ID, now.Add(time.Minute))
	connectJob.SourceType, connectJob.Status, connectJob.FinishedAt = "connect", job.Succeeded, &now
	ok(t, s.Jobs.Create(ctx, connectJob))
	created = append(created, connectJob.ID)

	got := pages(t, 2, func(p ports.Page) ([]job.Job, string, error) { return s.Jobs.List(ctx, org.ID, ports.JobFilter{}, p) },
		func(j job.Job) string { return j.ID })
	newestFirst(t, "Jobs.List", got, created)
	if list, _, err := s.Jobs.List(ctx, org.ID, ports.JobFilter{Status: job.Succeeded}, ports.Page{}); err != nil || len(list) != 1 || list[0].ID != connectJob.ID {
		t.Fatalf("Jobs.List(status succeeded) = %v, %v; want the connect job only", list, err)
	}
	if list, _, err := s.Jobs.List(ctx, org.ID, ports.JobFilter{SourceType: "upload"}, ports.Page{}); err != nil || len(list) != 3 || slices.ContainsFunc(list, func(j job.Job) bool { return j.ID == connectJob.ID }) {
		t.Fatalf("Jobs.List(source upload) = %v, %v; want the 3 uploaded jobs, not the connect job", list, err)
	}
}

func jobsDelete(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	j := seedJob(t, s, org.ID, now)
	_, err := s.JobEvents.Append(ctx, j.ID, job.EventQueued, []byte(`{}`), now)
	ok(t, err)
	ok(t, s.Jobs.Delete(ctx, org.ID, j.ID))
	_, err = s.Jobs.Get(ctx, org.ID, j.ID)
	isKind(t, err, domain.ErrNotFound, "Jobs.Get: a deleted job")
	if evs, err := s.JobEvents.After(ctx, j.ID, 0); err != nil || len(evs) != 0 {
		t.Fatalf("JobEvents.After of a deleted job = %v, %v; want none (Jobs.Delete takes its events along)", evs, err)
	}
}

// JobEvents is the suite of ports.JobEvents.
func JobEvents(t *testing.T, open func(t *testing.T) Stores) {
	t.Helper()
	runSteps(t, open, []step[Stores]{
		{"append_numbers_each_jobs_events_from_one", eventsAppend},
		{"after_returns_the_later_events_in_order", eventsAfter},
	})
}

func eventsAppend(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	a, b := seedJob(t, s, org.ID, now), seedJob(t, s, org.ID, now)
	for i, kind := range []string{job.EventQueued, job.EventStarted, job.EventProgress} {
		ev, err := s.JobEvents.Append(ctx, a.ID, kind, []byte(`{"n":1}`), now)
		if err != nil || ev.Seq != i+1 || ev.JobID != a.ID || ev.Kind != kind {
			t.Fatalf("JobEvents.Append #%d = %+v, %v; want seq %d of the job, with its kind", i+1, ev, err, i+1)
		}
	}
	if ev, err := s.JobEvents.Append(ctx, b.ID, job.EventQueued, []byte(`{}`), now); err != nil || ev.Seq != 1 {
		t.Fatalf("JobEvents.Append of another job's first event = %+v, %v; want seq 1 (a sequence per job)", ev, err)
	}
}

func eventsAfter(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	j := seedJob(t, s, org.ID, now)
	for _, kind := range []string{job.EventQueued, job.EventStarted, job.EventProgress} {
		_, err := s.JobEvents.Append(ctx, j.ID, kind, []byte(`{"n":1}`), now)
		ok(t, err)
	}
	after, err := s.JobEvents.After(ctx, j.ID, 1)
	if err != nil || len(after) != 2 || after[0].Seq != 2 || after[1].Seq != 3 || after[1].Kind != job.EventProgress ||
		string(after[1].Data) != `{"n":1}` || !after[1].At.Equal(now) {
		t.Fatalf("JobEvents.After(1) = %+v, %v; want seqs 2 and 3, the last a progress event with its data and time", after, err)
	}
	if none, err := s.JobEvents.After(ctx, j.ID, 3); err != nil || len(none) != 0 {
		t.Fatalf("JobEvents.After(last) = %+v, %v; want none", none, err)
	}
}

// JobSlots is the suite of ports.JobSlots. Counts is called inside a
// transaction, as the application does.
func JobSlots(t *testing.T, open func(t *testing.T) Stores) {
	t.Helper()
	runSteps(t, open, []step[Stores]{
		{"a_new_job_is_dispatched", slotsNewJob},
		{"held_jobs_wait_and_leave_oldest_first", slotsHoldAndNext},
		{"nothing_waiting", slotsNothingWaiting},
	})
}

func counts(t *testing.T, s Stores, orgID string) (active, pending int) {
	t.Helper()
	ok(t, s.Tx.InTx(context.Background(), func(ctx context.Context) error {
		var err error
		active, pending, err = s.JobSlots.Counts(ctx, orgID)
		return err
	}))
	return active, pending
}

func slotsNewJob(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	queued := seedJob(t, s, org.ID, now)
	running := seedJob(t, s, org.ID, now)
	_, err := s.Jobs.Update(ctx, org.ID, running.ID, func(j *job.Job) error { return j.Start(now) })
	ok(t, err)
	done := newJob(org.ID, now)
	done.Status, done.FinishedAt = job.Succeeded, &now
	ok(t, s.Jobs.Create(ctx, done))
	if active, pending := counts(t, s, org.ID); active != 2 || pending != 2 {
		t.Fatalf("JobSlots.Counts = %d active, %d pending; want 2 and 2 (queued %s and running %s)", active, pending, queued.ID, running.ID)
	}
}

func slotsHoldAndNext(t *testing.T, s Stores) {
	ctx := context.Background()
	org, other := seedOrg(t, s), seedOrg(t, s)
	first, second := seedJob(t, s, org.ID, now), seedJob(t, s, org.ID, now.Add(time.Second))
	ok(t, s.Tx.InTx(ctx, func(ctx context.Context) error {
		if err := s.JobSlots.Hold(ctx, first.ID); err != nil {
			return err
		}
		return s.JobSlots.Hold(ctx, second.ID)
	}))
	if active, pending := counts(t, s, org.ID); active != 0 || pending != 2 {
		t.Fatalf("JobSlots.Counts with two held jobs = %d active, %d pending; want 0 and 2", active, pending)
	}
	if orgs, err := s.JobSlots.OrgsWaiting(ctx, 10); err != nil || !slices.Equal(orgs, []string{org.ID}) {
		t.Fatalf("JobSlots.OrgsWaiting = %v, %v; want only %s (not %s)", orgs, err, org.ID, other.ID)
	}
	for _, want := range []string{first.ID, second.ID, ""} {
		var got string
		ok(t, s.Tx.InTx(ctx, func(ctx context.Context) error {
			var err error
			got, err = s.JobSlots.NextWaiting(ctx, org.ID)
			return err
		}))
		if got != want {
			t.Fatalf("JobSlots.NextWaiting = %q, want %q", got, want)
		}
	}
	if active, pending := counts(t, s, org.ID); active != 2 || pending != 2 {
		t.Fatalf("JobSlots.Counts after both were dispatched = %d active, %d pending; want 2 and 2", active, pending)
	}
}

func slotsNothingWaiting(t *testing.T, s Stores) {
	org := seedOrg(t, s)
	seedJob(t, s, org.ID, now)
	if orgs, err := s.JobSlots.OrgsWaiting(context.Background(), 10); err != nil || len(orgs) != 0 {
		t.Fatalf("JobSlots.OrgsWaiting with no held job = %v, %v; want none", orgs, err)
	}
	if active, pending := counts(t, s, seedOrg(t, s).ID); active != 0 || pending != 0 {
		t.Fatalf("JobSlots.Counts of an organization without jobs = %d active, %d pending; want 0 and 0", active, pending)
	}
}

// Quotas is the suite of ports.Quotas.
func Quotas(t *testing.T, open func(t *testing.T) Stores) {
	t.Helper()
	runSteps(t, open, []step[Stores]{
		{"unset_is_the_zero_quota", quotasUnset},
		{"set_then_get_and_set_again", quotasSet},
		{"usage_sums_rows_since_and_stored_bytes", quotasUsage},
	})
}

func quotasUnset(t *testing.T, s Stores) {
	if q, err := s.Quotas.Get(context.Background(), seedOrg(t, s).ID); err != nil || q != (job.Quota{}) {
		t.Fatalf("Quotas.Get of an organization without quotas = %+v, %v; want the zero quota (no limits)", q, err)
	}
}

func quotasSet(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	ok(t, s.Quotas.Set(ctx, org.ID, job.Quota{RowsPerMonth: 1_000_000, StorageBytes: 10 << 30}, now))
	if q, err := s.Quotas.Get(ctx, org.ID); err != nil || q != (job.Quota{RowsPerMonth: 1_000_000, StorageBytes: 10 << 30}) {
		t.Fatalf("Quotas.Get = %+v, %v; want the quota Set", q, err)
	}
	ok(t, s.Quotas.Set(ctx, org.ID, job.Quota{RowsPerMonth: 5}, now))
	if q, err := s.Quotas.Get(ctx, org.ID); err != nil || q != (job.Quota{RowsPerMonth: 5}) {
		t.Fatalf("Quotas.Get after a second Set = %+v, %v; want the second quota only", q, err)
	}
}

func quotasUsage(t *testing.T, s Stores) {
	ctx := context.Background()
	org, other := seedOrg(t, s), seedOrg(t, s)
	recent := newJob(org.ID, now)
	recent.Status, recent.FinishedAt, recent.Progress.RowsRead = job.Succeeded, &now, 100
	old := newJob(org.ID, now.Add(-48*time.Hour))
	oldEnd := now.Add(-48 * time.Hour)
	old.Status, old.FinishedAt, old.Progress.RowsRead = job.Succeeded, &oldEnd, 7
	foreign := newJob(other.ID, now)
	foreign.Status, foreign.FinishedAt, foreign.Progress.RowsRead = job.Succeeded, &now, 1000
	for _, j := range []job.Job{recent, old, foreign} {
		ok(t, s.Jobs.Create(ctx, j))
	}
	ok(t, s.Jobs.MarkPurged(ctx, old.ID, now))
	ok(t, s.Files.Create(ctx, newFile(org.ID, "library.csv")))
	rows, storage, err := s.Quotas.Usage(ctx, org.ID, now.Add(-24*time.Hour))
	if err != nil || rows != 100 || storage != 1234+5<<30 {
		t.Fatalf("Quotas.Usage = %d rows, %d bytes, %v; want 100 rows and %d bytes (an unpurged upload and a library file)", rows, storage, err, 1234+5<<30)
	}
}

// jobsReview: a job's review, its times and rerun_of are stored; lists
// leave the review itself out.
func jobsReview(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	j := newJob(org.ID, now)
	j.RerunOf = "job_before"
	ok(t, s.Jobs.Create(ctx, j))
	awaitReview(t, s, j.ID, now.Add(time.Hour))
	got, err := s.Jobs.Get(ctx, org.ID, j.ID)
	if err != nil || got.Status != job.AwaitingReview || !reflect.DeepEqual(got.Review, storedReview()) || got.ReviewSince == nil ||
		!got.ReviewSince.Equal(now.Add(time.Hour)) || got.ReviewedAt != nil || got.RerunOf != "job_before" {
		t.Fatalf("Jobs.Get = %+v, %v; want awaiting review, its review and review_since as written, not reviewed, its rerun_of", got, err)
	}
	list, _, err := s.Jobs.List(ctx, org.ID, ports.JobFilter{Status: job.AwaitingReview}, ports.Page{Limit: 10})
	if err != nil || len(list) != 1 || list[0].Review != nil || list[0].ReviewSince == nil {
		t.Fatalf("Jobs.List(awaiting_review) = %+v, %v; want the job with review_since but without its review document", list, err)
	}
	confirmed, err := s.Jobs.Update(ctx, "", j.ID, func(j *job.Job) error { return j.ConfirmReview(now.Add(3 * time.Hour)) })
	if err != nil || confirmed.Status != job.Queued || confirmed.ReviewedAt == nil || !confirmed.ReviewedAt.Equal(now.Add(3*time.Hour)) {
		t.Fatalf("Jobs.Update(confirm) = %+v, %v; want queued, reviewed at %v", confirmed, err, now.Add(3*time.Hour))
	}
	if got, _ := s.Jobs.Get(ctx, org.ID, j.ID); got.ReviewedAt == nil || !reflect.DeepEqual(got.Review, storedReview()) {
		t.Fatalf("Jobs.Get of a confirmed job = %+v; want reviewed_at set and its review kept", got)
	}
}

// storedReview is a review with every part the engine fills: a store
// keeps it as it is, nil and empty lists apart.
func storedReview() *review.Review {
	file, field, method, conf, row := "file_1", "email", match.MethodSynonym, 0.91, int64(3)
	ev := &match.Evidence{Header: 0.9, Values: 1, Matched: "email"}
	return &review.Review{
		Sample: review.Summary{Records: 4, RowsValid: 3, RowsRejected: 1, Complete: true},
		Columns: []review.Column{
			{SourceFile: &file, SourceColumn: "Courriel", Field: &field, Method: &method, Confidence: &conf, Evidence: ev,
				Alternatives: []match.Candidate{{Field: "notes", Method: match.MethodFuzzy, Confidence: 0.4, Evidence: &match.Evidence{Values: 0.5, Matched: "text"}}},
				Values:       []string{"ann@example.com", "bob@"}},
			{SourceColumn: "Notes <x>", Ignored: true, Alternatives: []match.Candidate{}, Values: []string{}},
		},
		UnmappedFields: []string{"phone"},
		Blocking:       []review.Blocker{{Code: domain.CodeRequiredFieldUnmapped, Field: &field, SourceFile: &file, Message: "Required field \"email\" matches no column."}},
		IssueCounts:    []review.IssueCount{{Field: &field, Severity: "error", Code: "invalid_email", Count: 1}},
		Preview: []review.PreviewRow{
			{Row: 3, SourceFile: &file, Valid: false, Values: json.RawMessage(`{"email":null,"n":12.50}`),
				Issues: []review.Issue{{Row: &row, SourceFile: &file, Column: &file, Field: &field, Severity: "error", Code: "invalid_email", Message: "\"bob@\" is not an email address.", Value: &file}}},
			{Row: 4, Valid: true, Values: json.RawMessage(`{"email":"cy@example.com","n":1}`), Issues: []review.Issue{}},
		},
		Sheets:    []review.Sheet{{SourceFile: &file, Name: "Staff", Rows: 5, FirstRow: []string{"Courriel"}, Selected: true}, {Name: "Empty", Rows: 0, Complete: true, FirstRow: []string{}}},
		HeaderRow: 1, FirstRows: [][]string{{"Courriel", "Notes <x>"}, {"ann@example.com", ""}}, HeaderUnsure: true,
	}
}

// awaitReview starts a job and stops it awaiting review at at.
func awaitReview(t *testing.T, s Stores, jobID string, at time.Time) {
	t.Helper()
	_, err := s.Jobs.Update(context.Background(), "", jobID, func(j *job.Job) error {
		if err := j.Start(at); err != nil {
			return err
		}
		return j.AwaitReview(at, *storedReview(), []byte(`[]`))
	})
	ok(t, err)
}

// JobReviews is the suite of ports.JobReviews.
func JobReviews(t *testing.T, open func(t *testing.T) Stores) {
	t.Helper()
	runSteps(t, open, []step[Stores]{
		{"awaiting_since_lists_oldest_first", reviewsAwaitingSince},
		{"a_confirmed_review_is_not_awaiting", reviewsConfirmed},
	})
}

func reviewsAwaitingSince(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	later, first := seedJob(t, s, org.ID, now), seedJob(t, s, org.ID, now)
	seedJob(t, s, org.ID, now) // stays queued
	awaitReview(t, s, later.ID, now.Add(time.Hour))
	awaitReview(t, s, first.ID, now)
	due, err := s.JobReviews.AwaitingSince(ctx, now.Add(2*time.Hour), 10)
	if err != nil || !slices.Equal(due, [][2]string{{org.ID, first.ID}, {org.ID, later.ID}}) {
		t.Fatalf("JobReviews.AwaitingSince = %v, %v; want %s then %s", due, err, first.ID, later.ID)
	}
	if due, err := s.JobReviews.AwaitingSince(ctx, now.Add(30*time.Minute), 10); err != nil || !slices.Equal(due, [][2]string{{org.ID, first.ID}}) {
		t.Fatalf("JobReviews.AwaitingSince an earlier time = %v, %v; want the first job only", due, err)
	}
	if due, err := s.JobReviews.AwaitingSince(ctx, now.Add(2*time.Hour), 1); err != nil || len(due) != 1 {
		t.Fatalf("JobReviews.AwaitingSince with limit 1 = %v, %v; want one job", due, err)
	}
}

func reviewsConfirmed(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	j := seedJob(t, s, org.ID, now)
	awaitReview(t, s, j.ID, now)
	_, err := s.Jobs.Update(ctx, "", j.ID, func(j *job.Job) error { return j.ConfirmReview(now.Add(time.Minute)) })
	ok(t, err)
	if due, err := s.JobReviews.AwaitingSince(ctx, now.Add(10*time.Hour), 10); err != nil || len(due) != 0 {
		t.Fatalf("JobReviews.AwaitingSince after the confirmations = %v, %v; want none", due, err)
	}
}

// sampleResult is a succeeded job's result outside infer mode.
var sampleResult = job.Result{RowCount: 1, RejectedCount: 2, IssueCount: 3, IssuesTruncated: true,
	Detected: []byte(`{"options":{"encoding":"utf-8"},"files":[{"source_file":null,"format":"csv"}]}`),
	FileIssues: []job.FileIssue{{Column: "Price", Field: "price", Severity: "warning", Code: "mixed_currencies", Message: "several currencies"},
		{SourceFile: "file_1", Severity: "warning", Code: "skipped_comments", Message: "2 comment lines"}}}
