package httpapi_test

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"

	"github.com/tabnorm/tabnorm/adapters/httpapi"
	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

type hookView struct {
	ID, Object, Name, URL, Secret string
	TimeoutMS                     int64   `json:"timeout_ms"`
	Concurrency                   int     `json:"concurrency"`
	Enabled                       bool    `json:"enabled"`
	PreviousSecretUntil           *string `json:"previous_secret_until"`
}

// withSecretKey gives the app a key to seal secrets with (PostgreSQL
// has none otherwise).
func withSecretKey(c *bootstrap.Config) { c.SecretKeys = [][]byte{bytes.Repeat([]byte{7}, 32)} }

// TestHooks_HTTP registers, reads, changes, rotates and deletes hooks
// through the API on both databases, each answer checked against the
// OpenAPI document.
func TestHooks_HTTP(t *testing.T) {
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
			w := newWorld(t, target, withSecretKey)
			h := &hooks{w: &w, app: w.app, v: v, key: apptest.Caller{Key: w.acmeKey},
				admin: w.app.Login(w.acmeAdmin.Email), member: w.app.Login(w.acmeMember.Email)}
			other := apptest.Caller{Key: w.app.Key(w.app.Org("Globex", identity.Normalize))}
			created := hooksCreateAndRead(t, h, other)
			hooksChangeRotateDelete(t, h, created)
		})
	}
}

// hooksCreateAndRead: private addresses and bad settings refused, a hook
// created by an admin, read by members, not seen by another organization.
func hooksCreateAndRead(t *testing.T, h *hooks, other apptest.Caller) hookView {
	w := h.w

	// Private addresses are refused unless the operator allows them.
	expect(t, h.app.Do("POST", "/v1/hooks", h.admin, map[string]any{"name": "crm", "url": "http://127.0.0.1:9/check"}), 400, "invalid_request")
	expect(t, h.app.Do("POST", "/v1/hooks", h.admin, map[string]any{"name": "crm", "url": "https://10.1.2.3/check"}), 400, "invalid_request")
	expect(t, h.app.Do("POST", "/v1/hooks", h.admin, map[string]any{"name": "Bad Name", "url": "https://crm.example.com/check"}), 400, "invalid_request")
	expect(t, h.app.Do("POST", "/v1/hooks", h.admin, map[string]any{"name": "crm", "url": "https://crm.example.com/check", "timeout_ms": 50}), 400, "invalid_request")
	expect(t, h.app.Do("POST", "/v1/hooks", h.member, map[string]any{"name": "crm", "url": "https://crm.example.com/check"}), 403, "insufficient_permissions")
	expect(t, h.app.Do("POST", "/v1/hooks", apptest.Caller{Key: w.bareKey}, map[string]any{"name": "crm", "url": "https://crm.example.com/check"}), 403, "forbidden_entitlement_missing")

	var created hookView
	res := h.valid(t, "POST", "/v1/hooks", h.admin, map[string]any{"name": "crm", "url": "https://crm.example.com/check", "timeout_ms": 2000}, 201)
	res.JSON(t, &created)
	if !strings.HasPrefix(created.ID, "hook_") || created.Object != "hook" || !strings.HasPrefix(created.Secret, "whsec_") || created.TimeoutMS != 2000 ||
		created.Concurrency != 4 || !created.Enabled || res.Header.Get("Location") != "/v1/hooks/"+created.ID || res.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("create: %s %v", res.Body, res.Header)
	}
	expect(t, h.app.Do("POST", "/v1/hooks", h.key, map[string]any{"name": "crm", "url": "https://crm2.example.com/"}), 409, "conflict")

	// Read by members, never with the secret; another organization's is 404.
	for _, path := range []string{"/v1/hooks", "/v1/hooks/" + created.ID} {
		got := h.valid(t, "GET", path, h.member, nil, 200)
		if strings.Contains(got.Body, "whsec_") || !strings.Contains(got.Body, created.ID) {
			t.Fatalf("GET %s: %s", path, got.Body)
		}
	}
	expect(t, h.app.Do("GET", "/v1/hooks/"+created.ID, other, nil), 404, "not_found")
	expect(t, h.app.Do("PATCH", "/v1/hooks/"+created.ID, other, map[string]any{"enabled": false}), 404, "not_found")
	expect(t, h.app.Do("POST", "/v1/hooks/"+created.ID+"/rotate-secret", other, nil), 404, "not_found")
	expect(t, h.app.Do("DELETE", "/v1/hooks/"+created.ID, other, nil), 404, "not_found")
	if list := h.valid(t, "GET", "/v1/hooks", other, nil, 200); strings.Contains(list.Body, created.ID) {
		t.Fatalf("another organization lists the hook: %s", list.Body)
	}
	return created
}

