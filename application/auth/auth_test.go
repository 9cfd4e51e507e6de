package auth_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"

	"github.com/tabnorm/tabnorm/application/auth"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/apikey"
	"github.com/tabnorm/tabnorm/domain/entitlement"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/session"
	"github.com/tabnorm/tabnorm/domain/sso"
	"github.com/tabnorm/tabnorm/test/mocks"
)

var now = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

type fixture struct {
	creds    *mocks.Credentials
	orgs     *mocks.Organizations
	grants   *mocks.Entitlements
	users    *mocks.Users
	keys     *mocks.APIKeys
	sessions *mocks.Sessions
	audit    *mocks.AuditLog
	svc      *auth.Service
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	f := fixture{creds: mocks.NewCredentials(t), orgs: mocks.NewOrganizations(t), grants: mocks.NewEntitlements(t), users: mocks.NewUsers(t),
		keys: mocks.NewAPIKeys(t), sessions: mocks.NewSessions(t), audit: mocks.NewAuditLog(t)}
	clock := mocks.NewClock(t)
	clock.EXPECT().Now().Return(now).Maybe()
	f.svc = auth.NewService(f.creds, f.orgs, f.grants, f.users, f.keys, f.sessions, f.audit, noSSO{}, clock, auth.DefaultThrottle(), slog.New(slog.DiscardHandler))
	return f
}

// TestPolicy covers staff/non-staff × impersonating/not × product
// provisioned/not × role, through session authentication with the
// repositories mocked: what may the resulting principal do?
func TestPolicy(t *testing.T) {
	t.Parallel()
	var cases []policyCase
	for _, staff := range []bool{false, true} {
		for _, impersonating := range []bool{false, true} {
			for _, provisioned := range []bool{false, true} {
				for _, role := range []identity.Role{identity.Member, identity.Admin} {
					cases = append(cases, policyCase{staff: staff, impersonating: impersonating, provisioned: provisioned, role: role})
				}
			}
		}
	}
	for _, c := range cases {
		name := fmt.Sprintf("staff=%v/impersonating=%v/provisioned=%v/role=%s", c.staff, c.impersonating, c.provisioned, c.role)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			checkPolicy(t, c)
		})
	}
}

type policyCase struct {
	staff, impersonating, provisioned bool
	role                              identity.Role
}

// checkPolicy authenticates the case's session and checks what the
// principal may do.
func checkPolicy(t *testing.T, c policyCase) {
	t.Helper()
	f := newFixture(t)
	home := identity.Organization{ID: "org_home", Products: []identity.Product{identity.Normalize, identity.Connect}}
	customer := identity.Organization{ID: "org_customer"}
	if c.provisioned {
		customer.Products = []identity.Product{identity.Connect}
	}
	user := identity.User{ID: "usr_1", OrgID: home.ID, Role: c.role, IsStaff: c.staff}
	if !c.staff { // a non-staff user's own organization is the one whose entitlements are tested
		home.Products = customer.Products
	}
	ses, token := session.New(user.ID, home.ID, now.Add(-time.Hour))
	ses.LastSeenAt = now
	grants := grantsOf(home)
	if c.impersonating {
		at := now.Add(-time.Minute)
		ses.ImpersonatedOrgID, ses.ImpersonatedAt = customer.ID, &at
		grants = append(grants, grantsOf(customer)...)
	}
	f.creds.EXPECT().SessionByHash(mock.Anything, session.HashOf(token)).Return(ses, user, grants, nil)

	p, err := f.svc.AuthenticateSession(context.Background(), token)
	if err != nil {
		t.Fatal(err)
	}
	actingAsCustomer := c.staff && c.impersonating
	allowed(t, "Entitled(connect)", p.Entitled(identity.Connect), (c.staff && !c.impersonating) || c.provisioned, "forbidden_entitlement_missing")
	allowed(t, "CanManageKeys", p.CanManageKeys(), c.role == identity.Admin || actingAsCustomer, "insufficient_permissions")
	allowed(t, "CanImpersonate", p.CanImpersonate(), c.staff, "insufficient_permissions")
	want := home.ID
	if actingAsCustomer {
		want = customer.ID
	}
	if p.OrgID != want {
		t.Errorf("the principal acts for %s, want %s", p.OrgID, want)
	}
}

