package bootstrap

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"go.uber.org/fx"
	"go.uber.org/fx/fxevent"

	"github.com/tabnorm/tabnorm/adapters/blob"
	"github.com/tabnorm/tabnorm/adapters/clock"
	destwriter "github.com/tabnorm/tabnorm/adapters/destination"
	"github.com/tabnorm/tabnorm/adapters/events"
	"github.com/tabnorm/tabnorm/adapters/formats"
	"github.com/tabnorm/tabnorm/adapters/httpapi"
	"github.com/tabnorm/tabnorm/adapters/importer"
	"github.com/tabnorm/tabnorm/adapters/metrics"
	"github.com/tabnorm/tabnorm/adapters/oidcrp"
	"github.com/tabnorm/tabnorm/adapters/queue"
	"github.com/tabnorm/tabnorm/adapters/sealing"
	"github.com/tabnorm/tabnorm/adapters/spill"
	"github.com/tabnorm/tabnorm/adapters/sqlstore"
	"github.com/tabnorm/tabnorm/adapters/tracing"
	"github.com/tabnorm/tabnorm/adapters/webhook"
	"github.com/tabnorm/tabnorm/application/accounts"
	"github.com/tabnorm/tabnorm/application/audit"
	"github.com/tabnorm/tabnorm/application/auth"
	"github.com/tabnorm/tabnorm/application/connect"
	"github.com/tabnorm/tabnorm/application/destinations"
	"github.com/tabnorm/tabnorm/application/hooks"
	"github.com/tabnorm/tabnorm/application/idempotency"
	"github.com/tabnorm/tabnorm/application/importsessions"
	"github.com/tabnorm/tabnorm/application/jobs"
	"github.com/tabnorm/tabnorm/application/keys"
	"github.com/tabnorm/tabnorm/application/lists"
	"github.com/tabnorm/tabnorm/application/review"
	"github.com/tabnorm/tabnorm/application/schemas"
	"github.com/tabnorm/tabnorm/application/sso"
	"github.com/tabnorm/tabnorm/application/webhooks"
	"github.com/tabnorm/tabnorm/domain/importsession"
	"github.com/tabnorm/tabnorm/domain/job"
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
	log := slog.New(tracing.LogHandler{Handler: h})
	slog.SetDefault(log)
	for _, w := range cfg.Warnings {
		log.Warn(w)
	}
	return log
}

// SQLStore opens the database and provides the repositories.
var SQLStore = fx.Module("sqlstore",
	fx.Provide(
		openStore,
		fx.Annotate(sqlstore.NewTransactor, fx.As(new(ports.Transactor))),
		fx.Annotate(sqlstore.NewOrganizations, fx.As(new(ports.Organizations))),
		fx.Annotate(sqlstore.NewEntitlements, fx.As(new(ports.Entitlements))),
		fx.Annotate(sqlstore.NewUsers, fx.As(new(ports.Users))),
		fx.Annotate(sqlstore.NewAPIKeys, fx.As(new(ports.APIKeys))),
		fx.Annotate(sqlstore.NewSessions, fx.As(new(ports.Sessions))),
		fx.Annotate(sqlstore.NewAuditLog, fx.As(new(ports.AuditLog))),
		fx.Annotate(sqlstore.NewCredentials, fx.As(new(ports.Credentials))),
		fx.Annotate(sqlstore.NewJobs, fx.As(new(ports.Jobs))),
		fx.Annotate(sqlstore.NewJobs, fx.As(new(ports.JobSlots))),
		fx.Annotate(sqlstore.NewJobEvents, fx.As(new(ports.JobEvents))),
		fx.Annotate(sqlstore.NewSchemas, fx.As(new(ports.Schemas))),
		fx.Annotate(sqlstore.NewLists, fx.As(new(ports.Lists))),
		fx.Annotate(sqlstore.NewEdits, fx.As(new(ports.JobEdits))),
		fx.Annotate(sqlstore.NewHistory, fx.As(new(ports.JobHistory))),
		fx.Annotate(sqlstore.NewIdempotency, fx.As(new(ports.Idempotency))),
		fx.Annotate(sqlstore.NewLearnedMappings, fx.As(new(ports.LearnedMappings))),
		fx.Annotate(sqlstore.NewFiles, fx.As(new(ports.Files))),
		fx.Annotate(sqlstore.NewWebhookEndpoints, fx.As(new(ports.WebhookEndpoints))),
		fx.Annotate(sqlstore.NewWebhookDeliveries, fx.As(new(ports.WebhookDeliveries))),
		fx.Annotate(sqlstore.NewDestinations, fx.As(new(ports.Destinations))),
		fx.Annotate(sqlstore.NewPushes, fx.As(new(ports.Pushes))),
		fx.Annotate(sqlstore.NewQuotas, fx.As(new(ports.Quotas))),
		fx.Annotate(sqlstore.NewBlobOwners, fx.As(new(ports.BlobOwners))),
		fx.Annotate(sqlstore.NewReviews, fx.As(new(ports.JobReviews))),
		fx.Annotate(sqlstore.NewImportSessions, fx.As(new(ports.ImportSessions))),
		fx.Annotate(sqlstore.NewSSOConfigs, fx.As(new(ports.SSOConfigs))),
		fx.Annotate(sqlstore.NewSSOFlows, fx.As(new(ports.SSOFlows))),
	),
)

