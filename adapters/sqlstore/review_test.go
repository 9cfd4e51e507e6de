package sqlstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/sqlstore"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/ports"
)

// TestReviews_contract: a job's review, its times and rerun_of are
// stored, lists leave the review out, and jobs awaiting review since
// before a time are found oldest first.
func TestReviews_contract(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		org, _ := seedOrgUser(t, db)
		jobs, reviews := sqlstore.NewJobs(db), sqlstore.NewReviews(db)
		now := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
		var ids []string
		for i := range 3 {
			j := newJob(org.ID, now)
			j.RerunOf = "job_before"
			if err := jobs.Create(ctx, j); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, j.ID)
			if i == 2 {
				break // stays queued
			}
			at := now.Add(time.Duration(1-i) * time.Hour) // the second awaits review first
			if _, err := jobs.Update(ctx, "", j.ID, func(j *job.Job) error {
				if err := j.Start(at); err != nil {
					return err
				}
				return j.AwaitReview(at, []byte(`{"preview":[]}`), []byte(`[]`))
			}); err != nil {
				t.Fatal(err)
			}
		}
		got, err := jobs.Get(ctx, org.ID, ids[0])
		if err != nil || got.Status != job.AwaitingReview || string(got.Review) != `{"preview":[]}` || !got.ReviewSince.Equal(now.Add(time.Hour)) ||
			got.ReviewedAt != nil || got.RerunOf != "job_before" {
			t.Fatalf("Get = %+v, %v", got, err)
		}
		list, _, err := jobs.List(ctx, org.ID, ports.JobFilter{Status: job.AwaitingReview}, ports.Page{Limit: 10})
		if err != nil || len(list) != 2 || list[0].Review != nil || list[0].ReviewSince == nil {
			t.Fatalf("List = %+v, %v", list, err)
		}
		due, err := reviews.AwaitingSince(ctx, now.Add(2*time.Hour), 10)
		if err != nil || len(due) != 2 || due[0][1] != ids[1] || due[1][1] != ids[0] || due[0][0] != org.ID {
			t.Fatalf("AwaitingSince = %v, %v", due, err)
		}
		if due, _ := reviews.AwaitingSince(ctx, now.Add(30*time.Minute), 10); len(due) != 1 || due[0][1] != ids[1] {
			t.Fatalf("AwaitingSince(earlier) = %v", due)
		}
		confirmed, err := jobs.Update(ctx, "", ids[0], func(j *job.Job) error { return j.ConfirmReview(now.Add(3 * time.Hour)) })
		if err != nil || confirmed.Status != job.Queued || !confirmed.ReviewedAt.Equal(now.Add(3*time.Hour)) {
			t.Fatalf("confirm = %+v, %v", confirmed, err)
		}
		if got, _ := jobs.Get(ctx, org.ID, ids[0]); got.ReviewedAt == nil || string(got.Review) != `{"preview":[]}` {
			t.Fatalf("confirmed job %+v", got)
		}
		if due, _ := reviews.AwaitingSince(ctx, now.Add(10*time.Hour), 10); len(due) != 1 || due[0][1] != ids[1] {
			t.Fatalf("a confirmed review is still due: %v", due)
		}
	})
}