// grantsOf makes an admin grant without end of each of the organization's
// products, as the credentials read them.
func grantsOf(org identity.Organization) []entitlement.Entitlement {
	var out []entitlement.Entitlement
	for _, p := range org.Products {
		e, err := entitlement.Grant("ent_"+org.ID+"_"+string(p), org.ID, p, entitlement.Admin, "tabnorm admin", now.Add(-24*time.Hour), nil)
		if err != nil {
			panic(err)
		}
		out = append(out, e)
	}
	return out
}

// allowed checks a policy's answer: nil when want, else an error with code.
func allowed(t *testing.T, what string, err error, want bool, code domain.Code) {
	t.Helper()
	if (err == nil) != want {
		t.Errorf("%s = %v, want allowed=%v", what, err, want)
	} else if err != nil && domain.CodeOf(err) != code {
		t.Errorf("%s: code %q, want %q", what, domain.CodeOf(err), code)
	}
}

func TestAuthenticateKey(t *testing.T) {
	t.Parallel()
	org := identity.Organization{ID: "org_1", Products: []identity.Product{identity.Normalize}}
	t.Run("malformed_key_needs_no_database", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t) // no expectations: any repository call fails the test
		for _, k := range []string{"", "svc_live_short", "Bearer x", apikey.Generate()[:apikey.Length-1] + "!"} {
			if _, err := f.svc.AuthenticateKey(context.Background(), k, "192.0.2.1"); domain.CodeOf(err) != "invalid_api_key" {
				t.Errorf("%q: %v", k, err)
			}
		}
	})
	t.Run("revoked_key_is_invalid", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		plain := apikey.Generate()
		k := apikey.Key{ID: "key_1", OrgID: org.ID}
		k.Revoke(now)
		f.creds.EXPECT().KeyByHash(mock.Anything, apikey.HashOf(plain)).Return(k, grantsOf(org), nil)
		if _, err := f.svc.AuthenticateKey(context.Background(), plain, "192.0.2.1"); domain.CodeOf(err) != "invalid_api_key" {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("unknown_key_is_invalid", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.creds.EXPECT().KeyByHash(mock.Anything, mock.Anything).Return(apikey.Key{}, nil, domain.NotFound("API key"))
		if _, err := f.svc.AuthenticateKey(context.Background(), apikey.Generate(), "192.0.2.1"); domain.CodeOf(err) != "invalid_api_key" {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("valid_key_records_use_at_most_once_a_minute", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		plain := apikey.Generate()
		recent := now.Add(-10 * time.Second)
		f.creds.EXPECT().KeyByHash(mock.Anything, apikey.HashOf(plain)).Return(apikey.Key{ID: "key_1", OrgID: org.ID, LastUsedAt: &recent, LastUsedIP: "192.0.2.1"}, grantsOf(org), nil).Once()
		p, err := f.svc.AuthenticateKey(context.Background(), plain, "192.0.2.1")
		if err != nil || p.Method != identity.ByAPIKey || p.KeyID != "key_1" || p.OrgID != org.ID || p.Role != "" || p.Entitled(identity.Normalize) != nil {
			t.Fatalf("principal = %+v, %v", p, err)
		}
		// Used long ago: the use is recorded.
		old := now.Add(-time.Hour)
		f.creds.EXPECT().KeyByHash(mock.Anything, apikey.HashOf(plain)).Return(apikey.Key{ID: "key_1", OrgID: org.ID, LastUsedAt: &old}, grantsOf(org), nil).Once()
		f.keys.EXPECT().TouchLastUsed(mock.Anything, "key_1", now, "192.0.2.1").Return(nil).Once()
		if _, err := f.svc.AuthenticateKey(context.Background(), plain, "192.0.2.1"); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("expired_key_is_told_apart_and_carries_no_principal", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		plain := apikey.Generate()
		ended, later := now.Add(-time.Second), now.Add(time.Hour)
		f.creds.EXPECT().KeyByHash(mock.Anything, apikey.HashOf(plain)).Return(apikey.Key{ID: "key_1", OrgID: org.ID, ExpiresAt: &ended}, grantsOf(org), nil).Once()
		if p, err := f.svc.AuthenticateKey(context.Background(), plain, "192.0.2.1"); domain.CodeOf(err) != "api_key_expired" || p.OrgID != "" {
			t.Fatalf("expired key: %+v, %v", p, err)
		}
		f.creds.EXPECT().KeyByHash(mock.Anything, apikey.HashOf(plain)).Return(apikey.Key{ID: "key_1", OrgID: org.ID, ExpiresAt: &later, LastUsedAt: &now, LastUsedIP: "192.0.2.1",
			Scopes: []apikey.Scope{apikey.JobsRead}}, grantsOf(org), nil).Once()
		p, err := f.svc.AuthenticateKey(context.Background(), plain, "192.0.2.1")
		if err != nil || len(p.Scopes) != 1 || p.HasScope(apikey.JobsRead) != nil || domain.CodeOf(p.HasScope(apikey.JobsWrite)) != "insufficient_scope" {
			t.Fatalf("key before its expiry: %+v, %v", p, err)
		}
	})
}

func TestLogin(t *testing.T) {
	t.Parallel()
	hash, err := identity.HashPassword("right-password")
	if err != nil {
		t.Fatal(err)
	}
	user := identity.User{ID: "usr_1", OrgID: "org_1", Email: "ann@acme.test", Role: identity.Admin, PasswordHash: hash}
	org := identity.Organization{ID: "org_1", Products: []identity.Product{identity.Normalize}}
	client := identity.Client{IP: "198.51.100.7", UserAgent: "test"}

	t.Run("unknown_email_and_wrong_password_answer_alike", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.users.EXPECT().GetByEmail(mock.Anything, "nobody@acme.test").Return(identity.User{}, domain.NotFound("user"))
		f.users.EXPECT().GetByEmail(mock.Anything, "ann@acme.test").Return(user, nil)
		f.audit.EXPECT().Record(mock.Anything, mock.MatchedBy(func(e identity.AuditEntry) bool { return e.Action == "login_failed" })).Return(nil)
		_, _, err1 := f.svc.Login(context.Background(), "nobody@acme.test", "right-password", client)
		_, _, err2 := f.svc.Login(context.Background(), "ann@acme.test", "wrong-password", client)
		if domain.CodeOf(err1) != "invalid_credentials" || err1.Error() != err2.Error() {
			t.Fatalf("answers differ: %v / %v", err1, err2)
		}
	})
	t.Run("good_login_creates_a_session_and_audits", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.users.EXPECT().GetByEmail(mock.Anything, "ann@acme.test").Return(user, nil)
		var created session.Session
		f.sessions.EXPECT().Create(mock.Anything, mock.Anything).RunAndReturn(func(_ context.Context, s session.Session) error {
			created = s
			return nil
		})
		f.orgs.EXPECT().Get(mock.Anything, "org_1").Return(identity.Organization{ID: org.ID}, nil)
		f.grants.EXPECT().Current(mock.Anything, "org_1").Return(grantsOf(org), nil).Once()
		f.audit.EXPECT().Record(mock.Anything, mock.MatchedBy(func(e identity.AuditEntry) bool {
			return e.Action == "login" && e.IP == client.IP && e.ActorUserID == user.ID
		})).Return(nil)
		me, token, err := f.svc.Login(context.Background(), " Ann@Acme.test", "right-password", client)
		if err != nil || me.User.ID != user.ID || created.Hash != session.HashOf(token) || created.UserID != user.ID ||
			!me.Organization.Has(identity.Normalize) || me.Principal.Entitled(identity.Normalize) != nil {
			t.Fatalf("Login = %+v, %v", me, err)
		}
	})
	t.Run("repeated_failures_are_throttled", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.users.EXPECT().GetByEmail(mock.Anything, "ann@acme.test").Return(user, nil).Times(5)
		f.audit.EXPECT().Record(mock.Anything, mock.Anything).Return(nil).Times(5)
		for range 5 {
			if _, _, err := f.svc.Login(context.Background(), "ann@acme.test", "guess", client); domain.CodeOf(err) != "invalid_credentials" {
				t.Fatal(err)
			}
		}
		_, _, err := f.svc.Login(context.Background(), "ann@acme.test", "right-password", client)
		var coded *domain.Error
		if domain.CodeOf(err) != "rate_limited" || !asCoded(err, &coded) || coded.RetryAfter <= 0 {
			t.Fatalf("sixth attempt: %v", err)
		}
	})
}