// Sealing provides the Sealer of the secrets organizations store.
var Sealing = fx.Module("sealing", fx.Provide(newSealer))

// newSealer seals with TABNORM_SECRET_KEY; without it, on SQLite, with a
// key kept in secret.key beside the database (one process owns that
// database, so one key file serves it); on PostgreSQL, several processes
// would each make their own key, so none is made and storing a secret is
// refused.
func newSealer(cfg Config, log *slog.Logger) (ports.Sealer, error) {
	if len(cfg.SecretKeys) > 0 {
		return sealing.New(cfg.SecretKeys...)
	}
	dialect, path, err := sqlstore.ParseURL(cfg.Database.URL)
	if err != nil {
		return nil, err
	}
	if dialect != sqlstore.SQLite {
		log.Warn("TABNORM_SECRET_KEY is not set: secrets (destination credentials, sign-in providers) cannot be stored")
		return sealing.Unkeyed{}, nil
	}
	keyPath := filepath.Join(filepath.Dir(path), "secret.key")
	key, created, err := sealing.KeyFile(keyPath)
	if err != nil {
		return nil, fmt.Errorf("secret key: %w", err)
	}
	if created {
		log.Info("generated the key that encrypts stored secrets; back it up with the database, or set TABNORM_SECRET_KEY", "path", keyPath)
	}
	return sealing.New(key)
}

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
	auth.NewGate,
	auth.DefaultThrottle,
	keys.NewService,
	importsessions.NewService,
	func() importsessions.TextKeys { return importer.IsTextKey },
	newLicenseGate,
	fx.Annotate(func(clock ports.Clock) *oidcrp.Provider { return oidcrp.New(oidcrp.Config{}, clock) }, fx.As(new(ports.SignInProvider))),
	func(cfg Config) sso.Config { return sso.Config{AllowHTTPIssuer: cfg.SSOAllowHTTPIssuer} },
	sso.NewService,
	func(cfg Config, log ports.AuditLog, clock ports.Clock, logger *slog.Logger) *audit.Service {
		return audit.NewService(audit.Config{Retention: cfg.AuditRetention}, log, clock, logger)
	},
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
	func(lc fx.Lifecycle, cfg Config, log *slog.Logger) (*blob.Store, error) {
		s, err := blob.Open(context.Background(), cfg.BlobURL, blob.WithLogger(log))
		if err != nil {
			return nil, err
		}
		lc.Append(fx.StopHook(s.Close))
		return s, nil
	},
	func(s *blob.Store) ports.BlobStore { return s },
	func(s *blob.Store) ports.Staging { return s },
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

// Jobs provides the jobs use cases (application/jobs: the Creator, the
// Runner, the Reader, the Canceler and the Reaper, each on the ports it
// uses, and the Outbox, Dispatcher and Sources they share), the sweep of
// orphaned storage, the saved schemas and idempotency keys, and the
// renderer of the job documents the use cases store. newOutbox subscribes
// the side effects of a job's events to the outbox every use case stores
// them through (jobs.Subscriber): the webhooks.
var Jobs = fx.Module("jobs", fx.Provide(
	newJobsConfig, newOutbox, jobs.NewDispatcher, jobs.NewSources,
	jobs.NewCreator, jobs.NewRunner, jobs.NewReader, jobs.NewCanceler, jobs.NewReaper,
	schemas.NewService, lists.NewService, idempotency.NewService,
	func(l *lists.Service) jobs.ListOpener { return l },
	fx.Annotate(httpapi.NewJobRenderer, fx.As(new(ports.JobRenderer))),
	func(cfg Config, owners ports.BlobOwners, b ports.BlobStore, c ports.Clock, log *slog.Logger) *jobs.Orphans {
		return jobs.NewOrphans(cfg.OrphanGrace, owners, b, c, log)
	}))

