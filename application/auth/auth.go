// Package auth authenticates callers (API keys and dashboard sessions),
// signs people in and out, and lets staff impersonate an organization. It
// returns the identity.Principal that every other use case is given.
package auth

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"time"

	"github.com/tabnorm/tabnorm/application/accounts"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/apikey"
	"github.com/tabnorm/tabnorm/domain/entitlement"
	"github.com/tabnorm/tabnorm/domain/id"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/session"
	"github.com/tabnorm/tabnorm/domain/sso"
	"github.com/tabnorm/tabnorm/ports"
)

// Service is the authentication use cases.
type Service struct {
	creds    ports.Credentials
	orgs     ports.Organizations
	grants   ports.Entitlements
	users    ports.Users
	keys     ports.APIKeys
	sessions ports.Sessions
	audit    ports.AuditLog
	sso      ports.SSOConfigs
	clock    ports.Clock
	throttle *Throttle
	keyGuard *keyGuard
	log      *slog.Logger
}

// NewService returns the auth service.
func NewService(creds ports.Credentials, orgs ports.Organizations, grants ports.Entitlements, users ports.Users, keys ports.APIKeys, sessions ports.Sessions,
	audit ports.AuditLog, sso ports.SSOConfigs, clock ports.Clock, throttle *Throttle, log *slog.Logger) *Service {
	return &Service{creds: creds, orgs: orgs, grants: grants, users: users, keys: keys, sessions: sessions, audit: audit, sso: sso, clock: clock, throttle: throttle,
		keyGuard: newKeyGuard(), log: log}
}

var (
	errInvalidKey      = domain.Errorf(domain.ErrUnauthenticated, domain.CodeInvalidAPIKey, "The API key is not valid.")
	errKeyExpired      = domain.Errorf(domain.ErrUnauthenticated, domain.CodeAPIKeyExpired, "The API key expired; create another.")
	errUnauthenticated = domain.Errorf(domain.ErrUnauthenticated, domain.CodeUnauthenticated, "Sign in again: the session is missing or expired.")
	errBadCredentials  = domain.Errorf(domain.ErrUnauthenticated, domain.CodeInvalidCredentials, "The email or password is wrong.")
)

// AuthenticateKey checks a key presented from the client address addr,
// throttling the addresses that present invalid keys (see
// KeyFailuresPerAddress).
func (s *Service) AuthenticateKey(ctx context.Context, plaintext, addr string) (identity.Principal, error) {
	now, h := s.clock.Now(), apikey.HashOf(plaintext)
	if err := s.keyGuard.check(addr, h, now); err != nil {
		return identity.Principal{}, err
	}
	p, err := s.authenticateKey(ctx, plaintext, addr)
	switch {
	case err == nil:
		s.keyGuard.valid(h, now)
	case errors.Is(err, errInvalidKey):
		s.keyGuard.failed(addr, now)
	}
	return p, err
}

// GuardSecret runs authenticate, the check of another bearer secret
// presented from addr (an import session's client secret), under the
// throttle of invalid API keys, so that guessing either costs the address
// alike: a throttled address is refused before authenticate runs (and
// before its database read) unless the secret was found valid lately, and
// an error wrapping invalid counts as a failure of the address.
func (s *Service) GuardSecret(addr, secret string, invalid error, authenticate func() error) error {
	now, h := s.clock.Now(), apikey.Hash(sha256.Sum256([]byte(secret)))
	if err := s.keyGuard.check(addr, h, now); err != nil {
		return err
	}
	err := authenticate()
	switch {
	case err == nil:
		s.keyGuard.valid(h, now)
	case errors.Is(err, invalid):
		s.keyGuard.failed(addr, now)
	}
	return err
}

