package httpapi_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"

	"github.com/tabnorm/tabnorm/adapters/httpapi"
	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
	"github.com/tabnorm/tabnorm/test/testtime"
)

type destinationView struct {
	ID, Name, Type string
	SigningSecret  string `json:"signing_secret"`
	Config         map[string]string
}

type pushView struct {
	ID            string  `json:"id"`
	JobID         string  `json:"job_id"`
	DestinationID string  `json:"destination_id"`
	Status        string  `json:"status"`
	Attempts      int     `json:"attempts"`
	Rows          int64   `json:"rows"`
	Bytes         int64   `json:"bytes"`
	LastError     *string `json:"last_error"`
}

const destinationCSV = "id,email\n1,a@example.com\n2,b@example.com\n3,\n"
const destinationSchema = `{"fields":[{"name":"id","type":"integer"},{"name":"email","type":"string"}]}`

// TestDestinations_HTTP: an admin adds a PostgreSQL destination (a
// scratch database), a job naming it is delivered there once, a retry
// replaces its rows instead of adding to them, and members, other
// organizations and hostile settings are refused; on each database.
func TestDestinations_HTTP(t *testing.T) {
	t.Parallel()
	doc, err := libopenapi.NewDocument(httpapi.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	v, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			dst, ok := sqltest.Postgres(t)
			if !ok {
				t.Skip("*** SKIP: no PostgreSQL server for the destination ***")
			}
			key := make([]byte, 32)
			_, _ = rand.Read(key)
			w := newWorld(t, target, func(c *bootstrap.Config) {
				c.DestinationAllowPrivate, c.WebhookAllowPrivate, c.SecretKeys = true, true, [][]byte{key}
			})
			h := &hooks{w: &w, app: w.app, v: v, rcv: newHookReceiver(t), key: apptest.Caller{Key: w.acmeKey}, admin: w.app.Login(w.acmeAdmin.Email), member: w.app.Login(w.acmeMember.Email)}
			destinationsScript(t, h, dst.URL)
		})
	}
}

