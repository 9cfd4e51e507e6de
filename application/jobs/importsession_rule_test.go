package jobs_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/mock"

	"github.com/tabnorm/tabnorm/application/jobs"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/ports"
)

// endUser is a client secret of import session imp_1 of acme's organization.
var endUser = identity.Principal{Method: identity.ByImportSession, OrgID: "org_acme", ImportSessionID: "imp_1"}

// TestImportSessionRule_jobs: each jobs use case a client secret may call
// reaches its session's job, answers a job of its organization outside the
// session as not found, and refuses the actions it may not take, each
// after one read of the job and with the job unchanged.
func TestImportSessionRule_jobs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		call func(f *fixture, jobID string) error
		own  error // the answer on the session's own job: nil or a kind
	}{
		{"read", func(f *fixture, id string) error { _, err := f.read.Get(ctx, endUser, id); return err }, nil},
		{"read_events", func(f *fixture, id string) error {
			f.events.EXPECT().After(mock.Anything, id, 0).Return(nil, nil).Maybe()
			_, err := f.read.Events(ctx, endUser, id, 0)
			return err
		}, nil},
		{"read_result", func(f *fixture, id string) error {
			_, _, err := f.read.OpenResult(ctx, endUser, id, jobs.Rows, 0)
			return err
		}, domain.ErrConflict}, // the own job is queued: not finished
		{"read_source", func(f *fixture, id string) error {
			_, err := f.read.ReadSource(ctx, endUser, id, jobs.SourceVisit{})
			return err
		}, domain.ErrConflict},
		{"cancel", func(f *fixture, id string) error { _, err := f.cancel.Cancel(ctx, endUser, id); return err }, nil},
		{"delete", func(f *fixture, id string) error { return f.cancel.Delete(ctx, endUser, id) }, domain.ErrForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, jobs.Config{})
			f.slots.EXPECT().Counts(mock.Anything, "org_acme").Return(0, 0, nil).Maybe()
			f.slots.EXPECT().NextWaiting(mock.Anything, "org_acme").Return("", nil).Maybe()
			f.put(job.Job{ID: "job_own", Status: job.Queued, ImportSessionID: "imp_1"})
			f.put(job.Job{ID: "job_other", Status: job.Queued, ImportSessionID: "imp_2"})
			f.put(job.Job{ID: "job_backend", Status: job.Queued})
			for _, id := range []string{"job_other", "job_backend"} {
				if err := tc.call(f, id); !errors.Is(err, domain.ErrNotFound) && !errors.Is(err, domain.ErrForbidden) {
					t.Errorf("%s outside the session: %v, want not found (or forbidden for an action it may not take)", id, err)
				}
				if got := f.job(id).Status; got != job.Queued {
					t.Errorf("%s outside the session became %s", id, got)
				}
			}
			err := tc.call(f, "job_own")
			if tc.own == nil && err != nil || tc.own != nil && !errors.Is(err, tc.own) {
				t.Fatalf("the session's own job: %v, want %v", err, tc.own)
			}
		})
	}
	t.Run("list", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, jobs.Config{})
		if _, _, err := f.read.List(ctx, endUser, ports.JobFilter{}, ports.Page{}); !errors.Is(err, domain.ErrForbidden) {
			t.Fatalf("a client secret listing the organization's jobs: %v", err)
		}
	})
}