// authenticateKey turns a presented API key into a principal. Malformed
// keys are refused before any database read; revoked and unknown keys get
// the same answer. Nothing is cached, so a revocation applies on the very
// next request on every node.
func (s *Service) authenticateKey(ctx context.Context, plaintext, addr string) (identity.Principal, error) {
	if err := apikey.Validate(plaintext); err != nil {
		return identity.Principal{}, errInvalidKey
	}
	k, grants, err := s.creds.KeyByHash(ctx, apikey.HashOf(plaintext))
	if errors.Is(err, domain.ErrNotFound) {
		return identity.Principal{}, errInvalidKey
	}
	if err != nil {
		return identity.Principal{}, fmt.Errorf("find API key: %w", err)
	}
	if k.Revoked() {
		return identity.Principal{}, errInvalidKey
	}
	now := s.clock.Now()
	if k.Expired(now) { // a known key: told apart from an unknown one, so its owner knows to make another
		return identity.Principal{}, errKeyExpired
	}
	// The time and address of use are written at most once a minute, so
	// that authenticating stays a read: the address shown is the one of
	// the last recorded use.
	if k.LastUsedStale(now) {
		if err := s.keys.TouchLastUsed(ctx, k.ID, now, addr); err != nil {
			s.log.WarnContext(ctx, "record API key use", "key_id", k.ID, "error", err)
		}
	}
	return identity.Principal{Method: identity.ByAPIKey, OrgID: k.OrgID, Products: entitlement.Products(grants, k.OrgID, now),
		KeyID: k.ID, UserID: k.CreatedBy, Scopes: k.Scopes}, nil
}

// AuthenticateSession turns a session cookie into a principal, sliding
// its idle timeout. Expired sessions are deleted.
func (s *Service) AuthenticateSession(ctx context.Context, token string) (identity.Principal, error) {
	if !session.ValidToken(token) {
		return identity.Principal{}, errUnauthenticated
	}
	h := session.HashOf(token)
	ses, user, grants, err := s.creds.SessionByHash(ctx, h)
	if errors.Is(err, domain.ErrNotFound) {
		return identity.Principal{}, errUnauthenticated
	}
	if err != nil {
		return identity.Principal{}, fmt.Errorf("find session: %w", err)
	}
	now := s.clock.Now()
	if user.Disabled() { // disabling deletes the sessions; this covers one that raced it
		return identity.Principal{}, errUnauthenticated
	}
	if ses.Expired(now) {
		if err := s.sessions.Delete(ctx, h); err != nil {
			s.log.WarnContext(ctx, "delete expired session", "error", err)
		}
		return identity.Principal{}, errUnauthenticated
	}
	p := principalFor(user, ses, grants, now)
	if ses.NeedsTouch(now) {
		if err := s.sessions.Touch(ctx, h, now); err != nil {
			s.log.WarnContext(ctx, "touch session", "error", err)
		}
	}
	return p, nil
}

// principalFor builds a session principal from the grants of the
// organizations involved, as they stand at now; while impersonating, the
// impersonated organization and its entitlements apply, and staff act as
// its admin.
func principalFor(user identity.User, ses session.Session, grants []entitlement.Entitlement, now time.Time) identity.Principal {
	p := identity.Principal{Method: identity.BySession, UserID: user.ID, Role: user.Role, IsStaff: user.IsStaff,
		OrgID: user.OrgID, HomeOrgID: user.OrgID, SessionHash: ses.Hash}
	if ses.Impersonating() && user.IsStaff {
		p.Impersonating, p.ImpersonatedAt, p.Role, p.OrgID = true, ses.ImpersonatedAt, identity.Admin, ses.ImpersonatedOrgID
	}
	p.Products = entitlement.Products(grants, p.OrgID, now)
	return p
}

// Me is who a session belongs to, as /auth/me shows it.
type Me struct {
	User         identity.User
	Organization identity.Organization // the effective one (impersonated while impersonating)
	Principal    identity.Principal
}

