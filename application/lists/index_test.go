package lists

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// buildIndex sorts values in runs of limit bytes into a file and opens it.
func buildIndex(t *testing.T, limit int, memMax int64, values []string) (*Index, int64) {
	t.Helper()
	dir := t.TempDir()
	srt := &sorter{dir: dir, limit: limit}
	defer srt.cleanup()
	for _, v := range values {
		if err := srt.add(v); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	n, err := srt.write(&out)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "values")
	if err := os.WriteFile(path, out.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	ix, err := openIndex(path, memMax)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ix.Close() })
	return ix, n
}

func TestIndex_membershipAcrossRunsAndBlocks(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	var values []string
	in := map[string]bool{}
	for range 50_000 {
		v := fmt.Sprintf("SKU-%07d", rng.IntN(10_000_000))
		values = append(values, v, v) // duplicates count once
		in[v] = true
	}
	values = append(values, "é-accent", "a", "zzzz")
	in["é-accent"], in["a"], in["zzzz"] = true, true, true
	for _, c := range []struct {
		limit  int
		memMax int64
	}{{64 << 10, 0}, {runBytes, 0}, {64 << 10, inMemoryMax}} { // many runs merged or one run; the file read per lookup or held
		limit := c.limit
		ix, n := buildIndex(t, limit, c.memMax, values)
		if n != int64(len(in)) {
			t.Fatalf("limit %d: %d distinct values, want %d", limit, n, len(in))
		}
		for v := range in {
			if ok, err := ix.Contains(v); err != nil || !ok {
				t.Fatalf("limit %d: %q not found (%v)", limit, v, err)
			}
		}
		for range 20_000 {
			v := fmt.Sprintf("SKU-%07d", rng.IntN(10_000_000))
			if ok, _ := ix.Contains(v); ok != in[v] {
				t.Fatalf("limit %d: Contains(%q) = %v", limit, v, ok)
			}
		}
		for _, v := range []string{"", "0", "SKU-", "SKU-99999999", "~"} {
			if ok, _ := ix.Contains(v); ok {
				t.Fatalf("Contains(%q) = true", v)
			}
		}
	}
}

func TestOpenIndex_listsShareAMemoryBudget(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "values")
	if err := os.WriteFile(path, []byte(strings.Repeat("x\n", 600)), 0o600); err != nil {
		t.Fatal(err)
	}
	budget := int64(2000)
	first, err := OpenIndex(path, &budget)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = first.Close() }()
	second, err := OpenIndex(path, &budget)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = second.Close() }()
	if first.data == nil || second.data != nil || budget != 800 {
		t.Fatalf("in memory: %v, %v; budget left %d", first.data != nil, second.data != nil, budget)
	}
	if ok, _ := second.Contains("x"); !ok {
		t.Fatal("the list read from its file lost a value")
	}
}

// A million-value list on disk keeps a sparse index: far less heap than
// the values.
func TestIndex_heapIsAFractionOfTheList(t *testing.T) { // not parallel: it measures the heap
	dir := t.TempDir()
	path := filepath.Join(dir, "values")
	var b strings.Builder
	for i := range 1_000_000 {
		fmt.Fprintf(&b, "SKU-%08d\n", i)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	size := b.Len()
	b.Reset()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ix, err := openIndex(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ix.Close() }()
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	if held > int64(size)/10 {
		t.Fatalf("the index holds %d bytes of heap for a %d-byte list", held, size)
	}
	if ok, _ := ix.Contains("SKU-00777777"); !ok {
		t.Fatal("a value is missing")
	}
	if ok, _ := ix.Contains("SKU-01000000"); ok {
		t.Fatal("a value past the end is found")
	}
}
