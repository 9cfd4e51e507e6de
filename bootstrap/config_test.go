package bootstrap

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/httpapi"
	"github.com/tabnorm/tabnorm/application/hooks"
)

func env(kv map[string]string) (func(string) string, []string) {
	var environ []string
	for k, v := range kv {
		environ = append(environ, k+"="+v)
	}
	return func(k string) string { return kv[k] }, environ
}

func TestLoad_defaults(t *testing.T) {
	t.Parallel()
	cfg, err := Load(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Database.URL != "sqlite://./data/tabnorm.db" || cfg.BlobURL != "file://./data/blobs" || cfg.HTTP.Addr != ":8080" {
		t.Fatalf("storage defaults: %+v", cfg)
	}
	if cfg.BaseURL != "http://localhost:8080" || cfg.DashboardURL != cfg.BaseURL || cfg.CookieSecure {
		t.Fatalf("URL defaults: %q %q %v", cfg.BaseURL, cfg.DashboardURL, cfg.CookieSecure)
	}
	if cfg.MaxUploadBytes != 1<<30 || cfg.MaxRows != 10_000_000 || cfg.MaxColumns != 1000 || cfg.MaxCellBytes != 1<<20 {
		t.Fatalf("limit defaults: %+v", cfg)
	}
	if cfg.JobTimeout != time.Hour || cfg.JobLease != 30*time.Second || cfg.Retention != 30*24*time.Hour || cfg.OrphanGrace != 24*time.Hour ||
		cfg.ReviewTTL != 7*24*time.Hour {
		t.Fatalf("time defaults: %+v", cfg)
	}
	if cfg.HTTP.RateLimit != (httpapi.RateLimit{PerSecond: 20, Burst: 100}) || cfg.LicenseRequired {
		t.Fatalf("other defaults: %+v", cfg)
	}
	if cfg.HookTimeout != 5*time.Second || cfg.HookConcurrency != 4 || cfg.HookLimits != (hooks.Limits{Attempts: 3, MaxRetryAfter: 10 * time.Second,
		JobBudget: 10 * time.Minute, OrgBudget: time.Hour, AnswerBytesPerRow: 4096}) {
		t.Fatalf("hook defaults: %s %d %+v", cfg.HookTimeout, cfg.HookConcurrency, cfg.HookLimits)
	}
}

func TestLoad_values(t *testing.T) {
	t.Parallel()
	cfg, err := Load(env(map[string]string{
		"TABNORM_DATABASE_URL": "postgres://u:p@db:5432/tabnorm",
		"TABNORM_BASE_URL":     "https://api.example.com/",
		"TABNORM_RETENTION":    "7d",
		"TABNORM_JOB_TIMEOUT":  "90m",
		"TABNORM_ORPHAN_GRACE": "2d",
		"TABNORM_LOG_FORMAT":   "JSON",
		"TABNORM_REVIEW_TTL":   "36h",

		"TABNORM_RATE_LIMIT_PER_SECOND": "2.5",
		"TABNORM_RATE_LIMIT_BURST":      "7",

		"TABNORM_HOOK_CONCURRENCY":          "8",
		"TABNORM_HOOK_TIMEOUT":              "2s",
		"TABNORM_HOOK_ANSWER_BYTES_PER_ROW": "1024",
		"TABNORM_HOOK_JOB_BUDGET":           "2m",
		"TABNORM_HOOK_ORG_BUDGET":           "20m",
		"TABNORM_HOOK_ATTEMPTS":             "5",
		"TABNORM_HOOK_MAX_RETRY_AFTER":      "30s",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.BaseURL != "https://api.example.com" || !cfg.CookieSecure || cfg.Retention != 7*24*time.Hour ||
		cfg.JobTimeout != 90*time.Minute || cfg.OrphanGrace != 48*time.Hour || cfg.LogFormat != "json" || cfg.ReviewTTL != 36*time.Hour {
		t.Fatalf("%+v", cfg)
	}
	if cfg.HTTP.RateLimit != (httpapi.RateLimit{PerSecond: 2.5, Burst: 7}) {
		t.Fatalf("rate limit: %+v", cfg.HTTP.RateLimit)
	}
	if cfg.HookTimeout != 2*time.Second || cfg.HookConcurrency != 8 || cfg.HookLimits != (hooks.Limits{Attempts: 5, MaxRetryAfter: 30 * time.Second,
		JobBudget: 2 * time.Minute, OrgBudget: 20 * time.Minute, AnswerBytesPerRow: 1024}) {
		t.Fatalf("hooks: %s %d %+v", cfg.HookTimeout, cfg.HookConcurrency, cfg.HookLimits)
	}
}

func TestLoad_rejectsBadValues(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		env  map[string]string
		want string
	}{
		"mysql database":      {map[string]string{"TABNORM_DATABASE_URL": "mysql://x"}, `TABNORM_DATABASE_URL: unsupported scheme "mysql"`},
		"ftp blobs":           {map[string]string{"TABNORM_BLOB_URL": "ftp://x"}, "TABNORM_BLOB_URL"},
		"bad addr":            {map[string]string{"TABNORM_HTTP_ADDR": "8080"}, "TABNORM_HTTP_ADDR"},
		"negative upload":     {map[string]string{"TABNORM_MAX_UPLOAD_BYTES": "-1"}, "TABNORM_MAX_UPLOAD_BYTES"},
		"word for a number":   {map[string]string{"TABNORM_MAX_ROWS": "lots"}, "TABNORM_MAX_ROWS"},
		"bad duration":        {map[string]string{"TABNORM_JOB_LEASE": "soon"}, "TABNORM_JOB_LEASE"},
		"bad bool":            {map[string]string{"TABNORM_COOKIE_SECURE": "maybe"}, "TABNORM_COOKIE_SECURE"},
		"bad level":           {map[string]string{"TABNORM_LOG_LEVEL": "loud"}, "TABNORM_LOG_LEVEL"},
		"misspelt name":       {map[string]string{"TABNORM_DATABSE_URL": "sqlite://x.db"}, "TABNORM_DATABSE_URL: unknown setting; did you mean TABNORM_DATABASE_URL?"},
		"near miss by two":    {map[string]string{"TABNORM_LOG_LEVLE": "debug"}, "did you mean TABNORM_LOG_LEVEL?"},
		"license without key": {map[string]string{"TABNORM_LICENSE_REQUIRED": "true", "TABNORM_LICENSE_TOKEN": "x"}, "TABNORM_LICENSE_PUBLIC_KEY"},
		"short public key":    {map[string]string{"TABNORM_LICENSE_PUBLIC_KEY": "AAAA"}, "TABNORM_LICENSE_PUBLIC_KEY"},
		"dashboard not http":  {map[string]string{"TABNORM_DASHBOARD_URL": "javascript:alert(1)"}, "TABNORM_DASHBOARD_URL"},
		"zero rate":           {map[string]string{"TABNORM_RATE_LIMIT_PER_SECOND": "0"}, "TABNORM_RATE_LIMIT_PER_SECOND"},
		"short orphan grace":  {map[string]string{"TABNORM_ORPHAN_GRACE": "10m"}, "TABNORM_ORPHAN_GRACE: 10m0s is shorter than 1h0m0s"},
		"grace under a job":   {map[string]string{"TABNORM_ORPHAN_GRACE": "2h", "TABNORM_JOB_TIMEOUT": "3h"}, "TABNORM_ORPHAN_GRACE: 2h0m0s is shorter than 3h0m0s"},
		"short secret key":    {map[string]string{"TABNORM_SECRET_KEY": "c2hvcnQ="}, "TABNORM_SECRET_KEY"},
		"second key broken":   {map[string]string{"TABNORM_SECRET_KEY": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=,zzz!"}, "TABNORM_SECRET_KEY"},
		"hook timeout long":   {map[string]string{"TABNORM_HOOK_TIMEOUT": "1m"}, "TABNORM_HOOK_TIMEOUT: want a duration from 100ms to 30s"},
		"hook concurrency":    {map[string]string{"TABNORM_HOOK_CONCURRENCY": "17"}, "TABNORM_HOOK_CONCURRENCY"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := Load(env(c.env))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to mention %q", err, c.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error is not one line: %q", err)
			}
		})
	}
}

func TestLoad_ignoresTestVariables(t *testing.T) {
	t.Parallel()
	if _, err := Load(env(map[string]string{"TABNORM_TEST_DATABASE_URL": "postgres://x/y"})); err != nil {
		t.Fatal(err)
	}
}

// TestLoad_kubernetesServiceLinks uses exactly the variables Kubernetes
// puts into every pod for a Service named tabnorm: none stops the process
// or warns.
func TestLoad_kubernetesServiceLinks(t *testing.T) {
	t.Parallel()
	cfg, err := Load(env(map[string]string{
		"TABNORM_PORT":                "tcp://10.96.0.12:8080",
		"TABNORM_SERVICE_HOST":        "10.96.0.12",
		"TABNORM_SERVICE_PORT":        "8080",
		"TABNORM_SERVICE_PORT_HTTP":   "8080",
		"TABNORM_PORT_8080_TCP":       "tcp://10.96.0.12:8080",
		"TABNORM_PORT_8080_TCP_ADDR":  "10.96.0.12",
		"TABNORM_PORT_8080_TCP_PORT":  "8080",
		"TABNORM_PORT_8080_TCP_PROTO": "tcp",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Warnings) != 0 {
		t.Fatalf("warnings for service links: %q", cfg.Warnings)
	}
	if cfg.HTTP.Addr != ":8080" {
		t.Fatalf("TABNORM_PORT changed the listen address to %q", cfg.HTTP.Addr)
	}
}

// TestLoad_unknownFarNameWarns: a name far from every setting (another
// Service's links) is a warning naming the closest setting, not an exit.
func TestLoad_unknownFarNameWarns(t *testing.T) {
	t.Parallel()
	cfg, err := Load(env(map[string]string{"TABNORM_API_SERVICE_HOST": "10.96.0.13", "TABNORM_FRONTEND_COLOUR": "blue"}))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Warnings) != 2 {
		t.Fatalf("warnings = %q, want one per unknown name", cfg.Warnings)
	}
	for _, w := range cfg.Warnings {
		if !strings.Contains(w, "is not a setting") || !strings.Contains(w, "the closest is TABNORM_") {
			t.Fatalf("warning %q does not name the closest setting", w)
		}
	}
}

func TestEditDistance(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"abc", "abc", 0}, {"DATABSE", "DATABASE", 1}, {"LEVLE", "LEVEL", 2}, {"kitten", "sitting", 3}, {"", "abc", 3}} {
		if got := editDistance(c.a, c.b); got != c.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

// The client commands' settings may be set in the shell that starts the
// server.
func TestLoad_acceptsClientSettings(t *testing.T) {
	t.Parallel()
	if _, err := Load(env(map[string]string{"TABNORM_API_URL": "http://127.0.0.1:8080", "TABNORM_API_KEY": "svc_live_x"})); err != nil {
		t.Fatal(err)
	}
}

// TestLoad_readsEverySettingByItsName: each typed setting of the table
// is read from its own variable: a value that is no number, duration or
// boolean stops Load with an error naming that variable.
func TestLoad_readsEverySettingByItsName(t *testing.T) {
	t.Parallel()
	n := 0
	for _, s := range Settings {
		if s.read == nil || !typed(s.Default) {
			continue
		}
		n++
		t.Run(s.Name, func(t *testing.T) {
			t.Parallel()
			_, err := Load(env(map[string]string{s.Name: "not-a-value"}))
			if err == nil || !strings.HasPrefix(err.Error(), s.Name+":") {
				t.Fatalf("%s=not-a-value: Load said %v, want an error naming %s", s.Name, err, s.Name)
			}
		})
	}
	if n < 25 {
		t.Fatalf("only %d typed settings found", n)
	}
}

// typed reports whether a default reads as a number, a duration or a
// boolean.
func typed(def string) bool {
	_, nerr := strconv.ParseFloat(def, 64)
	_, berr := strconv.ParseBool(def)
	_, ok := parseDuration(def)
	return nerr == nil || berr == nil || ok
}
