package clock_test

import (
	"testing"

	"github.com/tabnorm/tabnorm/adapters/clock"
	"github.com/tabnorm/tabnorm/ports/portstest"
)

func TestSystem_conformance(t *testing.T) {
	t.Parallel()
	portstest.Clock(t, clock.System{})
}
