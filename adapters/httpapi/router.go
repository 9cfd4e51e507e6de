// Package httpapi is the HTTP adapter: the gin router, its middleware, the
// handlers of /v1 and /auth, problem+json errors and the OpenAPI document.
// Handlers decode a request, call one use case and encode its result.
package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/gin-gonic/gin"

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
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/license"
	"github.com/tabnorm/tabnorm/ports"
)

// Config holds the HTTP settings.
type Config struct {
	Addr            string        // listen address, e.g. ":8080"
	ShutdownTimeout time.Duration // how long in-flight requests may finish
	CookieSecure    bool          // mark the session cookie Secure
	RateLimit       RateLimit
	MaxUploadBytes  int64
	// BaseOrigin and DashboardOrigin are the origins of TABNORM_BASE_URL
	// and TABNORM_DASHBOARD_URL; when they differ, /v1 and /auth allow
	// CORS with credentials from the dashboard's origin, and only from it.
	BaseOrigin      string
	DashboardOrigin string
	// TrustedProxies are believed about the client's address
	// (TABNORM_TRUSTED_PROXIES); none by default.
	TrustedProxies Proxies
	// LoginPerMinute is how many sign-ins a client address may try a
	// minute, before any password is checked (TABNORM_LOGIN_RATE_LIMIT_PER_MINUTE).
	LoginPerMinute int
	// HeaderTimeout bounds reading a request's headers (10 s); a body
	// must keep arriving within BodyIdleTimeout (15 s) of its last bytes,
	// and a body other than an upload must be complete within BodyTimeout
	// (30 s). Not settings: tests shorten them.
	HeaderTimeout   time.Duration
	BodyIdleTimeout time.Duration
	BodyTimeout     time.Duration
	// Streams caps the open job event streams (streams.go).
	Streams StreamLimits
	// XLSXSheetRows is the rows, header included, on one sheet of an XLSX
	// download (0: Excel's 1,048,576). Not a setting: tests shorten it.
	XLSXSheetRows int
}

// Deps are what the router needs from the application.
type Deps struct {
	Log       *slog.Logger
	Readiness Readiness
	Auth      *auth.Service
	Keys      *keys.Service
	// Audit reads the audit log for an organization's admins.
	Audit *audit.Service
	// The jobs use cases the routes call: reading jobs, their events and
	// results; uploading and creating them (and the usage they count
	// against); canceling and deleting them.
	JobReader   *jobs.Reader
	JobCreator  *jobs.Creator
	JobCanceler *jobs.Canceler
	Connect     *connect.Service
	Schemas     *schemas.Service
	Lists       *lists.Service
	Idempotency *idempotency.Service
	Webhooks    *webhooks.Endpoints
	// Destinations manages destinations and the deliveries of jobs' rows.
	Destinations *destinations.Service
	Hooks        *hooks.Registry
	// The review's use cases: a review, its confirmation, the edits and
	// invalid values of a finished job, and reruns.
	Review  *review.Reviewer
	Confirm *review.Confirmer
	Edits   *review.Editor
	// Records serves a finished job's records, its spreadsheet.
	Records *review.Records
	// Changes are a finished job's replacements, and its history with
	// undo and redo.
	Changes *review.Changes
	Reruns  *review.Rerunner
	// ImportSessions mints import sessions and authenticates their secrets.
	ImportSessions *importsessions.Service
	// SSO is single sign-on: its settings and the sign-ins through it.
	SSO     *sso.Service
	License license.Gate
	// Gate decides who may use a product (the license's and the
	// organizations' entitlements).
	Gate  *auth.Gate
	Clock ports.Clock
	// Observer hears of every request and refusal, for the operator's
	// metrics (nil: nobody).
	Observer Observer
}

// Observer is what the router reports for the operator's metrics.
type Observer interface {
	// Request is one answered request; route is its pattern, never the raw path.
	Request(route, method string, status int, d time.Duration)
	// Refused is a request refused by a limit, by its code.
	Refused(code string)
	// Subscribed moves the count of open event streams.
	Subscribed(delta int)
}

type nopObserver struct{}

func (nopObserver) Request(string, string, int, time.Duration) {}
func (nopObserver) Refused(string)                             {}
func (nopObserver) Subscribed(int)                             {}

// API is the HTTP face of tabnorm: a router and the server that runs it.
type API struct {
	cfg      Config
	deps     Deps
	log      *slog.Logger
	observer Observer
	limits   *limiters
	logins   *limiters
	streams  *streamSlots
	engine   *gin.Engine
	draining atomic.Bool
	server   *http.Server
	listener net.Listener
	exports  exportLanes // the slots of generated downloads
}

func init() { gin.SetMode(gin.ReleaseMode) }

