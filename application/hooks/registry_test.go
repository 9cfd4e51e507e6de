package hooks_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"

	"github.com/tabnorm/tabnorm/application/hooks"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/hook"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/ports"
	"github.com/tabnorm/tabnorm/test/mocks"
)

var admin = identity.Principal{OrgID: "org_a", Role: identity.Admin}

func registryOnMocks(t *testing.T) (*hooks.Registry, *mocks.Hooks, *mocks.Sealer) {
	t.Helper()
	r, store, sealer, trail := auditedRegistry(t)
	trail.EXPECT().Record(mock.Anything, mock.Anything).Return(nil).Maybe()
	return r, store, sealer
}

func auditedRegistry(t *testing.T) (*hooks.Registry, *mocks.Hooks, *mocks.Sealer, *mocks.AuditLog) {
	t.Helper()
	store, sealer, tx, clock, trail := mocks.NewHooks(t), mocks.NewSealer(t), mocks.NewTransactor(t), mocks.NewClock(t), mocks.NewAuditLog(t)
	tx.EXPECT().InTx(mock.Anything, mock.Anything).RunAndReturn(func(ctx context.Context, fn func(context.Context) error) error { return fn(ctx) }).Maybe()
	clock.EXPECT().Now().Return(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)).Maybe()
	return hooks.NewRegistry(hooks.Config{}, store, sealer, tx, clock, trail, nil, hooks.NewOutcomes()), store, sealer, trail
}

// Every change of a hook is audited in its transaction: when the record
// fails, so does the change.
func TestRegistry_changesAreAudited(t *testing.T) {
	r, store, sealer, trail := auditedRegistry(t)
	sealer.EXPECT().Seal(mock.Anything, mock.Anything).Return([]byte("sealed"), nil)
	sealer.EXPECT().Open(mock.Anything, mock.Anything).Return([]byte("whsec_old"), nil).Maybe()
	store.EXPECT().List(mock.Anything, "org_a", mock.Anything).Return(nil, "", nil)
	store.EXPECT().Create(mock.Anything, mock.Anything).Return(nil)
	store.EXPECT().Update(mock.Anything, "org_a", "hook_1", mock.Anything).RunAndReturn(
		func(_ context.Context, _, _ string, fn func(*hook.Hook) error) (hook.Hook, error) {
			h := hook.Hook{ID: "hook_1", OrgID: "org_a", SealedSecret: []byte("sealed")}
			return h, fn(&h)
		})
	store.EXPECT().Delete(mock.Anything, "org_a", "hook_1").Return(nil)
	var actions []string
	trail.EXPECT().Record(mock.Anything, mock.Anything).Run(func(_ context.Context, e identity.AuditEntry) {
		actions = append(actions, e.Action)
	}).Return(nil)
	if _, err := r.Create(context.Background(), admin, hooks.Input{Name: "crm", URL: "https://crm.example.com/check"}); err != nil {
		t.Fatal(err)
	}
	name := "crm2"
	if _, err := r.Update(context.Background(), admin, "hook_1", hooks.Patch{Name: &name}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.RotateSecret(context.Background(), admin, "hook_1"); err != nil {
		t.Fatal(err)
	}
	if err := r.Delete(context.Background(), admin, "hook_1"); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(actions, ","); got != "hook.create,hook.update,hook.rotate_secret,hook.delete" {
		t.Fatalf("audited %q", got)
	}

	failing, store2, _, trail2 := auditedRegistry(t)
	store2.EXPECT().Delete(mock.Anything, "org_a", "hook_1").Return(nil)
	trail2.EXPECT().Record(mock.Anything, mock.Anything).Return(errors.New("disk full"))
	if err := failing.Delete(context.Background(), admin, "hook_1"); err == nil {
		t.Fatal("a delete whose audit record failed succeeded")
	}
}

// The secret is sealed bound to the hook's organization and id, and only
// the sealed form reaches the store.
func TestRegistry_sealsTheSecretBoundToTheHook(t *testing.T) {
	r, store, sealer := registryOnMocks(t)
	var sealedFor []byte
	sealer.EXPECT().Seal(mock.Anything, mock.Anything).RunAndReturn(func(plain, ad []byte) ([]byte, error) {
		sealedFor = ad
		return append([]byte("sealed:"), byte(len(plain))), nil
	})
	store.EXPECT().List(mock.Anything, "org_a", mock.Anything).Return(nil, "", nil)
	var stored hook.Hook
	store.EXPECT().Create(mock.Anything, mock.Anything).RunAndReturn(func(_ context.Context, h hook.Hook) error { stored = h; return nil })
	h, err := r.Create(context.Background(), admin, hooks.Input{Name: "crm", URL: "https://crm.example.com/check"})
	if err != nil {
		t.Fatal(err)
	}
	if string(sealedFor) != "hook\x00org_a\x00"+h.ID || string(stored.SealedSecret) != "sealed:"+string(rune(len(h.Secret))) {
		t.Fatalf("sealed for %q, stored %q", sealedFor, stored.SealedSecret)
	}
}

// Without a key to seal with, creating a hook is the conflict
// secret_key_required, and nothing is stored.
func TestRegistry_withoutASecretKeyRefuses(t *testing.T) {
	r, _, sealer := registryOnMocks(t)
	sealer.EXPECT().Seal(mock.Anything, mock.Anything).Return(nil, ports.ErrNoSecretKey)
	_, err := r.Create(context.Background(), admin, hooks.Input{Name: "crm", URL: "https://crm.example.com/check"})
	if de, ok := errors.AsType[*domain.Error](err); !ok || de.Code != domain.CodeSecretKeyRequired {
		t.Fatalf("err = %v, want secret_key_required", err)
	}
}

// An organization has at most hook.MaxPerOrg hooks.
func TestRegistry_limitPerOrganization(t *testing.T) {
	r, store, sealer := registryOnMocks(t)
	sealer.EXPECT().Seal(mock.Anything, mock.Anything).Return([]byte("x"), nil)
	store.EXPECT().List(mock.Anything, "org_a", mock.Anything).Return(make([]hook.Hook, hook.MaxPerOrg), "", nil)
	_, err := r.Create(context.Background(), admin, hooks.Input{Name: "crm", URL: "https://crm.example.com/check"})
	if !errors.Is(err, domain.ErrConflict) {
		t.Fatalf("err = %v, want a conflict", err)
	}
}
