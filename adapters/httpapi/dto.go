package httpapi

import (
	"time"

	"github.com/tabnorm/tabnorm/domain/identity"
)

// Timestamps are RFC 3339 UTC with milliseconds (API.md §1).
const timeLayout = "2006-01-02T15:04:05.000Z07:00"

func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

func formatTimePtr(t *time.Time) *string {
	if t == nil || t.IsZero() {
		return nil
	}
	s := formatTime(*t)
	return &s
}

// OrganizationJSON is an organization as the API and the CLI print it.
type OrganizationJSON struct {
	ID        string   `json:"id"`
	Object    string   `json:"object"`
	Name      string   `json:"name"`
	Products  []string `json:"products"`
	CreatedAt string   `json:"created_at"`
}

// NewOrganizationJSON converts an organization for output.
func NewOrganizationJSON(o identity.Organization) OrganizationJSON {
	products := make([]string, 0, len(o.Products))
	for _, p := range o.Products {
		products = append(products, string(p))
	}
	return OrganizationJSON{ID: o.ID, Object: "organization", Name: o.Name, Products: products, CreatedAt: formatTime(o.CreatedAt)}
}

// UserJSON is a user as the API and the CLI print it; never the hash.
type UserJSON struct {
	ID             string `json:"id"`
	Object         string `json:"object"`
	OrganizationID string `json:"organization_id"`
	Email          string `json:"email"`
	Name           string `json:"name"`
	Role           string `json:"role"`
	IsStaff        bool   `json:"is_staff"`
	CreatedAt      string `json:"created_at"`
}

// NewUserJSON converts a user for output.
func NewUserJSON(u identity.User) UserJSON {
	return UserJSON{ID: u.ID, Object: "user", OrganizationID: u.OrgID, Email: u.Email, Name: u.Name,
		Role: string(u.Role), IsStaff: u.IsStaff, CreatedAt: formatTime(u.CreatedAt)}
}
