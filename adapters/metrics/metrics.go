// Package metrics is the Prometheus face of a process: the request,
// job and queue series the other adapters report into, the database's
// own counts read at scrape time, and the /metrics listener on its own
// address, so the series never share a port with the public API.
package metrics

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/tabnorm/tabnorm/domain/importsession"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/ports"
)

// Counts is what the collector reads from the database on each scrape:
// the numbers every node shares, so any node's scrape tells the truth.
type Counts interface {
	// JobsByStatus counts the jobs of each status.
	JobsByStatus(ctx context.Context) (map[job.Status]int64, error)
	// QueueDepth counts queue entries waiting for a worker.
	QueueDepth(ctx context.Context) (int64, error)
}

// Metrics holds the series of one process.
type Metrics struct {
	Registry    *prometheus.Registry
	requests    *prometheus.HistogramVec
	jobs        *prometheus.HistogramVec
	queueWait   prometheus.Histogram
	rows        *prometheus.CounterVec
	subscribers prometheus.Gauge
	refusals    *prometheus.CounterVec
	attempts    *prometheus.CounterVec
	attemptTime prometheus.Histogram
	pushes      *prometheus.CounterVec
	pushRows    *prometheus.CounterVec
	pushBytes   *prometheus.CounterVec
	pushTime    *prometheus.HistogramVec
	hookCalls   *prometheus.HistogramVec
	// byHook counts each hook's requests by outcome and times them, under
	// a label bounded by hookLabels.
	byHook     *prometheus.CounterVec
	byHookTime *prometheus.HistogramVec
	hookLabels *boundedLabels
}

var (
	_ ports.JobObserver     = (*Metrics)(nil)
	_ ports.WebhookObserver = (*Metrics)(nil)
	_ ports.PushObserver    = (*Metrics)(nil)
	_ ports.HookObserver    = (*Metrics)(nil)
)

