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
			jobs := sqlstore.NewJobs(db)
			withInfer, noInfer := goldenResult(), goldenResult()
			noInfer.InferredSchema = nil
			for _, c := range []struct {
				name   string
				source job.SourceType
				stored func(job.Job) []byte
			}{
				{"infer_upload", job.SourceUpload, func(j job.Job) []byte { b, _ := NewJobRenderer().Result(j, withInfer); return b }},
				{"connect", job.SourceConnect, func(j job.Job) []byte { b, _ := NewJobRenderer().Result(j, noInfer); return b }},
			} {
				j := job.Job{ID: id.New(id.Job), OrgID: org.ID, Mode: "normalize", Status: job.Succeeded, SourceType: c.source, Options: []byte(`{}`),
					CreatedAt: now, FinishedAt: &now}
				if err := jobs.Create(ctx, j); err != nil {
					t.Fatal(err)
				}
				old := c.stored(j)
				if _, err := db.Bun.NewUpdate().Table("jobs").Set("result = ?", string(old)).Where("id = ?", j.ID).Exec(ctx); err != nil {
					t.Fatal(err)
				}
				got, err := jobs.Get(ctx, org.ID, j.ID)
				if err != nil || got.Result == nil || got.Result.RowCount != 5 || got.Result.IssueCount != 3 {
					t.Fatalf("%s: the stored result reads as %+v, %v", c.name, got.Result, err)
				}
				answered, err := json.Marshal(newJobJSON(got).Result)
				if err != nil || string(answered) != string(old) {
					t.Fatalf("%s: answered\n%s\nstored\n%s", c.name, answered, old)
				}
				// Written back typed, it reads and answers the same.
				if _, err := jobs.Update(ctx, org.ID, j.ID, func(*job.Job) error { return nil }); err != nil {
					t.Fatal(err)
				}
				again, err := jobs.Get(ctx, org.ID, j.ID)
				if answered2, _ := json.Marshal(newJobJSON(again).Result); err != nil || string(answered2) != string(old) {
					t.Fatalf("%s: after a write: %s, %v", c.name, answered2, err)
				}
			}
			broken := job.Job{ID: id.New(id.Job), OrgID: org.ID, Mode: "normalize", Status: job.Succeeded, SourceType: job.SourceUpload, Options: []byte(`{}`), CreatedAt: now}
			if err := jobs.Create(ctx, broken); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Bun.NewUpdate().Table("jobs").Set("result = ?", "{").Where("id = ?", broken.ID).Exec(ctx); err != nil {
				t.Fatal(err)
			}
			if got, err := jobs.Get(ctx, org.ID, broken.ID); err == nil {
				t.Fatalf("a result column that is not JSON read as %+v", got.Result)
			}
		})
	}
}
