package xlsx

import (
	"math/rand/v2"
	"testing"
)

// TestSharedStrings_blocks: every item reads back as it was added, also
// one across two text blocks, one longer than a block, empty ones, and
// items past the first block of ends.
func TestSharedStrings_blocks(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	var want []string
	for i := range 3000 {
		n := rng.IntN(2500)
		switch i {
		case 10:
			n = 0
		case 20:
			n = sharedBlockBytes + 17 // longer than a block
		}
		b := make([]byte, n)
		for j := range b {
			b[j] = byte('a' + rng.IntN(26))
		}
		want = append(want, string(b))
	}
	for range sharedEndsBlock + 5 {
		want = append(want, "")
	}
	want = append(want, "last")
	t.Run("claimed size", func(t *testing.T) { checkShared(t, want, 64<<20) })
	t.Run("a claim too small", func(t *testing.T) { checkShared(t, want, 10) })
}

func checkShared(t *testing.T, want []string, claim uint64) {
	t.Helper()
	sst := &sharedStrings{claim: claim}
	for _, s := range want {
		if err := sst.add([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	across := 0
	for i, w := range want {
		got, ok := sst.get(i)
		if !ok || got != w {
			t.Fatalf("item %d: %d bytes (%v), want %d", i, len(got), ok, len(w))
		}
		if i > 0 && w != "" && sst.end(i-1)/sharedBlockBytes != (sst.end(i)-1)/sharedBlockBytes {
			across++
		}
	}
	if across < 2 || len(sst.blocks) < 3 || len(sst.ends) != 2 {
		t.Fatalf("%d items across blocks, %d text blocks, %d blocks of ends: the test does not cross them", across, len(sst.blocks), len(sst.ends))
	}
	for k, b := range sst.blocks[:len(sst.blocks)-1] {
		if len(b) != sharedBlockBytes {
			t.Fatalf("block %d holds %d bytes", k, len(b))
		}
	}
	if _, ok := sst.get(len(want)); ok {
		t.Fatal("an item past the last was found")
	}
	if _, ok := sst.get(-1); ok {
		t.Fatal("item -1 was found")
	}
}