// New registers every series. counts may be nil (no database series).
func New(counts Counts, pool prometheus.Collector, log *slog.Logger) *Metrics {
	reg := prometheus.NewRegistry()
	m := &Metrics{
		Registry: reg,
		requests: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "tabnorm_http_request_duration_seconds",
			Help: "Time to answer an HTTP request, by route pattern, method and status.", Buckets: prometheus.DefBuckets},
			[]string{"route", "method", "status"}),
		jobs: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "tabnorm_job_duration_seconds",
			Help: "Time a job ran, from start to its end, by final status.", Buckets: prometheus.ExponentialBuckets(0.05, 2, 16)},
			[]string{"status"}),
		queueWait: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "tabnorm_job_queue_wait_seconds",
			Help: "Time a job waited from creation to its start.", Buckets: prometheus.ExponentialBuckets(0.01, 2, 18)}),
		rows: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tabnorm_rows_processed_total",
			Help: "Rows finished jobs read, by outcome (valid or rejected)."}, []string{"outcome"}),
		subscribers: prometheus.NewGauge(prometheus.GaugeOpts{Name: "tabnorm_sse_subscribers",
			Help: "Open job event streams on this node."}),
		refusals: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tabnorm_refusals_total",
			Help: "Requests refused by a limit, by code (rate_limited, quota_exceeded)."}, []string{"code"}),
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tabnorm_webhook_attempts_total",
			Help: "Webhook delivery attempts this process made, by outcome (succeeded: a 2xx; failed: another answer; error: no answer)."},
			[]string{"outcome"}),
		attemptTime: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "tabnorm_webhook_attempt_duration_seconds",
			Help: "Time a webhook delivery attempt took, until the answer or the failure.", Buckets: prometheus.ExponentialBuckets(0.01, 2, 12)}),
		pushes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tabnorm_destination_attempts_total",
			Help: "Delivery attempts to destinations this process made, by destination type and outcome (delivered or failed)."}, []string{"type", "outcome"}),
		pushRows: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tabnorm_destination_rows_total",
			Help: "Rows delivered to destinations by this process, by destination type."}, []string{"type"}),
		pushBytes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tabnorm_destination_bytes_total",
			Help: "Bytes delivered to destinations by this process, by destination type."}, []string{"type"}),
		pushTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "tabnorm_destination_attempt_duration_seconds",
			Help: "Time a delivery attempt to a destination took, by destination type.", Buckets: prometheus.ExponentialBuckets(0.05, 2, 16)}, []string{"type"}),
		hookCalls: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "tabnorm_hook_request_duration_seconds",
			Help:    "Time a request to a validation hook took, by outcome (succeeded: an answer taken; refused: an answer not taken; failed: another status; error: no answer). Per hook: tabnorm_hook_requests_total and tabnorm_hook_request_latency_seconds.",
			Buckets: prometheus.ExponentialBuckets(0.005, 2, 14)}, []string{"outcome"}),
		byHook: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tabnorm_hook_requests_total",
			Help: "Requests to validation hooks by hook id and outcome; the first 100 hooks this process called have their own series, the others share hook=\"other\"."}, []string{"hook", "outcome"}),
		byHookTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "tabnorm_hook_request_latency_seconds",
			Help:    "Time a request to a validation hook took, by hook id (the first 100 this process called; the others share hook=\"other\").",
			Buckets: prometheus.ExponentialBuckets(0.005, 2, 14)}, []string{"hook"}),
		hookLabels: &boundedLabels{most: MaxHookSeries, seen: map[string]bool{}},
	}
	for _, o := range []string{"succeeded", "failed", "error"} {
		m.attempts.WithLabelValues(o) // each outcome's series exists from the start, at 0
	}
	for _, o := range []string{"succeeded", "refused", "failed", "error"} {
		m.hookCalls.WithLabelValues(o)
	}
	reg.MustRegister(m.requests, m.jobs, m.queueWait, m.rows, m.subscribers, m.refusals, m.attempts, m.attemptTime,
		m.pushes, m.pushRows, m.pushBytes, m.pushTime, m.hookCalls, m.byHook, m.byHookTime, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if pool != nil {
		reg.MustRegister(pool)
	}
	if counts != nil {
		reg.MustRegister(&countsCollector{counts: counts, log: log})
	}
	return m
}

// Request records one answered request. route is the route's pattern
// (/v1/jobs/:id), never the raw path, so ids do not multiply the series;
// the method is one of the standard ones or OTHER, and the status a
// number from 100 to 599 or "other": a client choosing either cannot add
// series.
func (m *Metrics) Request(route, method string, status int, d time.Duration) {
	if route == "" {
		route = "unmatched"
	}
	code := "other"
	if status >= 100 && status <= 599 {
		code = strconv.Itoa(status)
	}
	m.requests.WithLabelValues(route, Method(method), code).Observe(d.Seconds())
}

// Method is method when it is a standard HTTP method, else OTHER.
func Method(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete,
		http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return method
	}
	return "OTHER"
}

// Refused counts a request refused by a limit.
func (m *Metrics) Refused(code string) { m.refusals.WithLabelValues(code).Inc() }

// Subscribed moves the count of open event streams by delta.
func (m *Metrics) Subscribed(delta int) { m.subscribers.Add(float64(delta)) }

// JobFinished records a job that reached its end on this node.
func (m *Metrics) JobFinished(j job.Job) {
	if j.StartedAt != nil {
		m.queueWait.Observe(j.StartedAt.Sub(j.CreatedAt).Seconds())
		if j.FinishedAt != nil {
			m.jobs.WithLabelValues(string(j.Status)).Observe(j.FinishedAt.Sub(*j.StartedAt).Seconds())
		}
	}
	m.rows.WithLabelValues("valid").Add(float64(j.Progress.RowsValid))
	m.rows.WithLabelValues("rejected").Add(float64(j.Progress.RowsRejected))
}

