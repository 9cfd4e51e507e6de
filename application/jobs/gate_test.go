package jobs

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/test/testtime"
)

// acquireAsync asks for a slot in the background; the channel gets the
// release once it is granted.
func acquireAsync(ctx context.Context, g *Gate, org string) <-chan func() {
	got := make(chan func(), 1)
	go func() {
		if release, err := g.Acquire(ctx, org); err == nil {
			got <- release
		}
	}()
	return got
}

func granted(t *testing.T, ch <-chan func(), what string) func() {
	t.Helper()
	select {
	case release := <-ch:
		return release
	case <-time.After(testtime.Scale(5 * time.Second)):
		t.Fatalf("%s: no slot", what)
		return nil
	}
}

func waiting(t *testing.T, ch <-chan func(), what string) {
	t.Helper()
	select {
	case <-ch:
		t.Fatalf("%s: granted a slot it must wait for", what)
	case <-time.After(50 * time.Millisecond):
	}
}

// waiters waits until the gate has n waiters in all.
func waiters(t *testing.T, g *Gate, n int) {
	t.Helper()
	deadline := testtime.Deadline(5 * time.Second)
	for {
		g.mu.Lock()
		got := 0
		for _, line := range g.waiting {
			got += len(line)
		}
		g.mu.Unlock()
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d waiters, want %d", got, n)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestGate_anotherOrganizationIsNextNotLast: an organization holding every
// slot with ten more requests waiting does not keep the next free slot
// from another organization's one request.
func TestGate_anotherOrganizationIsNextNotLast(t *testing.T) {
	ctx := context.Background()
	g := NewGate(2, 2)
	a1, _ := g.Acquire(ctx, "org_a")
	a2, _ := g.Acquire(ctx, "org_a")
	more := make(chan func(), 10)
	for range 10 {
		go func() { more <- <-acquireAsync(ctx, g, "org_a") }()
	}
	waiters(t, g, 10)
	b := acquireAsync(ctx, g, "org_b")
	waiters(t, g, 11)
	waiting(t, b, "org_b while org_a holds every slot")
	a1()
	granted(t, b, "org_b after one of org_a's slots is free")()
	a2()
	for range 10 { // org_a's line goes on
		granted(t, more, "org_a's next")()
	}
	if all, org := g.Running("org_a"); all != 0 || org != 0 {
		t.Fatalf("%d running, %d of org_a, after every release", all, org)
	}
}

// TestGate_perOrganizationBound: one organization gets at most perOrg
// slots while others are free for another; a waiter whose context ends
// leaves the line and takes nothing.
func TestGate_perOrganizationBound(t *testing.T) {
	ctx := context.Background()
	g := NewGate(3, 1)
	a, _ := g.Acquire(ctx, "org_a")
	second := acquireAsync(ctx, g, "org_a")
	waiting(t, second, "org_a's second with a slot of its own taken")
	b, err := g.Acquire(ctx, "org_b")
	if err != nil {
		t.Fatal(err)
	}
	gone, cancel := context.WithCancel(ctx)
	leaving := make(chan error, 1)
	go func() { _, err := g.Acquire(gone, "org_a"); leaving <- err }()
	waiters(t, g, 2)
	cancel()
	if err := <-leaving; !errors.Is(err, context.Canceled) {
		t.Fatalf("a canceled waiter: %v", err)
	}
	waiters(t, g, 1)
	a()
	granted(t, second, "org_a's second after its first")()
	b()
	if all, _ := g.Running(""); all != 0 {
		t.Fatalf("%d slots still taken", all)
	}
}
