package portstest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/connect"
	"github.com/tabnorm/tabnorm/domain/id"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/schema"
	"github.com/tabnorm/tabnorm/ports"
)

// Files is the suite of ports.Files.
func Files(t *testing.T, open func(t *testing.T) Stores) {
	t.Helper()
	runSteps(t, open, []step[Stores]{
		{"create_then_get", filesCreateThenGet},
		{"another_organizations_file_is_not_found", filesOtherOrg},
		{"list_pages_newest_first", filesList},
		{"hold_returns_only_the_organizations_files", filesHold},
		{"active_jobs_are_the_queued_or_running_readers", filesActiveJobs},
		{"delete_leaves_the_jobs_own_record", filesDelete},
		{"a_hold_keeps_a_concurrent_delete_check_waiting", filesHoldBlocks},
	})
}

func seedFile(t *testing.T, s Stores, orgID, name string) connect.File {
	t.Helper()
	f := newFile(orgID, name)
	ok(t, s.Files.Create(context.Background(), f))
	return f
}

func filesCreateThenGet(t *testing.T, s Stores) {
	org := seedOrg(t, s)
	f := seedFile(t, s, org.ID, "a.csv")
	if got, err := s.Files.Get(context.Background(), org.ID, f.ID); err != nil || got != f {
		t.Fatalf("Files.Get = %+v, %v; want %+v (sizes over 4 GiB survive)", got, err, f)
	}
}

func filesOtherOrg(t *testing.T, s Stores) {
	org, other := seedOrg(t, s), seedOrg(t, s)
	f := seedFile(t, s, org.ID, "a.csv")
	_, err := s.Files.Get(context.Background(), other.ID, f.ID)
	isKind(t, err, domain.ErrNotFound, "Files.Get through another organization")
	isKind(t, s.Files.Delete(context.Background(), other.ID, f.ID), domain.ErrNotFound, "Files.Delete through another organization")
}

func filesList(t *testing.T, s Stores) {
	org, other := seedOrg(t, s), seedOrg(t, s)
	seedFile(t, s, other.ID, "x.csv")
	var created []string
	for _, name := range []string{"a.csv", "b.xlsx", "c.jsonl"} {
		created = append(created, seedFile(t, s, org.ID, name).ID)
	}
	got := pages(t, 1, func(p ports.Page) ([]connect.File, string, error) {
		return s.Files.List(context.Background(), org.ID, p)
	},
		func(f connect.File) string { return f.ID })
	newestFirst(t, "Files.List", got, created)
}

func filesHold(t *testing.T, s Stores) {
	org, other := seedOrg(t, s), seedOrg(t, s)
	a, b, foreign := seedFile(t, s, org.ID, "a.csv"), seedFile(t, s, org.ID, "b.csv"), seedFile(t, s, other.ID, "x.csv")
	var ids []string
	ok(t, s.Tx.InTx(context.Background(), func(ctx context.Context) error {
		held, err := s.Files.Hold(ctx, org.ID, []string{b.ID, foreign.ID, "file_unknown", a.ID})
		for _, f := range held {
			ids = append(ids, f.ID)
		}
		return err
	}))
	slices.Sort(ids)
	want := []string{a.ID, b.ID}
	slices.Sort(want)
	if !slices.Equal(ids, want) {
		t.Fatalf("Files.Hold = %v; want only the organization's own files %v", ids, want)
	}
}

func filesActiveJobs(t *testing.T, s Stores) {
	ctx := context.Background()
	org, other := seedOrg(t, s), seedOrg(t, s)
	a, b := seedFile(t, s, org.ID, "a.csv"), seedFile(t, s, org.ID, "b.csv")
	j := newJob(org.ID, now)
	j.SourceType = "connect"
	ok(t, s.Jobs.Create(ctx, j))
	ok(t, s.Files.Link(ctx, j.ID, []string{b.ID, a.ID}))
	if active, err := s.Files.ActiveJobs(ctx, org.ID, a.ID); err != nil || !slices.Equal(active, []string{j.ID}) {
		t.Fatalf("Files.ActiveJobs of a queued job's file = %v, %v; want the job", active, err)
	}
	_, err := s.Files.ActiveJobs(ctx, other.ID, a.ID)
	isKind(t, err, domain.ErrNotFound, "Files.ActiveJobs through another organization")
	_, err = s.Jobs.Update(ctx, org.ID, j.ID, func(j *job.Job) error { return j.Cancel(now) })
	ok(t, err)
	if active, err := s.Files.ActiveJobs(ctx, org.ID, a.ID); err != nil || len(active) != 0 {
		t.Fatalf("Files.ActiveJobs after the job ended = %v, %v; want none", active, err)
	}
}

