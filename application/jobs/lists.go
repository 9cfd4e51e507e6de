package jobs

import (
	"context"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/normalize"
	"github.com/tabnorm/tabnorm/domain/schema"
)

// ListOpener opens the reference lists a schema's inList constraints name
// (application/lists): indexed once per process and shared, looked up in
// bounded memory.
type ListOpener interface {
	Open(ctx context.Context, orgID string, ids []string) (map[string]normalize.ListLookup, func(), error)
}

// openLists gives the engine the lists the job's schema checks; the
// returned function closes them.
func (s *Sources) openLists(ctx context.Context, j job.Job, in *normalize.Input) (func(), error) {
	if in.Schema == nil || in.Mode == normalize.ModeInfer {
		return func() {}, nil
	}
	ids := in.Schema.Lists()
	if len(ids) == 0 {
		return func() {}, nil
	}
	if s.lists == nil {
		return nil, &normalize.Failure{Code: domain.CodeInvalidSchema, Message: "The schema checks reference lists, which this server does not keep."}
	}
	lists, closeAll, err := s.lists.Open(ctx, j.OrgID, ids)
	if err != nil {
		return nil, err
	}
	in.Lists = lists
	return closeAll, nil
}

// OpenSchemaLists opens the lists a schema checks for a review's preview;
// the returned function closes them.
func (s *Sources) OpenSchemaLists(ctx context.Context, orgID string, sch *schema.Schema) (map[string]normalize.ListLookup, func(), error) {
	if sch == nil || len(sch.Lists()) == 0 {
		return nil, func() {}, nil
	}
	if s.lists == nil {
		return nil, nil, &normalize.Failure{Code: domain.CodeInvalidSchema, Message: "The schema checks reference lists, which this server does not keep."}
	}
	return s.lists.Open(ctx, orgID, sch.Lists())
}