// newJobsConfig is the jobs' limits, and the metrics that count the jobs
// that end.
func newJobsConfig(cfg Config, m *metrics.Metrics) jobs.Config {
	return jobs.Config{MaxUploadBytes: cfg.MaxUploadBytes, MaxRows: int64(cfg.MaxRows), JobTimeout: cfg.JobTimeout, Lease: cfg.JobLease,
		Retention: cfg.Retention, NewIndex: spill.Factory(""), Limits: table.Limits{MaxColumns: cfg.MaxColumns, MaxCellBytes: cfg.MaxCellBytes},
		Observer: m, MaxRunningPerOrg: cfg.MaxRunningJobsPerOrg, MaxQueuedPerOrg: cfg.MaxQueuedJobsPerOrg}
}

// newOutbox makes the outbox of the jobs' events and subscribes every
// side effect of a job's events to it: each runs in the transaction that
// stores the event (application/jobs/outbox.go), whichever use case
// stores it: the webhooks' fan-out, and the destinations' (which checks
// a new job's destination_ids and writes a succeeded job's deliveries).
func newOutbox(events ports.JobEvents, render ports.JobRenderer, bus ports.EventBus, hooks *webhooks.Fanout, pushes *destinations.Fanout) *jobs.Outbox {
	o := jobs.NewOutbox(events, render, bus)
	o.Subscribe(hooks)
	o.Subscribe(pushes)
	return o
}

// Connect provides the connect product's service (files library and
// multi-file jobs).
var Connect = fx.Module("connect", fx.Provide(connect.NewService))

// Review provides the review's use cases: the review of jobs' mappings,
// its confirmation and expiry, the edits of finished jobs and reruns.
var Review = fx.Module("review", fx.Provide(
	func(cfg Config) review.Config {
		return review.Config{TTL: cfg.ReviewTTL, EditBytes: cfg.MaxEditBytesPerJob, SessionEditBytes: cfg.MaxEditBytesPerImportSession}
	},
	review.NewReviewer,
	review.NewConfirmer,
	review.NewExpirer,
	review.NewEditor,
	review.NewRecords,
	review.NewChanges,
	review.NewRerunner,
))

// Webhooks provides the webhooks' three parts (the management of
// endpoints, the fan-out of events, the worker of deliveries) and the
// sender; the Jobs module subscribes the fan-out to the jobs' events
// (newOutbox).
var Webhooks = fx.Options(
	fx.Module("webhooks", fx.Provide(
		func(db *sqlstore.DB, log *slog.Logger) (ports.WebhookQueue, error) { return queue.NewInserter(db, log) },
		func(cfg Config) ports.WebhookSender {
			return webhook.NewSender(webhook.Config{AllowPrivate: cfg.WebhookAllowPrivate, UserAgent: "tabnorm-webhooks"})
		},
		func(cfg Config, m *metrics.Metrics) webhooks.Config {
			return webhooks.Config{AllowPrivate: cfg.WebhookAllowPrivate, MaxPerOrg: cfg.MaxWebhooksPerOrg, InFlightPerOrg: cfg.WebhooksPerOrg, Observer: m}
		},
		webhooks.NewEndpoints,
		webhooks.NewFanout,
		webhooks.NewDeliverer,
	)),
)

// Destinations provides the destinations' three parts (their
// management, the fan-out of succeeded jobs, the worker of deliveries)
// and the writers; the Jobs module subscribes the fan-out to the jobs'
// events (newOutbox).
var Destinations = fx.Module("destinations", fx.Provide(
	func(db *sqlstore.DB, log *slog.Logger) (ports.PushQueue, error) { return queue.NewInserter(db, log) },
	func(cfg Config) ports.DestinationWriter {
		return destwriter.New(destwriter.Config{AllowPrivate: cfg.DestinationAllowPrivate})
	},
	func(cfg Config, m *metrics.Metrics) destinations.Config {
		return destinations.Config{AllowPrivate: cfg.DestinationAllowPrivate, InFlightPerOrg: cfg.DestinationsPerOrg, ClaimFor: 2 * cfg.DestinationTimeout,
			Observer: m}
	},
	destinations.NewService,
	destinations.NewFanout,
	destinations.NewDeliverer,
))