// New builds the router with every route.
func New(cfg Config, deps Deps) *API {
	a := &API{cfg: cfg, deps: deps, log: deps.Log, observer: deps.Observer, limits: newLimiters(cfg.RateLimit), logins: newLoginLimiters(cfg.LoginPerMinute),
		streams: newStreamSlots(cfg.Streams),
		exports: newExportLanes()}
	if a.observer == nil {
		a.observer = nopObserver{}
	}
	r := gin.New()
	r.HandleMethodNotAllowed = true
	r.RedirectTrailingSlash = false
	r.RedirectFixedPath = false
	r.ContextWithFallback = true
	// gin's own ClientIP is not used: resolveClient believes forwarding
	// headers only from TrustedProxies, so a client cannot pick the
	// address the login throttle and the audit log see.
	_ = r.SetTrustedProxies(nil)
	r.Use(a.resolveClient, withRequestID, carryClient, traced, accessLog(deps.Log, a.observer), representation, a.renderErrors, a.bodyDeadlines, refuseBadText)
	if cfg.DashboardOrigin != "" && cfg.DashboardOrigin != cfg.BaseOrigin {
		r.Use(crossOrigin(cfg.DashboardOrigin))
	}
	r.Use(a.importPreflight) // embed.go: CORS for import sessions' origins
	a.mountEmbed(r)
	dashboardPage := a.mountDashboard(r)
	r.NoRoute(a.guardUnrouted, dashboardPage, notFound)
	r.NoMethod(methodNotAllowed)

	h := health{ready: deps.Readiness, draining: &a.draining}
	get(r, "/healthz", h.healthz)
	get(r, "/readyz", h.readyz)

	authRoutes := r.Group("/auth", mw(a.licenseGate))
	authRoutes.POST("/login", mw(a.loginRateLimit), a.login)
	get(authRoutes, "/sso/start", mw(a.loginRateLimit), a.ssoStart) // sso_handlers.go
	get(authRoutes, "/sso/callback", a.ssoCallback)
	sessionRoutes := authRoutes.Group("", mw(a.authenticate, requireSession, a.rateLimit, csrf))
	get(sessionRoutes, "/me", a.me)
	sessionRoutes.POST("/logout", a.logout)
	sessionRoutes.POST("/impersonate", a.impersonate)
	sessionRoutes.DELETE("/impersonate", a.stopImpersonating)

	v1 := r.Group("/v1")
	get(v1, "/openapi.json", mw(a.licenseGate), serveOpenAPI)
	account := v1.Group("/admin", mw(a.v1Chain()...))
	get(account, "/keys", a.listKeys)
	account.POST("/keys", a.createKey)
	account.DELETE("/keys/:id", a.revokeKey)
	get(account, "/organizations", a.listOrganizations)
	get(v1, "/audit-events", mw(a.v1Chain()...), a.listAuditEvents)
	get(v1, "/audit-events.jsonl", mw(a.v1Chain()...), a.exportAuditEvents)
	a.webhookRoutes(v1.Group("/webhooks", mw(a.v1Chain()...)))
	a.destinationRoutes(v1.Group("/destinations", mw(a.v1Chain()...))) // destinations_handlers.go
	get(v1, "/usage", mw(a.v1Chain()...), a.usage)
	get(v1, "/sso", mw(a.v1Chain()...), a.getSSO) // sso_handlers.go
	v1.PUT("/sso", mw(a.v1Chain()...), a.putSSO)
	v1.DELETE("/sso", mw(a.v1Chain()...), a.deleteSSO)

	normalizeRoutes := append(a.v1Chain(), a.entitled(identity.Normalize))
	jobRoutes := v1.Group("/jobs", mw(normalizeRoutes...))
	jobRoutes.POST("", a.createJob)
	get(jobRoutes, "", a.listJobs(""))
	a.jobRoutes(jobRoutes)
	get(jobRoutes, "/:id/deliveries", a.jobDeliveries) // destinations_handlers.go; any job of the organization, connect's too
	jobRoutes.POST("/:id/deliveries/:destination_id/retry", a.retryJobDelivery)
	schemaRoutes := v1.Group("/schemas", mw(normalizeRoutes...))
	schemaRoutes.POST("", a.createSchema)
	get(schemaRoutes, "", a.listSchemas)
	get(schemaRoutes, "/:id", a.getSchema)
	schemaRoutes.DELETE("/:id", a.deleteSchema)
	listRoutes := v1.Group("/lists", mw(normalizeRoutes...))
	listRoutes.POST("", a.createList)
	get(listRoutes, "", a.listLists)
	get(listRoutes, "/:id", a.getList)
	listRoutes.DELETE("/:id", a.deleteList)
	a.hookRoutes(v1.Group("/hooks", mw(normalizeRoutes...)))                    // hooks_handlers.go
	a.importSessionRoutes(v1.Group("/import-sessions", mw(normalizeRoutes...))) // importsessions_handlers.go
	connectRoutes := v1.Group("/connect", mw(append(a.v1Chain(), a.entitled(identity.Connect))...))
	connectRoutes.POST("/files", a.createFile)
	get(connectRoutes, "/files", a.listFiles)
	get(connectRoutes, "/files/:id", a.getFile)
	connectRoutes.DELETE("/files/:id", a.deleteFile)
	connectRoutes.POST("/jobs", a.createConnectJob)
	get(connectRoutes, "/jobs", a.listJobs(job.SourceConnect))
	a.jobRoutes(connectRoutes.Group("/jobs", mw(a.connectJob)))

	a.engine = r
	return a
}

