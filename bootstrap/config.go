// Package bootstrap wires tabnorm together with fx: it loads the settings,
// gives every adapter its Config, and composes one fx.Module per adapter
// into the applications the commands run. Nothing else imports fx.
package bootstrap

import (
	"cmp"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tabnorm/tabnorm/adapters/httpapi"
	"github.com/tabnorm/tabnorm/adapters/sealing"
	"github.com/tabnorm/tabnorm/adapters/sqlstore"
	"github.com/tabnorm/tabnorm/adapters/tracing"
	"github.com/tabnorm/tabnorm/application/hooks"
	"github.com/tabnorm/tabnorm/domain/hook"
)

// Config is every setting of API.md §11, validated.
type Config struct {
	Database     sqlstore.Config
	HTTP         httpapi.Config
	BlobURL      string
	BaseURL      string
	DashboardURL string
	CookieSecure bool

	LicenseRequired  bool
	LicenseToken     string
	LicenseFile      string
	LicensePublicKey []byte

	MaxUploadBytes int64
	MaxRows        int
	MaxColumns     int
	MaxCellBytes   int
	JobTimeout     time.Duration
	JobLease       time.Duration
	Retention      time.Duration
	AuditRetention time.Duration
	OrphanGrace    time.Duration
	ReviewTTL      time.Duration
	// MaxEditBytesPerJob and MaxEditBytesPerImportSession bound the bytes
	// of cell edits a job, and the jobs of an import session together, hold.
	MaxEditBytesPerJob           int64
	MaxEditBytesPerImportSession int64

	WebhookAllowPrivate bool
	// SecretKeys seal the secrets organizations give us (newest first);
	// none: the key file beside an SQLite database, or no sealing at all.
	SecretKeys [][]byte
	// HookLimits bound the calls to validation hooks (TABNORM_HOOK_*);
	// HookTimeout and HookConcurrency are a new hook's when it sets none.
	HookLimits      hooks.Limits
	HookTimeout     time.Duration
	HookConcurrency int
	// StartTimeout bounds start-up once the migrations are in place.
	StartTimeout time.Duration
	// JobWorkers is how many jobs a worker process runs at once (0: one
	// more than the CPUs, so that one organization using every CPU leaves
	// a worker to the others).
	JobWorkers        int
	WebhookWorkers    int
	WebhooksPerOrg    int
	MaxWebhooksPerOrg int
	// The destinations: private addresses allowed, the delivery workers
	// of a process and one organization's share of them.
	DestinationAllowPrivate bool

	// SSOAllowHTTPIssuer accepts http:// identity providers on loopback
	// addresses (development and tests).
	SSOAllowHTTPIssuer bool

	DestinationWorkers int
	DestinationsPerOrg int
	// DestinationTimeout bounds one delivery attempt; an attempt whose
	// worker died is made again twice that long after it started.
	DestinationTimeout time.Duration

	MetricsAddr          string
	Tracing              tracing.Config
	MaxRunningJobsPerOrg int
	MaxQueuedJobsPerOrg  int

	LogLevel  slog.Level
	LogFormat string    // text | json
	LogOutput io.Writer // stderr when nil; not a setting, tests capture logs with it

	// Warnings are problems with the environment that do not stop the
	// process (unknown TABNORM_ names far from any setting); the logger
	// prints them once it exists.
	Warnings []string
}

// Setting documents one TABNORM_ variable and reads it: the README's
// table is written from this list, Load reads each variable through its
// read (Default when unset) and rejects variables not in the list.
type Setting struct {
	Name, Default, Description string
	// read parses the variable into the settings; nil for a variable Load
	// reads apart, after the others, because its default or its check
	// depends on them, or that only the client commands read.
	read func(p *parser, s Setting, c *Config)
}

