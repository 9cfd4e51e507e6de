package portstest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/apikey"
	"github.com/tabnorm/tabnorm/domain/entitlement"
	"github.com/tabnorm/tabnorm/domain/id"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/session"
	"github.com/tabnorm/tabnorm/ports"
)

// APIKeys is the suite of ports.APIKeys.
func APIKeys(t *testing.T, open func(t *testing.T) Stores) {
	t.Helper()
	runSteps(t, open, []step[Stores]{
		{"create_then_find_by_hash", keysCreateThenFind},
		{"touch_sets_last_used", keysTouch},
		{"scopes_and_expiry_are_kept", keysScopesAndExpiry},
		{"revoke_once_and_only_in_its_organization", keysRevoke},
		{"list_is_per_organization", keysList},
		{"duplicate_hash_is_conflict", keysDuplicate},
	})
}

func seedKey(t *testing.T, s Stores) (apikey.Key, identity.Organization) {
	t.Helper()
	org := seedOrg(t, s, identity.Normalize)
	user := seedUser(t, s, org)
	plain := apikey.Generate()
	k := apikey.Key{ID: id.New(id.Key), OrgID: org.ID, Name: "ci", Hash: apikey.HashOf(plain), Last4: apikey.Last4(plain),
		CreatedBy: user.ID, CreatedAt: now}
	ok(t, s.APIKeys.Create(context.Background(), k))
	return k, org
}

func keysCreateThenFind(t *testing.T, s Stores) {
	ctx := context.Background()
	k, org := seedKey(t, s)
	got, err := s.APIKeys.FindByHash(ctx, k.Hash)
	if err != nil || got.ID != k.ID || got.OrgID != org.ID || got.Last4 != k.Last4 || got.Revoked() || got.LastUsedAt != nil || !got.CreatedAt.Equal(now) {
		t.Fatalf("APIKeys.FindByHash = %+v, %v; want the key as created: its organization, last4 and created_at, not revoked, never used", got, err)
	}
	_, err = s.APIKeys.FindByHash(ctx, apikey.HashOf(apikey.Generate()))
	isKind(t, err, domain.ErrNotFound, "APIKeys.FindByHash: an unknown hash")
}

func keysTouch(t *testing.T, s Stores) {
	ctx := context.Background()
	k, _ := seedKey(t, s)
	ok(t, s.APIKeys.TouchLastUsed(ctx, k.ID, now.Add(time.Minute), "203.0.113.7"))
	if got, _ := s.APIKeys.FindByHash(ctx, k.Hash); got.LastUsedAt == nil || !got.LastUsedAt.Equal(now.Add(time.Minute)) || got.LastUsedIP != "203.0.113.7" {
		t.Fatalf("APIKeys.FindByHash after Touch: last used at %v from %q, want %v from 203.0.113.7", got.LastUsedAt, got.LastUsedIP, now.Add(time.Minute))
	}
}

// keysScopesAndExpiry: a key's scopes and expires_at come back from every
// read, the credentials' read on each request included.
func keysScopesAndExpiry(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s, identity.Normalize)
	plain := apikey.Generate()
	until := now.Add(24 * time.Hour)
	k := apikey.Key{ID: id.New(id.Key), OrgID: org.ID, Name: "ci", Hash: apikey.HashOf(plain), Last4: apikey.Last4(plain), CreatedAt: now,
		Scopes: []apikey.Scope{apikey.JobsRead, apikey.WebhooksWrite}, ExpiresAt: &until}
	ok(t, s.APIKeys.Create(ctx, k))
	same := func(what string, got apikey.Key) {
		t.Helper()
		if len(got.Scopes) != 2 || got.Scopes[0] != apikey.JobsRead || got.Scopes[1] != apikey.WebhooksWrite || got.ExpiresAt == nil || !got.ExpiresAt.Equal(until) {
			t.Fatalf("%s: scopes %v, expires at %v; want [jobs:read webhooks:write] and %v", what, got.Scopes, got.ExpiresAt, until)
		}
	}
	got, err := s.APIKeys.FindByHash(ctx, k.Hash)
	ok(t, err)
	same("APIKeys.FindByHash", got)
	got, _, err = s.Credentials.KeyByHash(ctx, k.Hash)
	ok(t, err)
	same("Credentials.KeyByHash", got)
	list, _, err := s.APIKeys.List(ctx, org.ID, ports.Page{Limit: 10})
	ok(t, err)
	if len(list) != 1 {
		t.Fatalf("APIKeys.List: %d keys, want 1", len(list))
	}
	same("APIKeys.List", list[0])
}

