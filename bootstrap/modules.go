package bootstrap

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"strings"
	"time"

	"go.uber.org/fx"
	"go.uber.org/fx/fxevent"

	"github.com/tabnorm/tabnorm/adapters/blob"
	"github.com/tabnorm/tabnorm/adapters/clock"
	"github.com/tabnorm/tabnorm/adapters/events"
	"github.com/tabnorm/tabnorm/adapters/formats"
	"github.com/tabnorm/tabnorm/adapters/httpapi"
	"github.com/tabnorm/tabnorm/adapters/queue"
	"github.com/tabnorm/tabnorm/adapters/spill"
	"github.com/tabnorm/tabnorm/adapters/sqlstore"
	"github.com/tabnorm/tabnorm/application/accounts"
	"github.com/tabnorm/tabnorm/application/auth"
	"github.com/tabnorm/tabnorm/application/connect"
	"github.com/tabnorm/tabnorm/application/idempotency"
	"github.com/tabnorm/tabnorm/application/jobs"
	"github.com/tabnorm/tabnorm/application/keys"
	"github.com/tabnorm/tabnorm/application/schemas"
	"github.com/tabnorm/tabnorm/domain/license"
	"github.com/tabnorm/tabnorm/domain/table"
	"github.com/tabnorm/tabnorm/ports"
)

// Output is where commands print what a person reads (the first admin's
// password, the URL); tests capture it.
type Output struct{ io.Writer }

// Base provides the settings, the logger and the clock.
func Base(cfg Config, out io.Writer) fx.Option {
	return fx.Options(
		fx.Supply(cfg, Output{out}),
		fx.Provide(
			newLogger,
			fx.Annotate(func() clock.System { return clock.System{} }, fx.As(new(ports.Clock))),
		),
	)
}

// fxLogs sends fx's own lifecycle messages to the logger at debug level.
var fxLogs = fx.WithLogger(func(log *slog.Logger) fxevent.Logger {
	l := &fxevent.SlogLogger{Logger: log}
	l.UseLogLevel(slog.LevelDebug)
	return l
})

func newLogger(cfg Config) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.LogLevel}
	var w io.Writer = os.Stderr
	if cfg.LogOutput != nil {
		w = cfg.LogOutput
	}
	var h slog.Handler = slog.NewTextHandler(w, opts)
	if cfg.LogFormat == "json" {
		h = slog.NewJSONHandler(w, opts)
	}
	log := slog.New(h)
	slog.SetDefault(log)
	return log
}

// SQLStore opens the database and provides the repositories.
var SQLStore = fx.Module("sqlstore",
	fx.Provide(
		openStore,
		fx.Annotate(sqlstore.NewTransactor, fx.As(new(ports.Transactor))),
		fx.Annotate(sqlstore.NewOrganizations, fx.As(new(ports.Organizations))),
		fx.Annotate(sqlstore.NewUsers, fx.As(new(ports.Users))),
		fx.Annotate(sqlstore.NewAPIKeys, fx.As(new(ports.APIKeys))),
		fx.Annotate(sqlstore.NewSessions, fx.As(new(ports.Sessions))),
		fx.Annotate(sqlstore.NewAuditLog, fx.As(new(ports.AuditLog))),
		fx.Annotate(sqlstore.NewCredentials, fx.As(new(ports.Credentials))),
		fx.Annotate(sqlstore.NewJobs, fx.As(new(ports.Jobs))),
		fx.Annotate(sqlstore.NewJobEvents, fx.As(new(ports.JobEvents))),
		fx.Annotate(sqlstore.NewSchemas, fx.As(new(ports.Schemas))),
		fx.Annotate(sqlstore.NewIdempotency, fx.As(new(ports.Idempotency))),
		fx.Annotate(sqlstore.NewLearnedMappings, fx.As(new(ports.LearnedMappings))),
		fx.Annotate(sqlstore.NewFiles, fx.As(new(ports.Files))),
	),
)

func openStore(lc fx.Lifecycle, cfg Config) (*sqlstore.DB, error) {
	db, err := sqlstore.Open(context.Background(), cfg.Database)
	if err != nil {
		return nil, err
	}
	lc.Append(fx.StopHook(db.Close))
	return db, nil
}

// Accounts provides the accounts, authentication and key services.
var Accounts = fx.Module("accounts", fx.Provide(
	accounts.NewService,
	auth.NewService,
	auth.DefaultThrottle,
	keys.NewService,
	newLicenseGate,
))

