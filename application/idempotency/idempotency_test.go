package idempotency_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"

	"github.com/tabnorm/tabnorm/application/idempotency"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/ports"
	"github.com/tabnorm/tabnorm/test/mocks"
)

var now = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

type fixture struct {
	store *mocks.Idempotency
	svc   *idempotency.Service
}

// newFixture runs transactions inline: the policy is under test here,
// the repository is tested against real databases.
func newFixture(t *testing.T) fixture {
	t.Helper()
	f := fixture{store: mocks.NewIdempotency(t)}
	tx, clock := mocks.NewTransactor(t), mocks.NewClock(t)
	tx.EXPECT().InTx(mock.Anything, mock.Anything).RunAndReturn(func(ctx context.Context, fn func(context.Context) error) error { return fn(ctx) }).Maybe()
	clock.EXPECT().Now().Return(now).Maybe()
	f.svc = idempotency.NewService(f.store, tx, clock)
	return f
}

var first = ports.IdempotentAnswer{Status: 202, Location: "/v1/jobs/job_1", Body: []byte(`{"id":"job_1"}`)}

// creation counts its calls and answers first.
type creation struct{ calls int }

func (c *creation) create(context.Context) (ports.IdempotentAnswer, error) {
	c.calls++
	return first, nil
}

func TestService_Do(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("without a key the creation just runs", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		var c creation
		ans, replayed, err := f.svc.Do(ctx, "org_a", "", "hash", c.create)
		if err != nil || replayed || c.calls != 1 || ans.Location != first.Location {
			t.Fatalf("Do = %+v, %v, %v after %d calls", ans, replayed, err, c.calls)
		}
		// The store mock fails the test on any use.
	})

	t.Run("a key over 255 characters is refused before anything runs", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		var c creation
		_, _, err := f.svc.Do(ctx, "org_a", strings.Repeat("k", idempotency.MaxKeyLength+1), "hash", c.create)
		if domain.CodeOf(err) != "invalid_request" || c.calls != 0 {
			t.Fatalf("error %v after %d calls", err, c.calls)
		}
	})

	t.Run("the first request creates and keeps its answer; expired answers are forgotten first", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.store.EXPECT().DeleteBefore(mock.Anything, "org_a", "key-1", now.Add(-idempotency.Window)).Return(nil).Once()
		f.store.EXPECT().Get(mock.Anything, "org_a", "key-1").Return(ports.IdempotentResponse{}, domain.NotFound("idempotency key")).Once()
		f.store.EXPECT().Put(mock.Anything, ports.IdempotentResponse{OrgID: "org_a", Key: "key-1", RequestHash: "hash", IdempotentAnswer: first, CreatedAt: now}).Return(nil).Once()
		var c creation
		ans, replayed, err := f.svc.Do(ctx, "org_a", "key-1", "hash", c.create)
		if err != nil || replayed || c.calls != 1 || string(ans.Body) != string(first.Body) {
			t.Fatalf("Do = %+v, %v, %v", ans, replayed, err)
		}
	})

	t.Run("the same request again replays the first answer without creating", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.store.EXPECT().DeleteBefore(mock.Anything, "org_a", "key-1", mock.Anything).Return(nil)
		f.store.EXPECT().Get(mock.Anything, "org_a", "key-1").Return(ports.IdempotentResponse{RequestHash: "hash", IdempotentAnswer: first}, nil).Once()
		var c creation
		ans, replayed, err := f.svc.Do(ctx, "org_a", "key-1", "hash", c.create)
		if err != nil || !replayed || c.calls != 0 || ans.Status != 202 || ans.Location != first.Location {
			t.Fatalf("Do = %+v, %v, %v after %d calls", ans, replayed, err, c.calls)
		}
	})

	t.Run("another request under the key is refused", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.store.EXPECT().DeleteBefore(mock.Anything, "org_a", "key-1", mock.Anything).Return(nil)
		f.store.EXPECT().Get(mock.Anything, "org_a", "key-1").Return(ports.IdempotentResponse{RequestHash: "other", IdempotentAnswer: first}, nil).Once()
		var c creation
		_, _, err := f.svc.Do(ctx, "org_a", "key-1", "hash", c.create)
		if domain.CodeOf(err) != "idempotency_key_reused" || !errors.Is(err, domain.ErrConflict) || c.calls != 0 {
			t.Fatalf("error %v after %d calls", err, c.calls)
		}
	})

	t.Run("a refused creation keeps no answer", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.store.EXPECT().DeleteBefore(mock.Anything, "org_a", "key-1", mock.Anything).Return(nil)
		f.store.EXPECT().Get(mock.Anything, "org_a", "key-1").Return(ports.IdempotentResponse{}, domain.NotFound("idempotency key")).Once()
		refused := domain.Invalid("no")
		_, _, err := f.svc.Do(ctx, "org_a", "key-1", "hash", func(context.Context) (ports.IdempotentAnswer, error) { return first, refused })
		if !errors.Is(err, refused) {
			t.Fatalf("error %v", err)
		}
		// The store mock fails the test on a Put.
	})

	t.Run("the loser of a race replays the winner's answer", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.store.EXPECT().DeleteBefore(mock.Anything, "org_a", "key-1", mock.Anything).Return(nil)
		f.store.EXPECT().Get(mock.Anything, "org_a", "key-1").Return(ports.IdempotentResponse{}, domain.NotFound("idempotency key")).Once()
		f.store.EXPECT().Put(mock.Anything, mock.Anything).Return(&domain.Error{Kind: domain.ErrConflict, Code: "conflict"}).Once()
		winner := ports.IdempotentAnswer{Status: 202, Location: "/v1/jobs/job_0", Body: []byte(`{"id":"job_0"}`)}
		f.store.EXPECT().Get(mock.Anything, "org_a", "key-1").Return(ports.IdempotentResponse{RequestHash: "hash", IdempotentAnswer: winner}, nil).Once()
		var c creation
		ans, replayed, err := f.svc.Do(ctx, "org_a", "key-1", "hash", c.create)
		if err != nil || !replayed || ans.Location != winner.Location || c.calls != 1 {
			t.Fatalf("Do = %+v, %v, %v", ans, replayed, err)
		}
	})

	t.Run("a store failure is returned", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		down := errors.New("database down")
		f.store.EXPECT().DeleteBefore(mock.Anything, "org_a", "key-1", mock.Anything).Return(nil)
		f.store.EXPECT().Get(mock.Anything, "org_a", "key-1").Return(ports.IdempotentResponse{}, down).Once()
		var c creation
		if _, _, err := f.svc.Do(ctx, "org_a", "key-1", "hash", c.create); !errors.Is(err, down) || c.calls != 0 {
			t.Fatalf("error %v after %d calls", err, c.calls)
		}
	})
}

