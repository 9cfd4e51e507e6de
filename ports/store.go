package ports

import (
	"context"
	"time"

	"github.com/tabnorm/tabnorm/domain/identity"
)

// Transactor runs fn in one database transaction carried by the context:
// repository calls made with that context join it. An error from fn rolls
// the transaction back. Nested calls join the outer transaction.
type Transactor interface {
	InTx(ctx context.Context, fn func(ctx context.Context) error) error
}

// Page asks for one page of a newest-first list.
type Page struct {
	Limit  int
	Cursor string // opaque; "" for the first page
}

// Organizations stores customer organizations and their products.
type Organizations interface {
	Create(ctx context.Context, org identity.Organization) error
	Get(ctx context.Context, id string) (identity.Organization, error)
	List(ctx context.Context, page Page) (orgs []identity.Organization, next string, err error)
	Count(ctx context.Context) (int, error)
}

// Users stores the people who sign in.
type Users interface {
	Create(ctx context.Context, u identity.User) error
	Get(ctx context.Context, id string) (identity.User, error)
	GetByEmail(ctx context.Context, email string) (identity.User, error)
	// List returns an organization's users, newest first.
	List(ctx context.Context, orgID string, page Page) (users []identity.User, next string, err error)
	// SetPassword replaces a user's password hash.
	SetPassword(ctx context.Context, id, passwordHash string) error
	// Disable sets disabled_at if unset and returns the user.
	Disable(ctx context.Context, id string, at time.Time) (identity.User, error)
}

// Clock tells the time; tests pass a fixed one.
type Clock interface {
	Now() time.Time
}