// newLicenseGate reads the license once at start; a required license that
// is missing or invalid is logged, and every gated request says why.
func newLicenseGate(cfg Config, log *slog.Logger) (license.Gate, error) {
	token := cfg.LicenseToken
	if token == "" && cfg.LicenseFile != "" {
		b, err := os.ReadFile(cfg.LicenseFile)
		if err != nil {
			return license.Gate{}, fmt.Errorf("TABNORM_LICENSE_FILE: %w", err)
		}
		token = strings.TrimSpace(string(b))
	}
	gate := license.NewGate(cfg.LicenseRequired, token, ed25519.PublicKey(cfg.LicensePublicKey))
	log.Info(gate.Describe())
	return gate, nil
}

// HTTP provides the API server and runs it for the app's lifetime.
var HTTP = fx.Module("httpapi",
	fx.Provide(newAPI),
	fx.Invoke(func(*httpapi.API) {}),
)

// Blob opens the file store.
var Blob = fx.Module("blob", fx.Provide(
	func(lc fx.Lifecycle, cfg Config) (ports.BlobStore, error) {
		s, err := blob.Open(context.Background(), cfg.BlobURL)
		if err != nil {
			return nil, err
		}
		lc.Append(fx.StopHook(s.Close))
		return s, nil
	},
))

// Formats provides the table readers.
var Formats = fx.Module("formats", fx.Provide(fx.Annotate(formats.NewOpener, fx.As(new(ports.TableOpener)))))

// Queue provides the inserting side of the job queue.
var Queue = fx.Module("queue", fx.Provide(
	func(db *sqlstore.DB, log *slog.Logger) (ports.Queue, error) { return queue.NewInserter(db, log) },
))

// Events provides the job event bus: in-process on SQLite (one node),
// LISTEN/NOTIFY on PostgreSQL (any number of nodes).
var Events = fx.Module("events", fx.Provide(func(lc fx.Lifecycle, db *sqlstore.DB, log *slog.Logger) ports.EventBus {
	if db.Dialect != sqlstore.Postgres {
		return events.NewLocal()
	}
	bus := events.NewPostgres(db, log)
	lc.Append(fx.Hook{OnStart: bus.Start, OnStop: bus.Stop})
	return bus
}))

// Jobs provides the jobs service.
var Jobs = fx.Module("jobs", fx.Provide(func(cfg Config, j ports.Jobs, e ports.JobEvents, sch ports.Schemas, learned ports.LearnedMappings, bus ports.EventBus, q ports.Queue, b ports.BlobStore,
	t ports.TableOpener, tx ports.Transactor, c ports.Clock, log *slog.Logger) *jobs.Service {
	return jobs.NewService(jobs.Config{MaxUploadBytes: cfg.MaxUploadBytes, MaxRows: int64(cfg.MaxRows), JobTimeout: cfg.JobTimeout, Lease: cfg.JobLease, Retention: cfg.Retention, NewIndex: spill.Factory(""),
		Limits: table.Limits{MaxColumns: cfg.MaxColumns, MaxCellBytes: cfg.MaxCellBytes}}, j, e, sch, learned, bus, q, b, t, tx, c, log)
}), fx.Provide(schemas.NewService, idempotency.NewService))

// Connect provides the connect product's service (files library and
// multi-file jobs).
var Connect = fx.Module("connect", fx.Provide(connect.NewService))

