package ports

import (
	"context"
	"time"

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

// HookRequest is one signed request to a validation hook.
type HookRequest struct {
	URL     string
	Headers map[string]string
	Body    []byte
	// Timeout bounds the request, answer included; MaxAnswer bounds the
	// answer's body (a longer one is TooLarge).
	Timeout   time.Duration
	MaxAnswer int64
}

// HookResponse is what came back: a status and body, or Error when
// nothing usable did (refused address, timeout, network failure).
type HookResponse struct {
	StatusCode int
	Body       []byte
	// RetryAfter is the Retry-After header, as sent.
	RetryAfter string
	TooLarge   bool
	Error      string
	Latency    time.Duration
}

// HookSender makes one request to a hook, with the webhooks' safeguards:
// no redirects followed, addresses refused at connect time unless the
// settings allow private ones.
type HookSender interface {
	Call(ctx context.Context, r HookRequest) HookResponse
}

// HookObserver hears of every request to a hook this process made, for
// the operator's metrics: the hook's id, and outcome succeeded (an answer
// taken), refused (an answer not taken), failed (another status) or error
// (no answer).
type HookObserver interface {
	HookCalled(hookID, outcome string, latency time.Duration)
}
