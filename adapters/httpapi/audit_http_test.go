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
			app := apptest.Start(t, target)
			acme := app.Org("Acme", identity.Normalize)
			admin := app.Login(app.User(acme, identity.Admin, false).Email)
			member := app.Login(app.User(acme, identity.Member, false).Email)
			adminKey := apptest.Caller{Key: app.ScopedKey(acme, "admin")}
			readKey := apptest.Caller{Key: app.ScopedKey(acme, "jobs:read")}
			staffOrg := app.Org("Staff")
			staff := app.Login(app.User(staffOrg, identity.Member, true).Email)

			res := app.Do("POST", "/v1/admin/keys", admin, map[string]any{"name": "ci"})
			expect(t, res, 201, "")
			var key struct{ ID string }
			res.JSON(t, &key)
			createRID := res.Header.Get("X-Request-Id")
			res = app.Do("POST", "/v1/webhooks", adminKey, map[string]any{"url": "https://hooks.example.com/x", "events": []string{"job.succeeded"}})
			expect(t, res, 201, "")
			var hook struct{ ID string }
			res.JSON(t, &hook)
			ses := createImportSession(t, app, adminKey, importSessionBody())
			expect(t, app.Do("DELETE", "/v1/import-sessions/"+ses.ID, adminKey, nil), 200, "")
			jobID := uploadJob(t, app, adminKey, map[string]string{"schema": apptest.PeopleSchema})
			waitStatus(t, app, adminKey, "/v1/jobs/"+jobID, "succeeded")
			expect(t, app.Do("GET", "/v1/jobs/"+jobID+"/rows.csv", adminKey, nil), 200, "")
			expect(t, app.Do("POST", "/auth/impersonate", staff, map[string]string{"organization_id": acme.ID}), 200, "")
			expect(t, app.Do("DELETE", "/v1/webhooks/"+hook.ID, staff, nil), 204, "")

			all, _ := auditPage(t, app, admin, "?limit=200")
			got := actions(all)
			for _, want := range []string{"webhook.delete,impersonation.start,rows.export", "import_session.revoke,import_session.create,webhook.create,api_key.create"} {
				if !strings.Contains(got, want) {
					t.Fatalf("the log reads %s; want %s in it, newest first", got, want)
				}
			}
			byAction := map[string]auditEvent{}
			for _, e := range all {
				if _, seen := byAction[e.Action]; !seen {
					byAction[e.Action] = e
				}
			}
			created := byAction["api_key.create"]
			if created.Actor.Type != "user" || deref(created.TargetID) != key.ID || deref(created.RequestID) != createRID || deref(created.IP) != "127.0.0.1" ||
				deref(created.UserAgent) == "" || created.Org != acme.ID {
				t.Errorf("api_key.create %+v; want the admin, the key, request %s, 127.0.0.1 and the user agent", created, createRID)
			}
			if e := byAction["webhook.create"]; e.Actor.Type != "api_key" || e.Actor.KeyID == nil || deref(e.TargetID) != hook.ID {
				t.Errorf("webhook.create %+v; want the key as actor and the webhook as target", e)
			}
			if e := byAction["webhook.delete"]; e.Actor.Type != "user" || !e.Actor.Impersonating {
				t.Errorf("webhook.delete by staff %+v; want a user impersonating", e)
			}
			if e := byAction["rows.export"]; deref(e.TargetID) != jobID {
				t.Errorf("rows.export %+v; want the job as target", e)
			}
			keyID := deref(byAction["webhook.create"].Actor.KeyID)

			// Filters.
			for query, want := range map[string]string{
				"?action=webhook.create":  "webhook.create",
				"?target=" + hook.ID:      "webhook.delete,webhook.create",
				"?actor=" + keyID:         "rows.export,import_session.revoke,import_session.create,webhook.create",
				"?target=" + ses.ID:       "import_session.revoke,import_session.create",
				"?action=nothing.like.it": "",
			} {
				if events, _ := auditPage(t, app, admin, query); actions(events) != want {
					t.Errorf("%s: %s, want %s", query, actions(events), want)
				}
			}
			at, _ := time.Parse(time.RFC3339, created.At)
			q := url.Values{"since": {at.Format(time.RFC3339)}, "until": {at.Add(time.Second).Format(time.RFC3339)}, "action": {"api_key.create"}}
			if events, _ := auditPage(t, app, admin, "?"+q.Encode()); len(events) != 1 {
				t.Errorf("a time range around the key's creation: %s", actions(events))
			}
			expect(t, app.Do("GET", "/v1/audit-events?since=yesterday", admin, nil), 400, "invalid_request")
			expect(t, app.Do("GET", "/v1/audit-events?since=2026-12-01T00:00:00Z&until=2026-11-01T00:00:00Z", admin, nil), 400, "invalid_request")
			// Pages, newest first, by the key with the admin scope.
			first, next := auditPage(t, app, adminKey, "?limit=2")
			second, _ := auditPage(t, app, adminKey, "?limit=2&cursor="+url.QueryEscape(next))
			if len(first) != 2 || next == "" || len(second) != 2 || first[1].ID <= second[0].ID || first[0].ID != all[0].ID {
				t.Errorf("pages %s then %s", actions(first), actions(second))
			}

			// Who may not.
			expect(t, app.Do("GET", "/v1/audit-events", member, nil), 403, "insufficient_permissions")
			expect(t, app.Do("GET", "/v1/audit-events", readKey, nil), 403, "insufficient_scope")
			expect(t, app.Do("GET", "/v1/audit-events.jsonl", member, nil), 403, "insufficient_permissions")
			other := app.Login(app.User(app.Org("Other", identity.Normalize), identity.Admin, false).Email)
			if events, _ := auditPage(t, app, other, "?limit=200"); strings.Contains(actions(events), "webhook") {
				t.Errorf("another organization's admin reads %s", actions(events))
			}
			// Nothing changes or deletes an entry.
			for _, m := range []string{"PATCH", "DELETE", "PUT", "POST"} {
				if res := app.Do(m, "/v1/audit-events", admin, map[string]any{}); res.StatusCode != 405 {
					t.Errorf("%s /v1/audit-events: %d", m, res.StatusCode)
				}
			}

			// The export: every entry as a line, newest first, the export first.
			res = app.Do("GET", "/v1/audit-events.jsonl", admin, nil)
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
			if len(lines) != len(all)+1 || lines[0].Action != "audit.export" || lines[1].ID != all[0].ID {
				t.Errorf("the export has %d lines (first %+v); want the %d entries after the export's own", len(lines), lines[0], len(all))
			}
			filtered := app.Do("GET", "/v1/audit-events.jsonl?action=webhook.create", adminKey, nil)
			expect(t, filtered, 200, "")
			if strings.Count(filtered.Body, "\n") != 1 || !strings.Contains(filtered.Body, hook.ID) {
				t.Errorf("filtered export %q", filtered.Body)
			}
			expect(t, app.Do("GET", "/v1/audit-events.jsonl?until=nope", admin, nil), 400, "invalid_request")
		})
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