// Settings lists every variable Load reads, and where each goes.
var Settings = []Setting{
	{"TABNORM_DATABASE_URL", "sqlite://./data/tabnorm.db", "`sqlite://path` (relative) or `sqlite:///abs/path`, or `postgres://user:pass@host/db`", text(func(c *Config) *string { return &c.Database.URL })},
	{"TABNORM_BLOB_URL", "file://./data/blobs", "where uploads and results go: `file://dir` or `s3://bucket?region=…&endpoint=…`", text(func(c *Config) *string { return &c.BlobURL })},
	{"TABNORM_HTTP_ADDR", ":8080", "listen address", text(func(c *Config) *string { return &c.HTTP.Addr })},
	{"TABNORM_BASE_URL", "http://localhost:<port>", "public URL of the API (links, cookie `Secure` when https)", unsetText(func(c *Config) *string { return &c.BaseURL })},
	{"TABNORM_DASHBOARD_URL", "the base URL", "public URL of the dashboard; another origin enables CORS for exactly it", unsetText(func(c *Config) *string { return &c.DashboardURL })},
	{"TABNORM_COOKIE_SECURE", "true when the base URL is https", "mark the session cookie `Secure`", nil},
	{"TABNORM_LICENSE_REQUIRED", "false", "self-hosted license gate on `/v1` and `/auth`", flag(func(c *Config) *bool { return &c.LicenseRequired })},
	{"TABNORM_LICENSE_TOKEN", "", "license token (or TABNORM_LICENSE_FILE)", text(func(c *Config) *string { return &c.LicenseToken })},
	{"TABNORM_LICENSE_FILE", "", "file holding the license token", text(func(c *Config) *string { return &c.LicenseFile })},
	{"TABNORM_LICENSE_PUBLIC_KEY", "", "base64 Ed25519 public key that signs licenses", readLicenseKey},
	{"TABNORM_MAX_UPLOAD_BYTES", "1073741824", "largest upload (1 GiB)", size(1, 1<<40, func(c *Config) *int64 { return &c.MaxUploadBytes })},
	{"TABNORM_MAX_ROWS", "10000000", "most rows a job may read", whole(1, 1<<40, func(c *Config) *int { return &c.MaxRows })},
	{"TABNORM_MAX_COLUMNS", "1000", "most columns a file may have", whole(1, 100_000, func(c *Config) *int { return &c.MaxColumns })},
	{"TABNORM_MAX_CELL_BYTES", "1048576", "largest cell (1 MiB)", whole(16, 1<<30, func(c *Config) *int { return &c.MaxCellBytes })},
	{"TABNORM_JOB_TIMEOUT", "1h", "wall-time limit of one job", period(func(c *Config) *time.Duration { return &c.JobTimeout })},
	{"TABNORM_JOB_LEASE", "30s", "a running job whose lease is older is requeued", period(func(c *Config) *time.Duration { return &c.JobLease })},
	{"TABNORM_RETENTION", "30d", "finished jobs' files are deleted after this", period(func(c *Config) *time.Duration { return &c.Retention })},
	{"TABNORM_AUDIT_RETENTION", "365d", "audit log entries are deleted after this (the only delete the log knows)", period(func(c *Config) *time.Duration { return &c.AuditRetention })},
	{"TABNORM_ORPHAN_GRACE", "24h", "stored bytes no job or file owns (a crashed upload, a killed job's partial results, empty folders) are deleted once this old; at least the job timeout", period(func(c *Config) *time.Duration { return &c.OrphanGrace })},
	{"TABNORM_REVIEW_TTL", "7d", "a job awaiting its review (`options.review`) is canceled with `review_expired` after this", period(func(c *Config) *time.Duration { return &c.ReviewTTL })},
	{"TABNORM_MAX_EDIT_BYTES_PER_JOB", "67108864", "bytes of cell edits (values, fields, file names) one job may hold (64 MiB); past it adding edits answers 409 `edit_limit_reached`", size(1, 1<<40, func(c *Config) *int64 { return &c.MaxEditBytesPerJob })},
	{"TABNORM_MAX_EDIT_BYTES_PER_IMPORT_SESSION", "67108864", "bytes of cell edits the jobs of one import session may hold together (64 MiB)", size(1, 1<<40, func(c *Config) *int64 { return &c.MaxEditBytesPerImportSession })},
	{"TABNORM_RATE_LIMIT_PER_SECOND", "20", "requests a second per key or session, per node", decimal(func(c *Config) *float64 { return &c.HTTP.RateLimit.PerSecond })},
	{"TABNORM_RATE_LIMIT_BURST", "100", "burst size of the rate limit", whole(1, 1_000_000, func(c *Config) *int { return &c.HTTP.RateLimit.Burst })},
	{"TABNORM_TRUSTED_PROXIES", "", "comma-separated CIDRs of reverse proxies whose `Forwarded`/`X-Forwarded-For` give the client address", readProxies},
	{"TABNORM_LOGIN_RATE_LIMIT_PER_MINUTE", "20", "sign-in attempts a minute per client address, per node, before any password is checked", whole(1, 1_000_000, func(c *Config) *int { return &c.HTTP.LoginPerMinute })},
	{"TABNORM_MAX_STREAMS_PER_KEY", "100", "job event streams open at once per API key, dashboard session or import session, per node; one more answers 429 `too_many_streams`", whole(1, 1_000_000, func(c *Config) *int { return &c.HTTP.Streams.PerCredential })},
	{"TABNORM_MAX_STREAMS_PER_ORG", "500", "job event streams open at once per organization, per node", whole(1, 1_000_000, func(c *Config) *int { return &c.HTTP.Streams.PerOrg })},
	{"TABNORM_MAX_STREAMS_PER_NODE", "5000", "job event streams open at once on a node", whole(1, 1_000_000, func(c *Config) *int { return &c.HTTP.Streams.PerNode })},
	{"TABNORM_SECRET_KEY", "", "base64 of 32 random bytes (`openssl rand -base64 32`) that encrypts the secrets organizations store (AES-256-GCM); comma-separated, newest first, to rotate. Unset on SQLite: a key generated at first start in `secret.key` beside the database. Unset on PostgreSQL: storing a secret answers 409 `secret_key_required`", readSecretKey},
	{"TABNORM_WEBHOOK_ALLOW_PRIVATE", "false", "allow webhooks to private and loopback addresses", flag(func(c *Config) *bool { return &c.WebhookAllowPrivate })},
	{"TABNORM_MAX_WEBHOOKS_PER_ORG", "20", "webhook endpoints one organization may have; creating one more answers 409 `webhook_limit_reached`", whole(1, 10_000, func(c *Config) *int { return &c.MaxWebhooksPerOrg })},
	{"TABNORM_WEBHOOK_WORKERS", "8", "webhook attempts a worker process makes at once, on a queue apart from the jobs'", whole(1, 1000, func(c *Config) *int { return &c.WebhookWorkers })},
	{"TABNORM_WEBHOOK_CONCURRENCY_PER_ORG", "2", "webhook attempts of one organization in flight at once, per worker process", whole(1, 1000, func(c *Config) *int { return &c.WebhooksPerOrg })},
	{"TABNORM_SSO_ALLOW_HTTP_ISSUER", "false", "accept an organization's OpenID Connect issuer at http:// on a loopback address (a provider run beside the service in development); otherwise issuers are https", flag(func(c *Config) *bool { return &c.SSOAllowHTTPIssuer })},
	{"TABNORM_HOOK_CONCURRENCY", "4", "requests in flight at once to a validation hook that sets no `concurrency` (1 to 16), shared by its organization's jobs on a node", whole(1, hook.MaxConcurrency, func(c *Config) *int { return &c.HookConcurrency })},
	{"TABNORM_HOOK_TIMEOUT", "5s", "how long one request to a validation hook that sets no `timeout_ms` may take (100ms to 30s)", readHookTimeout},
	{"TABNORM_HOOK_ANSWER_BYTES_PER_ROW", "4096", "bytes a validation hook's answer may hold a row of its batch, beyond 64 KiB; a longer answer fails the batch", size(256, 1<<20, func(c *Config) *int64 { return &c.HookLimits.AnswerBytesPerRow })},
	{"TABNORM_HOOK_JOB_BUDGET", "10m", "hook time one job may spend, all its requests to validation hooks together; past it each batch fails and `on_error` decides", period(func(c *Config) *time.Duration { return &c.HookLimits.JobBudget })},
	{"TABNORM_HOOK_ORG_BUDGET", "1h", "hook time one organization's jobs may spend in an hour, per node", period(func(c *Config) *time.Duration { return &c.HookLimits.OrgBudget })},
	{"TABNORM_HOOK_ATTEMPTS", "3", "tries of a batch whose validation hook answers 429 or 5xx or does not answer", whole(1, 10, func(c *Config) *int { return &c.HookLimits.Attempts })},
	{"TABNORM_HOOK_MAX_RETRY_AFTER", "10s", "longest `Retry-After` of a validation hook waited before a batch is tried again", period(func(c *Config) *time.Duration { return &c.HookLimits.MaxRetryAfter })},
	{"TABNORM_DESTINATION_ALLOW_PRIVATE", "false", "allow destinations (databases, buckets, HTTP endpoints) at private and loopback addresses", flag(func(c *Config) *bool { return &c.DestinationAllowPrivate })},
	{"TABNORM_DESTINATION_WORKERS", "4", "deliveries to destinations a worker process makes at once, on a queue apart from the jobs' and the webhooks'", whole(1, 1000, func(c *Config) *int { return &c.DestinationWorkers })},
	{"TABNORM_DESTINATION_CONCURRENCY_PER_ORG", "2", "deliveries of one organization in flight at once, per worker process", whole(1, 1000, func(c *Config) *int { return &c.DestinationsPerOrg })},
	{"TABNORM_DESTINATION_TIMEOUT", "15m", "wall-time limit of one delivery attempt to a destination; an attempt whose worker died is made again twice this long after it started", period(func(c *Config) *time.Duration { return &c.DestinationTimeout })},
	{"TABNORM_JOB_WORKERS", "CPUs + 1", "jobs a worker process runs at once; one organization may hold all of them but one", readJobWorkers},
	{"TABNORM_SHUTDOWN_TIMEOUT", "20s", "how long in-flight requests may finish on SIGTERM", period(func(c *Config) *time.Duration { return &c.HTTP.ShutdownTimeout })},
	{"TABNORM_START_TIMEOUT", "15s", "how long start-up may take, not counting the wait for another process's migrations", period(func(c *Config) *time.Duration { return &c.StartTimeout })},
	{"TABNORM_LOG_LEVEL", "info", "debug, info, warn or error", readLogLevel},
	{"TABNORM_LOG_FORMAT", "text", "text or json", oneOf(func(c *Config) *string { return &c.LogFormat }, "text", "json")},
	{"TABNORM_METRICS_ADDR", "", "listen address of `GET /metrics` (Prometheus), e.g. `127.0.0.1:9090`; off when empty", text(func(c *Config) *string { return &c.MetricsAddr })},
	{"TABNORM_MAX_RUNNING_JOBS_PER_ORG", "4", "jobs of one organization that run at once; the rest wait without holding back others", whole(1, 10_000, func(c *Config) *int { return &c.MaxRunningJobsPerOrg })},
	{"TABNORM_MAX_QUEUED_JOBS_PER_ORG", "1000", "jobs of one organization queued or running; beyond it job creation answers 429 `quota_exceeded`", whole(1, 10_000_000, func(c *Config) *int { return &c.MaxQueuedJobsPerOrg })},
	// Client settings: the `tabnorm` client commands read them; the server
	// only accepts them, so one shell can run both.
	{"TABNORM_API_URL", "", "client commands: the server to call, e.g. `https://tabnorm.example.com` (or `tabnorm login`)", nil},
	{"TABNORM_API_KEY", "", "client commands: the API key they send (or `tabnorm login`)", nil},
}