// jobRoutes are the routes of one job, under /v1/jobs and, for the
// connect product, /v1/connect/jobs.
func (a *API) jobRoutes(g *gin.RouterGroup) {
	get(g, "/:id", a.getJob)
	g.DELETE("/:id", a.deleteJob)
	g.POST("/:id/cancel", a.cancelJob)
	get(g, "/:id/rows", a.jobResult(jobs.Rows, ""))
	get(g, "/:id/rows.jsonl", a.jobResult(jobs.Rows, "jsonl"))
	get(g, "/:id/rows.csv", a.jobResult(jobs.Rows, "csv"))
	get(g, "/:id/errors", a.jobResult(jobs.Issues, ""))
	get(g, "/:id/errors.jsonl", a.jobResult(jobs.Issues, "jsonl"))
	get(g, "/:id/errors.csv", a.jobResult(jobs.Issues, "csv"))
	get(g, "/:id/rows.xlsx", a.jobResult(jobs.Rows, "xlsx"))
	get(g, "/:id/rows.parquet", a.jobResult(jobs.Rows, "parquet"))
	get(g, "/:id/errors.xlsx", a.jobResult(jobs.Issues, "xlsx"))
	get(g, "/:id/events", a.jobEvents)
	a.reviewRoutes(g) // review_handlers.go
}

// webhookRoutes are account routes: any organization may use webhooks,
// whatever its products.
func (a *API) webhookRoutes(g *gin.RouterGroup) {
	g.POST("", a.createWebhook)
	get(g, "", a.listWebhooks)
	get(g, "/:id", a.getWebhook)
	g.PATCH("/:id", a.updateWebhook)
	g.DELETE("/:id", a.deleteWebhook)
	g.POST("/:id/rotate-secret", a.rotateWebhookSecret)
	g.POST("/:id/test", a.testWebhook)
	get(g, "/:id/deliveries", a.listDeliveries)
	g.POST("/:id/deliveries/:delivery_id/retry", a.retryDelivery)
}

// Handler returns the router, for tests that serve it themselves.
func (a *API) Handler() http.Handler { return a.engine }

// Start listens on the configured address and serves in the background.
func (a *API) Start(context.Context) error {
	ln, err := net.Listen("tcp", a.cfg.Addr)
	if err != nil {
		return err
	}
	a.listener = ln
	headerTimeout := a.cfg.HeaderTimeout
	if headerTimeout <= 0 {
		headerTimeout = 10 * time.Second
	}
	a.server = &http.Server{
		Handler:           a.engine,
		ReadHeaderTimeout: headerTimeout,
		// No ReadTimeout: uploads of up to 1 GiB take as long as they take
		// while bytes arrive; bodyDeadlines cuts a body that stops.
		WriteTimeout:   2 * time.Minute, // streaming handlers clear it per response
		IdleTimeout:    2 * time.Minute,
		MaxHeaderBytes: 64 << 10,
		ErrorLog:       slog.NewLogLogger(a.log.Handler(), slog.LevelWarn),
	}
	go func() {
		if err := a.server.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			a.log.Error("http server stopped", "error", err)
		}
	}()
	return nil
}

// Addr is the address the server listens on (useful with port 0).
func (a *API) Addr() string {
	if a.listener == nil {
		return a.cfg.Addr
	}
	return a.listener.Addr().String()
}

// Stop stops accepting connections, lets in-flight requests finish until
// the shutdown timeout, then closes what remains.
func (a *API) Stop(ctx context.Context) error {
	if a.server == nil {
		return nil
	}
	a.draining.Store(true)
	timeout := a.cfg.ShutdownTimeout
	if timeout <= 0 {
		timeout = 20 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := a.server.Shutdown(ctx); err != nil {
		_ = a.server.Close()
		return err
	}
	return nil
}

// get routes GET and HEAD to the same handlers (gin routes HEAD only
// where told): a HEAD is answered as the GET would be, status and headers
// alike, and net/http sends no body with it.
func get(g gin.IRoutes, path string, handlers ...gin.HandlerFunc) {
	g.Match([]string{http.MethodGet, http.MethodHead}, path, handlers...)
}