// Login checks an email and password and starts a session. Unknown emails
// and wrong passwords take the same time and get the same answer;
// repeated failures are throttled. The attempt is reserved before the
// password is hashed, so concurrent guesses cannot all slip under the
// limit, and only so many hashes (64 MiB each) run at once.
func (s *Service) Login(ctx context.Context, email, password string, c identity.Client) (Me, string, error) {
	attempt, wait := s.throttle.Reserve(email, c.IP, s.clock.Now())
	if wait > 0 {
		return Me{}, "", &domain.Error{Kind: domain.ErrTooMany, Code: domain.CodeRateLimited,
			Message: "Too many failed sign-ins; try again later.", RetryAfter: int(wait.Seconds() + 1)}
	}
	// From here the attempt counts as a failure unless it succeeds.
	normalized, _ := identity.NormalizeEmail(email)
	user, err := s.users.GetByEmail(ctx, normalized)
	if err != nil && !errors.Is(err, domain.ErrNotFound) {
		attempt.Abandon()
		return Me{}, "", fmt.Errorf("find user: %w", err)
	}
	breakGlass, refused := s.passwordAllowed(ctx, normalized, user, err == nil, c)
	if refused != nil {
		return Me{}, "", refused
	}
	hash := identity.DummyHash()
	if err == nil {
		hash = user.PasswordHash
	}
	release, busy := s.throttle.Hashing(ctx)
	if busy {
		attempt.Abandon()
		return Me{}, "", &domain.Error{Kind: domain.ErrTooMany, Code: domain.CodeRateLimited,
			Message: "Too many sign-ins at once; retry after the number of seconds in Retry-After.", RetryAfter: 1}
	}
	ok, checkErr := identity.CheckPassword(hash, password)
	release()
	if err != nil || !ok || checkErr != nil || user.Disabled() {
		// A disabled user gets the answer of a wrong password, after the
		// same work, so a guesser learns nothing of the account.
		s.record(ctx, identity.AuditEntry{OrgID: user.OrgID, ActorUserID: user.ID, Action: "login_failed"}, c)
		return Me{}, "", errBadCredentials
	}
	attempt.Succeeded()
	if breakGlass {
		s.record(ctx, identity.AuditEntry{OrgID: user.OrgID, ActorUserID: user.ID, Action: "login.break_glass", TargetID: user.ID}, c)
	}
	return s.signIn(ctx, user, "login", c)
}

// passwordAllowed applies the organization's single sign-on: when it
// requires SSO, a password is refused (403 sso_required) before it is
// checked, except to staff and the break-glass admin (breakGlass: that
// sign-in is audited besides the login). An unknown address of a domain
// that requires SSO is refused alike, so the answer tells nothing of
// which accounts exist. A refusal counts as a failed attempt.
func (s *Service) passwordAllowed(ctx context.Context, email string, user identity.User, found bool, c identity.Client) (breakGlass bool, refused error) {
	var cfg sso.Config
	var err error
	if found {
		cfg, err = s.sso.Get(ctx, user.OrgID)
	} else {
		cfg, err = s.sso.ByDomain(ctx, sso.DomainOf(email))
	}
	if errors.Is(err, domain.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read sso settings: %w", err)
	}
	if !found {
		if cfg.Required {
			return false, sso.ErrRequired
		}
		return false, nil
	}
	allowed, breakGlass := cfg.PasswordAllowed(user)
	if !allowed {
		s.record(ctx, identity.AuditEntry{OrgID: user.OrgID, ActorUserID: user.ID, Action: "login.password_refused", TargetID: user.ID}, c)
		return false, sso.ErrRequired
	}
	return breakGlass, nil
}

// SignInAs starts a session for a user someone else authenticated (an
// organization's identity provider), recorded as action, with the
// client of ctx; the session is the one a password starts.
func (s *Service) SignInAs(ctx context.Context, user identity.User, action string) (Me, string, error) {
	return s.signIn(ctx, user, action, identity.ClientOf(ctx))
}

func (s *Service) signIn(ctx context.Context, user identity.User, action string, c identity.Client) (Me, string, error) {
	now := s.clock.Now()
	ses, token := session.New(user.ID, user.OrgID, now)
	ses.IP, ses.UserAgent = c.IP, truncate(c.UserAgent, 512)
	if err := s.sessions.Create(ctx, ses); err != nil {
		return Me{}, "", fmt.Errorf("create session: %w", err)
	}
	s.record(ctx, identity.AuditEntry{OrgID: user.OrgID, ActorUserID: user.ID, Action: action}, c)
	me, err := s.me(ctx, user, ses)
	return me, token, err
}

// Me returns the signed-in user and their effective organization.
func (s *Service) Me(ctx context.Context, p identity.Principal) (Me, error) {
	if p.Method != identity.BySession {
		return Me{}, errUnauthenticated
	}
	user, err := s.users.Get(ctx, p.UserID)
	if err != nil {
		return Me{}, err
	}
	ses, err := s.sessions.Get(ctx, p.SessionHash)
	if err != nil {
		return Me{}, errUnauthenticated
	}
	return s.me(ctx, user, ses)
}

func (s *Service) me(ctx context.Context, user identity.User, ses session.Session) (Me, error) {
	orgID := user.OrgID
	if ses.Impersonating() && user.IsStaff {
		orgID = ses.ImpersonatedOrgID
	}
	org, err := s.orgs.Get(ctx, orgID)
	if err != nil {
		return Me{}, err
	}
	grants, err := s.grants.Current(ctx, org.ID)
	if err != nil {
		return Me{}, fmt.Errorf("read entitlements: %w", err)
	}
	now := s.clock.Now()
	org.Products = entitlement.Products(grants, org.ID, now)
	p := principalFor(user, ses, grants, now)
	return Me{User: user, Organization: org, Principal: p}, nil
}