func keysRevoke(t *testing.T, s Stores) {
	ctx := context.Background()
	k, org := seedKey(t, s)
	other := seedOrg(t, s)
	_, _, err := s.APIKeys.Revoke(ctx, other.ID, k.ID, now)
	isKind(t, err, domain.ErrNotFound, "APIKeys.Revoke through another organization")
	revoked, changed, err := s.APIKeys.Revoke(ctx, org.ID, k.ID, now.Add(time.Hour))
	if err != nil || !changed || revoked.RevokedAt == nil || !revoked.RevokedAt.Equal(now.Add(time.Hour)) {
		t.Fatalf("APIKeys.Revoke = %+v, changed %v, %v; want revoked at %v and changed", revoked, changed, err, now.Add(time.Hour))
	}
	again, changed, err := s.APIKeys.Revoke(ctx, org.ID, k.ID, now.Add(2*time.Hour))
	if err != nil || changed || again.RevokedAt == nil || !again.RevokedAt.Equal(now.Add(time.Hour)) {
		t.Fatalf("APIKeys.Revoke a second time = revoked at %v, changed %v, %v; want the first time kept and nothing changed", again.RevokedAt, changed, err)
	}
	if got, _ := s.APIKeys.FindByHash(ctx, k.Hash); !got.Revoked() {
		t.Fatal("APIKeys.FindByHash of a revoked key: not revoked, want revoked")
	}
}

func keysList(t *testing.T, s Stores) {
	ctx := context.Background()
	k, org := seedKey(t, s)
	other := seedOrg(t, s)
	list, next, err := s.APIKeys.List(ctx, org.ID, ports.Page{})
	if err != nil || len(list) != 1 || next != "" || list[0].ID != k.ID {
		t.Fatalf("APIKeys.List = %v, %q, %v; want the one key and no next page", list, next, err)
	}
	if list, _, _ := s.APIKeys.List(ctx, other.ID, ports.Page{}); len(list) != 0 {
		t.Fatalf("APIKeys.List of another organization = %d keys, want none", len(list))
	}
}

func keysDuplicate(t *testing.T, s Stores) {
	k, _ := seedKey(t, s)
	k.ID = id.New(id.Key)
	isKind(t, s.APIKeys.Create(context.Background(), k), domain.ErrConflict, "APIKeys.Create: a second key with the same hash")
}

// Sessions is the suite of ports.Sessions.
func Sessions(t *testing.T, open func(t *testing.T) Stores) {
	t.Helper()
	runSteps(t, open, []step[Stores]{
		{"create_then_get_by_hash", sessionsCreateThenGet},
		{"touch_and_impersonate", sessionsTouchAndImpersonate},
		{"delete", sessionsDelete},
		{"delete_every_session_of_a_user", sessionsDeleteForUser},
	})
}

func sessionsDeleteForUser(t *testing.T, s Stores) {
	ctx := context.Background()
	ses, _, org := seedSession(t, s)
	second, _ := session.New(ses.UserID, org.ID, now)
	ok(t, s.Sessions.Create(ctx, second))
	bystander, _, _ := seedSession(t, s)
	n, err := s.Sessions.DeleteForUser(ctx, ses.UserID)
	if err != nil || n != 2 {
		t.Fatalf("Sessions.DeleteForUser = %d, %v; want 2", n, err)
	}
	_, err = s.Sessions.Get(ctx, second.Hash)
	isKind(t, err, domain.ErrNotFound, "Sessions.Get: a session of the user")
	if _, err := s.Sessions.Get(ctx, bystander.Hash); err != nil {
		t.Fatalf("Sessions.Get of another user's session after DeleteForUser: %v, want it kept", err)
	}
}

func seedSession(t *testing.T, s Stores) (session.Session, string, identity.Organization) {
	t.Helper()
	org := seedOrg(t, s, identity.Normalize)
	user := seedUser(t, s, org)
	ses, token := session.New(user.ID, org.ID, now)
	ses.IP, ses.UserAgent = "203.0.113.9", "test"
	ok(t, s.Sessions.Create(context.Background(), ses))
	return ses, token, org
}

func sessionsCreateThenGet(t *testing.T, s Stores) {
	ses, token, org := seedSession(t, s)
	got, err := s.Sessions.Get(context.Background(), session.HashOf(token))
	if err != nil || got.UserID != ses.UserID || got.OrgID != org.ID || !got.CreatedAt.Equal(now) || got.Impersonating() || got.IP != "203.0.113.9" || got.UserAgent != "test" {
		t.Fatalf("Sessions.Get = %+v, %v; want the session as created (user, organization, created_at, IP, user agent), not impersonating", got, err)
	}
	_, err = s.Sessions.Get(context.Background(), session.HashOf("nope"))
	isKind(t, err, domain.ErrNotFound, "Sessions.Get: an unknown session")
}

