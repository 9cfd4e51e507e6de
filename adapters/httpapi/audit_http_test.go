package httpapi_test

import (
	"bufio"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

type auditEvent struct {
	ID     string `json:"id"`
	Action string `json:"action"`
	Actor  struct {
		Type            string  `json:"type"`
		UserID          *string `json:"user_id"`
		KeyID           *string `json:"key_id"`
		ImportSessionID *string `json:"import_session_id"`
		Impersonating   bool    `json:"impersonating"`
	} `json:"actor"`
	Org       string  `json:"organization_id"`
	TargetID  *string `json:"target_id"`
	IP        *string `json:"ip"`
	UserAgent *string `json:"user_agent"`
	RequestID *string `json:"request_id"`
	At        string  `json:"at"`
}

func auditPage(t *testing.T, app *apptest.App, who apptest.Caller, query string) ([]auditEvent, string) {
	t.Helper()
	res := app.Do("GET", "/v1/audit-events"+query, who, nil)
	expect(t, res, 200, "")
	var page struct {
		Data       []auditEvent `json:"data"`
		NextCursor *string      `json:"next_cursor"`
	}
	res.JSON(t, &page)
	next := ""
	if page.NextCursor != nil {
		next = *page.NextCursor
	}
	return page.Data, next
}

func actions(events []auditEvent) string {
	var out []string
	for _, e := range events {
		out = append(out, e.Action)
	}
	return strings.Join(out, ",")
}

// TestAuditEvents: keys, webhooks, import sessions, rows exports and
// impersonation are recorded with their actor (a user, a key, a staff
// member impersonating), target, address, user agent and request id; an
// admin lists them newest first by actor, action, target and time, a page
// at a time, and exports them as JSON lines (the export recorded too); a
// member, a key without the admin scope and another organization see
// none; no route changes an entry. On each database.
func TestAuditEvents(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			w := newAuditWorld(t, apptest.Start(t, target))
			all, _ := auditPage(t, w.app, w.admin, "?limit=200")
			got := actions(all)
			for _, want := range []string{"webhook.delete,impersonation.start,rows.export", "import_session.revoke,import_session.create,webhook.create,api_key.create"} {
				if !strings.Contains(got, want) {
					t.Fatalf("the log reads %s; want %s in it, newest first", got, want)
				}
			}
			keyID := checkAuditEntries(t, w, all)
			checkAuditFilters(t, w, all, keyID)
			checkAuditAccess(t, w)
			checkAuditExport(t, w, all)
		})
	}
}

// auditWorld is an organization where a key, a webhook, an import session,
// a rows download and a staff member's impersonation happened.
type auditWorld struct {
	app                    *apptest.App
	admin, member, admKey  apptest.Caller
	readKey                apptest.Caller
	keyID, hookID, sesID   string
	jobID, createRequestID string
}

func newAuditWorld(t *testing.T, app *apptest.App) auditWorld {
	t.Helper()
	acme := app.Org("Acme", identity.Normalize)
	w := auditWorld{app: app, admin: app.Login(app.User(acme, identity.Admin, false).Email), member: app.Login(app.User(acme, identity.Member, false).Email),
		admKey: apptest.Caller{Key: app.ScopedKey(acme, "admin")}, readKey: apptest.Caller{Key: app.ScopedKey(acme, "jobs:read")}}
	staff := app.Login(app.User(app.Org("Staff"), identity.Member, true).Email)
	res := app.Do("POST", "/v1/admin/keys", w.admin, map[string]any{"name": "ci"})
	expect(t, res, 201, "")
	var made struct{ ID string }
	res.JSON(t, &made)
	w.keyID, w.createRequestID = made.ID, res.Header.Get("X-Request-Id")
	res = app.Do("POST", "/v1/webhooks", w.admKey, map[string]any{"url": "https://hooks.example.com/x", "events": []string{"job.succeeded"}})
	expect(t, res, 201, "")
	res.JSON(t, &made)
	w.hookID = made.ID
	w.sesID = createImportSession(t, app, w.admKey, importSessionBody()).ID
	expect(t, app.Do("DELETE", "/v1/import-sessions/"+w.sesID, w.admKey, nil), 200, "")
	w.jobID = uploadJob(t, app, w.admKey, map[string]string{"schema": apptest.PeopleSchema})
	waitStatus(t, app, w.admKey, "/v1/jobs/"+w.jobID, "succeeded")
	expect(t, app.Do("GET", "/v1/jobs/"+w.jobID+"/rows.csv", w.admKey, nil), 200, "")
	expect(t, app.Do("POST", "/auth/impersonate", staff, map[string]string{"organization_id": acme.ID}), 200, "")
	expect(t, app.Do("DELETE", "/v1/webhooks/"+w.hookID, staff, nil), 204, "")
	return w
}

// checkAuditEntries: each entry names its actor, target, address, user
// agent and request; it returns the admin key's id.
func checkAuditEntries(t *testing.T, w auditWorld, all []auditEvent) string {
	t.Helper()
	first := map[string]auditEvent{}
	for _, e := range all {
		if _, seen := first[e.Action]; !seen {
			first[e.Action] = e
		}
	}
	created := first["api_key.create"]
	if created.Actor.Type != "user" || deref(created.TargetID) != w.keyID || deref(created.RequestID) != w.createRequestID || deref(created.IP) != "127.0.0.1" ||
		deref(created.UserAgent) == "" || created.Org == "" {
		t.Errorf("api_key.create %+v; want the admin, the key, request %s, 127.0.0.1 and the user agent", created, w.createRequestID)
	}
	if e := first["webhook.create"]; e.Actor.Type != "api_key" || e.Actor.KeyID == nil || deref(e.TargetID) != w.hookID {
		t.Errorf("webhook.create %+v; want the key as actor and the webhook as target", e)
	}
	if e := first["webhook.delete"]; e.Actor.Type != "user" || !e.Actor.Impersonating {
		t.Errorf("webhook.delete by staff %+v; want a user impersonating", e)
	}
	if e := first["rows.export"]; deref(e.TargetID) != w.jobID {
		t.Errorf("rows.export %+v; want the job as target", e)
	}
	return deref(first["webhook.create"].Actor.KeyID)
}