// Load reads and validates the settings. getenv is os.Getenv in
// production; environ lists the environment to catch misspelt names.
func Load(getenv func(string) string, environ []string) (Config, error) {
	known := map[string]bool{}
	for _, s := range Settings {
		known[s.Name] = true
	}
	warnings, err := checkNames(environ, known)
	if err != nil {
		return Config{}, err
	}
	p := parser{getenv: getenv}
	// OpenTelemetry's own variables; the exporter reads the rest of them.
	c := Config{Warnings: warnings,
		Tracing: tracing.Config{Endpoint: cmp.Or(strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")), strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_ENDPOINT")))}}
	for _, s := range Settings {
		if s.read != nil {
			s.read(&p, s, &c)
		}
	}
	if p.err != nil {
		return Config{}, p.err
	}
	if _, _, err := sqlstore.ParseURL(c.Database.URL); err != nil {
		return Config{}, fmt.Errorf("TABNORM_DATABASE_URL: %w", err)
	}
	if err := checkBlobURL(c.BlobURL); err != nil {
		return Config{}, fmt.Errorf("TABNORM_BLOB_URL: %w", err)
	}
	if _, port, err := net.SplitHostPort(c.HTTP.Addr); err != nil {
		return Config{}, fmt.Errorf("TABNORM_HTTP_ADDR: %q is not host:port", c.HTTP.Addr)
	} else if c.BaseURL == "" {
		c.BaseURL = "http://localhost:" + port
	}
	if c.MetricsAddr != "" {
		if _, _, err := net.SplitHostPort(c.MetricsAddr); err != nil {
			return Config{}, fmt.Errorf("TABNORM_METRICS_ADDR: %q is not host:port", c.MetricsAddr)
		}
	}
	if err := checkHTTPURL(c.BaseURL); err != nil {
		return Config{}, fmt.Errorf("TABNORM_BASE_URL: %w", err)
	}
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	if c.DashboardURL == "" {
		c.DashboardURL = c.BaseURL
	}
	if err := checkHTTPURL(c.DashboardURL); err != nil {
		return Config{}, fmt.Errorf("TABNORM_DASHBOARD_URL: %w", err)
	}
	c.DashboardURL = strings.TrimRight(c.DashboardURL, "/")
	c.CookieSecure = p.boolean("TABNORM_COOKIE_SECURE", strings.HasPrefix(c.BaseURL, "https://"))
	c.HTTP.CookieSecure = c.CookieSecure
	c.HTTP.BaseOrigin, c.HTTP.DashboardOrigin = httpapi.Origin(c.BaseURL), httpapi.Origin(c.DashboardURL)
	c.HTTP.MaxUploadBytes = c.MaxUploadBytes
	if c.LicenseRequired {
		if c.LicensePublicKey == nil {
			return Config{}, errors.New("TABNORM_LICENSE_REQUIRED=true needs TABNORM_LICENSE_PUBLIC_KEY")
		}
		if c.LicenseToken == "" && c.LicenseFile == "" {
			return Config{}, errors.New("TABNORM_LICENSE_REQUIRED=true needs TABNORM_LICENSE_TOKEN or TABNORM_LICENSE_FILE")
		}
	}
	if p.err == nil && c.OrphanGrace < max(time.Hour, c.JobTimeout) {
		// Bytes are stored before their record, and a job writes its
		// results for as long as it runs: a shorter grace would take
		// writes in flight for orphans.
		return Config{}, fmt.Errorf("TABNORM_ORPHAN_GRACE: %s is shorter than %s (one hour, and at least TABNORM_JOB_TIMEOUT): "+
			"uploads and jobs still writing would be taken for orphans", c.OrphanGrace, max(time.Hour, c.JobTimeout))
	}
	if c.HTTP.RateLimit.PerSecond <= 0 {
		return Config{}, errors.New("TABNORM_RATE_LIMIT_PER_SECOND: must be positive")
	}
	return c, p.err
}

