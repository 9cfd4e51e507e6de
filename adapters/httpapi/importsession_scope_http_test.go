package httpapi_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/httpapi"
	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// secretMayUse is the contract of API.md §4.7, written out apart from the
// router's own list: what a client secret may call.
var secretMayUse = map[string]bool{
	"GET /v1/import-sessions/current":         true,
	"POST /v1/import-sessions/current/submit": true,
	"POST /v1/jobs":                           true,
	"GET /v1/jobs/{id}":                       true,
	"POST /v1/jobs/{id}/cancel":               true,
	"GET /v1/jobs/{id}/rows":                  true,
	"GET /v1/jobs/{id}/rows.jsonl":            true,
	"GET /v1/jobs/{id}/rows.csv":              true,
	"GET /v1/jobs/{id}/errors":                true,
	"GET /v1/jobs/{id}/errors.jsonl":          true,
	"GET /v1/jobs/{id}/errors.csv":            true,
	"GET /v1/jobs/{id}/events":                true,
	"GET /v1/jobs/{id}/review":                true,
	"PATCH /v1/jobs/{id}/review":              true,
	"PATCH /v1/jobs/{id}/mapping":             true,
	"POST /v1/jobs/{id}/confirm":              true,
	"GET /v1/jobs/{id}/invalid-values":        true,
	"POST /v1/jobs/{id}/rerun":                true,
	"GET /v1/jobs/{id}/edits":                 true,
	"POST /v1/jobs/{id}/edits":                true,
	"GET /v1/jobs/{id}/rejected-rows":         true,
	"GET /v1/jobs/{id}/records":               true,
	"POST /v1/jobs/{id}/replacements":         true,
	"GET /v1/jobs/{id}/history":               true,
	"POST /v1/jobs/{id}/undo":                 true,
	"POST /v1/jobs/{id}/redo":                 true,
}

// sessionWorld is an organization with a session, a job in it, a job
// outside it and another organization's job.
type sessionWorld struct {
	app                       *apptest.App
	key                       apptest.Caller
	secret                    apptest.Caller
	sessionID                 string
	inJob, outJob, foreignJob string
}

const messyPeople = "ID;E-Mail;Joined\n1;a@example.com;2024-01-05\n2;not-an-email;05/01/2024\n"

func newSessionWorld(t *testing.T, target sqltest.Target, opts ...apptest.Option) sessionWorld {
	t.Helper()
	app := apptest.StartRole(t, target, bootstrap.RoleAPI, opts...)
	acme := app.Org("Acme", identity.Normalize, identity.Connect)
	w := sessionWorld{app: app, key: apptest.Caller{Key: app.Key(acme)}}
	ses := createImportSession(t, app, w.key, importSessionBody())
	w.sessionID, w.secret = ses.ID, apptest.Caller{Key: ses.ClientSecret}
	w.inJob = uploadJob(t, app, w.secret, nil)
	w.outJob = uploadJob(t, app, w.key, map[string]string{"schema": apptest.PeopleSchema})
	other := apptest.Caller{Key: app.Key(app.Org("Other", identity.Normalize))}
	w.foreignJob = uploadJob(t, app, other, map[string]string{"schema": apptest.PeopleSchema})
	return w
}

func uploadJob(t *testing.T, app *apptest.App, who apptest.Caller, fields map[string]string) string {
	t.Helper()
	res := app.Request(upload(t, app, "people.csv", messyPeople, fields), who)
	if res.StatusCode != 202 {
		t.Fatalf("upload: %d %s", res.StatusCode, res.Body)
	}
	var j struct{ ID string }
	res.JSON(t, &j)
	return j.ID
}