func filesDelete(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	a := seedFile(t, s, org.ID, "a.csv")
	j := newJob(org.ID, now)
	j.SourceType, j.Status, j.FinishedAt = "connect", job.Succeeded, &now
	ok(t, s.Jobs.Create(ctx, j))
	ok(t, s.Files.Link(ctx, j.ID, []string{a.ID}))
	if err := s.Files.Delete(ctx, org.ID, a.ID); err != nil {
		t.Fatalf("Files.Delete of a file a finished job read: %v, want it deleted", err)
	}
	_, err := s.Files.Get(ctx, org.ID, a.ID)
	isKind(t, err, domain.ErrNotFound, "Files.Get: a deleted file")
	if got, err := s.Jobs.Get(ctx, org.ID, j.ID); err != nil || len(got.Files) != 1 {
		t.Fatalf("Jobs.Get after Files.Delete = files %+v, %v; want the job's own record of its file kept", got.Files, err)
	}
}

// filesHoldBlocks: a hold taken in a transaction keeps the file until it
// commits, so a deletion check that starts meanwhile waits, then sees the
// job the transaction linked.
func filesHoldBlocks(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	b := seedFile(t, s, org.ID, "b.csv")
	held, release, done := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	j := newJob(org.ID, now)
	go func() {
		done <- s.Tx.InTx(ctx, func(ctx context.Context) error {
			if _, err := s.Files.Hold(ctx, org.ID, []string{b.ID}); err != nil {
				return err
			}
			close(held)
			<-release
			if err := s.Jobs.Create(ctx, j); err != nil {
				return err
			}
			return s.Files.Link(ctx, j.ID, []string{b.ID})
		})
	}()
	<-held
	checked := make(chan []string, 1)
	go func() {
		_ = s.Tx.InTx(ctx, func(ctx context.Context) error {
			active, err := s.Files.ActiveJobs(ctx, org.ID, b.ID)
			checked <- active
			return err
		})
	}()
	select {
	case active := <-checked:
		close(release)
		t.Fatalf("Files.ActiveJobs = %v before the hold ended (the holder ended with %v); want it to wait for Files.Hold's transaction", active, <-done)
	case <-time.After(200 * time.Millisecond):
	}
	close(release)
	ok(t, <-done)
	if active := <-checked; !slices.Equal(active, []string{j.ID}) {
		t.Fatalf("Files.ActiveJobs after the hold committed = %v; want the new job %s", active, j.ID)
	}
}

// Schemas is the suite of ports.Schemas.
func Schemas(t *testing.T, open func(t *testing.T) Stores) {
	t.Helper()
	runSteps(t, open, []step[Stores]{
		{"create_then_get", schemasCreateThenGet},
		{"list_pages_newest_first", schemasList},
		{"delete_once_and_only_in_its_organization", schemasDelete},
		{"default_destinations_are_kept", schemasDestinations},
	})
}

func schemasDestinations(t *testing.T, s Stores) {
	org := seedOrg(t, s)
	with := schema.Saved{ID: id.New(id.Schema), OrgID: org.ID, Name: "people", Document: []byte(`{"fields":[{"name":"email"}]}`), CreatedAt: now,
		DestinationIDs: []string{"dst_a", "dst_b"}}
	ok(t, s.Schemas.Create(context.Background(), with))
	without := seedSchema(t, s, org.ID)
	got, err := s.Schemas.Get(context.Background(), org.ID, with.ID)
	if err != nil || !slices.Equal(got.DestinationIDs, []string{"dst_a", "dst_b"}) {
		t.Fatalf("Schemas.Get = %+v, %v; want its destinations", got, err)
	}
	got, err = s.Schemas.Get(context.Background(), org.ID, without.ID)
	if err != nil || len(got.DestinationIDs) != 0 {
		t.Fatalf("Schemas.Get of a schema without destinations = %+v, %v; want none", got, err)
	}
}

