package ports

import (
	"context"

	"github.com/tabnorm/tabnorm/domain/hook"
)

// Hooks stores an organization's validation hooks, their secrets sealed
// (hook.Hook.SealedSecret; the store never sees them opened). Reads take
// the organization, so another organization's hook is simply not found.
type Hooks interface {
	// Create adds a hook; a name the organization already uses is a
	// conflict.
	Create(ctx context.Context, h hook.Hook) error
	Get(ctx context.Context, orgID, id string) (hook.Hook, error)
	// Named returns the organization's hooks of these names (those it
	// has: a name it lacks is simply absent).
	Named(ctx context.Context, orgID string, names []string) ([]hook.Hook, error)
	List(ctx context.Context, orgID string, page Page) (hooks []hook.Hook, next string, err error)
	// Update reads the hook, lets fn change it and writes it back in one
	// transaction holding the row; a new name already used is a conflict.
	Update(ctx context.Context, orgID, id string, fn func(*hook.Hook) error) (hook.Hook, error)
	Delete(ctx context.Context, orgID, id string) error
}