// hooksChangeRotateDelete: changes by admins only, a rotation's new
// secret shown once and sealed at rest, and deletion.
func hooksChangeRotateDelete(t *testing.T, h *hooks, created hookView) {
	w := h.w

	// Changes.
	expect(t, h.app.Do("PATCH", "/v1/hooks/"+created.ID, h.member, map[string]any{"enabled": false}), 403, "insufficient_permissions")
	expect(t, h.app.Do("PATCH", "/v1/hooks/"+created.ID, h.admin, map[string]any{"url": "https://169.254.169.254/latest"}), 400, "invalid_request")
	var changed hookView
	h.valid(t, "PATCH", "/v1/hooks/"+created.ID, h.admin, map[string]any{"name": "crm-v2", "concurrency": 2, "enabled": false}, 200).JSON(t, &changed)
	if changed.Name != "crm-v2" || changed.Concurrency != 2 || changed.Enabled || changed.TimeoutMS != 2000 || changed.Secret != "" {
		t.Fatalf("patch: %+v", changed)
	}

	// Rotation: a new secret shown once, the old one signs for a day.
	var rotated hookView
	rot := h.valid(t, "POST", "/v1/hooks/"+created.ID+"/rotate-secret", h.key, nil, 200)
	rot.JSON(t, &rotated)
	if !strings.HasPrefix(rotated.Secret, "whsec_") || rotated.Secret == created.Secret || rotated.PreviousSecretUntil == nil ||
		rot.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("rotate: %s", rot.Body)
	}
	expect(t, h.app.Do("POST", "/v1/hooks/"+created.ID+"/rotate-secret", h.member, nil), 403, "insufficient_permissions")

	// The secret is sealed at rest: the column holds neither secret.
	var sealed []byte
	if err := w.app.DB.Bun.NewSelect().Table("hooks").Column("secret").Where("id = ?", created.ID).Scan(t.Context(), &sealed); err != nil {
		t.Fatal(err)
	}
	if len(sealed) == 0 || bytes.Contains(sealed, []byte(rotated.Secret)) || bytes.Contains(sealed, []byte("whsec_")) {
		t.Fatalf("the stored secret is not sealed: %q", sealed)
	}

	hooksTestRefusals(t, h, created)

	expect(t, h.app.Do("DELETE", "/v1/hooks/"+created.ID, h.member, nil), 403, "insufficient_permissions")
	h.valid(t, "DELETE", "/v1/hooks/"+created.ID, h.admin, nil, 204)
	expect(t, h.app.Do("GET", "/v1/hooks/"+created.ID, h.admin, nil), 404, "not_found")
}

// TestHooks_conflicts: a hook renamed to another's name is 409 conflict;
// on PostgreSQL, a server started without TABNORM_SECRET_KEY cannot open
// a hook's secret to rotate it (409 secret_key_required) and changes
// nothing, while a rename still works.
func TestHooks_conflicts(t *testing.T) {
	t.Parallel()
	target, ok := sqltest.Postgres(t)
	if !ok {
		t.Skip("*** SKIP: no PostgreSQL server ***")
	}
	keyed := apptest.Start(t, target, withSecretKey)
	key := apptest.Caller{Key: keyed.Key(keyed.Org("Acme", identity.Normalize))}
	var crm, erp hookView
	keyed.Do("POST", "/v1/hooks", key, map[string]any{"name": "crm", "url": "https://crm.example.com/check"}).JSON(t, &crm)
	res := keyed.Do("POST", "/v1/hooks", key, map[string]any{"name": "erp", "url": "https://erp.example.com/check"})
	expect(t, res, 201, "")
	res.JSON(t, &erp)
	expect(t, keyed.Do("PATCH", "/v1/hooks/"+erp.ID, key, map[string]any{"name": "crm"}), 409, "conflict")

	unkeyed := apptest.Start(t, target)
	expect(t, unkeyed.Do("POST", "/v1/hooks/"+crm.ID+"/rotate-secret", key, nil), 409, "secret_key_required")
	expect(t, unkeyed.Do("POST", "/v1/hooks/"+crm.ID+"/test", key, map[string]any{"rows": []any{map[string]any{"row": 1, "values": map[string]any{"a": "b"}}}}),
		409, "secret_key_required")
	expect(t, unkeyed.Do("PATCH", "/v1/hooks/"+crm.ID, key, map[string]any{"name": "crm-2"}), 200, "")
	// The secret the failed rotation did not touch still opens with the key.
	var rotated hookView
	res = keyed.Do("POST", "/v1/hooks/"+crm.ID+"/rotate-secret", key, nil)
	expect(t, res, 200, "")
	res.JSON(t, &rotated)
	if rotated.PreviousSecretUntil == nil || rotated.Secret == crm.Secret {
		t.Fatalf("a rotation after the refused one: %s", res.Body)
	}
}