// TestImportSession_scope: on every route of the OpenAPI document, a
// client secret is allowed (its session's jobs), refused with 403
// forbidden_import_session (every other route), or answered 404 (a job of
// its organization outside the session, another organization's job), on
// each database.
func TestImportSession_scope(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			// One secret calls every route of the document, more than a burst
			// of its rate limit: the limit is not what this test checks.
			w := newSessionWorld(t, target, func(c *bootstrap.Config) { c.HTTP.RateLimit.Burst = 1000 })
			allowed := 0
			for _, op := range operations(t) {
				if g, _ := guardOf(op.path); g < guardSession || op.path == "/v1/import-sessions/current/submit" {
					continue // no credential at all; submit is checked on its own below
				}
				if secretMayUse[op.method+" "+op.path] {
					allowed++
					checkAllowed(t, w, op)
					continue
				}
				expect(t, w.app.Do(op.method, concrete(op.path), w.secret, nil), 403, "forbidden_import_session")
			}
			if allowed != len(secretMayUse)-1 {
				t.Fatalf("the document lists %d of the %d routes a secret may use", allowed, len(secretMayUse)-1)
			}
			// Unrouted paths are refused alike, before their 404.
			expect(t, w.app.Do("GET", "/v1/nothing-here", w.secret, nil), 403, "forbidden_import_session")
			expect(t, w.app.Do("GET", "/v1/jobs/"+w.inJob+"/nothing-here", w.secret, nil), 403, "forbidden_import_session")
		})
	}
}

// checkAllowed: an allowed route answers the secret on its session's job
// as it answers the organization's key (a read), or at least not 401, 403
// or 404 (a change), and 404 on the organization's job outside the
// session and on another organization's job, to a well-formed request.
func checkAllowed(t *testing.T, w sessionWorld, op documentedOperation) {
	t.Helper()
	if !strings.Contains(op.path, "{id}") {
		res := w.app.Do(op.method, op.path, w.secret, nil)
		if res.StatusCode == 401 || res.StatusCode == 403 || res.StatusCode == 404 {
			t.Fatalf("%s %s: %d %s", op.method, op.path, res.StatusCode, res.Body)
		}
		return
	}
	// A well-formed body, so that the answer is the job's, not the body's:
	// a job outside the session is answered as another organization's is,
	// by the use case that reads it.
	var body any
	if op.method != http.MethodGet {
		body = map[string]any{}
	}
	for _, id := range []string{w.outJob, w.foreignJob} {
		expect(t, w.app.Do(op.method, strings.ReplaceAll(op.path, "{id}", id), w.secret, body), 404, "not_found")
	}
	if op.method == http.MethodPost && strings.HasSuffix(op.path, "/cancel") {
		return // cancelled in TestImportSession_jobsAndSubmit
	}
	if strings.HasSuffix(op.path, "/events") { // a stream: its status, then the body is left
		if status := streamStatus(t, w, strings.ReplaceAll(op.path, "{id}", w.inJob)); status != 200 {
			t.Fatalf("%s on the session's job: %d", op.path, status)
		}
		return
	}
	path := strings.ReplaceAll(op.path, "{id}", w.inJob)
	res := w.app.Do(op.method, path, w.secret, nil)
	if op.method == http.MethodGet { // answered as the organization's key is
		if key := w.app.Do(op.method, path, w.key, nil); res.StatusCode != key.StatusCode || res.StatusCode == 403 {
			t.Fatalf("%s %s on the session's job: %d %s; with the key %d", op.method, op.path, res.StatusCode, res.Body, key.StatusCode)
		}
		return
	}
	if res.StatusCode == 401 || res.StatusCode == 403 || res.StatusCode == 404 {
		t.Fatalf("%s %s on the session's job: %d %s", op.method, op.path, res.StatusCode, res.Body)
	}
}

// streamStatus opens an event stream with the secret and returns its
// status without reading the stream.
func streamStatus(t *testing.T, w sessionWorld, path string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", w.app.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+w.secret.Key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = res.Body.Close()
	return res.StatusCode
}

