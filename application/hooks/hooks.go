// Package hooks manages an organization's validation hooks and calls them
// while a job runs:
//
//   - Registry (hooks.go) manages them: creating, listing, changing,
//     deleting them and rotating their secret, which is sealed at rest
//     (ports.Sealer) and shown once.
//   - Caller (caller.go) is what a run sends its rows through: it opens
//     the hooks a schema names, signs each batch as the webhooks are
//     signed, bounds the calls (a hook's concurrency, shared by all the
//     jobs of its organization in this process, retries honouring
//     Retry-After, a job's budget of hook time, a circuit breaker) and
//     hands the engine what the answers say (normalize.RowHook).
//   - Registry.Test (sample.go) sends one sample batch as a job would,
//     through the same signing and judging of the answer (send, judge).
//   - Outcomes (outcomes.go) keeps each hook's last batches, which the
//     Caller adds and the Registry shows.
package hooks

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tabnorm/tabnorm/application/audit"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/hook"
	"github.com/tabnorm/tabnorm/domain/id"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/webhook"
	"github.com/tabnorm/tabnorm/ports"
)

// Config holds the hooks' settings.
type Config struct {
	// AllowPrivate accepts http URLs and internal addresses, as for
	// webhooks (TABNORM_WEBHOOK_ALLOW_PRIVATE); the sender enforces it
	// again when connecting.
	AllowPrivate bool
	// DefaultTimeout and DefaultConcurrency are a new hook's timeout and
	// concurrency when it asks for none (0: hook.DefaultTimeout, 5 s, and
	// hook.DefaultConcurrency, 4; TABNORM_HOOK_TIMEOUT and
	// TABNORM_HOOK_CONCURRENCY).
	DefaultTimeout     time.Duration
	DefaultConcurrency int
	// AnswerBytesPerRow caps an answer to a sample as Limits caps a job's.
	AnswerBytesPerRow int64
}

// Registry manages an organization's hooks.
type Registry struct {
	cfg      Config
	hooks    ports.Hooks
	sealer   ports.Sealer
	tx       ports.Transactor
	clock    ports.Clock
	audit    ports.AuditLog
	sender   ports.HookSender
	outcomes *Outcomes
}

// NewRegistry returns the management of hooks; each change is audited in
// its transaction. sender sends a sample batch (Test); outcomes are the
// hooks' last batches, which Recent reads.
func NewRegistry(cfg Config, hooks ports.Hooks, sealer ports.Sealer, tx ports.Transactor, clock ports.Clock, log ports.AuditLog,
	sender ports.HookSender, outcomes *Outcomes) *Registry {
	return &Registry{cfg: cfg, hooks: hooks, sealer: sealer, tx: tx, clock: clock, audit: log, sender: sender, outcomes: outcomes}
}

// Recent returns a hook's last batches on this node, newest first (the
// hook was read in the caller's organization first).
func (s *Registry) Recent(hookID string) []Outcome { return s.outcomes.Of(hookID) }

// Input is a new hook as the client sent it.
type Input struct {
	Name        string
	URL         string
	TimeoutMS   int64
	Concurrency int
}