// hooksTestRefusals: a sample batch is for admins and keys, in the hook's
// organization, and well formed; and a hook whose address is private (one
// registered while the operator allowed them) is not called: the answer
// says the address was refused.
func hooksTestRefusals(t *testing.T, h *hooks, created hookView) {
	sample := map[string]any{"rows": []any{map[string]any{"row": 1, "values": map[string]any{"customer": "C-1", "n": 2, "ok": true, "none": nil}}}}
	expect(t, h.app.Do("POST", "/v1/hooks/"+created.ID+"/test", h.member, sample), 403, "insufficient_permissions")
	other := apptest.Caller{Key: h.app.Key(h.app.Org("Initech", identity.Normalize))}
	expect(t, h.app.Do("POST", "/v1/hooks/"+created.ID+"/test", other, sample), 404, "not_found")
	for _, bad := range []any{
		map[string]any{"rows": []any{}},
		map[string]any{"rows": []any{map[string]any{"row": 0, "values": map[string]any{"a": 1}}}},
		map[string]any{"rows": []any{map[string]any{"row": 1, "values": map[string]any{"a": 1}}, map[string]any{"row": 1, "values": map[string]any{"a": 2}}}},
		map[string]any{"rows": []any{map[string]any{"row": 1, "values": map[string]any{"a": []int{1}}}}},
		map[string]any{"rows": []any{map[string]any{"row": 1}}},
	} {
		expect(t, h.app.Do("POST", "/v1/hooks/"+created.ID+"/test", h.admin, bad), 400, "invalid_request")
	}
	if _, err := h.w.app.DB.Bun.NewUpdate().Table("hooks").Set("url = ?", "https://127.0.0.1:9/check").Where("id = ?", created.ID).Exec(t.Context()); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Object, Status string
		StatusCode     *int    `json:"status_code"`
		Error          *string `json:"error"`
		Rows           []any
	}
	h.valid(t, "POST", "/v1/hooks/"+created.ID+"/test", h.admin, sample, 200).JSON(t, &got)
	if got.Object != "hook_test" || got.Status != "error" || got.StatusCode != nil || got.Error == nil || !strings.Contains(*got.Error, "refused") || len(got.Rows) != 0 {
		t.Fatalf("a sample to a private address: %+v, want status error, the address refused", got)
	}
}

// TestHooks_settings: the TABNORM_HOOK_* settings reach the hooks: a new
// hook's default timeout and concurrency, the attempts a failing batch
// gets, and the cap on an answer (for a job's batch and for a sample).
func TestHooks_settings(t *testing.T) {
	t.Parallel()
	app := apptest.Start(t, sqltest.SQLite(t), func(c *bootstrap.Config) {
		c.WebhookAllowPrivate, c.HookTimeout, c.HookConcurrency = true, 2*time.Second, 2
		c.HookLimits.Attempts, c.HookLimits.AnswerBytesPerRow = 1, 256
	})
	key := apptest.Caller{Key: app.Key(app.Org("Acme", identity.Normalize))}
	srv := newHookServer(t)
	var h hookView
	res := app.Do("POST", "/v1/hooks", key, map[string]any{"name": "crm", "url": srv.URL})
	expect(t, res, 201, "")
	res.JSON(t, &h)
	if h.TimeoutMS != 2000 || h.Concurrency != 2 {
		t.Fatalf("a hook that sets neither: timeout_ms %d, concurrency %d; want the settings' 2000 and 2", h.TimeoutMS, h.Concurrency)
	}
	hk := &hooked{app: app, key: key, srv: srv, hook: h}
	srv.set(h.Secret, func(w http.ResponseWriter, _ batchIn) { http.Error(w, "down", http.StatusServiceUnavailable) })
	if j := hk.run(t, "once", "skip", "id,email,customer\n1,a@example.com,ok\n"); j.Status != "succeeded" || srv.requests.Load() != 1 {
		t.Fatalf("with TABNORM_HOOK_ATTEMPTS=1 a 503 was tried %d times (job %s)", srv.requests.Load(), j.Status)
	}
	big := func(w http.ResponseWriter, _ batchIn) { // 66 KiB: under the default cap of a row, over 64 KiB + 256 bytes
		_, _ = io.WriteString(w, `{"rows":[],"pad":"`+strings.Repeat("x", 66<<10)+`"}`)
	}
	srv.set(h.Secret, big)
	j := hk.run(t, "big", "fail_job", "id,email,customer\n1,a@example.com,ok\n")
	if j.Status != "failed" || j.Error == nil || !strings.Contains(j.Error.Message, "longer than 65792 bytes") {
		t.Fatalf("a 66 KiB answer to one row with TABNORM_HOOK_ANSWER_BYTES_PER_ROW=256: %+v %+v", j, j.Error)
	}
	var sample hookTestView
	app.Do("POST", "/v1/hooks/"+h.ID+"/test", key, map[string]any{"rows": []any{map[string]any{"row": 1, "values": map[string]any{"customer": "ok"}}}}).JSON(t, &sample)
	if sample.Status != "refused" || sample.Error == nil || !strings.Contains(*sample.Error, "longer than 65792 bytes") {
		t.Fatalf("a sample's 66 KiB answer: %+v", sample)
	}
}