func seedSchema(t *testing.T, s Stores, orgID string) schema.Saved {
	t.Helper()
	sv := schema.Saved{ID: id.New(id.Schema), OrgID: orgID, Name: "people", Document: []byte(`{"fields":[{"name":"email"}]}`), CreatedAt: now}
	ok(t, s.Schemas.Create(context.Background(), sv))
	return sv
}

func schemasCreateThenGet(t *testing.T, s Stores) {
	org, other := seedOrg(t, s), seedOrg(t, s)
	sv := seedSchema(t, s, org.ID)
	got, err := s.Schemas.Get(context.Background(), org.ID, sv.ID)
	if err != nil || got.ID != sv.ID || got.OrgID != org.ID || got.Name != "people" || string(got.Document) != string(sv.Document) || !got.CreatedAt.Equal(now) {
		t.Fatalf("Schemas.Get = %+v, %v; want the schema as created: its organization, name, document and created_at", got, err)
	}
	_, err = s.Schemas.Get(context.Background(), other.ID, sv.ID)
	isKind(t, err, domain.ErrNotFound, "Schemas.Get through another organization")
}

func schemasList(t *testing.T, s Stores) {
	org, other := seedOrg(t, s), seedOrg(t, s)
	seedSchema(t, s, other.ID)
	var created []string
	for range 3 {
		created = append(created, seedSchema(t, s, org.ID).ID)
	}
	got := pages(t, 2, func(p ports.Page) ([]schema.Saved, string, error) {
		return s.Schemas.List(context.Background(), org.ID, p)
	},
		func(sv schema.Saved) string { return sv.ID })
	newestFirst(t, "Schemas.List", got, created)
}

func schemasDelete(t *testing.T, s Stores) {
	ctx := context.Background()
	org, other := seedOrg(t, s), seedOrg(t, s)
	sv := seedSchema(t, s, org.ID)
	isKind(t, s.Schemas.Delete(ctx, other.ID, sv.ID), domain.ErrNotFound, "Schemas.Delete through another organization")
	ok(t, s.Schemas.Delete(ctx, org.ID, sv.ID))
	_, err := s.Schemas.Get(ctx, org.ID, sv.ID)
	isKind(t, err, domain.ErrNotFound, "Schemas.Get: a deleted schema")
	isKind(t, s.Schemas.Delete(ctx, org.ID, sv.ID), domain.ErrNotFound, "Schemas.Delete a second time")
}

// LearnedMappings is the suite of ports.LearnedMappings.
func LearnedMappings(t *testing.T, open func(t *testing.T) Stores) {
	t.Helper()
	runSteps(t, open, []step[Stores]{
		{"none_is_an_empty_map", learnedNone},
		{"put_then_get_and_the_latest_wins", learnedPut},
	})
}

func learnedNone(t *testing.T, s Stores) {
	org := seedOrg(t, s)
	sv := seedSchema(t, s, org.ID)
	if got, err := s.LearnedMappings.Get(context.Background(), org.ID, sv.ID); err != nil || len(got) != 0 {
		t.Fatalf("LearnedMappings.Get before any Put = %v, %v; want none", got, err)
	}
}

func learnedPut(t *testing.T, s Stores) {
	ctx := context.Background()
	org, other := seedOrg(t, s), seedOrg(t, s)
	sv, sv2 := seedSchema(t, s, org.ID), seedSchema(t, s, org.ID)
	ok(t, s.LearnedMappings.Put(ctx, org.ID, sv.ID, "mail", "email", now))
	ok(t, s.LearnedMappings.Put(ctx, org.ID, sv.ID, "nom", "name", now))
	ok(t, s.LearnedMappings.Put(ctx, org.ID, sv.ID, "mail", "contact", now.Add(time.Second)))
	ok(t, s.LearnedMappings.Put(ctx, org.ID, sv2.ID, "phone", "phone", now))
	got, err := s.LearnedMappings.Get(ctx, org.ID, sv.ID)
	if err != nil || len(got) != 2 || got["mail"] != "contact" || got["nom"] != "name" {
		t.Fatalf("LearnedMappings.Get = %v, %v; want mail → contact (the latest) and nom → name", got, err)
	}
	if got, _ := s.LearnedMappings.Get(ctx, other.ID, sv.ID); len(got) != 0 {
		t.Fatalf("LearnedMappings.Get through another organization = %v; want none", got)
	}
}