func sessionsTouchAndImpersonate(t *testing.T, s Stores) {
	ctx := context.Background()
	ses, _, _ := seedSession(t, s)
	other := seedOrg(t, s)
	ok(t, s.Sessions.Touch(ctx, ses.Hash, now.Add(time.Hour)))
	at := now.Add(2 * time.Hour)
	ok(t, s.Sessions.SetImpersonation(ctx, ses.Hash, other.ID, &at))
	got, _ := s.Sessions.Get(ctx, ses.Hash)
	if !got.LastSeenAt.Equal(now.Add(time.Hour)) || got.ImpersonatedOrgID != other.ID || got.ImpersonatedAt == nil || !got.ImpersonatedAt.Equal(at) {
		t.Fatalf("Sessions.Get after Touch and SetImpersonation = %+v; want last seen an hour later and impersonating %s since %v", got, other.ID, at)
	}
	ok(t, s.Sessions.SetImpersonation(ctx, ses.Hash, "", nil))
	if got, _ = s.Sessions.Get(ctx, ses.Hash); got.Impersonating() || got.ImpersonatedAt != nil {
		t.Fatalf("Sessions.Get after SetImpersonation(\"\") = %+v; want no impersonation", got)
	}
}

func sessionsDelete(t *testing.T, s Stores) {
	ctx := context.Background()
	ses, _, _ := seedSession(t, s)
	ok(t, s.Sessions.Delete(ctx, ses.Hash))
	_, err := s.Sessions.Get(ctx, ses.Hash)
	isKind(t, err, domain.ErrNotFound, "Sessions.Get: a deleted session")
}

// AuditLog is the suite of ports.AuditLog.
func AuditLog(t *testing.T, open func(t *testing.T) Stores) {
	t.Helper()
	runSteps(t, open, []step[Stores]{
		{"record_then_list_newest_first_per_organization", auditRecordThenList},
		{"filters_by_actor_action_target_and_time", auditFilters},
		{"purge_deletes_only_entries_older_than_its_time", auditPurge},
	})
}

func auditFilters(t *testing.T, s Stores) {
	ctx := context.Background()
	org := id.New(id.Org)
	entries := []identity.AuditEntry{
		{ActorUserID: "usr_a", Action: "login", At: now},
		{ActorKeyID: "key_b", ActorUserID: "usr_a", Action: "webhook.create", TargetID: "wh_1", At: now.Add(time.Minute)},
		{ActorImportSessionID: "isn_c", Action: "rows.export", TargetID: "job_1", At: now.Add(2 * time.Minute), RequestID: "req_1"},
		{ActorUserID: "usr_s", Impersonating: true, Action: "webhook.delete", TargetID: "wh_1", At: now.Add(3 * time.Minute)},
	}
	for _, e := range entries {
		e.ID, e.OrgID = id.New("aud"), org
		ok(t, s.AuditLog.Record(ctx, e))
	}
	since, until := now.Add(time.Minute), now.Add(3*time.Minute)
	for name, c := range map[string]struct {
		f    identity.AuditFilter
		want []string // actions, newest first
	}{
		"a user":                {identity.AuditFilter{Actor: "usr_a"}, []string{"webhook.create", "login"}},
		"a key":                 {identity.AuditFilter{Actor: "key_b"}, []string{"webhook.create"}},
		"an import session":     {identity.AuditFilter{Actor: "isn_c"}, []string{"rows.export"}},
		"an action":             {identity.AuditFilter{Action: "login"}, []string{"login"}},
		"a target":              {identity.AuditFilter{Target: "wh_1"}, []string{"webhook.delete", "webhook.create"}},
		"a time range":          {identity.AuditFilter{Since: &since, Until: &until}, []string{"rows.export", "webhook.create"}},
		"a target and an actor": {identity.AuditFilter{Target: "wh_1", Actor: "usr_s"}, []string{"webhook.delete"}},
	} {
		list, _, err := s.AuditLog.List(ctx, org, c.f, ports.Page{Limit: 10})
		ok(t, err)
		var got []string
		for _, e := range list {
			got = append(got, e.Action)
		}
		if strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("AuditLog.List by %s = %v, want %v", name, got, c.want)
		}
	}
	list, _, err := s.AuditLog.List(ctx, org, identity.AuditFilter{Action: "webhook.delete"}, ports.Page{Limit: 10})
	ok(t, err)
	if len(list) != 1 || !list[0].Impersonating || list[0].ActorUserID != "usr_s" {
		t.Fatalf("AuditLog.List of an impersonating staff member's action = %+v; want it marked impersonating, by the staff member", list)
	}
	list, _, err = s.AuditLog.List(ctx, org, identity.AuditFilter{Action: "rows.export"}, ports.Page{Limit: 10})
	ok(t, err)
	if len(list) != 1 || list[0].ActorImportSessionID != "isn_c" || list[0].RequestID != "req_1" {
		t.Fatalf("AuditLog.List of an import session's action = %+v; want the session and the request id", list)
	}
	// Pages: two at a time, newest first, then the rest.
	first, next, err := s.AuditLog.List(ctx, org, identity.AuditFilter{}, ports.Page{Limit: 2})
	ok(t, err)
	rest, last, err := s.AuditLog.List(ctx, org, identity.AuditFilter{}, ports.Page{Limit: 2, Cursor: next})
	ok(t, err)
	if len(first) != 2 || next == "" || len(rest) != 2 || last != "" || first[0].Action != "webhook.delete" || rest[1].Action != "login" {
		t.Fatalf("AuditLog.List by pages: %+v then %+v (next %q, last %q); want two newest first, then the two oldest and no cursor", first, rest, next, last)
	}
}

