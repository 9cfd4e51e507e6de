package httpapi_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// submittedSummary is the summary of a submitted session, as the submit
// answer and the import_session.submitted webhook carry it.
type submittedSummary struct {
	ImportSessionID string `json:"import_session_id"`
	Jobs            []struct {
		ID           string `json:"id"`
		Status       string `json:"status"`
		RowsValid    int64  `json:"rows_valid"`
		RowsRejected int64  `json:"rows_rejected"`
		Superseded   *bool  `json:"superseded"`
	} `json:"jobs"`
	SupersededJobIDs []string `json:"superseded_job_ids"`
	RowsValid        int64    `json:"rows_valid"`
	RowsRejected     int64    `json:"rows_rejected"`
}

// rerunChain is a session whose first job was rerun with a fix: the
// rerun is its final job.
type rerunChain struct {
	w             sessionWorld
	first, rerun  string
	final         map[string]any // the rerun, succeeded
	firstValid    float64
	rerunValid    float64
	rerunRejected float64
}

// TestImportSession_submitCountsFinalJobsOnly: a session holds a job and
// its rerun; the submit answer and the webhook list the rerun alone (its
// counts alone in the sums) and the replaced job under
// superseded_job_ids, and the jobs say which one was superseded, on GET
// and in lists; on each database.
func TestImportSession_submitCountsFinalJobsOnly(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			c := rerunChain{w: runningSessionWorld(t, target)}
			for _, step := range []struct {
				name string
				fn   func(*testing.T)
			}{
				{"a job and its rerun", c.makeChain},
				{"the jobs say which is superseded", c.checkJobs},
				{"the submit answer counts the final job", c.checkSubmit},
				{"the webhook counts the final job", c.checkWebhook},
			} {
				if !t.Run(step.name, step.fn) {
					return
				}
			}
		})
	}
}

// runningSessionWorld is a sessionWorld whose jobs run (an API and a
// worker), with room in the secret's rate limit for polling.
func runningSessionWorld(t *testing.T, target sqltest.Target) sessionWorld {
	t.Helper()
	app := apptest.Start(t, target, func(c *bootstrap.Config) { c.HTTP.RateLimit.Burst = 1000 })
	acme := app.Org("Acme", identity.Normalize)
	w := sessionWorld{app: app, key: apptest.Caller{Key: app.Key(acme)}}
	ses := createImportSession(t, app, w.key, importSessionBody())
	w.sessionID, w.secret = ses.ID, apptest.Caller{Key: ses.ClientSecret}
	w.inJob = uploadJob(t, app, w.secret, nil)
	w.outJob = uploadJob(t, app, w.key, map[string]string{"schema": apptest.PeopleSchema})
	return w
}

func (c *rerunChain) makeChain(t *testing.T) {
	app, secret := c.w.app, c.w.secret
	c.first = c.w.inJob
	path := "/v1/jobs/" + c.first
	waitStatus(t, app, secret, path, "awaiting_review")
	expect(t, app.Do("POST", path+"/confirm", secret, nil), 202, "")
	first := waitStatus(t, app, secret, path, "succeeded")
	c.firstValid = first["progress"].(map[string]any)["rows_valid"].(float64)
	if rejected := first["progress"].(map[string]any)["rows_rejected"].(float64); rejected == 0 {
		t.Fatalf("the first job rejected no row: %v", first["progress"])
	}
	res := app.Do("POST", path+"/rerun", secret, map[string]any{"edits": []map[string]any{
		{"row": 2, "field": "email", "value": "b@example.com"}, {"row": 2, "field": "joined", "value": "2024-01-05"}}})
	expect(t, res, 202, "")
	var rerun struct{ ID string }
	res.JSON(t, &rerun)
	c.rerun = rerun.ID
	c.final = waitStatus(t, app, secret, "/v1/jobs/"+c.rerun, "succeeded")
	progress := c.final["progress"].(map[string]any)
	c.rerunValid, c.rerunRejected = progress["rows_valid"].(float64), progress["rows_rejected"].(float64)
	if c.rerunValid <= c.firstValid {
		t.Fatalf("the rerun has %v valid rows, the first job %v: the fix did not count", c.rerunValid, c.firstValid)
	}
}

