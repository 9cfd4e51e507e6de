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

// TestJobs_unreadableFilesColumn: a job whose stored file list is not
// JSON is an error on every read, never a job without files.
func TestJobs_unreadableFilesColumn(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		org, _ := seedOrgUser(t, db)
		jobs := sqlstore.NewJobs(db)
		j := newJob(org.ID, time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC))
		if err := jobs.Create(ctx, j); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Bun.NewUpdate().Table("jobs").Set("files = ?", "[{").Where("id = ?", j.ID).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		check := func(what string, err error) {
			t.Helper()
			if err == nil || errors.Is(err, domain.ErrNotFound) {
				t.Errorf("%s of a job with unreadable files: %v", what, err)
			}
		}
		got, err := jobs.Get(ctx, org.ID, j.ID)
		check("Get", err)
		if err == nil {
			t.Errorf("Get returned %d files", len(got.Files))
		}
		_, _, err = jobs.List(ctx, org.ID, ports.JobFilter{}, ports.Page{Limit: 10})
		check("List", err)
		called := false
		_, err = jobs.Update(ctx, org.ID, j.ID, func(*job.Job) error { called = true; return nil })
		check("Update", err)
		if called {
			t.Error("Update handed the job to fn")
		}
	})
}