// Create adds a hook and returns it with its secret, which the caller
// shows once.
func (s *Registry) Create(ctx context.Context, p identity.Principal, in Input) (hook.Hook, error) {
	if err := hook.CanManage(p); err != nil {
		return hook.Hook{}, err
	}
	h := hook.Hook{ID: id.New(id.Hook), OrgID: p.OrgID, Enabled: true, Secret: webhook.NewSecret()}
	var err error
	if h.Name, err = hook.ParseName(in.Name); err != nil {
		return hook.Hook{}, err
	}
	if h.URL, err = hook.ParseURL(in.URL, s.cfg.AllowPrivate); err != nil {
		return hook.Hook{}, err
	}
	if h.Timeout, err = hook.ParseTimeout(in.TimeoutMS); err != nil {
		return hook.Hook{}, err
	}
	if in.TimeoutMS == 0 && s.cfg.DefaultTimeout > 0 {
		h.Timeout = s.cfg.DefaultTimeout
	}
	if h.Concurrency, err = hook.ParseConcurrency(in.Concurrency); err != nil {
		return hook.Hook{}, err
	}
	if in.Concurrency == 0 && s.cfg.DefaultConcurrency > 0 {
		h.Concurrency = s.cfg.DefaultConcurrency
	}
	if err := s.seal(&h); err != nil {
		return hook.Hook{}, err
	}
	h.CreatedAt = s.clock.Now()
	h.UpdatedAt = h.CreatedAt
	err = s.tx.InTx(ctx, func(ctx context.Context) error {
		have, _, err := s.hooks.List(ctx, p.OrgID, ports.Page{Limit: hook.MaxPerOrg})
		if err != nil {
			return err
		}
		if len(have) >= hook.MaxPerOrg {
			return domain.Errorf(domain.ErrConflict, domain.CodeConflict,
				"Your organization has %d hooks, the most it may have; delete one first.", len(have))
		}
		if err := nameTaken(s.hooks.Create(ctx, h), h.Name); err != nil {
			return err
		}
		return audit.Record(ctx, s.audit, p, "hook.create", h.ID, h.CreatedAt)
	})
	if err != nil {
		return hook.Hook{}, fmt.Errorf("create hook: %w", err)
	}
	return h, nil
}

// nameTaken words a conflict on the name.
func nameTaken(err error, name string) error {
	if de, ok := errors.AsType[*domain.Error](err); ok && de.Kind == domain.ErrConflict && de.Code == domain.CodeConflict {
		return domain.Errorf(domain.ErrConflict, domain.CodeConflict, "Your organization already has a hook named %q.", name)
	}
	return err
}

// associated binds a sealed secret to its hook.
func associated(h hook.Hook) []byte { return []byte("hook\x00" + h.OrgID + "\x00" + h.ID) }

// seal seals the hook's secrets into its sealed fields.
func (s *Registry) seal(h *hook.Hook) error {
	sealed, err := sealWith(s.sealer, h.Secret, h)
	if err != nil {
		return err
	}
	h.SealedSecret = sealed
	h.SealedPrevious = nil
	if h.PreviousSecret != "" {
		if h.SealedPrevious, err = sealWith(s.sealer, h.PreviousSecret, h); err != nil {
			return err
		}
	}
	return nil
}

func sealWith(sealer ports.Sealer, secret string, h *hook.Hook) ([]byte, error) {
	out, err := sealer.Seal([]byte(secret), associated(*h))
	if errors.Is(err, ports.ErrNoSecretKey) {
		return nil, domain.Errorf(domain.ErrConflict, domain.CodeSecretKeyRequired,
			"A hook's secret cannot be stored: the server has no TABNORM_SECRET_KEY.")
	}
	return out, err
}

// Open opens a hook's sealed secrets into Secret and PreviousSecret.
func Open(sealer ports.Sealer, h *hook.Hook) error {
	plain, err := sealer.Open(h.SealedSecret, associated(*h))
	if err != nil {
		return fmt.Errorf("open the secret of hook %s: %w", h.ID, err)
	}
	h.Secret = string(plain)
	if len(h.SealedPrevious) > 0 {
		prev, err := sealer.Open(h.SealedPrevious, associated(*h))
		if err != nil {
			return fmt.Errorf("open the previous secret of hook %s: %w", h.ID, err)
		}
		h.PreviousSecret = string(prev)
	}
	return nil
}

// List returns the organization's hooks, newest first, without secrets.
func (s *Registry) List(ctx context.Context, p identity.Principal, page ports.Page) ([]hook.Hook, string, error) {
	return s.hooks.List(ctx, p.OrgID, page)
}

// Get returns one of the organization's hooks, without its secret.
func (s *Registry) Get(ctx context.Context, p identity.Principal, hookID string) (hook.Hook, error) {
	return s.hooks.Get(ctx, p.OrgID, hookID)
}

// Patch is a partial change of a hook; nil fields stay.
type Patch struct {
	Name        *string
	URL         *string
	TimeoutMS   *int64
	Concurrency *int
	Enabled     *bool
}

