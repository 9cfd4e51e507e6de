// Package clock is the system clock behind ports.Clock.
package clock

import (
	"time"

	"github.com/tabnorm/tabnorm/ports"
)

// System reads the wall clock, in UTC.
type System struct{}

var _ ports.Clock = System{}

// Now returns the current time in UTC.
func (System) Now() time.Time { return time.Now().UTC() }