// Logout deletes the session server-side.
func (s *Service) Logout(ctx context.Context, p identity.Principal, c identity.Client) error {
	if p.Method != identity.BySession {
		return errUnauthenticated
	}
	if err := s.sessions.Delete(ctx, p.SessionHash); err != nil {
		return fmt.Errorf("delete session: %w", err)
	}
	s.record(ctx, identity.AuditEntry{OrgID: p.HomeOrgID, ActorUserID: p.UserID, Action: "logout"}, c)
	return nil
}

// Impersonate lets a staff member act as another organization.
func (s *Service) Impersonate(ctx context.Context, p identity.Principal, orgID string, c identity.Client) (Me, error) {
	if err := p.CanImpersonate(); err != nil {
		return Me{}, err
	}
	if _, err := s.orgs.Get(ctx, orgID); err != nil {
		return Me{}, err
	}
	now := s.clock.Now()
	if err := s.sessions.SetImpersonation(ctx, p.SessionHash, orgID, &now); err != nil {
		return Me{}, fmt.Errorf("start impersonation: %w", err)
	}
	// Switching straight from one organization to another ends the first
	// impersonation: its logs must show where it stopped.
	if p.Impersonating && p.OrgID != orgID {
		s.recordStop(ctx, p, c)
	}
	// Recorded in both organizations' logs: the staff member's and the customer's.
	s.record(ctx, identity.AuditEntry{OrgID: orgID, ActorUserID: p.UserID, Action: "impersonation.start", TargetID: orgID}, c)
	if p.HomeOrgID != orgID {
		s.record(ctx, identity.AuditEntry{OrgID: p.HomeOrgID, ActorUserID: p.UserID, Action: "impersonation.start", TargetID: orgID}, c)
	}
	p.Impersonating = true
	return s.Me(ctx, p)
}

// StopImpersonating returns a staff member to their own organization.
func (s *Service) StopImpersonating(ctx context.Context, p identity.Principal, c identity.Client) (Me, error) {
	if err := p.CanImpersonate(); err != nil {
		return Me{}, err
	}
	if p.Impersonating {
		if err := s.sessions.SetImpersonation(ctx, p.SessionHash, "", nil); err != nil {
			return Me{}, fmt.Errorf("stop impersonation: %w", err)
		}
		s.recordStop(ctx, p, c)
	}
	return s.Me(ctx, p)
}

// recordStop writes the end of p's impersonation in both organizations'
// logs, as its start was.
func (s *Service) recordStop(ctx context.Context, p identity.Principal, c identity.Client) {
	s.record(ctx, identity.AuditEntry{OrgID: p.OrgID, ActorUserID: p.UserID, Action: "impersonation.stop", TargetID: p.OrgID}, c)
	if p.HomeOrgID != p.OrgID {
		s.record(ctx, identity.AuditEntry{OrgID: p.HomeOrgID, ActorUserID: p.UserID, Action: "impersonation.stop", TargetID: p.OrgID}, c)
	}
}

// ListOrganizations is the staff view of every organization.
func (s *Service) ListOrganizations(ctx context.Context, p identity.Principal, page ports.Page) ([]identity.Organization, string, error) {
	if err := p.CanListOrganizations(); err != nil {
		return nil, "", err
	}
	return accounts.ListWithProducts(ctx, s.orgs, s.grants, s.clock.Now(), page)
}

