package httpapi_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/domain/entitlement"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/importsession"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/ports"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// reads counts the reads of a session's row, of counts of its jobs and
// of a job's row.
type reads struct {
	sessions, counts, jobs atomic.Int64
}

func (r *reads) take() (sessions, counts, jobs int64) {
	return r.sessions.Swap(0), r.counts.Swap(0), r.jobs.Swap(0)
}

// countedJobs counts the reads of one job (Get, and Update, which reads
// before it writes).
type countedJobs struct {
	ports.Jobs
	n *reads
}

func (c countedJobs) Get(ctx context.Context, orgID, id string) (job.Job, error) {
	c.n.jobs.Add(1)
	return c.Jobs.Get(ctx, orgID, id)
}

func (c countedJobs) Update(ctx context.Context, orgID, id string, fn func(*job.Job) error) (job.Job, error) {
	c.n.jobs.Add(1)
	return c.Jobs.Update(ctx, orgID, id, fn)
}

// countedSessions counts the reads of a session's row and the counts of
// its jobs (Hold does both).
type countedSessions struct {
	ports.ImportSessions
	n *reads
}

func (c countedSessions) Get(ctx context.Context, orgID, id string) (importsession.Session, error) {
	c.n.sessions.Add(1)
	return c.ImportSessions.Get(ctx, orgID, id)
}

func (c countedSessions) ByHash(ctx context.Context, h importsession.Hash) (importsession.Session, []entitlement.Entitlement, error) {
	c.n.sessions.Add(1)
	return c.ImportSessions.ByHash(ctx, h)
}

func (c countedSessions) JobCount(ctx context.Context, orgID, id string) (int, error) {
	c.n.counts.Add(1)
	return c.ImportSessions.JobCount(ctx, orgID, id)
}

func (c countedSessions) Hold(ctx context.Context, orgID, id string) (importsession.Session, int, error) {
	c.n.sessions.Add(1)
	c.n.counts.Add(1)
	return c.ImportSessions.Hold(ctx, orgID, id)
}

func (c countedSessions) Update(ctx context.Context, orgID, id string, fn func(*importsession.Session) error) (importsession.Session, error) {
	c.n.sessions.Add(1)
	return c.ImportSessions.Update(ctx, orgID, id, fn)
}

// TestImportSession_readsOncePerRequest: a client secret's request reads
// its session once to authenticate it; an upload reads it once more, with
// its jobs counted, in the transaction that creates the job (max_jobs);
// a read of one of its jobs reads the job once.
func TestImportSession_readsOncePerRequest(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			n := &reads{}
			app := apptest.StartWith(t, target, bootstrap.RoleAPI, bootstrap.Overrides{
				Jobs:           func(j ports.Jobs) ports.Jobs { return countedJobs{j, n} },
				ImportSessions: func(s ports.ImportSessions) ports.ImportSessions { return countedSessions{s, n} },
			})
			key := apptest.Caller{Key: app.Key(app.Org("Acme", identity.Normalize))}
			secret := apptest.Caller{Key: createImportSession(t, app, key, importSessionBody()).ClientSecret}
			n.take()
			id := uploadJob(t, app, secret, nil)
			if s, c, j := n.take(); s != 2 || c != 1 || j != 0 {
				t.Errorf("an upload read the session %d times, counted its jobs %d times and read a job %d times; want 2, 1, 0", s, c, j)
			}
			expect(t, app.Do("GET", "/v1/jobs/"+id, secret, nil), 200, "")
			if s, c, j := n.take(); s != 1 || c != 0 || j != 1 {
				t.Errorf("GET /v1/jobs/{id} read the session %d times, counted its jobs %d times and read the job %d times; want 1, 0, 1", s, c, j)
			}
		})
	}
}