func destinationsScript(t *testing.T, h *hooks, dbURL string) {
	u, _ := url.Parse(dbURL)
	u.User = url.UserPassword(u.User.Username(), "pw-never-shown")
	withPassword := u.String()
	u.User = url.User(u.User.Username())

	// Create: 201, the password nowhere in what comes back.
	body := map[string]any{"name": "warehouse", "type": "postgres", "config": map[string]any{"url": withPassword, "table": "contacts"}}
	res := h.valid(t, "POST", "/v1/destinations", h.admin, body, 201)
	var d destinationView
	res.JSON(t, &d)
	if !strings.HasPrefix(d.ID, "dst_") || d.Config["table"] != "contacts" || strings.Contains(res.Body, "pw-never-shown") || res.Header.Get("Location") != "/v1/destinations/"+d.ID {
		t.Fatalf("create: %s", res.Body)
	}
	for _, path := range []string{"/v1/destinations", "/v1/destinations/" + d.ID} {
		if got := h.valid(t, "GET", path, h.key, nil, 200); strings.Contains(got.Body, "pw-never-shown") || !strings.Contains(got.Body, d.ID) {
			t.Fatalf("GET %s: %s", path, got.Body)
		}
	}
	expect(t, h.app.Do("GET", "/v1/destinations", h.member, nil), 403, "insufficient_permissions")
	expect(t, h.app.Do("POST", "/v1/destinations", h.member, body), 403, "insufficient_permissions")
	expect(t, h.app.Do("GET", "/v1/destinations/"+d.ID, apptest.Caller{Key: h.w.bareKey}, nil), 404, "not_found")
	expect(t, h.app.Do("DELETE", "/v1/destinations/"+d.ID, apptest.Caller{Key: h.w.bareKey}, nil), 404, "not_found")
	sql := map[string]any{"name": "x", "type": "postgres", "config": map[string]any{"url": withPassword, "table": "contacts; DROP TABLE users"}}
	expect(t, h.app.Do("POST", "/v1/destinations", h.admin, sql), 400, "invalid_request")
	expect(t, h.app.Do("POST", "/v1/destinations", h.admin, map[string]any{"name": "x", "type": "ftp", "config": map[string]any{}}), 400, "invalid_request")

	// Test: the real database, then the same with a password it refuses.
	var test struct {
		OK    bool    `json:"ok"`
		Error *string `json:"error"`
	}
	h.valid(t, "POST", "/v1/destinations/"+d.ID+"/test", h.admin, nil, 200).JSON(t, &test)
	if !test.OK {
		t.Fatalf("test of a good destination: %v", *test.Error)
	}
	badURL := *u
	badURL.User = url.UserPassword("no_such_role", "pw-never-shown")
	bad := map[string]any{"name": "bad", "type": "postgres", "config": map[string]any{"url": badURL.String(), "table": "t"}}
	var badDst destinationView
	h.valid(t, "POST", "/v1/destinations", h.admin, bad, 201).JSON(t, &badDst)
	h.valid(t, "POST", "/v1/destinations/"+badDst.ID+"/test", h.admin, nil, 200).JSON(t, &test)
	if test.OK || test.Error == nil || !strings.Contains(*test.Error, "could not connect") || strings.Contains(*test.Error, "pw-never-shown") {
		t.Fatalf("test with bad credentials: %+v", test)
	}

	// A job naming an unknown destination is refused; one naming ours is
	// delivered once, and announced to the webhooks that asked.
	var hook webhookView
	h.valid(t, "POST", "/v1/webhooks", h.admin, map[string]any{"url": h.rcv.URL, "events": []string{"job.delivered", "job.delivery_failed"}}, 201).JSON(t, &hook)
	res = h.app.Request(upload(t, h.app, "c.csv", destinationCSV, map[string]string{"schema": destinationSchema, "options": `{"destination_ids":["dst_00000000000000000000000000"]}`}), h.key)
	expect(t, res, 400, "invalid_request")
	res = h.app.Request(upload(t, h.app, "c.csv", destinationCSV, map[string]string{"schema": destinationSchema, "options": `{"destination_ids":["` + d.ID + `"]}`}), h.key)
	var created struct{ ID string }
	res.JSON(t, &created)
	jobID := created.ID
	if j := waitJob(t, h.app, h.key, jobID); j.Status != "succeeded" {
		t.Fatalf("job: %+v", j)
	}
	p := waitDelivered(t, h, jobID, 1)
	if p.Rows != 3 || p.Attempts != 1 || p.DestinationID != d.ID || p.Bytes == 0 {
		t.Fatalf("delivery: %+v", p)
	}
	conn, err := pgx.Connect(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close(context.Background()) }()
	rowsIn := func() int {
		var n int
		if err := conn.QueryRow(context.Background(), "SELECT count(*) FROM contacts WHERE _tabnorm_job_id = $1", jobID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := rowsIn(); n != 3 {
		t.Fatalf("the table holds %d of the job's rows, want 3", n)
	}
	announced := h.rcv.wait(t, 1)
	verifyHook(t, hook.Secret, announced)
	var ev struct {
		Type string
		Data struct {
			JobID         string `json:"job_id"`
			DestinationID string `json:"destination_id"`
			Rows          int64
			Checksum      string
		}
	}
	if err := json.Unmarshal(announced.body, &ev); err != nil || ev.Type != "job.delivered" || ev.Data.JobID != jobID || ev.Data.DestinationID != d.ID ||
		ev.Data.Rows != 3 || len(ev.Data.Checksum) != 64 {
		t.Fatalf("webhook: %s", announced.body)
	}
	expect(t, h.app.Do("POST", "/v1/jobs/"+jobID+"/deliveries/"+d.ID+"/retry", h.member, nil), 403, "insufficient_permissions")
	h.valid(t, "POST", "/v1/jobs/"+jobID+"/deliveries/"+d.ID+"/retry", h.admin, nil, 202)
	waitDelivered(t, h, jobID, 1)
	if n := rowsIn(); n != 3 {
		t.Fatalf("after a retry the table holds %d of the job's rows, want each once", n)
	}
	var recent struct{ Data []pushView }
	h.valid(t, "GET", "/v1/destinations/"+d.ID+"/deliveries", h.key, nil, 200).JSON(t, &recent)
	if len(recent.Data) != 1 || recent.Data[0].JobID != jobID {
		t.Fatalf("recent deliveries: %+v", recent.Data)
	}
	other := apptest.Caller{Key: h.app.Key(h.app.Org("Other", identity.Normalize))}
	expect(t, h.app.Do("GET", "/v1/jobs/"+jobID+"/deliveries", other, nil), 404, "not_found")
	expect(t, h.app.Do("POST", "/v1/jobs/"+jobID+"/deliveries/"+d.ID+"/retry", other, nil), 404, "not_found")

	// A saved schema's destinations are the default of the jobs made with it.
	var saved struct{ ID string }
	h.valid(t, "POST", "/v1/schemas", h.key, map[string]any{"name": "contacts", "schema": json.RawMessage(destinationSchema), "destination_ids": []string{d.ID}}, 201).JSON(t, &saved)
	res = h.app.Request(upload(t, h.app, "c.csv", destinationCSV, map[string]string{"schema_id": saved.ID}), h.key)
	var bySchema struct{ ID string }
	res.JSON(t, &bySchema)
	if p := waitDelivered(t, h, bySchema.ID, 1); p.DestinationID != d.ID || p.Rows != 3 {
		t.Fatalf("a job of the saved schema: %+v", p)
	}
	expect(t, h.app.Do("POST", "/v1/schemas", h.key, map[string]any{"name": "x", "schema": json.RawMessage(destinationSchema), "destination_ids": []string{"nope"}}), 400, "invalid_request")

	h.valid(t, "PATCH", "/v1/destinations/"+d.ID, h.admin, map[string]any{"name": "lake"}, 200)
	h.valid(t, "DELETE", "/v1/destinations/"+d.ID, h.admin, nil, 204)
	expect(t, h.app.Do("GET", "/v1/destinations/"+d.ID, h.key, nil), 404, "not_found")
}

// waitDelivered waits until the job's deliveries have all ended and
// returns the first, delivered.
func waitDelivered(t *testing.T, h *hooks, jobID string, n int) pushView {
	t.Helper()
	var page struct{ Data []pushView }
	for deadline := testtime.Deadline(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		h.valid(t, "GET", "/v1/jobs/"+jobID+"/deliveries", h.key, nil, 200).JSON(t, &page)
		if len(page.Data) == n && page.Data[0].Status == "delivered" {
			return page.Data[0]
		}
		if len(page.Data) > 0 && page.Data[0].Status == "failed" {
			t.Fatalf("delivery failed: %+v %v", page.Data[0], *page.Data[0].LastError)
		}
	}
	t.Fatalf("not delivered in 30 s: %+v", page.Data)
	return pushView{}
}

// TestDestinations_privateAddressesRefused: without
// TABNORM_DESTINATION_ALLOW_PRIVATE a destination at a loopback or private
// address is 400.
func TestDestinations_privateAddressesRefused(t *testing.T) {
	t.Parallel()
	w := sqliteWorld(t)
	admin := w.app.Login(w.acmeAdmin.Email)
	for _, cfg := range []map[string]any{
		{"type": "postgres", "config": map[string]any{"url": "postgres://u:p@127.0.0.1:5432/db", "table": "t"}},
		{"type": "http", "config": map[string]any{"url": "https://10.1.2.3/rows"}},
		{"type": "s3", "config": map[string]any{"bucket": "acme", "endpoint": "https://169.254.169.254"}},
	} {
		cfg["name"] = "private"
		res := w.app.Do("POST", "/v1/destinations", admin, cfg)
		expect(t, res, 400, "invalid_request")
		if !strings.Contains(res.Body, "private") {
			t.Fatalf("%v: %s", cfg, res.Body)
		}
	}
}

// TestDestinations_importSessionDeliversFinalJobsOnSubmit: an import
// session whose options name a destination delivers nothing until its end
// user submits, and then only the final job of a rerun chain: the table
// holds the rerun's rows, never its predecessor's; on each database.
func TestDestinations_importSessionDeliversFinalJobsOnSubmit(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			dst, ok := sqltest.Postgres(t)
			if !ok {
				t.Skip("*** SKIP: no PostgreSQL server for the destination ***")
			}
			secretKey := make([]byte, 32)
			_, _ = rand.Read(secretKey)
			app := apptest.Start(t, target, func(c *bootstrap.Config) {
				c.HTTP.RateLimit.Burst, c.DestinationAllowPrivate, c.SecretKeys = 1000, true, [][]byte{secretKey}
			})
			w := sessionWorld{app: app, key: apptest.Caller{Key: app.Key(app.Org("Acme", identity.Normalize))}}
			var d destinationView
			res := app.Do("POST", "/v1/destinations", w.key, map[string]any{"name": "warehouse", "type": "postgres",
				"config": map[string]any{"url": dst.URL, "table": "people"}})
			expect(t, res, 201, "")
			res.JSON(t, &d)
			body := importSessionBody()
			body["options"] = map[string]any{"destination_ids": []string{d.ID}}
			ses := createImportSession(t, app, w.key, body)
			w.sessionID, w.secret = ses.ID, apptest.Caller{Key: ses.ClientSecret}
			w.inJob = uploadJob(t, app, w.secret, nil)
			c := rerunChain{w: w}
			c.makeChain(t)

			var page struct{ Data []pushView }
			for _, id := range []string{c.first, c.rerun} {
				expect(t, app.Do("GET", "/v1/jobs/"+id+"/deliveries", w.key, nil), 200, "")
				app.Do("GET", "/v1/jobs/"+id+"/deliveries", w.key, nil).JSON(t, &page)
				if len(page.Data) != 0 {
					t.Fatalf("job %s was delivered before the submit: %+v", id, page.Data)
				}
			}
			expect(t, app.Do("POST", "/v1/import-sessions/current/submit", w.secret, nil), 200, "")
			h := &hooks{app: app, key: w.key, v: openAPIValidator(t)}
			p := waitDelivered(t, h, c.rerun, 1)
			if float64(p.Rows) != c.rerunValid {
				t.Fatalf("delivered %d rows, the rerun has %v", p.Rows, c.rerunValid)
			}
			app.Do("GET", "/v1/jobs/"+c.first+"/deliveries", w.key, nil).JSON(t, &page)
			if len(page.Data) != 0 {
				t.Fatalf("the superseded job was delivered: %+v", page.Data)
			}
			conn, err := pgx.Connect(context.Background(), dst.URL)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = conn.Close(context.Background()) }()
			var all, ofRerun int
			if err := conn.QueryRow(context.Background(), "SELECT count(*), count(*) FILTER (WHERE _tabnorm_job_id = $1) FROM people", c.rerun).Scan(&all, &ofRerun); err != nil {
				t.Fatal(err)
			}
			if float64(all) != c.rerunValid || ofRerun != all {
				t.Fatalf("the table holds %d rows, %d of the rerun; want only the rerun's %v", all, ofRerun, c.rerunValid)
			}
		})
	}
}