// DeliveryAttempted records one webhook delivery attempt.
func (m *Metrics) DeliveryAttempted(outcome string, latency time.Duration) {
	switch outcome {
	case "succeeded", "failed", "error":
	default:
		outcome = "error"
	}
	m.attempts.WithLabelValues(outcome).Inc()
	m.attemptTime.Observe(latency.Seconds())
}

// MaxHookSeries is how many hooks have series of their own in
// tabnorm_hook_requests_total and tabnorm_hook_request_latency_seconds;
// hooks are the organizations' own, so the label is bounded.
const MaxHookSeries = 100

// boundedLabels gives the first most values their own label, and the
// rest "other".
type boundedLabels struct {
	mu   sync.Mutex
	most int
	seen map[string]bool
}

func (b *boundedLabels) label(v string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.seen[v] {
		return v
	}
	if len(b.seen) < b.most {
		b.seen[v] = true
		return v
	}
	return "other"
}

// HookCalled records one request to a validation hook.
func (m *Metrics) HookCalled(hookID, outcome string, latency time.Duration) {
	switch outcome {
	case "succeeded", "refused", "failed", "error":
	default:
		outcome = "error"
	}
	m.hookCalls.WithLabelValues(outcome).Observe(latency.Seconds())
	h := m.hookLabels.label(hookID)
	m.byHook.WithLabelValues(h, outcome).Inc()
	m.byHookTime.WithLabelValues(h).Observe(latency.Seconds())
}

// WebhookCounts is what the collector also reads when the counts have it:
// the webhook numbers every node shares.
type WebhookCounts interface {
	// PendingDeliveries counts the deliveries not yet ended.
	PendingDeliveries(ctx context.Context) (int64, error)
	// PausedEndpoints counts the enabled endpoints that are paused.
	PausedEndpoints(ctx context.Context) (int64, error)
}

// ImportSessionCounts is read too when the counts have it: the funnel of
// the import sessions created in the last 24 hours, every organization's
// together (the step is the only label: one series a step).
type ImportSessionCounts interface {
	ImportSessionSteps(ctx context.Context) (importsession.Steps, error)
}

var (
	funnelDesc = prometheus.NewDesc("tabnorm_import_sessions_funnel",
		"Import sessions created in the last 24 hours that reached each step (created, opened, uploaded, columns_confirmed, fixes_applied, submitted, expired_unused), read from the database.",
		[]string{"step"}, nil)
	toSubmitDesc = prometheus.NewDesc("tabnorm_import_sessions_median_seconds_to_submit",
		"Median time from creation to submit of the import sessions created and submitted in the last 24 hours (0 when none was), read from the database.", nil, nil)
)

var (
	pendingDesc = prometheus.NewDesc("tabnorm_webhook_deliveries_pending", "Webhook deliveries not yet ended (waiting, retrying or held), read from the database.", nil, nil)
	pausedDesc  = prometheus.NewDesc("tabnorm_webhook_endpoints_paused", "Enabled webhook endpoints that are paused, read from the database.", nil, nil)
)

var (
	jobsDesc  = prometheus.NewDesc("tabnorm_jobs", "Jobs by status, read from the database.", []string{"status"}, nil)
	depthDesc = prometheus.NewDesc("tabnorm_queue_depth", "Queue entries waiting for a worker, read from the database.", nil, nil)
)

// countsCollector reads the shared counts when scraped, within a short
// deadline: a slow database makes the scrape miss them, not hang.
type countsCollector struct {
	counts Counts
	log    *slog.Logger
}

func (c *countsCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- jobsDesc
	ch <- depthDesc
	if _, ok := c.counts.(WebhookCounts); ok {
		ch <- pendingDesc
		ch <- pausedDesc
	}
	if _, ok := c.counts.(ImportSessionCounts); ok {
		ch <- funnelDesc
		ch <- toSubmitDesc
	}
}

