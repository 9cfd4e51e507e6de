package sqlstore_test

import (
	"context"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/sqlstore"
)

func TestBlobOwners_contract(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		org, _ := seedOrgUser(t, db)
		now := time.Now()
		j := newJob(org.ID, now)
		if err := sqlstore.NewJobs(db).Create(ctx, j); err != nil {
			t.Fatal(err)
		}
		f := newFile(org.ID, "a.csv", now)
		if err := sqlstore.NewFiles(db).Create(ctx, f); err != nil {
			t.Fatal(err)
		}
		owners := sqlstore.NewBlobOwners(db)
		jobs, err := owners.Jobs(ctx, []string{j.ID, "job_gone", f.ID})
		if err != nil || !slices.Equal(slices.Collect(maps.Keys(jobs)), []string{j.ID}) {
			t.Fatalf("Jobs = %v, %v", jobs, err)
		}
		files, err := owners.Files(ctx, []string{f.ID, "file_gone", j.ID})
		if err != nil || !slices.Equal(slices.Collect(maps.Keys(files)), []string{f.ID}) {
			t.Fatalf("Files = %v, %v", files, err)
		}
		if none, err := owners.Jobs(ctx, nil); err != nil || len(none) != 0 {
			t.Fatalf("Jobs(nil) = %v, %v", none, err)
		}
	})
}