func openAPIValidator(t *testing.T) validator.Validator {
	t.Helper()
	doc, err := libopenapi.NewDocument(httpapi.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	v, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return v
}

// TestDestinations_conflicts: a delivery still under way is not retried
// (409 delivery_pending); on PostgreSQL without TABNORM_SECRET_KEY a
// destination's secrets are not stored (409 secret_key_required), while
// its name still changes.
func TestDestinations_conflicts(t *testing.T) {
	t.Parallel()
	t.Run("retry_while_delivering", func(t *testing.T) {
		t.Parallel()
		release := make(chan struct{})
		srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}))
		defer srv.Close()
		defer close(release)
		w := sqliteWorld(t, func(c *bootstrap.Config) { c.DestinationAllowPrivate = true })
		key := apptest.Caller{Key: w.acmeKey}
		var d destinationView
		res := w.app.Do("POST", "/v1/destinations", key, map[string]any{"name": "api", "type": "http", "config": map[string]any{"url": srv.URL}})
		expect(t, res, 201, "")
		res.JSON(t, &d)
		if !strings.HasPrefix(d.SigningSecret, "whsec_") {
			t.Fatalf("an http destination's made secret is shown once: %s", res.Body)
		}
		if again := w.app.Do("GET", "/v1/destinations/"+d.ID, key, nil); strings.Contains(again.Body, d.SigningSecret) {
			t.Fatal("the signing secret is shown again")
		}
		res = w.app.Request(upload(t, w.app, "c.csv", destinationCSV, map[string]string{"schema": destinationSchema, "options": `{"destination_ids":["` + d.ID + `"]}`}), key)
		var created struct{ ID string }
		res.JSON(t, &created)
		var page struct{ Data []pushView }
		for deadline := testtime.Deadline(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			w.app.Do("GET", "/v1/jobs/"+created.ID+"/deliveries", key, nil).JSON(t, &page)
			if len(page.Data) == 1 && page.Data[0].Status == "delivering" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no delivery under way: %+v", page.Data)
			}
		}
		expect(t, w.app.Do("POST", "/v1/jobs/"+created.ID+"/deliveries/"+d.ID+"/retry", key, nil), 409, "delivery_pending")
	})
	t.Run("no_secret_key_on_postgres", func(t *testing.T) {
		t.Parallel()
		target, ok := sqltest.Postgres(t)
		if !ok {
			t.Skip("*** SKIP: no PostgreSQL server ***")
		}
		secretKey := make([]byte, 32)
		_, _ = rand.Read(secretKey)
		keyed := apptest.Start(t, target, func(c *bootstrap.Config) { c.SecretKeys = [][]byte{secretKey} })
		key := apptest.Caller{Key: keyed.Key(keyed.Org("Acme", identity.Normalize))}
		body := map[string]any{"name": "lake", "type": "s3", "config": map[string]any{"bucket": "acme-lake", "access_key_id": "AK", "secret_access_key": "SK"}}
		var d destinationView
		res := keyed.Do("POST", "/v1/destinations", key, body)
		expect(t, res, 201, "")
		res.JSON(t, &d)
		unkeyed := apptest.Start(t, target)
		expect(t, unkeyed.Do("POST", "/v1/destinations", key, body), 409, "secret_key_required")
		expect(t, unkeyed.Do("PATCH", "/v1/destinations/"+d.ID, key, map[string]any{"config": body["config"]}), 409, "secret_key_required")
		expect(t, unkeyed.Do("PATCH", "/v1/destinations/"+d.ID, key, map[string]any{"name": "lake 2"}), 200, "")
	})
}