// record writes an audit entry; a failure is logged, not returned, so an
// audit hiccup never signs someone out.
func (s *Service) record(ctx context.Context, e identity.AuditEntry, c identity.Client) {
	e.ID, e.IP, e.UserAgent, e.RequestID, e.At = id.New("aud"), c.IP, truncate(c.UserAgent, 512), c.RequestID, s.clock.Now()
	if e.OrgID == "" {
		return // a failed login for an unknown email belongs to no organization
	}
	if err := s.audit.Record(ctx, e); err != nil {
		s.log.ErrorContext(ctx, "write audit entry", "action", e.Action, "error", err)
	}
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// Throttle limits sign-ins, in memory and per node like the rate limits:
// failed attempts per email and client address pair (so one client
// cannot lock everyone out of an account) and per client address (a
// higher bound on one client spraying many emails), and how many password
// hashes run at once.
type Throttle struct {
	mu       sync.Mutex
	failures map[string][]time.Time
	max      int
	window   time.Duration
	hashes   chan struct{}
	queue    time.Duration
}

// perAddress is how many more failures a client address may have, over
// all emails, than one email from it.
const perAddress = 10

// NewThrottle allows limit failures per email and address within window
// (perAddress times as many per address), and hashes password checks at
// once; a check waits up to queue for its turn.
func NewThrottle(limit int, window time.Duration, hashes int, queue time.Duration) *Throttle {
	return &Throttle{failures: map[string][]time.Time{}, max: limit, window: window, hashes: make(chan struct{}, hashes), queue: queue}
}

// DefaultThrottle allows 5 failures a quarter hour per email and address,
// 50 per address, and two password checks per processor at once (each
// takes 64 MiB) that wait at most a second for their turn.
func DefaultThrottle() *Throttle {
	return NewThrottle(5, 15*time.Minute, 2*runtime.GOMAXPROCS(0), time.Second)
}

type throttleKey struct {
	name string
	max  int
}

func (t *Throttle) keysFor(email, ip string) []throttleKey {
	normalized, _ := identity.NormalizeEmail(email)
	return []throttleKey{{"pair:" + ip + " " + normalized, t.max}, {"ip:" + ip, t.max * perAddress}}
}

// Attempt is a reserved sign-in attempt. It counts as a failure from the
// moment it is reserved, so concurrent attempts see each other.
type Attempt struct {
	t    *Throttle
	keys []throttleKey
	at   time.Time
}

// Reserve counts an attempt before its password is checked, or returns
// how long the caller must wait when the limit is reached.
func (t *Throttle) Reserve(email, ip string, now time.Time) (*Attempt, time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	keys := t.keysFor(email, ip)
	var wait time.Duration
	for _, k := range keys {
		recent := t.prune(k.name, now)
		if len(recent) >= k.max {
			if w := recent[0].Add(t.window).Sub(now); w > wait {
				wait = max(w, time.Second)
			}
		}
	}
	if wait > 0 {
		return nil, wait
	}
	for _, k := range keys {
		t.failures[k.name] = append(t.failures[k.name], now)
	}
	if len(t.failures) > 100_000 { // bound memory under a spray of addresses
		for k := range t.failures {
			t.prune(k, now)
		}
	}
	return &Attempt{t: t, keys: keys, at: now}, 0
}

// Succeeded forgets the failures of the email from this address, and
// this attempt's count against the address.
func (a *Attempt) Succeeded() {
	a.t.mu.Lock()
	defer a.t.mu.Unlock()
	delete(a.t.failures, a.keys[0].name)
	a.t.forget(a.keys[1].name, a.at)
}

// Abandon forgets an attempt that was never checked (a database error, no
// turn to hash): it was not a wrong password.
func (a *Attempt) Abandon() {
	a.t.mu.Lock()
	defer a.t.mu.Unlock()
	for _, k := range a.keys {
		a.t.forget(k.name, a.at)
	}
}

// forget removes one entry at time at from key's list.
func (t *Throttle) forget(key string, at time.Time) {
	list := t.failures[key]
	for i, x := range list {
		if x.Equal(at) {
			list = append(list[:i:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(t.failures, key)
		return
	}
	t.failures[key] = list
}

// Hashing waits for a turn to check a password; busy when none came
// within the queue time. release gives the turn back.
func (t *Throttle) Hashing(ctx context.Context) (release func(), busy bool) {
	release = func() {
		<-t.hashes
		// Each check allocates 64 MiB that is garbage once it returns:
		// collect it now rather than when the heap has doubled, so a
		// flood of sign-ins holds about the checks in flight, not twice.
		go runtime.GC()
	}
	select {
	case t.hashes <- struct{}{}:
		return release, false
	default:
	}
	timer := time.NewTimer(t.queue)
	defer timer.Stop()
	select {
	case t.hashes <- struct{}{}:
		return release, false
	case <-timer.C:
	case <-ctx.Done():
	}
	return nil, true
}

func (t *Throttle) prune(k string, now time.Time) []time.Time {
	list := t.failures[k]
	i := 0
	for i < len(list) && now.Sub(list[i]) >= t.window {
		i++
	}
	list = list[i:]
	if len(list) == 0 {
		delete(t.failures, k)
		return nil
	}
	t.failures[k] = list
	return list
}
