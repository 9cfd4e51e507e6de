package httpapi

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/sqlstore"
	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/domain/id"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/normalize"
)

// TestJobResult_storedAsTheAPIRenderedIt: until a job's result was typed,
// the jobs table kept the API's result object as the job ended. Such a row
// reads as a typed result, and the job object answers it byte for byte as
// it was stored, on both databases; a result column that is not JSON is
// an error, never a job without a result.
func TestJobResult_storedAsTheAPIRenderedIt(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			checkStoredResults(t, target)
		})
	}
}

func checkStoredResults(t *testing.T, target sqltest.Target) {
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, sqlstore.Config{URL: target.URL})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	org, _ := identity.NewOrganization(id.New(id.Org), "Acme", nil, now)
	if err := sqlstore.NewOrganizations(db).Create(ctx, org); err != nil {
		t.Fatal(err)
	}
	withInfer, noInfer := goldenResult(), goldenResult()
	noInfer.InferredSchema = nil
	newJob := func(source job.SourceType) job.Job {
		j := job.Job{ID: id.New(id.Job), OrgID: org.ID, Mode: "normalize", Status: job.Succeeded, SourceType: source, Options: []byte(`{}`),
			CreatedAt: now, FinishedAt: &now}
		if err := sqlstore.NewJobs(db).Create(ctx, j); err != nil {
			t.Fatal(err)
		}
		return j
	}
	for name, c := range map[string]struct {
		j job.Job
		r normalize.Result
	}{"infer_upload": {newJob(job.SourceUpload), withInfer}, "connect": {newJob(job.SourceConnect), noInfer}} {
		old, err := NewJobRenderer().Result(c.j, c.r)
		if err != nil {
			t.Fatal(err)
		}
		setResult(t, db, c.j.ID, string(old))
		checkAnswered(t, db, c.j, name+" as stored", old)
		// Written back typed, it reads and answers the same.
		if _, err := sqlstore.NewJobs(db).Update(ctx, org.ID, c.j.ID, func(*job.Job) error { return nil }); err != nil {
			t.Fatal(err)
		}
		checkAnswered(t, db, c.j, name+" written back", old)
	}
	broken := newJob(job.SourceUpload)
	setResult(t, db, broken.ID, "{")
	if got, err := sqlstore.NewJobs(db).Get(ctx, org.ID, broken.ID); err == nil {
		t.Fatalf("a result column that is not JSON read as %+v", got.Result)
	}
}

// setResult writes a job's result column as it is.
func setResult(t *testing.T, db *sqlstore.DB, jobID, result string) {
	t.Helper()
	if _, err := db.Bun.NewUpdate().Table("jobs").Set("result = ?", result).Where("id = ?", jobID).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// checkAnswered reads the job and checks its object's result is want.
func checkAnswered(t *testing.T, db *sqlstore.DB, j job.Job, what string, want []byte) {
	t.Helper()
	got, err := sqlstore.NewJobs(db).Get(context.Background(), j.OrgID, j.ID)
	if err != nil || got.Result == nil || got.Result.RowCount != 5 || got.Result.IssueCount != 3 {
		t.Fatalf("%s: the stored result reads as %+v, %v", what, got.Result, err)
	}
	if answered, err := json.Marshal(newJobJSON(got).Result); err != nil || string(answered) != string(want) {
		t.Fatalf("%s: answered\n%s\nstored\n%s", what, answered, want)
	}
}
