// Package idempotency makes creating POSTs safe to retry: the same
// Idempotency-Key with the same request within 24 hours gets the first
// answer again; with another request it is refused.
package idempotency

import (
	"context"
	"errors"
	"time"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/ports"
)

// Window is how long an answer is kept.
const Window = 24 * time.Hour

// MaxKeyLength bounds the header.
const MaxKeyLength = 255

// Service runs creations under idempotency keys.
type Service struct {
	store ports.Idempotency
	tx    ports.Transactor
	clock ports.Clock
}

// NewService returns the idempotency service.
func NewService(store ports.Idempotency, tx ports.Transactor, clock ports.Clock) *Service {
	return &Service{store: store, tx: tx, clock: clock}
}

var errReused = domain.Errorf(domain.ErrConflict, domain.CodeIdempotencyKeyReused, "This Idempotency-Key was used with a different request.")

// Do runs create once per (organization, key, request): create runs in
// the same transaction that records its answer, so two racing requests
// cannot both create; the loser replays the winner's answer. The answer is
// the caller's, kept and given back unread; Do reports whether it is a
// replay.
func (s *Service) Do(ctx context.Context, orgID, key, requestHash string,
	create func(ctx context.Context) (ports.IdempotentAnswer, error)) (ports.IdempotentAnswer, bool, error) {
	if key == "" {
		r, err := create(ctx)
		return r, false, err
	}
	if len(key) > MaxKeyLength {
		return ports.IdempotentAnswer{}, false, domain.Invalid("Idempotency-Key must be at most %d characters.", MaxKeyLength)
	}
	for attempt := 0; ; attempt++ {
		var out ports.IdempotentAnswer
		var replayed bool
		err := s.tx.InTx(ctx, func(ctx context.Context) error {
			now := s.clock.Now()
			if err := s.store.DeleteBefore(ctx, orgID, key, now.Add(-Window)); err != nil {
				return err
			}
			prev, err := s.store.Get(ctx, orgID, key)
			switch {
			case err == nil:
				if prev.RequestHash != requestHash {
					return errReused
				}
				out, replayed = prev.IdempotentAnswer, true
				return nil
			case !errors.Is(err, domain.ErrNotFound):
				return err
			}
			if out, err = create(ctx); err != nil {
				return err
			}
			return s.store.Put(ctx, ports.IdempotentResponse{OrgID: orgID, Key: key, RequestHash: requestHash, IdempotentAnswer: out, CreatedAt: now})
		})
		if errors.Is(err, domain.ErrConflict) && domain.CodeOf(err) == domain.CodeConflict && attempt == 0 {
			continue // a concurrent request stored the key first: replay its answer
		}
		return out, replayed, err
	}
}

// Reused is errReused when key already answered a request of orgID within
// the window, and nil otherwise. A request that fails before it can be
// compared with the first one (an unreadable body, a wrong content type)
// is still a different request: its key was spent on something else, and
// the client must hear that rather than the failure.
func (s *Service) Reused(ctx context.Context, orgID, key string) error {
	if len(key) > MaxKeyLength {
		return nil
	}
	_, used, err := s.previous(ctx, orgID, key)
	if err != nil || !used {
		return err
	}
	return errReused
}

// Replay is the answer key gave to the same request within the window,
// for a creation that must do costly work (a copy) before Do and skips it
// on a replay: found is false when key answered nothing yet, and the
// error is errReused when it answered another request.
func (s *Service) Replay(ctx context.Context, orgID, key, requestHash string) (answer ports.IdempotentAnswer, found bool, err error) {
	if len(key) > MaxKeyLength {
		return ports.IdempotentAnswer{}, false, domain.Invalid("Idempotency-Key must be at most %d characters.", MaxKeyLength)
	}
	prev, used, err := s.previous(ctx, orgID, key)
	switch {
	case err != nil || !used:
		return ports.IdempotentAnswer{}, false, err
	case prev.RequestHash != requestHash:
		return ports.IdempotentAnswer{}, false, errReused
	}
	return prev.IdempotentAnswer, true, nil
}

// previous is what key stored within the window, if anything.
func (s *Service) previous(ctx context.Context, orgID, key string) (ports.IdempotentResponse, bool, error) {
	if key == "" {
		return ports.IdempotentResponse{}, false, nil
	}
	prev, err := s.store.Get(ctx, orgID, key)
	switch {
	case errors.Is(err, domain.ErrNotFound):
		return ports.IdempotentResponse{}, false, nil
	case err != nil:
		return ports.IdempotentResponse{}, false, err
	case prev.CreatedAt.Before(s.clock.Now().Add(-Window)):
		return ports.IdempotentResponse{}, false, nil
	}
	return prev, true, nil
}
