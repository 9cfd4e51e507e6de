package auth

import (
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/domain/apikey"
)

// TestKeyGuard_window: failures older than the window no longer count,
// and Retry-After says when the oldest one leaves it.
func TestKeyGuard_window(t *testing.T) {
	t.Parallel()
	g := newKeyGuard()
	t0 := time.Date(2026, 11, 25, 6, 0, 0, 0, time.UTC)
	h := apikey.HashOf("svc_live_x")
	for i := range KeyFailuresPerAddress {
		g.failed("192.0.2.1", t0.Add(time.Duration(i)*time.Second))
	}
	err := g.check("192.0.2.1", h, t0.Add(30*time.Second))
	if err == nil {
		t.Fatal("not throttled at the limit")
	}
	if err := g.check("192.0.2.1", h, t0.Add(KeyFailureWindow+time.Second)); err != nil {
		t.Fatalf("the first failure left the window, still: %v", err)
	}
}
