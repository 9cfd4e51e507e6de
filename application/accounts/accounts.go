// Package accounts is the operator's view of organizations and users:
// creating them, granting and revoking products, and seeding the first
// organization and admin of a new installation.
package accounts

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/id"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/ports"
)

// Service manages organizations and users.
type Service struct {
	orgs  ports.Organizations
	users ports.Users
	tx    ports.Transactor
	clock ports.Clock
}

// NewService returns the accounts service.
func NewService(orgs ports.Organizations, users ports.Users, tx ports.Transactor, clock ports.Clock) *Service {
	return &Service{orgs: orgs, users: users, tx: tx, clock: clock}
}

// CreateOrg creates an organization provisioned for products (normalize
// when none are named, the default of API.md §3).
func (s *Service) CreateOrg(ctx context.Context, name string, products []identity.Product) (identity.Organization, error) {
	if len(products) == 0 {
		products = []identity.Product{identity.Normalize}
	}
	org, err := identity.NewOrganization(id.New(id.Org), name, products, s.clock.Now())
	if err != nil {
		return identity.Organization{}, err
	}
	if err := s.orgs.Create(ctx, org); err != nil {
		return identity.Organization{}, fmt.Errorf("create organization: %w", err)
	}
	return org, nil
}

// NewUser describes a user to create.
type NewUser struct {
	OrgID    string
	Email    string
	Name     string
	Password string
	Role     identity.Role
	IsStaff  bool
}

// CreateUser creates a user in an existing organization.
func (s *Service) CreateUser(ctx context.Context, in NewUser) (identity.User, error) {
	email, err := identity.NormalizeEmail(in.Email)
	if err != nil {
		return identity.User{}, domain.Invalid("%q is not an email address", in.Email)
	}
	if in.Role == "" {
		in.Role = identity.Member
	}
	hash, err := identity.HashPassword(in.Password)
	if err != nil {
		return identity.User{}, domain.Invalid("%s", err.Error())
	}
	if _, err := s.orgs.Get(ctx, in.OrgID); err != nil {
		return identity.User{}, err
	}
	u := identity.User{ID: id.New(id.User), OrgID: in.OrgID, Email: email, Name: in.Name, Role: in.Role,
		IsStaff: in.IsStaff, PasswordHash: hash, CreatedAt: s.clock.Now().UTC()}
	if err := s.users.Create(ctx, u); err != nil {
		return identity.User{}, err
	}
	return u, nil
}

// Grant provisions an organization for a product and returns it.
func (s *Service) Grant(ctx context.Context, orgID string, p identity.Product) (identity.Organization, error) {
	if _, err := s.orgs.Get(ctx, orgID); err != nil {
		return identity.Organization{}, err
	}
	if err := s.orgs.Grant(ctx, orgID, p, s.clock.Now()); err != nil {
		return identity.Organization{}, err
	}
	return s.orgs.Get(ctx, orgID)
}

// Revoke removes a product from an organization and returns it.
func (s *Service) Revoke(ctx context.Context, orgID string, p identity.Product) (identity.Organization, error) {
	if _, err := s.orgs.Get(ctx, orgID); err != nil {
		return identity.Organization{}, err
	}
	if err := s.orgs.Revoke(ctx, orgID, p); err != nil {
		return identity.Organization{}, err
	}
	return s.orgs.Get(ctx, orgID)
}

// Seeded is what Seed created on a new installation.
type Seeded struct {
	Org      identity.Organization
	Admin    identity.User
	Password string // shown once, never stored in plaintext
}

// DefaultAdminEmail is the login of the first admin.
const DefaultAdminEmail = "admin@localhost"

// Seed creates organization "Default" with every product and its admin
// with a random password, but only when the database has no organization
// yet. It returns nil when there was nothing to do.
func (s *Service) Seed(ctx context.Context) (*Seeded, error) {
	var out *Seeded
	err := s.tx.InTx(ctx, func(ctx context.Context) error {
		n, err := s.orgs.Count(ctx)
		if err != nil || n > 0 {
			return err
		}
		org, err := s.CreateOrg(ctx, "Default", identity.Products)
		if err != nil {
			return err
		}
		password := randomPassword()
		admin, err := s.CreateUser(ctx, NewUser{OrgID: org.ID, Email: DefaultAdminEmail, Name: "Administrator",
			Password: password, Role: identity.Admin, IsStaff: true})
		if err != nil {
			return err
		}
		out = &Seeded{Org: org, Admin: admin, Password: password}
		return nil
	})
	if errors.Is(err, domain.ErrConflict) {
		return nil, nil // another process seeded it first
	}
	return out, err
}

// randomPassword returns 26 base32 characters (130 bits) from crypto/rand.
func randomPassword() string { return rand.Text() }

// ListOrgs returns organizations for the operator's command line, a page
// at a time.
func (s *Service) ListOrgs(ctx context.Context, page ports.Page) ([]identity.Organization, string, error) {
	return s.orgs.List(ctx, page)
}

// Org returns one organization; an unknown id is domain.ErrNotFound.
func (s *Service) Org(ctx context.Context, id string) (identity.Organization, error) {
	return s.orgs.Get(ctx, id)
}
