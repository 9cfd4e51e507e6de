package metrics

import (
	"fmt"
	"testing"
)

// TestBoundedLabels: the first MaxHookSeries hooks keep their own label,
// a later one is "other", and one seen before keeps its own.
func TestBoundedLabels(t *testing.T) {
	t.Parallel()
	b := &boundedLabels{most: MaxHookSeries, seen: map[string]bool{}}
	for i := range MaxHookSeries {
		if got := b.label(fmt.Sprintf("hook_%d", i)); got != fmt.Sprintf("hook_%d", i) {
			t.Fatalf("hook %d got %q, want its own label", i, got)
		}
	}
	if got := b.label("hook_late"); got != "other" {
		t.Fatalf("hook %d got %q, want other", MaxHookSeries+1, got)
	}
	if got := b.label("hook_0"); got != "hook_0" {
		t.Fatalf("a hook seen first got %q, want hook_0", got)
	}
}