// LoadFromEnv loads the settings from the process environment.
func LoadFromEnv() (Config, error) { return Load(os.Getenv, os.Environ()) }

func checkBlobURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return err
	}
	switch u.Scheme {
	case "file", "s3", "mem":
		return nil
	}
	return fmt.Errorf("unsupported scheme %q (want file:// or s3://)", u.Scheme)
}

func checkHTTPURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an http(s) URL", raw)
	}
	return nil
}

// The readers of the settings table: each puts one variable, or its
// Default when it is unset, into a field of the settings.

func text(field func(*Config) *string) func(*parser, Setting, *Config) {
	return func(p *parser, s Setting, c *Config) { *field(c) = p.str(s.Name, s.Default) }
}

// unsetText reads a variable whose Default only describes what Load
// derives when it is unset (from the other settings).
func unsetText(field func(*Config) *string) func(*parser, Setting, *Config) {
	return func(p *parser, s Setting, c *Config) { *field(c) = p.str(s.Name, "") }
}

func flag(field func(*Config) *bool) func(*parser, Setting, *Config) {
	return func(p *parser, s Setting, c *Config) { *field(c) = p.boolean(s.Name, p.defaultBool(s)) }
}

func whole(lo, hi int, field func(*Config) *int) func(*parser, Setting, *Config) {
	return func(p *parser, s Setting, c *Config) { *field(c) = p.integer(s.Name, p.defaultInt(s), lo, hi) }
}

