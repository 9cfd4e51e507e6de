// Package keys manages an organization's API keys: create (the plaintext
// is returned once and never stored), list and revoke.
package keys

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/apikey"
	"github.com/tabnorm/tabnorm/domain/id"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/ports"
)

// Service is the key management use cases.
type Service struct {
	keys  ports.APIKeys
	audit ports.AuditLog
	tx    ports.Transactor
	clock ports.Clock
}

// NewService returns the keys service.
func NewService(keys ports.APIKeys, audit ports.AuditLog, tx ports.Transactor, clock ports.Clock) *Service {
	return &Service{keys: keys, audit: audit, tx: tx, clock: clock}
}

// NewKey is what a new key is asked to be.
type NewKey struct {
	Name string
	// Scopes are the names of its scopes; nil gives every scope (admin),
	// as keys had before scopes existed; an empty list is invalid.
	Scopes []string
	// ExpiresAt, when set, must be in the future (at most five years).
	ExpiresAt *time.Time
}

// Create makes a key for the principal's organization and returns it with
// its plaintext, which exists only in this return value.
func (s *Service) Create(ctx context.Context, p identity.Principal, req NewKey, c identity.Client) (apikey.Key, string, error) {
	if err := p.CanManageKeys(); err != nil {
		return apikey.Key{}, "", err
	}
	return s.create(ctx, p.OrgID, p.UserID, req, c)
}

// CreateForOperator makes a key from the operator's command line.
func (s *Service) CreateForOperator(ctx context.Context, orgID string, req NewKey) (apikey.Key, string, error) {
	return s.create(ctx, orgID, "", req, identity.Client{UserAgent: "tabnorm admin"})
}

func (s *Service) create(ctx context.Context, orgID, userID string, req NewKey, c identity.Client) (apikey.Key, string, error) {
	name := strings.TrimSpace(req.Name)
	if name == "" || utf8.RuneCountInString(name) > 100 {
		return apikey.Key{}, "", &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidRequest, Message: "A key needs a name of 1 to 100 characters.",
			Fields: []domain.FieldError{{Field: "name", Message: "must be 1 to 100 characters"}}}
	}
	scopes := []apikey.Scope{apikey.AdminScope}
	if req.Scopes != nil {
		var err error
		if scopes, err = apikey.ParseScopes(req.Scopes); err != nil {
			return apikey.Key{}, "", err
		}
	}
	now := s.clock.Now()
	if err := apikey.CheckExpiry(req.ExpiresAt, now); err != nil {
		return apikey.Key{}, "", err
	}
	var expires *time.Time
	if req.ExpiresAt != nil {
		t := req.ExpiresAt.UTC().Truncate(time.Second)
		expires = &t
	}
	plain := apikey.Generate()
	k := apikey.Key{ID: id.New(id.Key), OrgID: orgID, Name: name, Hash: apikey.HashOf(plain), Last4: apikey.Last4(plain),
		CreatedBy: userID, CreatedAt: now, Scopes: scopes, ExpiresAt: expires}
	err := s.tx.InTx(ctx, func(ctx context.Context) error {
		if err := s.keys.Create(ctx, k); err != nil {
			return err
		}
		return s.audit.Record(ctx, identity.AuditEntry{ID: id.New("aud"), OrgID: orgID, ActorUserID: userID,
			Action: "api_key.create", TargetID: k.ID, IP: c.IP, UserAgent: c.UserAgent, RequestID: c.RequestID, At: now})
	})
	if err != nil {
		return apikey.Key{}, "", fmt.Errorf("create API key: %w", err)
	}
	return k, plain, nil
}

// List returns the organization's keys, newest first, without plaintexts.
func (s *Service) List(ctx context.Context, p identity.Principal, page ports.Page) ([]apikey.Key, string, error) {
	if err := p.CanManageKeys(); err != nil {
		return nil, "", err
	}
	return s.keys.List(ctx, p.OrgID, page)
}

// Revoke revokes a key of the principal's organization; it takes effect on
// the next request. Revoking a revoked key returns it unchanged.
func (s *Service) Revoke(ctx context.Context, p identity.Principal, keyID string, c identity.Client) (apikey.Key, error) {
	if err := p.CanManageKeys(); err != nil {
		return apikey.Key{}, err
	}
	var k apikey.Key
	err := s.tx.InTx(ctx, func(ctx context.Context) error {
		now := s.clock.Now()
		var changed bool
		var err error
		if k, changed, err = s.keys.Revoke(ctx, p.OrgID, keyID, now); err != nil || !changed {
			return err // revoking a revoked key changes nothing and is not audited again
		}
		e := identity.AuditBy(p, c, "api_key.revoke", k.ID, now)
		e.ID = id.New("aud")
		return s.audit.Record(ctx, e)
	})
	return k, err
}

// RevokeForOperator revokes a key of an organization from the operator's
// command line; it takes effect on the next request on every node.
func (s *Service) RevokeForOperator(ctx context.Context, orgID, keyID string) (apikey.Key, error) {
	var k apikey.Key
	err := s.tx.InTx(ctx, func(ctx context.Context) error {
		now := s.clock.Now()
		var changed bool
		var err error
		if k, changed, err = s.keys.Revoke(ctx, orgID, keyID, now); err != nil || !changed {
			return err
		}
		return s.audit.Record(ctx, identity.AuditEntry{ID: id.New("aud"), OrgID: orgID, Action: "api_key.revoke",
			TargetID: k.ID, UserAgent: "tabnorm admin", At: now})
	})
	return k, err
}

// ListForOperator returns an organization's keys for the operator's
// command line, a page at a time.
func (s *Service) ListForOperator(ctx context.Context, orgID string, page ports.Page) ([]apikey.Key, string, error) {
	return s.keys.List(ctx, orgID, page)
}