// Workers run queued jobs for the process's lifetime, and requeue jobs
// whose worker was lost.
var Workers = fx.Module("workers", fx.Invoke(func(lc fx.Lifecycle, cfg Config, db *sqlstore.DB, svc *jobs.Service, log *slog.Logger, out Output, _ Migrated) error {
	purgeEvery := min(time.Hour, max(time.Second, cfg.Retention/10))
	w, err := queue.NewWorkers(db, queue.Config{Workers: runtime.GOMAXPROCS(0), JobTimeout: cfg.JobTimeout, PurgeEvery: purgeEvery}, svc, svc, log)
	if err != nil {
		return err
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	lc.Append(fx.Hook{
		OnStart: func(ctx context.Context) error {
			if err := w.Start(ctx); err != nil {
				return err
			}
			fmt.Fprintf(out, "tabnorm is working: %d job workers\n", runtime.GOMAXPROCS(0))
			go func() { // the lease reaper
				defer close(done)
				t := time.NewTicker(max(time.Second, cfg.JobLease/3))
				defer t.Stop()
				for {
					select {
					case <-stop:
						return
					case <-t.C:
						if n, err := svc.Reap(context.Background()); err != nil {
							log.Error("requeue lost jobs", "error", err)
						} else if n > 0 {
							log.Warn("requeued jobs whose worker was lost", "jobs", n)
						}
					}
				}
			}()
			return nil
		},
		OnStop: func(ctx context.Context) error {
			close(stop)
			<-done
			return w.Stop(ctx)
		},
	})
	return nil
}))

// apiDeps gathers what the router needs.
type apiDeps struct {
	fx.In
	Log     *slog.Logger
	DB      *sqlstore.DB
	Auth    *auth.Service
	Keys    *keys.Service
	Jobs    *jobs.Service
	Connect *connect.Service
	Schemas *schemas.Service
	Idem    *idempotency.Service
	License license.Gate
	Clock   ports.Clock
}

func newAPI(lc fx.Lifecycle, cfg Config, d apiDeps, out Output, _ Migrated) *httpapi.API {
	log := d.Log
	api := httpapi.New(cfg.HTTP, httpapi.Deps{Log: log, Readiness: readiness{d.DB}, Auth: d.Auth, Keys: d.Keys, Jobs: d.Jobs, Connect: d.Connect, Schemas: d.Schemas, Idempotency: d.Idem, License: d.License, Clock: d.Clock})
	lc.Append(fx.Hook{
		OnStart: func(ctx context.Context) error {
			if err := api.Start(ctx); err != nil {
				return fmt.Errorf("listen on %s: %w", cfg.HTTP.Addr, err)
			}
			log.Info("listening", "addr", api.Addr(), "url", cfg.BaseURL)
			fmt.Fprintf(out, "tabnorm is serving on %s (listening on %s)\n", cfg.BaseURL, api.Addr())
			return nil
		},
		OnStop: api.Stop,
	})
	return api
}

// readiness adds the queue's tables to the database's readiness.
type readiness struct{ db *sqlstore.DB }

func (r readiness) Ready(ctx context.Context) error {
	if err := r.db.Ready(ctx); err != nil {
		return err
	}
	if n, err := queue.Pending(ctx, r.db); err != nil || n > 0 {
		return errors.New("queue migrations pending (run tabnorm migrate)")
	}
	return nil
}

// Migrated is a token for the parts that must start after the database is
// migrated: taking it as a parameter orders their start hooks after ours.
type Migrated struct{}

// migrateAndSeed runs at serve start, before the server listens: pending
// migrations are applied (advisory-locked on PostgreSQL) and an empty
// database gets its first organization and admin.
func migrateAndSeed(lc fx.Lifecycle, db *sqlstore.DB, svc *accounts.Service, log *slog.Logger, out Output, cfg Config) Migrated {
	lc.Append(fx.StartHook(func(ctx context.Context) error {
		applied, err := db.Migrate(ctx)
		if err != nil {
			return err
		}
		if _, err := queue.Migrate(ctx, db); err != nil {
			return err
		}
		if len(applied) > 0 {
			log.Info("migrations applied", "migrations", applied)
		}
		seeded, err := svc.Seed(ctx)
		if err != nil {
			return fmt.Errorf("seed first organization: %w", err)
		}
		if seeded != nil {
			fmt.Fprintf(out, "\nFirst start: created organization %q (%s) and its admin.\n"+
				"  Sign in at %s with\n    email:    %s\n    password: %s\n"+
				"  This password is shown only once.\n\n",
				seeded.Org.Name, seeded.Org.ID, cfg.DashboardURL, seeded.Admin.Email, seeded.Password)
		}
		return nil
	}))
	return Migrated{}
}

// Role says which parts of the service a process runs.
type Role string

const (
	RoleAll    Role = "all"
	RoleAPI    Role = "api"
	RoleWorker Role = "worker"
)

// ParseRole validates a --role value.
func ParseRole(s string) (Role, error) {
	switch r := Role(s); r {
	case RoleAll, RoleAPI, RoleWorker:
		return r, nil
	}
	return "", fmt.Errorf("--role: %q is not api, worker or all", s)
}

// Serve is the whole service for `tabnorm serve`.
func Serve(cfg Config, role Role, out io.Writer) fx.Option {
	opts := []fx.Option{
		Base(cfg, out),
		fxLogs,
		SQLStore,
		Accounts,
		Blob,
		Formats,
		Queue,
		Events,
		Jobs,
		Connect,
		fx.Provide(migrateAndSeed),
		fx.Invoke(func(Migrated) {}),
		fx.StopTimeout(cfg.HTTP.ShutdownTimeout + 5*time.Second),
	}
	if role == RoleAll || role == RoleAPI {
		opts = append(opts, HTTP)
	}
	if role == RoleAll || role == RoleWorker {
		opts = append(opts, Workers)
	}
	return fx.Options(opts...)
}

// Admin is what the operator commands need: the store and the services,
// without the server.
func Admin(cfg Config, out io.Writer) fx.Option {
	return fx.Options(Base(cfg, out), SQLStore, Accounts, fx.NopLogger)
}
