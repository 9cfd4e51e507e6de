package testtime

import (
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]float64{"": 1, "2.5": 2.5, "3": 3, "0": 1, "-2": 1, "x": 1, "NaN": 1, "0.5": 0.5} {
		if got := parse(in); got != want {
			t.Errorf("parse(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestScale(t *testing.T) {
	t.Parallel()
	f := Factor()
	if got := Scale(2 * time.Second); got != time.Duration(float64(2*time.Second)*f) {
		t.Fatalf("Scale(2s) = %s with factor %v", got, f)
	}
	if d := time.Until(Deadline(time.Minute)); d < time.Duration(float64(time.Minute)*f)-time.Second {
		t.Fatalf("Deadline(1m) is %s away with factor %v", d, f)
	}
}
