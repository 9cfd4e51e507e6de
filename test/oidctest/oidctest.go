// Package oidctest starts a real OpenID Connect provider on loopback for
// tests: zitadel/oidc's op (discovery, JWKS, authorization with PKCE,
// token endpoint, signed ID tokens) with its example storage and login
// page, and users of the test's choosing. Two switches make it misbehave
// the way providers do: ID tokens for another audience, and ID tokens
// that are already expired.
package oidctest

import (
	"context"
	"net"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/zitadel/oidc/v3/example/server/exampleop"
	"github.com/zitadel/oidc/v3/example/server/storage"
	"github.com/zitadel/oidc/v3/pkg/op"
	"golang.org/x/text/language"
)

// Password is every user's password at the provider.
const Password = "provider-password-1"

// User is a person the provider knows; Username is what its login page
// asks for (the e-mail address).
type User struct {
	Email    string
	Verified bool
	Name     string
}

// Provider is a running provider.
type Provider struct {
	Issuer       string
	ClientID     string
	ClientSecret string

	mu       sync.Mutex
	audience string        // "": the client's
	lifetime time.Duration // of ID tokens
}

// Start runs a provider with one web client (ClientID, ClientSecret) that
// may redirect to redirectURI, and the given users; it stops with the test.
func Start(t testing.TB, redirectURI string, users ...User) *Provider {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Provider{Issuer: "http://" + l.Addr().String(), ClientID: "tabnorm-test", ClientSecret: "client-secret-" + t.Name(), lifetime: time.Hour}
	store := userStore{users: map[string]*storage.User{}}
	for i, u := range users {
		su := &storage.User{ID: "sub-" + string(rune('a'+i)), Username: u.Email, Password: Password, FirstName: u.Name, Email: u.Email,
			EmailVerified: u.Verified, PreferredLanguage: language.English}
		store.users[su.ID] = su
	}
	clients := map[string]*storage.Client{p.ClientID: storage.WebClient(p.ClientID, p.ClientSecret, redirectURI)}
	st := &providerStorage{Storage: storage.NewStorageWithClients(store, clients), p: p}
	router := exampleop.SetupServer(p.Issuer, st, nil, false, op.WithAllowInsecure())
	srv := httptest.NewUnstartedServer(router)
	_ = srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	return p
}

// WrongAudience makes the provider issue ID tokens for another client.
func (p *Provider) WrongAudience() { p.mu.Lock(); p.audience = "someone-else"; p.mu.Unlock() }

// Expired makes the provider issue ID tokens that expired a minute ago.
func (p *Provider) Expired() { p.mu.Lock(); p.lifetime = -time.Minute; p.mu.Unlock() }

// Down returns the issuer URL of a provider that is not running: a
// loopback port nobody listens on.
func Down(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return "http://" + addr
}

type userStore struct{ users map[string]*storage.User }

func (s userStore) GetUserByID(id string) *storage.User { return s.users[id] }
func (s userStore) GetUserByUsername(name string) *storage.User {
	for _, u := range s.users {
		if u.Username == name {
			return u
		}
	}
	return nil
}
func (s userStore) ExampleClientID() string { return "service" }

// providerStorage is the example storage with the test's switches: the
// client's ID-token lifetime, user claims in the ID token, and the
// audience of the tokens of a code.
type providerStorage struct {
	*storage.Storage
	p *Provider
}

func (s *providerStorage) GetClientByClientID(ctx context.Context, id string) (op.Client, error) {
	c, err := s.Storage.GetClientByClientID(ctx, id)
	if err != nil {
		return nil, err
	}
	s.p.mu.Lock()
	defer s.p.mu.Unlock()
	return client{Client: c, lifetime: s.p.lifetime, id: s.p.audience}, nil
}

func (s *providerStorage) AuthRequestByCode(ctx context.Context, code string) (op.AuthRequest, error) {
	r, err := s.Storage.AuthRequestByCode(ctx, code)
	if err != nil {
		return nil, err
	}
	s.p.mu.Lock()
	defer s.p.mu.Unlock()
	if s.p.audience != "" {
		return audienceRequest{AuthRequest: r, audience: s.p.audience}, nil
	}
	return r, nil
}

// client is the example's client with the test's ID-token lifetime; when
// the provider is told to use another audience, it also answers to that
// id, so that the provider issues the code's tokens to that other client.
type client struct {
	op.Client
	lifetime time.Duration
	id       string
}

func (c client) GetID() string {
	if c.id != "" {
		return c.id
	}
	return c.Client.GetID()
}

func (c client) IDTokenLifetime() time.Duration       { return c.lifetime }
func (c client) IDTokenUserinfoClaimsAssertion() bool { return true }

type audienceRequest struct {
	op.AuthRequest
	audience string
}

func (r audienceRequest) GetAudience() []string { return []string{r.audience} }
func (r audienceRequest) GetClientID() string   { return r.audience }