func (c *rerunChain) checkJobs(t *testing.T) {
	app := c.w.app
	for _, who := range []apptest.Caller{c.w.key, c.w.secret} {
		for id, want := range map[string]bool{c.first: true, c.rerun: false, c.w.outJob: false} {
			if id == c.w.outJob && who == c.w.secret {
				continue
			}
			var j struct {
				Superseded *bool `json:"superseded"`
			}
			res := app.Do("GET", "/v1/jobs/"+id, who, nil)
			expect(t, res, 200, "")
			res.JSON(t, &j)
			if j.Superseded == nil || *j.Superseded != want {
				t.Fatalf("GET %s: superseded should be %v: %s", id, want, res.Body)
			}
		}
	}
	var list struct {
		Data []struct {
			ID         string `json:"id"`
			Superseded *bool  `json:"superseded"`
		} `json:"data"`
	}
	res := app.Do("GET", "/v1/jobs", c.w.key, nil)
	expect(t, res, 200, "")
	res.JSON(t, &list)
	seen := 0
	for _, j := range list.Data {
		if j.Superseded == nil || *j.Superseded != (j.ID == c.first) {
			t.Fatalf("the list shows %s with superseded %v: %s", j.ID, j.Superseded, res.Body)
		}
		if j.ID == c.first || j.ID == c.rerun {
			seen++
		}
	}
	if seen != 2 {
		t.Fatalf("the list holds %d of the chain's 2 jobs: %s", seen, res.Body)
	}
	var cur struct {
		Jobs []struct {
			ID         string `json:"id"`
			Superseded *bool  `json:"superseded"`
		} `json:"jobs"`
	}
	res = app.Do("GET", "/v1/import-sessions/current", c.w.secret, nil)
	expect(t, res, 200, "")
	res.JSON(t, &cur)
	if len(cur.Jobs) != 2 || cur.Jobs[0].ID != c.first || cur.Jobs[0].Superseded == nil || !*cur.Jobs[0].Superseded ||
		cur.Jobs[1].Superseded == nil || *cur.Jobs[1].Superseded {
		t.Fatalf("the current session's jobs: %s", res.Body)
	}
}

func (c *rerunChain) checkSubmit(t *testing.T) {
	app := c.w.app
	expect(t, app.Do("POST", "/v1/webhooks", c.w.key, map[string]any{"url": "https://hooks.example.com/tabnorm", "events": []string{"import_session.submitted"}}), 201, "")
	res := app.Do("POST", "/v1/import-sessions/current/submit", c.w.secret, nil)
	expect(t, res, 200, "")
	var out struct {
		Summary submittedSummary `json:"summary"`
	}
	res.JSON(t, &out)
	c.checkSummary(t, out.Summary, res.Body)
}

func (c *rerunChain) checkWebhook(t *testing.T) {
	var payloads []string
	if err := c.w.app.DB.Bun.NewRaw("SELECT payload FROM webhook_deliveries WHERE event_type = ?", "import_session.submitted").Scan(context.Background(), &payloads); err != nil {
		t.Fatal(err)
	}
	if len(payloads) != 1 {
		t.Fatalf("%d deliveries of import_session.submitted", len(payloads))
	}
	var ev struct {
		Data submittedSummary `json:"data"`
	}
	if err := json.Unmarshal([]byte(payloads[0]), &ev); err != nil {
		t.Fatal(err)
	}
	c.checkSummary(t, ev.Data, payloads[0])
}

// checkSummary: the rerun is the summary's only job, its counts are the
// sums, and the first job is listed apart.
func (c *rerunChain) checkSummary(t *testing.T, sum submittedSummary, body string) {
	t.Helper()
	if sum.ImportSessionID != c.w.sessionID || len(sum.Jobs) != 1 || sum.Jobs[0].ID != c.rerun || sum.Jobs[0].Superseded == nil || *sum.Jobs[0].Superseded {
		t.Fatalf("the summary's jobs should be the rerun %s alone, not superseded: %s", c.rerun, body)
	}
	if !slices.Equal(sum.SupersededJobIDs, []string{c.first}) {
		t.Fatalf("superseded_job_ids should be [%s]: %s", c.first, body)
	}
	if float64(sum.RowsValid) != c.rerunValid || float64(sum.RowsRejected) != c.rerunRejected ||
		float64(sum.Jobs[0].RowsValid) != c.rerunValid {
		t.Fatalf("the sums should be the rerun's %v valid, %v rejected: %s", c.rerunValid, c.rerunRejected, body)
	}
}
