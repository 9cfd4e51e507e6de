package bootstrap

import (
	"context"
	"io"

	"go.uber.org/fx"

	"github.com/tabnorm/tabnorm/adapters/httpapi"
	"github.com/tabnorm/tabnorm/adapters/metrics"
	"github.com/tabnorm/tabnorm/adapters/sqlstore"
	"github.com/tabnorm/tabnorm/application/accounts"
	"github.com/tabnorm/tabnorm/application/jobs"
	"github.com/tabnorm/tabnorm/application/keys"
	"github.com/tabnorm/tabnorm/ports"
)

// Handles are the parts of a started service that tests and tools reach.
type Handles struct {
	API      *httpapi.API // nil for the worker role
	DB       *sqlstore.DB
	Accounts *accounts.Service
	Keys     *keys.Service
	Metrics  *metrics.Server // nil unless TABNORM_METRICS_ADDR is set
	// Orphans is the sweep of orphaned storage the workers run with the
	// retention purge; tests run it when they need it.
	Orphans *jobs.Orphans
}

// Overrides replace parts of the wiring; zero fields keep the defaults.
type Overrides struct {
	Clock ports.Clock // tests move time with it
	// Tables wraps the table readers: tests slow some files down to keep
	// a worker busy the way a heavy file does.
	Tables func(ports.TableOpener) ports.TableOpener
	// Jobs and ImportSessions wrap those stores: tests count the reads
	// a request makes.
	Jobs           func(ports.Jobs) ports.Jobs
	ImportSessions func(ports.ImportSessions) ports.ImportSessions
}

// Start runs the service as serve does, without waiting for a signal, and
// returns its handles and the function that stops it.
func Start(ctx context.Context, cfg Config, role Role, out io.Writer, ov Overrides) (Handles, func(context.Context) error, error) {
	var h Handles
	opts := []fx.Option{Serve(cfg, role, out), fx.Populate(&h.DB, &h.Accounts, &h.Keys, &h.Metrics, &h.Orphans)}
	if role != RoleWorker {
		opts = append(opts, fx.Populate(&h.API))
	}
	if ov.Clock != nil {
		opts = append(opts, fx.Decorate(func(ports.Clock) ports.Clock { return ov.Clock }))
	}
	if ov.Tables != nil {
		opts = append(opts, fx.Decorate(ov.Tables))
	}
	if ov.Jobs != nil {
		opts = append(opts, fx.Decorate(ov.Jobs))
	}
	if ov.ImportSessions != nil {
		opts = append(opts, fx.Decorate(ov.ImportSessions))
	}
	app := fx.New(opts...)
	if err := app.Start(ctx); err != nil {
		return Handles{}, nil, err
	}
	return h, app.Stop, nil
}