// Update changes a hook.
func (s *Registry) Update(ctx context.Context, p identity.Principal, hookID string, in Patch) (hook.Hook, error) {
	if err := hook.CanManage(p); err != nil {
		return hook.Hook{}, err
	}
	var next hook.Hook
	var err error
	if in.Name != nil {
		if next.Name, err = hook.ParseName(*in.Name); err != nil {
			return hook.Hook{}, err
		}
	}
	if in.URL != nil {
		if next.URL, err = hook.ParseURL(*in.URL, s.cfg.AllowPrivate); err != nil {
			return hook.Hook{}, err
		}
	}
	if in.TimeoutMS != nil {
		if next.Timeout, err = hook.ParseTimeout(*in.TimeoutMS); err != nil {
			return hook.Hook{}, err
		}
		if *in.TimeoutMS == 0 && s.cfg.DefaultTimeout > 0 {
			next.Timeout = s.cfg.DefaultTimeout
		}
	}
	if in.Concurrency != nil {
		if next.Concurrency, err = hook.ParseConcurrency(*in.Concurrency); err != nil {
			return hook.Hook{}, err
		}
		if *in.Concurrency == 0 && s.cfg.DefaultConcurrency > 0 {
			next.Concurrency = s.cfg.DefaultConcurrency
		}
	}
	now := s.clock.Now()
	var out hook.Hook
	err = s.tx.InTx(ctx, func(ctx context.Context) error {
		var err error
		if out, err = s.update(ctx, p.OrgID, hookID, in, next, now); err != nil {
			return err
		}
		return audit.Record(ctx, s.audit, p, "hook.update", hookID, now)
	})
	if in.Name != nil {
		err = nameTaken(err, next.Name)
	}
	return out, err
}

func (s *Registry) update(ctx context.Context, orgID, hookID string, in Patch, next hook.Hook, now time.Time) (hook.Hook, error) {
	return s.hooks.Update(ctx, orgID, hookID, func(h *hook.Hook) error {
		if in.Name != nil {
			h.Name = next.Name
		}
		if in.URL != nil {
			h.URL = next.URL
		}
		if in.TimeoutMS != nil {
			h.Timeout = next.Timeout
		}
		if in.Concurrency != nil {
			h.Concurrency = next.Concurrency
		}
		if in.Enabled != nil {
			h.Enabled = *in.Enabled
		}
		h.UpdatedAt = now
		return nil
	})
}

// Delete removes a hook. A schema that names it fails its next job's
// check (invalid_schema) until the hook is registered again.
func (s *Registry) Delete(ctx context.Context, p identity.Principal, hookID string) error {
	if err := hook.CanManage(p); err != nil {
		return err
	}
	return s.tx.InTx(ctx, func(ctx context.Context) error {
		if err := s.hooks.Delete(ctx, p.OrgID, hookID); err != nil {
			return err
		}
		s.outcomes.forget(hookID)
		return audit.Record(ctx, s.audit, p, "hook.delete", hookID, s.clock.Now())
	})
}

// RotateSecret gives the hook a new secret, returned once; the old one
// keeps signing alongside it for a day.
func (s *Registry) RotateSecret(ctx context.Context, p identity.Principal, hookID string) (hook.Hook, error) {
	if err := hook.CanManage(p); err != nil {
		return hook.Hook{}, err
	}
	now := s.clock.Now()
	var out hook.Hook
	err := s.tx.InTx(ctx, func(ctx context.Context) error {
		var err error
		out, err = s.hooks.Update(ctx, p.OrgID, hookID, func(h *hook.Hook) error {
			if err := Open(s.sealer, h); errors.Is(err, ports.ErrNoSecretKey) {
				return domain.Errorf(domain.ErrConflict, domain.CodeSecretKeyRequired,
					"A hook's secret cannot be rotated: the server has no TABNORM_SECRET_KEY to open the current one with.")
			} else if err != nil {
				return err
			}
			h.Rotate(webhook.NewSecret(), now)
			return s.seal(h)
		})
		if err != nil {
			return err
		}
		return audit.Record(ctx, s.audit, p, "hook.rotate_secret", hookID, now)
	})
	return out, err
}
