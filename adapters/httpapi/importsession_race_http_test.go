package httpapi_test

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// raceWorld is an organization whose jobs run, with room in the rate
// limits for many requests at once.
type raceWorld struct {
	app *apptest.App
	key apptest.Caller
}

func newRaceWorld(t *testing.T, target sqltest.Target) raceWorld {
	t.Helper()
	app := apptest.Start(t, target, func(c *bootstrap.Config) { c.HTTP.RateLimit.Burst = 1000 })
	return raceWorld{app: app, key: apptest.Caller{Key: app.Key(app.Org("Acme", identity.Normalize))}}
}

// session mints a session that may make maxJobs jobs, without review, so
// its jobs run to their end at once.
func (w raceWorld) session(t *testing.T, maxJobs int) (string, apptest.Caller) {
	t.Helper()
	body := importSessionBody()
	body["max_jobs"] = maxJobs
	body["options"] = map[string]any{"review": false}
	ses := createImportSession(t, w.app, w.key, body)
	return ses.ID, apptest.Caller{Key: ses.ClientSecret}
}

// all sends n requests at once and returns their statuses and bodies.
func all(n int, send func() apptest.Response) []apptest.Response {
	out := make([]apptest.Response, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { out[i] = send() })
	}
	wg.Wait()
	return out
}

// checkMaxJobs: exactly allowed of the answers made a job (202), and the
// others are 403 quota_exceeded, as API.md §4.7 says.
func checkMaxJobs(t *testing.T, answers []apptest.Response, allowed int) {
	t.Helper()
	made := 0
	for _, res := range answers {
		switch {
		case res.StatusCode == 202:
			made++
		case res.StatusCode == 403 && problemCode(res) == "quota_exceeded":
		default:
			t.Errorf("a request answered %d %s", res.StatusCode, res.Body)
		}
	}
	if made != allowed {
		t.Fatalf("%d of %d requests made a job; the session had room for %d", made, len(answers), allowed)
	}
}

func problemCode(res apptest.Response) string {
	var p struct{ Code string }
	_ = json.Unmarshal([]byte(res.Body), &p)
	return p.Code
}

// sessionJobs are the ids of every job in a session, read from the
// database.
func sessionJobs(t *testing.T, app *apptest.App, sessionID string) []string {
	t.Helper()
	var ids []string
	if err := app.DB.Bun.NewRaw("SELECT id FROM jobs WHERE import_session_id = ?", sessionID).Scan(context.Background(), &ids); err != nil {
		t.Fatal(err)
	}
	return ids
}

// TestImportSession_maxJobsUnderConcurrentReruns: 20 reruns at once of
// a session's one job, with max_jobs 3, make exactly 2 jobs; 20 uploads
// at once into a new session make exactly 3; on each database.
func TestImportSession_maxJobsUnderConcurrentReruns(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			w := newRaceWorld(t, target)
			t.Run("reruns", func(t *testing.T) {
				id, secret := w.session(t, 3)
				first := uploadJob(t, w.app, secret, nil)
				waitStatus(t, w.app, w.key, "/v1/jobs/"+first, "succeeded")
				checkMaxJobs(t, all(20, func() apptest.Response {
					return w.app.Do("POST", "/v1/jobs/"+first+"/rerun", secret, map[string]any{})
				}), 2)
				if n := len(sessionJobs(t, w.app, id)); n != 3 {
					t.Fatalf("the session holds %d jobs, max_jobs 3", n)
				}
			})
			t.Run("uploads", func(t *testing.T) {
				id, secret := w.session(t, 3)
				checkMaxJobs(t, all(20, func() apptest.Response {
					return w.app.Request(upload(t, w.app, "p.csv", messyPeople, nil), secret)
				}), 3)
				if n := len(sessionJobs(t, w.app, id)); n != 3 {
					t.Fatalf("the session holds %d jobs, max_jobs 3", n)
				}
			})
		})
	}
}

// TestImportSession_uploadsRacingSubmit: uploads sent while the session
// is submitted either make a job the summary lists, or are refused with
// 409 conflict; no job lands in the session outside its summary. Several
// rounds, on each database.
func TestImportSession_uploadsRacingSubmit(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			w := newRaceWorld(t, target)
			for range 4 {
				uploadsRacingSubmit(t, w)
			}
		})
	}
}

func uploadsRacingSubmit(t *testing.T, w raceWorld) {
	t.Helper()
	id, secret := w.session(t, 100)
	var submitted apptest.Response
	var answers []apptest.Response
	var wg sync.WaitGroup
	wg.Go(func() {
		answers = all(12, func() apptest.Response { return w.app.Request(upload(t, w.app, "p.csv", messyPeople, nil), secret) })
	})
	wg.Go(func() { submitted = w.app.Do("POST", "/v1/import-sessions/current/submit", secret, nil) })
	wg.Wait()
	expect(t, submitted, 200, "")
	var out struct {
		Summary submittedSummary `json:"summary"`
	}
	submitted.JSON(t, &out)
	listed := make([]string, 0, len(out.Summary.Jobs))
	for _, j := range out.Summary.Jobs {
		listed = append(listed, j.ID)
	}
	for _, res := range answers {
		switch {
		case res.StatusCode == 202:
		case res.StatusCode == 409 && problemCode(res) == "conflict":
		default:
			t.Errorf("an upload answered %d %s", res.StatusCode, res.Body)
		}
	}
	for _, job := range sessionJobs(t, w.app, id) {
		if !slices.Contains(listed, job) {
			t.Fatalf("job %s is in the session but not in its summary %v", job, listed)
		}
	}
}
