// Package identity holds organizations, users and their products: who a
// caller is and what their organization has bought.
package identity

import (
	"fmt"
	"net/mail"
	"slices"
	"strings"
	"time"

	"github.com/tabnorm/tabnorm/domain"
)

// Product is a group of routes an organization is provisioned for.
type Product string

// The products (API.md §3).
const (
	Normalize Product = "normalize"
	Connect   Product = "connect"
)

// Products lists every product, in display order.
var Products = []Product{Normalize, Connect}

// ParseProduct validates a product name.
func ParseProduct(s string) (Product, error) {
	p := Product(strings.TrimSpace(s))
	if !slices.Contains(Products, p) {
		return "", domain.Invalid("unknown product %q (want normalize or connect)", s)
	}
	return p, nil
}

// ParseProducts parses a comma-separated list, dropping repeats.
func ParseProducts(s string) ([]Product, error) {
	var out []Product
	for part := range strings.SplitSeq(s, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		p, err := ParseProduct(part)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out, nil
}

// Role is a user's role inside their organization.
type Role string

// The roles: an admin also manages keys and webhooks.
const (
	Admin  Role = "admin"
	Member Role = "member"
)

// ParseRole validates a role name.
func ParseRole(s string) (Role, error) {
	switch r := Role(s); r {
	case Admin, Member:
		return r, nil
	}
	return "", domain.Invalid("unknown role %q (want admin or member)", s)
}

// Organization is a customer account.
type Organization struct {
	ID        string
	Name      string
	Products  []Product
	CreatedAt time.Time
}

// Has reports whether the organization is provisioned for p.
func (o Organization) Has(p Product) bool { return slices.Contains(o.Products, p) }

// NewOrganization validates the name and returns an organization.
func NewOrganization(id, name string, products []Product, now time.Time) (Organization, error) {
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 200 {
		return Organization{}, domain.Invalid("organization name must be 1 to 200 characters")
	}
	return Organization{ID: id, Name: name, Products: slices.Clone(products), CreatedAt: now.UTC()}, nil
}

// User is a person who signs in to the dashboard.
type User struct {
	ID           string
	OrgID        string
	Email        string
	Name         string
	Role         Role
	IsStaff      bool
	PasswordHash string
	CreatedAt    time.Time
	DisabledAt   *time.Time // set by an operator: the user cannot sign in
}

// Disabled tells whether an operator disabled the user.
func (u User) Disabled() bool { return u.DisabledAt != nil }

// NormalizeEmail lower-cases and validates an email address used as a login.
func NormalizeEmail(s string) (string, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || len(s) > 254 {
		return "", fmt.Errorf("%w: %q is not an email address", domain.ErrInvalid, s)
	}
	return s, nil
}