// checkAuditFilters: by action, target, actor and time, and by pages.
func checkAuditFilters(t *testing.T, w auditWorld, all []auditEvent, keyID string) {
	t.Helper()
	for query, want := range map[string]string{
		"?action=webhook.create":  "webhook.create",
		"?target=" + w.hookID:     "webhook.delete,webhook.create",
		"?actor=" + keyID:         "rows.export,import_session.revoke,import_session.create,webhook.create",
		"?target=" + w.sesID:      "import_session.revoke,import_session.create",
		"?action=nothing.like.it": "",
	} {
		if events, _ := auditPage(t, w.app, w.admin, query); actions(events) != want {
			t.Errorf("%s: %s, want %s", query, actions(events), want)
		}
	}
	var at time.Time
	for _, e := range all {
		if e.Action == "api_key.create" && deref(e.TargetID) == w.keyID {
			at, _ = time.Parse(time.RFC3339, e.At)
		}
	}
	q := url.Values{"since": {at.Format(time.RFC3339)}, "until": {at.Add(time.Second).Format(time.RFC3339)}, "target": {w.keyID}}
	if events, _ := auditPage(t, w.app, w.admin, "?"+q.Encode()); len(events) != 1 {
		t.Errorf("a time range around the key's creation: %s", actions(events))
	}
	expect(t, w.app.Do("GET", "/v1/audit-events?since=yesterday", w.admin, nil), 400, "invalid_request")
	expect(t, w.app.Do("GET", "/v1/audit-events?since=2026-12-01T00:00:00Z&until=2026-11-01T00:00:00Z", w.admin, nil), 400, "invalid_request")
	first, next := auditPage(t, w.app, w.admKey, "?limit=2")
	second, _ := auditPage(t, w.app, w.admKey, "?limit=2&cursor="+url.QueryEscape(next))
	if len(first) != 2 || next == "" || len(second) != 2 || first[1].ID <= second[0].ID || first[0].ID != all[0].ID {
		t.Errorf("pages %s then %s", actions(first), actions(second))
	}
}

// checkAuditAccess: members, narrower keys and other organizations read
// nothing, and no method changes the log.
func checkAuditAccess(t *testing.T, w auditWorld) {
	t.Helper()
	expect(t, w.app.Do("GET", "/v1/audit-events", w.member, nil), 403, "insufficient_permissions")
	expect(t, w.app.Do("GET", "/v1/audit-events", w.readKey, nil), 403, "insufficient_scope")
	expect(t, w.app.Do("GET", "/v1/audit-events.jsonl", w.member, nil), 403, "insufficient_permissions")
	other := w.app.Login(w.app.User(w.app.Org("Other", identity.Normalize), identity.Admin, false).Email)
	if events, _ := auditPage(t, w.app, other, "?limit=200"); strings.Contains(actions(events), "webhook") {
		t.Errorf("another organization's admin reads %s", actions(events))
	}
	for _, m := range []string{"PATCH", "DELETE", "PUT", "POST"} {
		if res := w.app.Do(m, "/v1/audit-events", w.admin, map[string]any{}); res.StatusCode != 405 {
			t.Errorf("%s /v1/audit-events: %d", m, res.StatusCode)
		}
	}
}

// checkAuditExport: every entry a line, newest first; the export is
// recorded after it, and a HEAD is not; filters apply.
func checkAuditExport(t *testing.T, w auditWorld, all []auditEvent) {
	t.Helper()
	res := w.app.Do("GET", "/v1/audit-events.jsonl", w.admin, nil)
	expect(t, res, 200, "")
	if ct := res.Header.Get("Content-Type"); ct != "application/x-ndjson" {
		t.Errorf("export Content-Type %q", ct)
	}
	var lines []auditEvent
	sc := bufio.NewScanner(strings.NewReader(res.Body))
	for sc.Scan() {
		var e auditEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("export line %q: %v", sc.Text(), err)
		}
		lines = append(lines, e)
	}
	if len(lines) != len(all) || lines[0].ID != all[0].ID {
		t.Errorf("the export has %d lines; want the %d entries", len(lines), len(all))
	}
	expect(t, w.app.Do("HEAD", "/v1/audit-events.jsonl", w.admin, nil), 200, "")
	if after, _ := auditPage(t, w.app, w.admin, "?action=audit.export"); len(after) != 1 || after[0].Actor.Type != "user" {
		t.Errorf("after an export and a HEAD the log records %d exports, want 1", len(after))
	}
	filtered := w.app.Do("GET", "/v1/audit-events.jsonl?action=webhook.create", w.admKey, nil)
	expect(t, filtered, 200, "")
	if strings.Count(filtered.Body, "\n") != 1 || !strings.Contains(filtered.Body, w.hookID) {
		t.Errorf("filtered export %q", filtered.Body)
	}
	expect(t, w.app.Do("GET", "/v1/audit-events.jsonl?until=nope", w.admin, nil), 400, "invalid_request")
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