func auditPurge(t *testing.T, s Stores) {
	ctx := context.Background()
	org := id.New(id.Org)
	for i, action := range []string{"login", "logout"} {
		ok(t, s.AuditLog.Record(ctx, identity.AuditEntry{ID: id.New("aud"), OrgID: org, Action: action, At: now.Add(time.Duration(i) * time.Hour)}))
	}
	n, err := s.AuditLog.Purge(ctx, now.Add(time.Hour))
	ok(t, err)
	list, _, _ := s.AuditLog.List(ctx, org, identity.AuditFilter{}, ports.Page{Limit: 10})
	if n < 1 || len(list) != 1 || list[0].Action != "logout" {
		t.Fatalf("AuditLog.Purge removed %d; left %+v, want the newer entry only", n, list)
	}
}

func auditRecordThenList(t *testing.T, s Stores) {
	ctx := context.Background()
	org, other := id.New(id.Org), id.New(id.Org)
	for _, action := range []string{"login", "api_key.create", "logout"} {
		ok(t, s.AuditLog.Record(ctx, identity.AuditEntry{ID: id.New("aud"), OrgID: org, ActorUserID: "usr_a", Action: action,
			IP: "198.51.100.1", UserAgent: "ua", At: now}))
	}
	list, _, err := s.AuditLog.List(ctx, org, identity.AuditFilter{}, ports.Page{Limit: 10})
	if err != nil || len(list) != 3 || list[0].Action != "logout" || list[2].Action != "login" || !list[0].At.Equal(now) || list[0].IP != "198.51.100.1" {
		t.Fatalf("AuditLog.List = %+v, %v; want the 3 entries newest first (logout, …, login) with their time and IP", list, err)
	}
	if list, _, _ := s.AuditLog.List(ctx, other, identity.AuditFilter{}, ports.Page{}); len(list) != 0 {
		t.Fatal("AuditLog.List of another organization listed entries, want none")
	}
}

// Credentials is the suite of ports.Credentials.
func Credentials(t *testing.T, open func(t *testing.T) Stores) {
	t.Helper()
	runSteps(t, open, []step[Stores]{
		{"key_with_its_organizations_products", credsKey},
		{"key_of_an_organization_without_products", credsKeyNoProducts},
		{"unknown_key_is_not_found", credsUnknownKey},
		{"session_with_its_user_and_products", credsSession},
		{"impersonating_session_has_both_organizations_products", credsImpersonating},
		{"unknown_session_is_not_found", credsUnknownSession},
	})
}