// Hooks provides the management of the validation hooks and their
// caller, which the runs (jobs.Sources) and the creation of jobs use.
var Hooks = fx.Options(
	fx.Module("hooks", fx.Provide(
		fx.Annotate(sqlstore.NewHooks, fx.As(new(ports.Hooks))),
		func(cfg Config) hooks.Config {
			return hooks.Config{AllowPrivate: cfg.WebhookAllowPrivate, DefaultTimeout: cfg.HookTimeout, DefaultConcurrency: cfg.HookConcurrency,
				AnswerBytesPerRow: cfg.HookLimits.AnswerBytesPerRow}
		},
		func(cfg Config) ports.HookSender { return webhook.NewHookSender(cfg.WebhookAllowPrivate) },
		hooks.NewOutcomes,
		hooks.NewRegistry,
		func(cfg Config, store ports.Hooks, sealer ports.Sealer, sender ports.HookSender, clock ports.Clock, m *metrics.Metrics, o *hooks.Outcomes) *hooks.Caller {
			return hooks.NewCaller(cfg.HookLimits, store, sealer, sender, clock, m, o)
		},
	)),
	// Outside the module: a module's decorations reach only its own scope.
	fx.Decorate(
		func(s *jobs.Sources, c *hooks.Caller) *jobs.Sources { return s.WithHooks(c) },
		func(cr *jobs.Creator, c *hooks.Caller) *jobs.Creator { return cr.WithHooks(c) },
	),
)

// Workers run queued jobs for the process's lifetime; the reaper requeues
// jobs whose worker was lost, expires reviews left too long and removes
// this node's dead runs' working folders.
var Workers = fx.Module("workers", fx.Invoke(func(lc fx.Lifecycle, cfg Config, db *sqlstore.DB, runner *jobs.Runner, reaper *jobs.Reaper, orphans *jobs.Orphans,
	reviews *review.Expirer, hooks *webhooks.Deliverer, pushes *destinations.Deliverer, trail *audit.Service, log *slog.Logger, out Output, _ Migrated) error {
	purgeEvery := min(time.Hour, max(time.Second, cfg.Retention/10))
	qc := queue.Config{Workers: cfg.JobWorkers, JobTimeout: cfg.JobTimeout, PurgeEvery: purgeEvery, WebhookWorkers: cfg.WebhookWorkers,
		DestinationWorkers: cfg.DestinationWorkers, PushTimeout: cfg.DestinationTimeout}
	w, err := queue.NewWorkers(db, qc, runner, jobs.Purgers{reaper, orphans, trail}, hooks, pushes, log)
	if err != nil {
		return err
	}
	reaper.Also("expire reviews", reviews.Expire)
	lc.Append(fx.Hook{
		OnStart: func(ctx context.Context) error {
			if err := w.Start(ctx); err != nil {
				return err
			}
			fmt.Fprintf(out, "tabnorm is working: %d job workers, %d webhook workers\n", qc.Workers, qc.WebhookWorkers)
			reaper.Start()
			return nil
		},
		OnStop: func(ctx context.Context) error {
			reaper.Stop()
			return w.Stop(ctx)
		},
	})
	return nil
}))

// apiDeps gathers what the router needs.
type apiDeps struct {
	fx.In
	Log      *slog.Logger
	DB       *sqlstore.DB
	Blob     *blob.Store
	Auth     *auth.Service
	Keys     *keys.Service
	Audit    *audit.Service
	Jobs     *jobs.Reader
	Create   *jobs.Creator
	Cancel   *jobs.Canceler
	Connect  *connect.Service
	Schemas  *schemas.Service
	Lists    *lists.Service
	Idem     *idempotency.Service
	Webhooks *webhooks.Endpoints
	Dests    *destinations.Service
	Hooks    *hooks.Registry
	Review   *review.Reviewer
	Confirm  *review.Confirmer
	Edits    *review.Editor
	Records  *review.Records
	Changes  *review.Changes
	Reruns   *review.Rerunner
	Imports  *importsessions.Service
	SSO      *sso.Service
	License  license.Gate
	Gate     *auth.Gate
	Clock    ports.Clock
	Metrics  *metrics.Metrics
}