func size(lo, hi int, field func(*Config) *int64) func(*parser, Setting, *Config) {
	return func(p *parser, s Setting, c *Config) { *field(c) = int64(p.integer(s.Name, p.defaultInt(s), lo, hi)) }
}

func decimal(field func(*Config) *float64) func(*parser, Setting, *Config) {
	return func(p *parser, s Setting, c *Config) {
		def, err := strconv.ParseFloat(s.Default, 64)
		if err != nil {
			p.fail(s.Name, "the default %q is not a number", s.Default)
		}
		*field(c) = p.number(s.Name, def)
	}
}

func period(field func(*Config) *time.Duration) func(*parser, Setting, *Config) {
	return func(p *parser, s Setting, c *Config) {
		def, ok := parseDuration(s.Default)
		if !ok {
			p.fail(s.Name, "the default %q is not a duration", s.Default)
		}
		*field(c) = p.duration(s.Name, def)
	}
}

func oneOf(field func(*Config) *string, allowed ...string) func(*parser, Setting, *Config) {
	return func(p *parser, s Setting, c *Config) { *field(c) = p.oneOf(s.Name, s.Default, allowed...) }
}

// readHookTimeout bounds a hook's default timeout as timeout_ms is.
func readHookTimeout(p *parser, s Setting, c *Config) {
	def, _ := parseDuration(s.Default)
	c.HookTimeout = p.duration(s.Name, def)
	if c.HookTimeout < hook.MinTimeout || c.HookTimeout > hook.MaxTimeout {
		p.fail(s.Name, "want a duration from %s to %s", hook.MinTimeout, hook.MaxTimeout)
	}
}

