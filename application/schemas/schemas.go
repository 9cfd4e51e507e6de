// Package schemas manages an organization's saved target schemas.
package schemas

import (
	"context"
	"slices"
	"strings"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/id"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/schema"
	"github.com/tabnorm/tabnorm/ports"
)

// Service is the saved schemas use cases.
type Service struct {
	store ports.Schemas
	clock ports.Clock
}

// NewService returns the schemas service.
func NewService(store ports.Schemas, clock ports.Clock) *Service {
	return &Service{store: store, clock: clock}
}

// Create validates and stores a schema under a name, with the
// destinations its jobs are delivered to when their options name none
// (the ids are checked against the organization's when such a job is made).
func (s *Service) Create(ctx context.Context, p identity.Principal, name string, doc []byte, destinationIDs []string) (schema.Saved, error) {
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 200 {
		return schema.Saved{}, &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidRequest, Message: "A saved schema needs a name of 1 to 200 characters.",
			Fields: []domain.FieldError{{Field: "name", Message: "must be 1 to 200 characters"}}}
	}
	parsed, err := schema.Parse(doc)
	if err != nil {
		return schema.Saved{}, domain.PrefixFields(err, "schema.")
	}
	if !validDestinations(destinationIDs) {
		return schema.Saved{}, &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidRequest, Message: "destination_ids must be at most 10 distinct destination ids.",
			Fields: []domain.FieldError{{Field: "destination_ids", Message: "must be at most 10 distinct destination ids (dst_…)"}}}
	}
	sv := schema.Saved{ID: id.New(id.Schema), OrgID: p.OrgID, Name: name, Document: parsed.JSON(), CreatedAt: s.clock.Now(), DestinationIDs: destinationIDs}
	return sv, s.store.Create(ctx, sv)
}

// Get returns a saved schema of the principal's organization.
func (s *Service) Get(ctx context.Context, p identity.Principal, schemaID string) (schema.Saved, error) {
	return s.store.Get(ctx, p.OrgID, schemaID)
}

// List returns the organization's schemas, newest first.
func (s *Service) List(ctx context.Context, p identity.Principal, page ports.Page) ([]schema.Saved, string, error) {
	return s.store.List(ctx, p.OrgID, page)
}

// Delete removes a saved schema; jobs that used it keep their copy.
func (s *Service) Delete(ctx context.Context, p identity.Principal, schemaID string) error {
	return s.store.Delete(ctx, p.OrgID, schemaID)
}

// validDestinations accepts up to 10 distinct ids of destinations.
func validDestinations(ids []string) bool {
	if len(ids) > 10 {
		return false
	}
	for i, s := range ids {
		if !strings.HasPrefix(s, "dst_") || len(s) > 64 || slices.Contains(ids[:i], s) {
			return false
		}
	}
	return true
}
