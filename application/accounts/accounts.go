// Package accounts is the operator's view of organizations and users:
// creating them, granting and revoking products (entitlements with their
// history and end, ports.Entitlements), and seeding the first
// organization and admin of a new installation.
package accounts

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"time"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/entitlement"
	"github.com/tabnorm/tabnorm/domain/id"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/ports"
)

// Service manages organizations and users.
type Service struct {
	orgs     ports.Organizations
	grants   ports.Entitlements
	users    ports.Users
	sessions ports.Sessions
	audit    ports.AuditLog
	tx       ports.Transactor
	clock    ports.Clock
}

// NewService returns the accounts service.
func NewService(orgs ports.Organizations, grants ports.Entitlements, users ports.Users, sessions ports.Sessions, audit ports.AuditLog, tx ports.Transactor, clock ports.Clock) *Service {
	return &Service{orgs: orgs, grants: grants, users: users, sessions: sessions, audit: audit, tx: tx, clock: clock}
}

// CreateOrg creates an organization with an admin grant without end of
// each product (normalize when none are named, the default of API.md §3).
func (s *Service) CreateOrg(ctx context.Context, name string, products []identity.Product) (identity.Organization, error) {
	if len(products) == 0 {
		products = []identity.Product{identity.Normalize}
	}
	now := s.clock.Now()
	org, err := identity.NewOrganization(id.New(id.Org), name, products, now)
	if err != nil {
		return identity.Organization{}, err
	}
	err = s.tx.InTx(ctx, func(ctx context.Context) error {
		if err := s.orgs.Create(ctx, org); err != nil {
			return fmt.Errorf("create organization: %w", err)
		}
		for _, p := range products {
			if _, err := s.grant(ctx, org.ID, p, now, nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return identity.Organization{}, err
	}
	return org, nil
}

// grant records an operator's grant of p.
func (s *Service) grant(ctx context.Context, orgID string, p identity.Product, now time.Time, until *time.Time) (entitlement.Entitlement, error) {
	e, err := entitlement.Grant(id.New(entitlement.IDPrefix), orgID, p, entitlement.Admin, operatorAgent, now, until)
	if err != nil {
		return entitlement.Entitlement{}, err
	}
	if err := s.grants.Grant(ctx, e); err != nil {
		return entitlement.Entitlement{}, fmt.Errorf("grant %s: %w", p, err)
	}
	return e, nil
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
	err = s.tx.InTx(ctx, func(ctx context.Context) error {
		if err := s.users.Create(ctx, u); err != nil {
			return err
		}
		return s.record(ctx, u, "user.create")
	})
	if err != nil {
		return identity.User{}, err
	}
	return u, nil
}

// Grant gives an organization a product until until (nil: without end)
// and returns the organization. The grant replaces the current grant of
// the product, which stays in the history as revoked.
func (s *Service) Grant(ctx context.Context, orgID string, p identity.Product, until *time.Time) (identity.Organization, error) {
	if _, err := s.orgs.Get(ctx, orgID); err != nil {
		return identity.Organization{}, err
	}
	err := s.tx.InTx(ctx, func(ctx context.Context) error {
		e, err := s.grant(ctx, orgID, p, s.clock.Now(), until)
		if err != nil {
			return err
		}
		return s.recordOn(ctx, orgID, "entitlement.grant", e.ID)
	})
	if err != nil {
		return identity.Organization{}, err
	}
	return s.Org(ctx, orgID)
}

// Revoke ends an organization's current grant of a product and returns the
// organization; without a current grant it changes nothing.
func (s *Service) Revoke(ctx context.Context, orgID string, p identity.Product) (identity.Organization, error) {
	if _, err := s.orgs.Get(ctx, orgID); err != nil {
		return identity.Organization{}, err
	}
	err := s.tx.InTx(ctx, func(ctx context.Context) error {
		e, err := s.grants.Revoke(ctx, orgID, p, s.clock.Now(), operatorAgent)
		if errors.Is(err, domain.ErrNotFound) {
			return nil // nothing revoked, nothing to record
		}
		if err != nil {
			return fmt.Errorf("revoke %s: %w", p, err)
		}
		return s.recordOn(ctx, orgID, "entitlement.revoke", e.ID)
	})
	if err != nil {
		return identity.Organization{}, err
	}
	return s.Org(ctx, orgID)
}

// Entitlements returns an organization's current grants (working or
// expired), or with history every grant it ever had, newest first.
func (s *Service) Entitlements(ctx context.Context, orgID string, history bool) ([]entitlement.Entitlement, error) {
	if _, err := s.orgs.Get(ctx, orgID); err != nil {
		return nil, err
	}
	if history {
		return s.grants.History(ctx, orgID)
	}
	return s.grants.Current(ctx, orgID)
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

// operatorAgent is how the operator's command line appears in the audit log.
const operatorAgent = "tabnorm admin"

// ListUsers returns an organization's users for the operator's command
// line, newest first, a page at a time; an unknown organization is
// domain.ErrNotFound.
func (s *Service) ListUsers(ctx context.Context, orgID string, page ports.Page) ([]identity.User, string, error) {
	if _, err := s.orgs.Get(ctx, orgID); err != nil {
		return nil, "", err
	}
	return s.users.List(ctx, orgID, page)
}

// ResetPassword gives a user a new random password, ends their sessions
// and returns the password, which exists only in this return value: the
// operator hands it over once, and the user signs in with it.
func (s *Service) ResetPassword(ctx context.Context, userID string) (identity.User, string, int, error) {
	password := randomPassword()
	hash, err := identity.HashPassword(password)
	if err != nil {
		return identity.User{}, "", 0, err
	}
	var user identity.User
	var ended int
	err = s.tx.InTx(ctx, func(ctx context.Context) error {
		if user, err = s.users.Get(ctx, userID); err != nil {
			return err
		}
		if err := s.users.SetPassword(ctx, userID, hash); err != nil {
			return err
		}
		if ended, err = s.sessions.DeleteForUser(ctx, userID); err != nil {
			return err
		}
		return s.record(ctx, user, "user.reset_password")
	})
	if err != nil {
		return identity.User{}, "", 0, err
	}
	return user, password, ended, nil
}

// DisableUser stops a user from signing in and ends their sessions at
// once; the organization's API keys they created go on working (keys
// belong to the organization: revoke them with revoke-key). Disabling a
// disabled user changes nothing.
func (s *Service) DisableUser(ctx context.Context, userID string) (identity.User, int, error) {
	var user identity.User
	var ended int
	err := s.tx.InTx(ctx, func(ctx context.Context) error {
		var err error
		if user, err = s.users.Disable(ctx, userID, s.clock.Now()); err != nil {
			return err
		}
		if ended, err = s.sessions.DeleteForUser(ctx, userID); err != nil {
			return err
		}
		return s.record(ctx, user, "user.disable")
	})
	return user, ended, err
}

func (s *Service) record(ctx context.Context, target identity.User, action string) error {
	return s.recordOn(ctx, target.OrgID, action, target.ID)
}

// recordOn writes the operator's action on target in orgID's log.
func (s *Service) recordOn(ctx context.Context, orgID, action, target string) error {
	return s.audit.Record(ctx, identity.AuditEntry{ID: id.New("aud"), OrgID: orgID, Action: action,
		TargetID: target, UserAgent: operatorAgent, At: s.clock.Now()})
}

// randomPassword returns 26 base32 characters (130 bits) from crypto/rand.
func randomPassword() string { return rand.Text() }

// ListOrgs returns organizations for the operator's command line, a page
// at a time.
func (s *Service) ListOrgs(ctx context.Context, page ports.Page) ([]identity.Organization, string, error) {
	return ListWithProducts(ctx, s.orgs, s.grants, s.clock.Now(), page)
}

// ListWithProducts is a page of organizations, each with the products its
// grants make usable at now: the operator's list and the staff's.
func ListWithProducts(ctx context.Context, orgs ports.Organizations, grants ports.Entitlements, now time.Time, page ports.Page) ([]identity.Organization, string, error) {
	list, next, err := orgs.List(ctx, page)
	if err != nil {
		return nil, "", err
	}
	ids := make([]string, len(list))
	for i, o := range list {
		ids[i] = o.ID
	}
	current, err := grants.Current(ctx, ids...)
	if err != nil {
		return nil, "", fmt.Errorf("read entitlements: %w", err)
	}
	entitlement.WithProducts(list, current, now)
	return list, next, nil
}

// Org returns one organization with the products its grants make usable
// now; an unknown id is domain.ErrNotFound.
func (s *Service) Org(ctx context.Context, id string) (identity.Organization, error) {
	org, err := s.orgs.Get(ctx, id)
	if err != nil {
		return identity.Organization{}, err
	}
	grants, err := s.grants.Current(ctx, id)
	if err != nil {
		return identity.Organization{}, fmt.Errorf("read entitlements: %w", err)
	}
	org.Products = entitlement.Products(grants, id, s.clock.Now())
	return org, nil
}