func asCoded(err error, target **domain.Error) bool {
	e, ok := err.(*domain.Error)
	*target = e
	return ok
}

func TestAuthenticateSession_expiredIsDeleted(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ses, token := session.New("usr_1", "org_1", now.Add(-13*time.Hour))
	f.creds.EXPECT().SessionByHash(mock.Anything, ses.Hash).Return(ses, identity.User{ID: "usr_1"}, nil, nil)
	f.sessions.EXPECT().Delete(mock.Anything, ses.Hash).Return(nil)
	if _, err := f.svc.AuthenticateSession(context.Background(), token); domain.CodeOf(err) != "unauthenticated" {
		t.Fatalf("err = %v", err)
	}
}

// TestAuthenticateKey_throttlesFailuresPerAddress: past
// KeyFailuresPerAddress invalid keys, an address gets rate_limited with
// Retry-After before any database read, while a key found valid is not
// slowed and another address is not affected.
func TestAuthenticateKey_throttlesFailuresPerAddress(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	org := identity.Organization{ID: "org_1", Products: []identity.Product{identity.Normalize}}
	f := newFixture(t)
	good := apikey.Generate()
	recent := now.Add(-10 * time.Second)
	f.creds.EXPECT().KeyByHash(mock.Anything, apikey.HashOf(good)).Return(apikey.Key{ID: "key_1", OrgID: org.ID, LastUsedAt: &recent}, grantsOf(org), nil).Times(3)
	if _, err := f.svc.AuthenticateKey(ctx, good, "198.51.100.7"); err != nil {
		t.Fatal(err)
	}
	// Unknown keys: each one a database read, until the limit.
	f.creds.EXPECT().KeyByHash(mock.Anything, mock.Anything).Return(apikey.Key{}, nil, domain.NotFound("API key")).Times(auth.KeyFailuresPerAddress - 5)
	for i := range auth.KeyFailuresPerAddress {
		key := apikey.Generate()
		if i < 5 {
			key = "svc_live_malformed" // malformed keys count too
		}
		if _, err := f.svc.AuthenticateKey(ctx, key, "198.51.100.7"); domain.CodeOf(err) != domain.CodeInvalidAPIKey {
			t.Fatalf("failure %d: %v", i+1, err)
		}
	}
	_, err := f.svc.AuthenticateKey(ctx, apikey.Generate(), "198.51.100.7")
	var coded *domain.Error
	if domain.CodeOf(err) != domain.CodeRateLimited || !errors.As(err, &coded) || coded.RetryAfter < 1 || coded.RetryAfter > 60 {
		t.Fatalf("past the limit: %v", err)
	}
	if _, err := f.svc.AuthenticateKey(ctx, good, "198.51.100.7"); err != nil {
		t.Fatalf("a valid key from a throttled address: %v", err)
	}
	if _, err := f.svc.AuthenticateKey(ctx, good, "203.0.113.9"); err != nil {
		t.Fatalf("another address: %v", err)
	}
}

// noSSO is the settings store of a service where no organization uses
// single sign-on.
type noSSO struct{}

func (noSSO) Get(context.Context, string) (sso.Config, error) {
	return sso.Config{}, domain.NotFound("sso")
}
func (noSSO) ByDomain(context.Context, string) (sso.Config, error) {
	return sso.Config{}, domain.NotFound("sso")
}
func (noSSO) Put(context.Context, sso.Config) error { return nil }
func (noSSO) Delete(context.Context, string) error  { return domain.NotFound("sso") }
