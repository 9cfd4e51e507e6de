package review

import (
	"context"
	"errors"
	"testing"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/normalize"
	"github.com/tabnorm/tabnorm/ports"
)

// endUser is a client secret of import session imp_1 of acme's organization.
var endUser = identity.Principal{Method: identity.ByImportSession, OrgID: acme.OrgID, ImportSessionID: "imp_1"}

// TestImportSessionRule_review: every review use case a client secret may
// call answers a job of its organization outside its session, or of no
// session, as not found, after one read of the job and with the job
// unchanged (the mocks refuse any other call).
func TestImportSessionRule_review(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	col := "name"
	for _, tc := range []struct {
		action string
		call   func(f *fixture, jobID string) error
	}{
		{"read_review", func(f *fixture, id string) error { _, err := f.svc.Get(ctx, endUser, id); return err }},
		{"patch_mapping", func(f *fixture, id string) error {
			_, err := f.svc.PatchMapping(ctx, endUser, id, map[string]*string{"Name": &col})
			return err
		}},
		{"choose_sheet", func(f *fixture, id string) error { _, err := f.svc.ChooseSheet(ctx, endUser, id, "Sheet2"); return err }},
		{"confirm", func(f *fixture, id string) error { _, err := f.svc.Confirm(ctx, endUser, id); return err }},
		{"invalid_values", func(f *fixture, id string) error {
			_, err := f.svc.InvalidValues(ctx, endUser, id, "email", ports.Page{})
			return err
		}},
		{"rerun", func(f *fixture, id string) error {
			_, err := f.svc.PrepareRerun(ctx, endUser, id, RerunRequest{})
			return err
		}},
		{"list_edits", func(f *fixture, id string) error {
			_, _, err := f.svc.Edits(ctx, endUser, id, ports.Page{})
			return err
		}},
		{"add_edits", func(f *fixture, id string) error {
			_, err := f.svc.AddEdits(ctx, endUser, id, []normalize.Edit{{Row: 1, Field: "name", Value: &col}})
			return err
		}},
		{"rejected_rows", func(f *fixture, id string) error {
			_, err := f.svc.RejectedRows(ctx, endUser, id, ports.Page{})
			return err
		}},
	} {
		t.Run(tc.action, func(t *testing.T) {
			t.Parallel()
			for _, st := range []job.Status{job.AwaitingReview, job.Succeeded} {
				f := newFixture(t, Config{})
				other := f.put(job.Job{ID: "job_other", Status: st, Mode: normalize.ModeNormalize, ImportSessionID: "imp_2"})
				backend := f.put(job.Job{ID: "job_backend", Status: st, Mode: normalize.ModeNormalize})
				for _, j := range []job.Job{other, backend} {
					if err := tc.call(f, j.ID); !errors.Is(err, domain.ErrNotFound) {
						t.Errorf("%s %s outside the session: %v, want not found", st, j.ID, err)
					}
					if got := f.job(j.ID); got.Status != st || got.ReviewedAt != nil {
						t.Errorf("%s outside the session changed: %+v", j.ID, got)
					}
				}
			}
		})
	}
}
