package sqlstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/sqlstore"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/ports"
)

// TestPrepared_boundedStatements: the hot reads are prepared statements,
// and however a client varies a list's limit, cursor and filters, or the
// ids it asks for, their number stays small (a statement per shape, never
// per value), while every page still holds what it should.
func TestPrepared_boundedStatements(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		org, _ := seedOrgUser(t, db)
		jobs := sqlstore.NewJobs(db)
		now := time.Now().UTC()
		ids := map[string]bool{}
		for i := range 30 {
			j := newJob(org.ID, now.Add(time.Duration(i)*time.Millisecond))
			if err := jobs.Create(ctx, j); err != nil {
				t.Fatal(err)
			}
			ids[j.ID] = true
		}
		for id := range ids {
			if got, err := jobs.Get(ctx, org.ID, id); err != nil || got.ID != id {
				t.Fatalf("Get(%s) = %s, %v", id, got.ID, err)
			}
		}
		if _, err := jobs.Get(ctx, "org_other", pickOne(ids)); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("Get of another organization's job = %v; want not found", err)
		}
		for limit := 1; limit <= 210; limit += 7 {
			for _, f := range []ports.JobFilter{{}, {Status: job.Queued}, {SourceType: "upload"}, {Status: job.Queued, SourceType: "upload"}, {Status: job.Running}} {
				seen := walkPages(t, jobs, org.ID, f, limit)
				want := len(ids)
				if f.Status == job.Running {
					want = 0
				}
				if seen != want {
					t.Fatalf("limit %d, filter %+v: %d jobs over the pages; want %d", limit, f, seen, want)
				}
			}
		}
		// Get, and each list shape (4 filter combinations, with and without
		// a cursor) in at most 5 sizes.
		if n := sqlstore.PreparedStatements(db); n > 1+4*2*5 {
			t.Fatalf("%d prepared statements; want at most %d", n, 1+4*2*5)
		}
	})
}

// TestPrepared_insideTransaction: a prepared read inside a transaction
// runs on it, and sees what it wrote before committing.
func TestPrepared_insideTransaction(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, db *sqlstore.DB) {
		org, _ := seedOrgUser(t, db)
		jobs := sqlstore.NewJobs(db)
		j := newJob(org.ID, time.Now().UTC())
		err := sqlstore.NewTransactor(db).InTx(context.Background(), func(ctx context.Context) error {
			if err := jobs.Create(ctx, j); err != nil {
				return err
			}
			got, err := jobs.Get(ctx, org.ID, j.ID)
			if err != nil || got.ID != j.ID {
				t.Errorf("Get inside the transaction = %s, %v", got.ID, err)
			}
			list, _, err := jobs.List(ctx, org.ID, ports.JobFilter{}, ports.Page{Limit: 5})
			if err != nil || len(list) != 1 {
				t.Errorf("List inside the transaction = %d jobs, %v", len(list), err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

func walkPages(t *testing.T, jobs *sqlstore.Jobs, orgID string, f ports.JobFilter, limit int) int {
	t.Helper()
	seen, cursor := 0, ""
	for range 100 {
		page, next, err := jobs.List(context.Background(), orgID, f, ports.Page{Limit: limit, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		if len(page) > limit {
			t.Fatalf("a page of limit %d holds %d jobs", limit, len(page))
		}
		seen += len(page)
		if next == "" {
			return seen
		}
		cursor = next
	}
	t.Fatal("more than 100 pages")
	return 0
}

func pickOne(m map[string]bool) string {
	for k := range m {
		return k
	}
	return ""
}
