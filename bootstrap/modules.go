package bootstrap

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"go.uber.org/fx"
	"go.uber.org/fx/fxevent"

	"github.com/tabnorm/tabnorm/adapters/clock"
	"github.com/tabnorm/tabnorm/adapters/httpapi"
	"github.com/tabnorm/tabnorm/adapters/sqlstore"
	"github.com/tabnorm/tabnorm/application/accounts"
	"github.com/tabnorm/tabnorm/application/auth"
	"github.com/tabnorm/tabnorm/application/keys"
	"github.com/tabnorm/tabnorm/domain/license"
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

// apiDeps gathers what the router needs.
type apiDeps struct {
	fx.In
	Log     *slog.Logger
	DB      *sqlstore.DB
	Auth    *auth.Service
	Keys    *keys.Service
	License license.Gate
	Clock   ports.Clock
}

func newAPI(lc fx.Lifecycle, cfg Config, d apiDeps, out Output, _ Migrated) *httpapi.API {
	log := d.Log
	api := httpapi.New(cfg.HTTP, httpapi.Deps{Log: log, Readiness: d.DB, Auth: d.Auth, Keys: d.Keys, License: d.License, Clock: d.Clock})
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
		fx.Provide(migrateAndSeed),
		fx.Invoke(func(Migrated) {}),
		fx.StopTimeout(cfg.HTTP.ShutdownTimeout + 5*time.Second),
	}
	if role == RoleAll || role == RoleAPI {
		opts = append(opts, HTTP)
	}
	return fx.Options(opts...)
}

// Admin is what the operator commands need: the store and the services,
// without the server.
func Admin(cfg Config, out io.Writer) fx.Option {
	return fx.Options(Base(cfg, out), SQLStore, Accounts, fx.NopLogger)
}
