package schemas_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"

	"github.com/tabnorm/tabnorm/application/schemas"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/schema"
	"github.com/tabnorm/tabnorm/ports"
	"github.com/tabnorm/tabnorm/test/mocks"
)

var (
	now  = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	acme = identity.Principal{OrgID: "org_acme"}
)

func newService(t *testing.T) (*schemas.Service, *mocks.Schemas) {
	store, clock := mocks.NewSchemas(t), mocks.NewClock(t)
	clock.EXPECT().Now().Return(now).Maybe()
	return schemas.NewService(store, clock), store
}

func TestService_Create(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("a valid schema is stored in its canonical form under a trimmed name", func(t *testing.T) {
		t.Parallel()
		svc, store := newService(t)
		var stored schema.Saved
		store.EXPECT().Create(mock.Anything, mock.Anything).Run(func(_ context.Context, s schema.Saved) { stored = s }).Return(nil).Once()
		s, err := svc.Create(ctx, acme, " contacts ", []byte(`{ "fields": [ {"name": "email", "type": "string", "format": "email"} ] }`), nil)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(s.ID, "sch_") || s.Name != "contacts" || s.OrgID != "org_acme" || !s.CreatedAt.Equal(now) || stored.ID != s.ID ||
			strings.Contains(string(s.Document), " ") || !strings.Contains(string(s.Document), `"format":"email"`) {
			t.Fatalf("saved %+v (%s)", s, s.Document)
		}
	})

	for _, c := range []struct {
		name, schemaName, doc string
		code                  domain.Code
		field                 string
	}{
		{"a blank name", "  ", `{"fields":[{"name":"a"}]}`, "invalid_request", "name"},
		{"a name over 200 bytes", strings.Repeat("n", 201), `{"fields":[{"name":"a"}]}`, "invalid_request", "name"},
		{"an invalid schema", "contacts", `{"fields":[{"name":"a","type":"money"}]}`, "invalid_schema", "schema.fields[0].type"},
	} {
		t.Run(c.name+" is refused", func(t *testing.T) {
			t.Parallel()
			svc, _ := newService(t)
			_, err := svc.Create(ctx, acme, c.schemaName, []byte(c.doc), nil)
			var de *domain.Error
			if !errors.As(err, &de) || de.Code != c.code || len(de.Fields) == 0 || de.Fields[0].Field != c.field {
				t.Fatalf("error %v, want %s on %s", err, c.code, c.field)
			}
			// The store mock fails the test on a Create.
		})
	}
}

func TestService_reads(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, store := newService(t)
	store.EXPECT().Get(mock.Anything, "org_acme", "sch_1").Return(schema.Saved{ID: "sch_1"}, nil).Once()
	if s, err := svc.Get(ctx, acme, "sch_1"); err != nil || s.ID != "sch_1" {
		t.Fatalf("Get = %+v, %v", s, err)
	}
	page := ports.Page{Limit: 2}
	store.EXPECT().List(mock.Anything, "org_acme", page).Return([]schema.Saved{{ID: "sch_1"}}, "", nil).Once()
	if list, _, err := svc.List(ctx, acme, page); err != nil || len(list) != 1 {
		t.Fatalf("List = %v, %v", list, err)
	}
	store.EXPECT().Delete(mock.Anything, "org_acme", "sch_1").Return(domain.NotFound("schema")).Once()
	if err := svc.Delete(ctx, acme, "sch_1"); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("Delete = %v", err)
	}
}
