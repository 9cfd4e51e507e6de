package hooks_test

import (
	"context"
	"errors"
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
	store, sealer, tx, clock := mocks.NewHooks(t), mocks.NewSealer(t), mocks.NewTransactor(t), mocks.NewClock(t)
	tx.EXPECT().InTx(mock.Anything, mock.Anything).RunAndReturn(func(ctx context.Context, fn func(context.Context) error) error { return fn(ctx) }).Maybe()
	clock.EXPECT().Now().Return(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)).Maybe()
	return hooks.NewRegistry(hooks.Config{}, store, sealer, tx, clock), store, sealer
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
