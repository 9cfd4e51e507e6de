// Package testtime stretches the deadlines tests set by one factor,
// TABNORM_TEST_TIME_SCALE (a number, 1 when unset), so that a loaded or
// slow machine runs the same tests with more time instead of failing
// them. Every layer's tests may import it: it imports only the standard
// library.
package testtime

import (
	"math"
	"os"
	"strconv"
	"sync"
	"time"
)

// Variable names the factor.
const Variable = "TABNORM_TEST_TIME_SCALE"

var factor = sync.OnceValue(func() float64 { return parse(os.Getenv(Variable)) })

// parse reads the factor: a positive number, else 1.
func parse(s string) float64 {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f <= 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return 1
	}
	return f
}

// Factor is TABNORM_TEST_TIME_SCALE, or 1 when it is unset or not a
// positive number.
func Factor() float64 { return factor() }

// Scale stretches a deadline a test sets by the factor.
func Scale(d time.Duration) time.Duration { return time.Duration(float64(d) * Factor()) }

// Deadline is now plus d stretched by the factor.
func Deadline(d time.Duration) time.Time { return time.Now().Add(Scale(d)) }

// After is time.After of d stretched by the factor.
func After(d time.Duration) <-chan time.Time { return time.After(Scale(d)) }
