package sqlstore_test

import (
	"context"
	"errors"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/sqlstore"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/connect"
	"github.com/tabnorm/tabnorm/domain/id"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/ports"
)

func newFile(orgID, name string, now time.Time) connect.File {
	return connect.File{ID: id.New(id.File), OrgID: orgID, Filename: name, Format: "csv", SizeBytes: 5 << 30, SHA256: "cd", CreatedAt: now}
}

func TestFiles_contract(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		org, _ := seedOrgUser(t, db)
		other, _ := seedOrgUser(t, db)
		files, jobs, tx := sqlstore.NewFiles(db), sqlstore.NewJobs(db), sqlstore.NewTransactor(db)
		now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
		a, b, foreign := newFile(org.ID, "a.csv", now), newFile(org.ID, "b.xlsx", now), newFile(other.ID, "x.csv", now)
		for _, f := range []connect.File{a, b, foreign} {
			if err := files.Create(ctx, f); err != nil {
				t.Fatal(err)
			}
		}
		got, err := files.Get(ctx, org.ID, a.ID)
		if err != nil || got != a { // sizes over 4 GiB survive (bigint)
			t.Fatalf("Get = %+v, %v; want %+v", got, err, a)
		}
		if _, err := files.Get(ctx, org.ID, foreign.ID); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("another org's file: %v", err)
		}
		list, next, err := files.List(ctx, org.ID, ports.Page{Limit: 1})
		if err != nil || len(list) != 1 || list[0].ID != b.ID || next == "" {
			t.Fatalf("List page 1 = %v %q %v", list, next, err)
		}
		list, next, err = files.List(ctx, org.ID, ports.Page{Limit: 1, Cursor: next})
		if err != nil || len(list) != 1 || list[0].ID != a.ID || next != "" {
			t.Fatalf("List page 2 = %v %q %v", list, next, err)
		}

		held, err := files.Hold(ctx, org.ID, []string{b.ID, foreign.ID, "file_unknown", a.ID})
		ids := make([]string, len(held))
		for i, f := range held {
			ids[i] = f.ID
		}
		want := []string{a.ID, b.ID}
		sort.Strings(ids)
		sort.Strings(want)
		if err != nil || !slices.Equal(ids, want) {
			t.Fatalf("Hold = %v, %v; want only the org's own files", ids, err)
		}

		j := newJob(org.ID, now)
		j.SourceType = job.SourceConnect
		if err := jobs.Create(ctx, j); err != nil {
			t.Fatal(err)
		}
		if err := files.Link(ctx, j.ID, []string{b.ID, a.ID}); err != nil {
			t.Fatal(err)
		}
		if active, err := files.ActiveJobs(ctx, org.ID, a.ID); err != nil || len(active) != 1 || active[0] != j.ID {
			t.Fatalf("ActiveJobs of a queued job's file = %v, %v", active, err)
		}
		if _, err := files.ActiveJobs(ctx, other.ID, a.ID); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("ActiveJobs through another org: %v", err)
		}
		if _, err := jobs.Update(ctx, org.ID, j.ID, func(j *job.Job) error { return j.Cancel(now) }); err != nil {
			t.Fatal(err)
		}
		if active, err := files.ActiveJobs(ctx, org.ID, a.ID); err != nil || len(active) != 0 {
			t.Fatalf("ActiveJobs after the job ended = %v, %v", active, err)
		}

		if err := files.Delete(ctx, other.ID, a.ID); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("delete through another org: %v", err)
		}
		if err := files.Delete(ctx, org.ID, a.ID); err != nil {
			t.Fatalf("delete a file a finished job read: %v", err)
		}
		if _, err := files.Get(ctx, org.ID, a.ID); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("deleted file still there: %v", err)
		}
		if got, _ := jobs.Get(ctx, org.ID, j.ID); len(got.Files) != 1 {
			t.Fatal("the job lost its own record of its files")
		}

		// A hold taken in a transaction keeps the file until it commits: a
		// delete that starts meanwhile waits, then sees the new job.
		if db.Dialect == sqlstore.Postgres {
			held := make(chan struct{})
			release := make(chan struct{})
			done := make(chan error, 1)
			j2 := newJob(org.ID, now)
			go func() {
				done <- tx.InTx(ctx, func(ctx context.Context) error {
					if _, err := files.Hold(ctx, org.ID, []string{b.ID}); err != nil {
						return err
					}
					close(held)
					<-release
					if err := jobs.Create(ctx, j2); err != nil {
						return err
					}
					return files.Link(ctx, j2.ID, []string{b.ID})
				})
			}()
			<-held
			checked := make(chan []string, 1)
			go func() {
				_ = tx.InTx(ctx, func(ctx context.Context) error {
					active, err := files.ActiveJobs(ctx, org.ID, b.ID)
					checked <- active
					return err
				})
			}()
			select {
			case active := <-checked:
				t.Fatalf("ActiveJobs did not wait for the hold (saw %v)", active)
			case <-time.After(200 * time.Millisecond):
			}
			close(release)
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if active := <-checked; len(active) != 1 || active[0] != j2.ID {
				t.Fatalf("after the hold committed, ActiveJobs = %v; want the new job", active)
			}
		}
	})
}
