package jobs

import (
	"context"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/normalize"
	"github.com/tabnorm/tabnorm/domain/schema"
)

// HookOpener checks and opens the validation hooks a schema names
// (application/hooks).
type HookOpener interface {
	// Check refuses a schema naming a hook the organization lacks or has
	// disabled (invalid_schema).
	Check(ctx context.Context, orgID string, sch *schema.Schema) error
	// Open returns the hooks for a run of the job.
	Open(ctx context.Context, orgID, jobID string, sch *schema.Schema) ([]normalize.HookUse, error)
}

// WithHooks lets the runs call the validation hooks their schema names.
func (s *Sources) WithHooks(h HookOpener) *Sources {
	s.hooks = h
	return s
}

// WithHooks lets the creation of jobs check the hooks their schema names.
func (c *Creator) WithHooks(h HookOpener) *Creator {
	c.hooks = h
	return c
}

var errNoHooks = &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidSchema,
	Message: "The schema names validation hooks, which this server does not call.", Fields: []domain.FieldError{{Field: "hooks", Message: "are not called by this server"}}}

// checkHooks refuses a new job whose schema names a hook the
// organization does not have.
func (c *Creator) checkHooks(ctx context.Context, orgID string, sch *schema.Schema) error {
	if sch == nil || len(sch.Hooks) == 0 {
		return nil
	}
	if c.hooks == nil {
		return errNoHooks
	}
	return c.hooks.Check(ctx, orgID, sch)
}

// openHooks gives the engine the hooks the job's schema names.
func (s *Sources) openHooks(ctx context.Context, j job.Job, in *normalize.Input) error {
	if in.Schema == nil || len(in.Schema.Hooks) == 0 || in.Mode == normalize.ModeInfer {
		return nil
	}
	if s.hooks == nil {
		return &normalize.Failure{Code: domain.CodeInvalidSchema, Message: errNoHooks.Message}
	}
	hooks, err := s.hooks.Open(ctx, j.OrgID, j.ID, in.Schema)
	if err != nil {
		return err
	}
	in.Hooks = hooks
	return nil
}