func credsKey(t *testing.T, s Stores) {
	ctx := context.Background()
	k, org := seedKey(t, s)
	until := now.Add(time.Hour)
	grant(t, s, org.ID, identity.Connect, &until)
	got, grants, err := s.Credentials.KeyByHash(ctx, k.Hash)
	if err != nil || got.ID != k.ID || got.OrgID != org.ID || !got.CreatedAt.Equal(now) || got.Revoked() || len(grants) != 2 {
		t.Fatalf("Credentials.KeyByHash = %+v, %v, %v; want the key, not revoked, with its organization's 2 grants", got, grants, err)
	}
	if ps := entitlement.Products(grants, org.ID, now); len(ps) != 2 || ps[0] != identity.Normalize {
		t.Fatalf("Credentials.KeyByHash grants %+v give products %v, want normalize and connect", grants, ps)
	}
	// The grant's end comes with it; a revoked grant does not.
	if ps := entitlement.Products(grants, org.ID, until); len(ps) != 1 || ps[0] != identity.Normalize {
		t.Fatalf("Credentials.KeyByHash grants after connect's end give products %v, want normalize only", ps)
	}
	_, err = s.Entitlements.Revoke(ctx, org.ID, identity.Normalize, now, "op")
	ok(t, err)
	if _, grants, err = s.Credentials.KeyByHash(ctx, k.Hash); err != nil || len(grants) != 1 || grants[0].Product != identity.Connect {
		t.Fatalf("Credentials.KeyByHash after a revocation = grants %+v, %v; want connect's grant only", grants, err)
	}
}

func credsKeyNoProducts(t *testing.T, s Stores) {
	ctx := context.Background()
	empty := seedOrg(t, s)
	plain := apikey.Generate()
	ok(t, s.APIKeys.Create(ctx, apikey.Key{ID: id.New(id.Key), OrgID: empty.ID, Name: "e", Hash: apikey.HashOf(plain), Last4: "xxxx", CreatedAt: now}))
	if got, products, err := s.Credentials.KeyByHash(ctx, apikey.HashOf(plain)); err != nil || got.OrgID != empty.ID || len(products) != 0 {
		t.Fatalf("Credentials.KeyByHash of an organization without grants = %+v, %v, %v; want its key and no grants", got, products, err)
	}
}

func credsUnknownKey(t *testing.T, s Stores) {
	_, _, err := s.Credentials.KeyByHash(context.Background(), apikey.HashOf(apikey.Generate()))
	isKind(t, err, domain.ErrNotFound, "Credentials.KeyByHash: an unknown key")
}

func credsSession(t *testing.T, s Stores) {
	ctx := context.Background()
	ses, token, org := seedSession(t, s)
	grant(t, s, org.ID, identity.Connect, nil)
	gotSes, gotUser, grants, err := s.Credentials.SessionByHash(ctx, session.HashOf(token))
	if err != nil || gotSes.UserID != ses.UserID || gotUser.ID != ses.UserID || gotUser.Role != identity.Admin || len(grants) != 2 ||
		len(entitlement.Products(grants, org.ID, now)) != 2 || gotUser.Disabled() {
		t.Fatalf("Credentials.SessionByHash = %+v, %+v, %v, %v; want the session, its admin user (enabled) and the 2 grants", gotSes, gotUser, grants, err)
	}
	// A disabled user's session (one that raced the disabling) says so.
	_, err = s.Users.Disable(ctx, ses.UserID, now)
	ok(t, err)
	if _, gotUser, _, err = s.Credentials.SessionByHash(ctx, session.HashOf(token)); err != nil || !gotUser.Disabled() {
		t.Fatalf("Credentials.SessionByHash of a disabled user = %+v, %v; want the user, disabled", gotUser, err)
	}
}

func credsImpersonating(t *testing.T, s Stores) {
	ctx := context.Background()
	ses, _, org := seedSession(t, s)
	customer := seedOrg(t, s, identity.Connect)
	at := now.Add(time.Minute)
	ok(t, s.Sessions.SetImpersonation(ctx, ses.Hash, customer.ID, &at))
	gotSes, _, grants, err := s.Credentials.SessionByHash(ctx, ses.Hash)
	theirs, mine := entitlement.Products(grants, customer.ID, now), entitlement.Products(grants, org.ID, now)
	if err != nil || gotSes.ImpersonatedOrgID != customer.ID || gotSes.ImpersonatedAt == nil || !gotSes.ImpersonatedAt.Equal(at) ||
		len(theirs) != 1 || theirs[0] != identity.Connect || len(mine) != 1 {
		t.Fatalf("Credentials.SessionByHash while impersonating = %+v, %v, %v; want the impersonated organization's grant (connect) beside the staff member's own", gotSes, grants, err)
	}
}

func credsUnknownSession(t *testing.T, s Stores) {
	_, _, _, err := s.Credentials.SessionByHash(context.Background(), session.HashOf("nope"))
	isKind(t, err, domain.ErrNotFound, "Credentials.SessionByHash: an unknown session")
}