// readJobWorkers defaults to one more worker than the CPUs.
func readJobWorkers(p *parser, s Setting, c *Config) {
	c.JobWorkers = p.integer(s.Name, runtime.GOMAXPROCS(0)+1, 1, 1000)
}

func readLogLevel(p *parser, s Setting, c *Config) {
	switch p.oneOf(s.Name, s.Default, "debug", "info", "warn", "error") {
	case "debug":
		c.LogLevel = slog.LevelDebug
	case "warn":
		c.LogLevel = slog.LevelWarn
	case "error":
		c.LogLevel = slog.LevelError
	}
}

func readProxies(p *parser, s Setting, c *Config) {
	proxies, err := httpapi.ParseProxies(p.str(s.Name, s.Default))
	if err != nil {
		p.fail(s.Name, "want CIDRs such as 10.0.0.0/8, comma-separated: %v", err)
	}
	c.HTTP.TrustedProxies = proxies
}

func readLicenseKey(p *parser, s Setting, c *Config) {
	key := p.str(s.Name, s.Default)
	if key == "" {
		return
	}
	raw, err := base64.StdEncoding.DecodeString(key)
	if err != nil || len(raw) != 32 {
		p.fail(s.Name, "want base64 of a 32-byte Ed25519 public key")
	}
	c.LicensePublicKey = raw
}