// TestImportSession_jobsAndSubmit: a job created with the secret takes
// the session's schema, options (review on) and metadata, and refuses
// its own; max_jobs holds; the session lists its jobs; submit ends it
// and a job cannot be added after; cancel works on its own job.
func TestImportSession_jobsAndSubmit(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			w := newSessionWorld(t, target)
			app := w.app
			var j struct {
				ImportSessionID string         `json:"import_session_id"`
				Metadata        map[string]any `json:"metadata"`
				Options         map[string]any `json:"options"`
				Schema          map[string]any `json:"schema"`
			}
			res := app.Do("GET", "/v1/jobs/"+w.inJob, w.key, nil)
			res.JSON(t, &j)
			if j.ImportSessionID != w.sessionID || j.Metadata["customer_ref"] != "acct_42" || j.Options["review"] != true || j.Schema == nil {
				t.Fatalf("the session's job %s", res.Body)
			}
			if out := app.Do("GET", "/v1/jobs/"+w.outJob, w.key, nil); strings.Contains(out.Body, "import_session_id") {
				t.Fatalf("a job outside sessions shows one: %s", out.Body)
			}
			expect(t, app.Request(upload(t, app, "p.csv", messyPeople, map[string]string{"schema": apptest.PeopleSchema}), w.secret), 400, "invalid_request")
			expect(t, app.Request(upload(t, app, "p.csv", messyPeople, nil), apptest.Caller{Key: w.secret.Key}), 202, "")
			expect(t, app.Do("POST", "/v1/jobs/"+w.inJob+"/cancel", w.secret, nil), 200, "")
			for range 3 { // up to max_jobs (5)
				uploadJob(t, app, w.secret, nil)
			}
			expect(t, app.Request(upload(t, app, "p.csv", messyPeople, nil), w.secret), 403, "quota_exceeded")
			cur := app.Do("GET", "/v1/import-sessions/current", w.secret, nil)
			expect(t, cur, 200, "")
			if strings.Count(cur.Body, `"object":"job"`) != 5 || strings.Contains(cur.Body, w.outJob) || strings.Contains(cur.Body, "client_secret") {
				t.Fatalf("current %s", cur.Body)
			}
			expect(t, app.Do("GET", "/v1/import-sessions/current", w.key, nil), 404, "not_found")
			expect(t, app.Do("POST", "/v1/import-sessions/current/submit", w.key, nil), 404, "not_found")
			expect(t, app.Do("POST", "/v1/webhooks", w.key, map[string]any{"url": "https://hooks.example.com/tabnorm", "events": []string{"import_session.submitted"}}), 201, "")
			sub := app.Do("POST", "/v1/import-sessions/current/submit", w.secret, nil)
			expect(t, sub, 200, "")
			if !strings.Contains(sub.Body, `"status":"submitted"`) || strings.Count(sub.Body, `"rows_read"`) != 5 {
				t.Fatalf("submit %s", sub.Body)
			}
			checkSubmittedWebhook(t, app, w)
			expect(t, app.Do("POST", "/v1/import-sessions/current/submit", w.secret, nil), 409, "conflict")
			expect(t, app.Do("POST", "/v1/jobs/"+w.inJob+"/rerun", w.secret, map[string]any{}), 409, "conflict")
		})
	}
}

// checkSubmittedWebhook: the submit wrote one import_session.submitted
// delivery with the session's jobs and metadata.
func checkSubmittedWebhook(t *testing.T, app *apptest.App, w sessionWorld) {
	t.Helper()
	var payloads []string
	if err := app.DB.Bun.NewRaw("SELECT payload FROM webhook_deliveries WHERE event_type = ?", "import_session.submitted").Scan(context.Background(), &payloads); err != nil {
		t.Fatal(err)
	}
	if len(payloads) != 1 || !strings.Contains(payloads[0], `"import_session_id":"`+w.sessionID+`"`) || !strings.Contains(payloads[0], w.inJob) ||
		strings.Contains(payloads[0], w.outJob) || !strings.Contains(payloads[0], `"customer_ref":"acct_42"`) {
		t.Fatalf("deliveries %v", payloads)
	}
}

// TestImportSession_expiryRevocationAndOneMethod: an expired secret is
// 401 import_session_expired, a revoked one 401 on the next request, a
// secret with a cookie 400 mixed_authentication, and no Idempotency-Key.
func TestImportSession_expiryRevocationAndOneMethod(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			w := newSessionWorld(t, target)
			app := w.app
			expect(t, app.Do("GET", "/v1/import-sessions/current", w.secret, nil), 200, "")
			expect(t, app.Do("GET", "/v1/jobs/"+w.inJob, w.secret, nil, "Idempotency-Key", "k1"), 400, "invalid_request")
			admin := app.Login(app.User(app.Org("Acme2", identity.Normalize), identity.Admin, false).Email)
			expect(t, app.Do("GET", "/v1/import-sessions/current", apptest.Caller{Key: w.secret.Key, Session: admin.Session}, nil), 400, "mixed_authentication")
			expect(t, app.Do("GET", "/auth/me", w.secret, nil), 403, "forbidden_import_session")
			other := "A"
			if strings.HasSuffix(w.secret.Key, other) {
				other = "B"
			}
			expect(t, app.Do("GET", "/v1/import-sessions/current", apptest.Caller{Key: w.secret.Key[:len(w.secret.Key)-1] + other}, nil), 401, "unauthenticated")
			// Expiry.
			short := createImportSession(t, app, w.key, map[string]any{"schema": jsonRaw(apptest.PeopleSchema),
				"allowed_origins": []string{"https://app.example.com"}, "expires_in": 60})
			app.Clock.Advance(61 * time.Second)
			expect(t, app.Do("GET", "/v1/import-sessions/current", apptest.Caller{Key: short.ClientSecret}, nil), 401, "import_session_expired")
			got := app.Do("GET", "/v1/import-sessions/"+short.ID, w.key, nil)
			if !strings.Contains(got.Body, `"status":"expired"`) {
				t.Fatalf("expired session %s", got.Body)
			}
			// Revocation applies to the very next request.
			expect(t, app.Do("DELETE", "/v1/import-sessions/"+w.sessionID, w.key, nil), 200, "")
			expect(t, app.Do("GET", "/v1/jobs/"+w.inJob, w.secret, nil), 401, "unauthenticated")
		})
	}
}

