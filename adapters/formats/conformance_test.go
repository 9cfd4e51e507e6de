package formats_test

import (
	"testing"

	"github.com/tabnorm/tabnorm/adapters/formats"
	"github.com/tabnorm/tabnorm/ports"
	"github.com/tabnorm/tabnorm/ports/portstest"
)

func TestOpener_conformance(t *testing.T) {
	t.Parallel()
	portstest.TableOpener(t, func(*testing.T) ports.TableOpener { return formats.NewOpener() })
}
