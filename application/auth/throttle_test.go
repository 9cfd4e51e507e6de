package auth_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/application/auth"
)

// TestThrottle_reservesBeforeChecking: 20 concurrent guesses for one email
// from one address get 5 turns, not 20.
func TestThrottle_reservesBeforeChecking(t *testing.T) {
	t.Parallel()
	th := auth.NewThrottle(5, 15*time.Minute, 100, time.Second)
	var wg sync.WaitGroup
	var admitted atomic.Int32
	start := make(chan struct{})
	for range 20 {
		wg.Go(func() {
			<-start
			if _, wait := th.Reserve("Ann@acme.test", "192.0.2.1", now); wait == 0 {
				admitted.Add(1)
			}
		})
	}
	close(start)
	wg.Wait()
	if admitted.Load() != 5 {
		t.Fatalf("%d attempts admitted, want 5", admitted.Load())
	}
}

// TestThrottle_keyedByEmailAndAddress: one address's failures do not lock
// the account for another address, a success clears them, and an address
// spraying many emails meets its own bound.
func TestThrottle_keyedByEmailAndAddress(t *testing.T) {
	t.Parallel()
	th := auth.NewThrottle(5, 15*time.Minute, 1, time.Second)
	for range 5 {
		if _, wait := th.Reserve("ann@acme.test", "192.0.2.1", now); wait != 0 {
			t.Fatal("throttled early")
		}
	}
	if _, wait := th.Reserve("ann@acme.test", "192.0.2.1", now); wait <= 0 || wait > 15*time.Minute {
		t.Fatalf("sixth failure from the same address: wait %s", wait)
	}
	a, wait := th.Reserve("ann@acme.test", "198.51.100.2", now)
	if wait != 0 {
		t.Fatal("another address is locked out too")
	}
	a.Succeeded()
	if _, wait := th.Reserve("ann@acme.test", "192.0.2.1", now.Add(15*time.Minute)); wait != 0 {
		t.Fatal("failures outlive the window")
	}
	sprayed := 0
	for i := range 100 {
		if _, wait := th.Reserve(string(rune('a'+i%26))+string(rune('a'+i/26))+"@x.test", "203.0.113.3", now); wait == 0 {
			sprayed++
		}
	}
	if sprayed != 50 {
		t.Fatalf("one address tried %d emails, want 50", sprayed)
	}
	ab, _ := th.Reserve("zed@x.test", "198.51.100.9", now)
	ab.Abandon()
	for range 5 {
		if _, wait := th.Reserve("zed@x.test", "198.51.100.9", now); wait != 0 {
			t.Fatal("an abandoned attempt counted as a failure")
		}
	}
}

// TestThrottle_hashingIsBounded: no more than the allowed checks run at
// once; the rest wait their turn, then are told the service is busy.
func TestThrottle_hashingIsBounded(t *testing.T) {
	t.Parallel()
	th := auth.NewThrottle(5, time.Minute, 2, 50*time.Millisecond)
	r1, busy1 := th.Hashing(context.Background())
	r2, busy2 := th.Hashing(context.Background())
	if busy1 || busy2 {
		t.Fatal("two turns refused")
	}
	if _, busy := th.Hashing(context.Background()); !busy {
		t.Fatal("a third check ran at once")
	}
	r1()
	r3, busy := th.Hashing(context.Background())
	if busy {
		t.Fatal("a released turn is not given again")
	}
	r2()
	r3()
}