// Idempotency is the suite of ports.Idempotency.
func Idempotency(t *testing.T, open func(t *testing.T) Stores) {
	t.Helper()
	runSteps(t, open, []step[Stores]{
		{"put_then_get", idemPutThenGet},
		{"a_second_put_of_a_key_is_conflict", idemDuplicate},
		{"unknown_key_is_not_found", idemUnknown},
		{"delete_before_forgets_only_older_answers", idemDeleteBefore},
	})
}

func seedAnswer(t *testing.T, s Stores, orgID, key string, at time.Time) ports.IdempotentResponse {
	t.Helper()
	r := ports.IdempotentResponse{OrgID: orgID, Key: key, RequestHash: "h1", CreatedAt: at,
		IdempotentAnswer: ports.IdempotentAnswer{Status: 202, Location: "/v1/jobs/job_x", Body: []byte(`{"id":"job_x"}`)}}
	ok(t, s.Idempotency.Put(context.Background(), r))
	return r
}

func idemPutThenGet(t *testing.T, s Stores) {
	org, other := seedOrg(t, s), seedOrg(t, s)
	r := seedAnswer(t, s, org.ID, "k1", now)
	got, err := s.Idempotency.Get(context.Background(), org.ID, "k1")
	if err != nil || got.OrgID != r.OrgID || got.Key != "k1" || got.RequestHash != r.RequestHash || got.Status != r.Status ||
		got.Location != r.Location || string(got.Body) != string(r.Body) || !got.CreatedAt.Equal(now) {
		t.Fatalf("Idempotency.Get = %+v, %v; want the answer as stored", got, err)
	}
	_, err = s.Idempotency.Get(context.Background(), other.ID, "k1")
	isKind(t, err, domain.ErrNotFound, "Idempotency.Get: another organization's key")
}

func idemDuplicate(t *testing.T, s Stores) {
	org := seedOrg(t, s)
	r := seedAnswer(t, s, org.ID, "k1", now)
	r.RequestHash = "h2"
	isKind(t, s.Idempotency.Put(context.Background(), r), domain.ErrConflict, "Idempotency.Put of a key a second time")
}

func idemUnknown(t *testing.T, s Stores) {
	_, err := s.Idempotency.Get(context.Background(), seedOrg(t, s).ID, "nope")
	isKind(t, err, domain.ErrNotFound, "Idempotency.Get: an unknown key")
}

func idemDeleteBefore(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	seedAnswer(t, s, org.ID, "k1", now)
	ok(t, s.Idempotency.DeleteBefore(ctx, org.ID, "k1", now))
	_, err := s.Idempotency.Get(ctx, org.ID, "k1")
	ok(t, err)
	ok(t, s.Idempotency.DeleteBefore(ctx, org.ID, "k1", now.Add(time.Second)))
	_, err = s.Idempotency.Get(ctx, org.ID, "k1")
	isKind(t, err, domain.ErrNotFound, "Idempotency.Get: an answer older than DeleteBefore's time")
}

// BlobOwners is the suite of ports.BlobOwners.
func BlobOwners(t *testing.T, open func(t *testing.T) Stores) {
	t.Helper()
	runSteps(t, open, []step[Stores]{
		{"jobs_and_files_that_exist", ownersExisting},
		{"no_ids_no_owners", ownersNone},
	})
}

func ownersExisting(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	j := seedJob(t, s, org.ID, now)
	f := seedFile(t, s, org.ID, "a.csv")
	jobs, err := s.BlobOwners.Jobs(ctx, []string{j.ID, "job_gone", f.ID})
	if err != nil || len(jobs) != 1 || !jobs[j.ID] {
		t.Fatalf("BlobOwners.Jobs = %v, %v; want only %s", jobs, err, j.ID)
	}
	files, err := s.BlobOwners.Files(ctx, []string{f.ID, "file_gone", j.ID})
	if err != nil || len(files) != 1 || !files[f.ID] {
		t.Fatalf("BlobOwners.Files = %v, %v; want only %s", files, err, f.ID)
	}
}

func ownersNone(t *testing.T, s Stores) {
	ctx := context.Background()
	if none, err := s.BlobOwners.Jobs(ctx, nil); err != nil || len(none) != 0 {
		t.Fatalf("BlobOwners.Jobs(nil) = %v, %v; want none", none, err)
	}
	if none, err := s.BlobOwners.Files(ctx, nil); err != nil || len(none) != 0 {
		t.Fatalf("BlobOwners.Files(nil) = %v, %v; want none", none, err)
	}
}