func TestService_Reused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	down := errors.New("database down")
	cases := []struct {
		name   string
		key    string
		stored ports.IdempotentResponse
		getErr error
		want   domain.Code // the error's code, "" for nil
	}{
		{"no key", "", ports.IdempotentResponse{}, nil, ""},
		{"a key too long to have been stored", strings.Repeat("k", 256), ports.IdempotentResponse{}, nil, ""},
		{"a key never used", "key-1", ports.IdempotentResponse{}, domain.NotFound("idempotency key"), ""},
		{"a key used within the window", "key-1", ports.IdempotentResponse{CreatedAt: now.Add(-time.Hour)}, nil, "idempotency_key_reused"},
		{"a key used before the window", "key-1", ports.IdempotentResponse{CreatedAt: now.Add(-25 * time.Hour)}, nil, ""},
		{"a store failure", "key-1", ports.IdempotentResponse{}, down, "?"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			if c.key != "" && len(c.key) <= idempotency.MaxKeyLength {
				f.store.EXPECT().Get(mock.Anything, "org_a", c.key).Return(c.stored, c.getErr).Once()
			}
			err := f.svc.Reused(ctx, "org_a", c.key)
			switch c.want {
			case "":
				if err != nil {
					t.Fatalf("error %v", err)
				}
			case "?":
				if !errors.Is(err, down) {
					t.Fatalf("error %v", err)
				}
			default:
				if domain.CodeOf(err) != c.want {
					t.Fatalf("error %v, want %s", err, c.want)
				}
			}
		})
	}
}

func TestService_Replay(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	down := errors.New("database down")
	stored := ports.IdempotentResponse{RequestHash: "h1", IdempotentAnswer: first, CreatedAt: now.Add(-time.Hour)}
	cases := []struct {
		name   string
		key    string
		stored ports.IdempotentResponse
		getErr error
		found  bool
		want   domain.Code // the error's code, "" for nil
	}{
		{"no key", "", ports.IdempotentResponse{}, nil, false, ""},
		{"a key too long", strings.Repeat("k", 256), ports.IdempotentResponse{}, nil, false, "invalid_request"},
		{"a key never used", "key-1", ports.IdempotentResponse{}, domain.NotFound("idempotency key"), false, ""},
		{"the same request within the window", "key-1", stored, nil, true, ""},
		{"another request within the window", "key-2", ports.IdempotentResponse{RequestHash: "h2", CreatedAt: now.Add(-time.Hour)}, nil, false, "idempotency_key_reused"},
		{"the same request before the window", "key-1", ports.IdempotentResponse{RequestHash: "h1", CreatedAt: now.Add(-25 * time.Hour)}, nil, false, ""},
		{"a store failure", "key-1", ports.IdempotentResponse{}, down, false, "?"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			if c.key != "" && len(c.key) <= idempotency.MaxKeyLength {
				f.store.EXPECT().Get(mock.Anything, "org_a", c.key).Return(c.stored, c.getErr).Once()
			}
			got, found, err := f.svc.Replay(ctx, "org_a", c.key, "h1")
			if found != c.found || (found && (got.Status != first.Status || string(got.Body) != string(first.Body))) {
				t.Fatalf("found %v, answer %+v", found, got)
			}
			switch c.want {
			case "":
				if err != nil {
					t.Fatalf("error %v", err)
				}
			case "?":
				if !errors.Is(err, down) {
					t.Fatalf("error %v", err)
				}
			default:
				if domain.CodeOf(err) != c.want {
					t.Fatalf("error %v, want %s", err, c.want)
				}
			}
		})
	}
}