func (c *countsCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if byStatus, err := c.counts.JobsByStatus(ctx); err != nil {
		c.log.Warn("metrics: count jobs", "error", err)
	} else {
		for _, s := range job.Statuses {
			ch <- prometheus.MustNewConstMetric(jobsDesc, prometheus.GaugeValue, float64(byStatus[s]), string(s))
		}
	}
	if depth, err := c.counts.QueueDepth(ctx); err != nil {
		c.log.Warn("metrics: queue depth", "error", err)
	} else {
		ch <- prometheus.MustNewConstMetric(depthDesc, prometheus.GaugeValue, float64(depth))
	}
	if wc, ok := c.counts.(WebhookCounts); ok {
		c.collectWebhooks(ctx, wc, ch)
	}
	if ic, ok := c.counts.(ImportSessionCounts); ok {
		c.collectFunnel(ctx, ic, ch)
	}
}

func (c *countsCollector) collectFunnel(ctx context.Context, ic ImportSessionCounts, ch chan<- prometheus.Metric) {
	steps, err := ic.ImportSessionSteps(ctx)
	if err != nil {
		c.log.Warn("metrics: import sessions funnel", "error", err)
		return
	}
	for i, n := range steps.Counts() {
		ch <- prometheus.MustNewConstMetric(funnelDesc, prometheus.GaugeValue, float64(n), importsession.StepNames[i])
	}
	ch <- prometheus.MustNewConstMetric(toSubmitDesc, prometheus.GaugeValue, steps.MedianToSubmit.Seconds())
}

func (c *countsCollector) collectWebhooks(ctx context.Context, wc WebhookCounts, ch chan<- prometheus.Metric) {
	if n, err := wc.PendingDeliveries(ctx); err != nil {
		c.log.Warn("metrics: pending webhook deliveries", "error", err)
	} else {
		ch <- prometheus.MustNewConstMetric(pendingDesc, prometheus.GaugeValue, float64(n))
	}
	if n, err := wc.PausedEndpoints(ctx); err != nil {
		c.log.Warn("metrics: paused webhook endpoints", "error", err)
	} else {
		ch <- prometheus.MustNewConstMetric(pausedDesc, prometheus.GaugeValue, float64(n))
	}
}

// Server serves /metrics on its own address.
type Server struct {
	addr     string
	handler  http.Handler
	server   *http.Server
	listener net.Listener
	log      *slog.Logger
}

// NewServer returns the /metrics listener for addr.
func NewServer(addr string, m *Metrics, log *slog.Logger) *Server {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}))
	return &Server{addr: addr, handler: mux, log: log}
}

// Start listens and serves in the background.
func (s *Server) Start(context.Context) error {
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		return err
	}
	s.listener = ln
	s.server = &http.Server{Handler: s.handler, ReadHeaderTimeout: 10 * time.Second, WriteTimeout: time.Minute}
	go func() {
		if err := s.server.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("metrics server stopped", "error", err)
		}
	}()
	return nil
}

// Addr is the address it listens on (useful with port 0).
func (s *Server) Addr() string {
	if s.listener == nil {
		return s.addr
	}
	return s.listener.Addr().String()
}

// Stop closes the listener.
func (s *Server) Stop(ctx context.Context) error {
	if s.server == nil {
		return nil
	}
	return s.server.Shutdown(ctx)
}

// PushAttempted records a delivery attempt to a destination.
func (m *Metrics) PushAttempted(destinationType, outcome string, rows, bytes int64, took time.Duration) {
	switch destinationType {
	case "s3", "postgres", "http":
	default:
		destinationType = "unknown"
	}
	if outcome != "delivered" {
		outcome = "failed"
	}
	m.pushes.WithLabelValues(destinationType, outcome).Inc()
	m.pushRows.WithLabelValues(destinationType).Add(float64(rows))
	m.pushBytes.WithLabelValues(destinationType).Add(float64(bytes))
	m.pushTime.WithLabelValues(destinationType).Observe(took.Seconds())
}
