package spill

import (
	"math/rand/v2"
	"testing"
)

// TestIndex_matchesAMap inserts random hashes with repeats through a tiny
// memory budget (many runs) and checks every answer against a map.
func TestIndex_matchesAMap(t *testing.T) {
	t.Parallel()
	x := New(t.TempDir(), 1000)
	defer x.Close()
	want := map[uint64]bool{}
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 50_000 {
		h := r.Uint64()%20_000 + 1 // many repeats
		if i%3 == 0 {
			h = r.Uint64() | 1
		}
		if got, expect := x.Has(h), want[h]; got != expect {
			t.Fatalf("Has(%d) = %v, want %v (after %d adds, %d runs)", h, got, expect, i, len(x.runs))
		}
		if added := x.Add(h); added == want[h] {
			t.Fatalf("Add(%d) = %v with the hash already present = %v", h, added, want[h])
		}
		want[h] = true
	}
	if len(x.runs) < 10 {
		t.Fatalf("only %d runs: the test did not exercise spilling", len(x.runs))
	}
	if x.Err() != nil {
		t.Fatal(x.Err())
	}
}

func BenchmarkIndexAdd(b *testing.B) {
	x := New(b.TempDir(), 1<<20)
	defer x.Close()
	r := rand.New(rand.NewPCG(3, 4))
	for b.Loop() {
		x.Add(r.Uint64() | 1)
	}
}

// BenchmarkSpill writes a full in-memory table (DefaultMemory hashes) as a
// run: the time the engine's writer waits at each spill.
func BenchmarkSpill(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	for b.Loop() {
		b.StopTimer()
		x := New(b.TempDir(), DefaultMemory)
		for range DefaultMemory - 1 {
			x.mem.Add(r.Uint64() | 1)
		}
		b.StartTimer()
		if err := x.spill(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		x.Close()
		b.StartTimer()
	}
}