// TestImportSession_ownRateLimit: a secret spends its own bucket, not its
// organization's keys'.
func TestImportSession_ownRateLimit(t *testing.T) {
	t.Parallel()
	w := newSessionWorld(t, sqltest.SQLite(t), func(c *bootstrap.Config) {
		c.HTTP.RateLimit = httpapi.RateLimit{PerSecond: 0.001, Burst: 20}
	})
	spent := 0
	for w.app.Do("GET", "/v1/usage", w.key, nil).StatusCode != 429 {
		if spent++; spent > 30 {
			t.Fatal("the key's bucket never emptied")
		}
	}
	expect(t, w.app.Do("GET", "/v1/import-sessions/current", w.secret, nil), 200, "")
	var last apptest.Response
	for i := 0; i < 30 && last.StatusCode != 429; i++ {
		last = w.app.Do("GET", "/v1/import-sessions/current", w.secret, nil)
	}
	expect(t, last, 429, "rate_limited")
}

// TestImportSession_teachesNoMappings: an end user's confirmed mapping of
// a saved schema's job is not learned for the organization's own jobs.
func TestImportSession_teachesNoMappings(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			app := apptest.Start(t, target)
			key := apptest.Caller{Key: app.Key(app.Org("Acme", identity.Normalize))}
			res := app.Do("POST", "/v1/schemas", key, map[string]any{"name": "people", "schema": jsonRaw(apptest.PeopleSchema)})
			expect(t, res, 201, "")
			var saved struct{ ID string }
			res.JSON(t, &saved)
			body := importSessionBody()
			delete(body, "schema")
			body["schema_id"] = saved.ID
			ses := createImportSession(t, app, key, body)
			secret := apptest.Caller{Key: ses.ClientSecret}
			id := uploadJob(t, app, secret, nil)
			waitStatus(t, app, secret, "/v1/jobs/"+id, "awaiting_review")
			expect(t, app.Do("PATCH", "/v1/jobs/"+id+"/mapping", secret, map[string]any{"mapping": map[string]any{"E-Mail": "email"}}), 200, "")
			expect(t, app.Do("POST", "/v1/jobs/"+id+"/confirm", secret, nil), 202, "")
			waitStatus(t, app, secret, "/v1/jobs/"+id, "succeeded")
			var n int
			if err := app.DB.Bun.NewRaw("SELECT count(*) FROM learned_mappings").Scan(context.Background(), &n); err != nil {
				t.Fatal(err)
			}
			if n != 0 {
				t.Fatalf("an end user's mapping taught the organization %d mappings", n)
			}
		})
	}
}

// TestImportSession_maxJobsUnderConcurrentUploads: uploads at the same
// moment cannot together pass max_jobs; on each database.
func TestImportSession_maxJobsUnderConcurrentUploads(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			w := newSessionWorld(t, target) // one of its 5 jobs made
			statuses := make(chan int, 8)
			var wg sync.WaitGroup
			for range 8 {
				wg.Go(func() { statuses <- w.app.Request(upload(t, w.app, "p.csv", messyPeople, nil), w.secret).StatusCode })
			}
			wg.Wait()
			close(statuses)
			made := 0
			for s := range statuses {
				switch s {
				case 202:
					made++
				case 403:
				default:
					t.Errorf("an upload answered %d", s)
				}
			}
			if made != 4 {
				t.Fatalf("%d uploads made a job; the session had room for 4", made)
			}
		})
	}
}
