package testtime

import (
	"testing"
	"time"
)

func TestScale(t *testing.T) {
	t.Setenv(Variable, "2.5") // read once per process: check the parsing, not the cache
	f := Factor()
	if got := Scale(2 * time.Second); got != time.Duration(float64(2*time.Second)*f) {
		t.Fatalf("Scale(2s) = %s with factor %v", got, f)
	}
	if f <= 0 {
		t.Fatalf("factor %v", f)
	}
}