func readSecretKey(p *parser, s Setting, c *Config) {
	v := p.str(s.Name, s.Default)
	if strings.TrimSpace(v) == "" {
		return
	}
	keys, err := sealing.ParseKeys(v)
	if err != nil {
		// The error names the key's position, never its value.
		p.fail(s.Name, "%v", err)
		return
	}
	c.SecretKeys = keys
}

// parser reads typed values, keeping the first error.
type parser struct {
	getenv func(string) string
	err    error
}

func (p *parser) fail(name, format string, args ...any) {
	if p.err == nil {
		p.err = fmt.Errorf("%s: %s", name, fmt.Sprintf(format, args...))
	}
}

func (p *parser) str(name, def string) string {
	if v := strings.TrimSpace(p.getenv(name)); v != "" {
		return v
	}
	return def
}

func (p *parser) boolean(name string, def bool) bool {
	v := p.str(name, "")
	if v == "" {
		return def
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		p.fail(name, "%q is not true or false", v)
	}
	return b
}

func (p *parser) integer(name string, def, lo, hi int) int {
	v := p.str(name, "")
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		p.fail(name, "%q is not a whole number from %d to %d", v, lo, hi)
	}
	return n
}

func (p *parser) number(name string, def float64) float64 {
	v := p.str(name, "")
	if v == "" {
		return def
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		p.fail(name, "%q is not a number", v)
	}
	return f
}

// duration accepts Go durations (90s, 1h30m) and whole days (30d).
func (p *parser) duration(name string, def time.Duration) time.Duration {
	v := p.str(name, "")
	if v == "" {
		return def
	}
	d, ok := parseDuration(v)
	if !ok {
		p.fail(name, "%q is not a positive duration like 30s, 1h or 30d", v)
	}
	return d
}

// parseDuration reads a positive Go duration or a number of whole days.
func parseDuration(v string) (time.Duration, bool) {
	if days, ok := strings.CutSuffix(v, "d"); ok {
		if n, err := strconv.Atoi(days); err == nil && n > 0 {
			return time.Duration(n) * 24 * time.Hour, true
		}
	}
	d, err := time.ParseDuration(v)
	return d, err == nil && d > 0
}

// defaultInt and defaultBool read a setting's Default.
func (p *parser) defaultInt(s Setting) int {
	n, err := strconv.Atoi(s.Default)
	if err != nil {
		p.fail(s.Name, "the default %q is not a whole number", s.Default)
	}
	return n
}

func (p *parser) defaultBool(s Setting) bool {
	b, err := strconv.ParseBool(s.Default)
	if err != nil {
		p.fail(s.Name, "the default %q is not true or false", s.Default)
	}
	return b
}

func (p *parser) oneOf(name, def string, allowed ...string) string {
	v := strings.ToLower(p.str(name, def))
	if !slices.Contains(allowed, v) {
		p.fail(name, "%q is not one of %s", v, strings.Join(allowed, ", "))
	}
	return v
}