func newAPI(lc fx.Lifecycle, cfg Config, d apiDeps, out Output, _ Migrated) *httpapi.API {
	log := d.Log
	api := httpapi.New(cfg.HTTP, httpapi.Deps{Log: log, Readiness: readiness{d.DB, d.Blob}, Auth: d.Auth, Keys: d.Keys, Audit: d.Audit, JobReader: d.Jobs, JobCreator: d.Create, JobCanceler: d.Cancel, Connect: d.Connect, Schemas: d.Schemas, Lists: d.Lists, Idempotency: d.Idem, Webhooks: d.Webhooks, Hooks: d.Hooks, Destinations: d.Dests, Review: d.Review, Confirm: d.Confirm, Edits: d.Edits, Records: d.Records, Changes: d.Changes, Reruns: d.Reruns, License: d.License, Gate: d.Gate, Clock: d.Clock, Observer: d.Metrics, ImportSessions: d.Imports, SSO: d.SSO})
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

// readiness adds the queue's tables and the blob store to the database's
// readiness: a node that cannot store uploads should get no traffic.
type readiness struct {
	db   *sqlstore.DB
	blob *blob.Store
}

func (r readiness) Ready(ctx context.Context) error {
	if err := r.db.Ready(ctx); err != nil {
		return err
	}
	if n, err := queue.Pending(ctx, r.db); err != nil || n > 0 {
		return errors.New("queue migrations pending (run tabnorm migrate)")
	}
	return r.blob.Ready(ctx)
}

// Migrated is a token for the parts that must start after the database is
// migrated: taking it as a parameter orders their start hooks after ours.
type Migrated struct{}

// Migrate applies the application's and River's pending migrations under
// the migration lock, then runs after (if any) still holding it, and
// returns what it applied. serve and `tabnorm migrate` both use it, so
// replicas and an operator starting together never race on the schema.
func Migrate(ctx context.Context, db *sqlstore.DB, after func(context.Context) error) ([]string, error) {
	var applied []string
	err := db.WithMigrationLock(ctx, func(ctx context.Context) error {
		var err error
		if applied, err = db.Migrate(ctx); err != nil {
			return err
		}
		n, err := queue.Migrate(ctx, db)
		if err != nil {
			return err
		}
		if n > 0 {
			applied = append(applied, fmt.Sprintf("%d queue migrations", n))
		}
		if after != nil {
			return after(ctx)
		}
		return nil
	})
	return applied, err
}

// AwaitMigrations applies the pending migrations under the migration
// lock before the service starts, waiting for the lock as long as ctx
// lets it: processes starting together, or beside a long `tabnorm
// migrate`, wait for each other here, not within the start timeout. The
// start that follows finds nothing to apply.
func AwaitMigrations(ctx context.Context, cfg Config) ([]string, error) {
	db, err := sqlstore.Open(ctx, cfg.Database)
	if err != nil {
		return nil, err
	}
	defer func() { _ = db.Close() }()
	return Migrate(ctx, db, nil)
}

// migrateAndSeed runs at serve start, before the server listens: pending
// migrations are applied and an empty database gets its first
// organization and admin, both under the migration lock so that only one
// of several processes starting together seeds.
func migrateAndSeed(lc fx.Lifecycle, db *sqlstore.DB, svc *accounts.Service, log *slog.Logger, out Output, cfg Config) Migrated {
	lc.Append(fx.StartHook(func(ctx context.Context) error {
		var seeded *accounts.Seeded
		applied, err := Migrate(ctx, db, func(ctx context.Context) error {
			var err error
			if seeded, err = svc.Seed(ctx); err != nil {
				return fmt.Errorf("seed first organization: %w", err)
			}
			return nil
		})
		if err != nil {
			return err
		}
		if len(applied) > 0 {
			log.Info("migrations applied", "migrations", applied)
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

// Metrics provides the process's series, and serves them on
// TABNORM_METRICS_ADDR when it is set.
var Metrics = fx.Module("metrics", fx.Provide(
	func(db *sqlstore.DB, log *slog.Logger) *metrics.Metrics {
		return metrics.New(storeCounts{jobs: sqlstore.NewJobs(db), db: db, deliveries: sqlstore.NewWebhookDeliveries(db),
			endpoints: sqlstore.NewWebhookEndpoints(db), sessions: sqlstore.NewImportSessions(db)}, poolCollector(db), log)
	},
	func(lc fx.Lifecycle, cfg Config, m *metrics.Metrics, log *slog.Logger, out Output) *metrics.Server {
		if cfg.MetricsAddr == "" {
			return nil
		}
		srv := metrics.NewServer(cfg.MetricsAddr, m, log)
		lc.Append(fx.Hook{
			OnStart: func(ctx context.Context) error {
				if err := srv.Start(ctx); err != nil {
					return fmt.Errorf("TABNORM_METRICS_ADDR: listen on %s: %w", cfg.MetricsAddr, err)
				}
				log.Info("metrics listening", "addr", srv.Addr())
				fmt.Fprintf(out, "tabnorm metrics on http://%s/metrics\n", srv.Addr())
				return nil
			},
			OnStop: srv.Stop,
		})
		return srv
	}),
	fx.Invoke(func(*metrics.Server) {}),
)

// Tracing installs the OpenTelemetry provider when
// OTEL_EXPORTER_OTLP_ENDPOINT is set, and flushes it at stop.
var Tracing = fx.Module("tracing", fx.Invoke(func(lc fx.Lifecycle, cfg Config) error {
	shutdown, err := tracing.Setup(context.Background(), cfg.Tracing)
	if err != nil {
		return err
	}
	lc.Append(fx.StopHook(shutdown))
	return nil
}))

// storeCounts reads the metrics' shared counts from the database.
type storeCounts struct {
	jobs       *sqlstore.Jobs
	db         *sqlstore.DB
	deliveries *sqlstore.WebhookDeliveries
	endpoints  *sqlstore.WebhookEndpoints
	sessions   *sqlstore.ImportSessions
}

// ImportSessionSteps is the funnel of the sessions created in the last
// 24 hours, every organization's.
func (s storeCounts) ImportSessionSteps(ctx context.Context) (importsession.Steps, error) {
	now := time.Now()
	facts, err := s.sessions.Funnel(ctx, "", now.Add(-24*time.Hour))
	if err != nil {
		return importsession.Steps{}, err
	}
	return importsession.Tally(facts, now), nil
}

func (s storeCounts) PendingDeliveries(ctx context.Context) (int64, error) {
	return s.deliveries.CountPending(ctx)
}

func (s storeCounts) PausedEndpoints(ctx context.Context) (int64, error) {
	return s.endpoints.CountPaused(ctx)
}

func (s storeCounts) JobsByStatus(ctx context.Context) (map[job.Status]int64, error) {
	return s.jobs.CountByStatus(ctx)
}

func (s storeCounts) QueueDepth(ctx context.Context) (int64, error) { return queue.Depth(ctx, s.db) }

// poolCollector reports the database pool's use: the database/sql pool
// the application's queries share, and on PostgreSQL the pgx pool under
// it that the queue's workers and listeners use too.
func poolCollector(db *sqlstore.DB) prometheus.Collector {
	sqlStats := collectors.NewDBStatsCollector(db.Bun.DB, "tabnorm")
	if db.Pool == nil {
		return sqlStats
	}
	return multiCollector{sqlStats,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "tabnorm_pgx_pool_acquired_connections", Help: "Connections of the pgx pool in use."},
			func() float64 { return float64(db.Pool.Stat().AcquiredConns()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "tabnorm_pgx_pool_max_connections", Help: "Size limit of the pgx pool."},
			func() float64 { return float64(db.Pool.Stat().MaxConns()) }),
	}
}

type multiCollector []prometheus.Collector

func (m multiCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, c := range m {
		c.Describe(ch)
	}
}

func (m multiCollector) Collect(ch chan<- prometheus.Metric) {
	for _, c := range m {
		c.Collect(ch)
	}
}

// Role says which parts of the service a process runs.
type Role string

// The roles of `tabnorm serve --role`.
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
		Sealing,
		Accounts,
		Blob,
		Formats,
		Queue,
		Events,
		Jobs,
		Connect,
		Review,
		Webhooks,
		Destinations,
		Hooks,
		Metrics,
		Tracing,
		fx.Provide(migrateAndSeed),
		fx.Invoke(func(Migrated) {}),
		fx.StopTimeout(cfg.HTTP.ShutdownTimeout + 5*time.Second),
	}
	if cfg.StartTimeout > 0 {
		opts = append(opts, fx.StartTimeout(cfg.StartTimeout))
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
	return fx.Options(Base(cfg, out), SQLStore, Sealing, Accounts, fx.NopLogger)
}
