package bootstrap

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/fx"

	"github.com/tabnorm/tabnorm/adapters/httpapi"
	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
)

func testConfig(t *testing.T, dbURL string) Config {
	t.Helper()
	cfg, err := Load(env(map[string]string{
		"TABNORM_DATABASE_URL": dbURL,
		"TABNORM_BLOB_URL":     "file://" + t.TempDir(),
		"TABNORM_HTTP_ADDR":    "127.0.0.1:0",
		"TABNORM_LOG_LEVEL":    "error",
	}))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestValidateApp(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t, "sqlite://"+t.TempDir()+"/x.db")
	for _, role := range []Role{RoleAll, RoleAPI, RoleWorker} {
		if err := fx.ValidateApp(Serve(cfg, role, io.Discard)); err != nil {
			t.Errorf("serve --role %s: %v", role, err)
		}
	}
	if err := fx.ValidateApp(Admin(cfg, io.Discard), fx.Invoke(func(Config) {})); err != nil {
		t.Errorf("admin: %v", err)
	}
}

// TestServe_bootsMigratesSeedsAndStops starts the whole service on each
// database, as `tabnorm serve` does, and talks to it over real HTTP.
func TestServe_bootsMigratesSeedsAndStops(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			var api *httpapi.API
			app := fx.New(Serve(testConfig(t, target.URL), RoleAll, &out), fx.Populate(&api))
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := app.Start(ctx); err != nil {
				t.Fatal(err)
			}
			base := "http://" + api.Addr()
			res, err := http.Get(base + "/readyz")
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != 200 {
				t.Fatalf("/readyz = %d", res.StatusCode)
			}
			if !strings.Contains(out.String(), "email:    admin@localhost") || !strings.Contains(out.String(), "password: ") {
				t.Fatalf("first start did not print the admin login:\n%s", out.String())
			}
			if err := app.Stop(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := http.Get(base + "/healthz"); err == nil {
				t.Fatal("server still answers after stop")
			}

			// A second start on the same database seeds nothing.
			out.Reset()
			app = fx.New(Serve(testConfig(t, target.URL), RoleAll, &out), fx.Populate(&api))
			if err := app.Start(ctx); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = app.Stop(ctx) }()
			if strings.Contains(out.String(), "password:") {
				t.Fatalf("second start printed a password again:\n%s", out.String())
			}
		})
	}
}

// TestServe_finishesInFlightRequestsOnStop checks graceful shutdown: a
// request that is being served when Stop begins still gets its answer.
func TestServe_finishesInFlightRequestsOnStop(t *testing.T) {
	t.Parallel()
	var api *httpapi.API
	app := fx.New(Serve(testConfig(t, "sqlite://"+t.TempDir()+"/x.db"), RoleAPI, io.Discard), fx.Populate(&api))
	ctx := context.Background()
	if err := app.Start(ctx); err != nil {
		t.Fatal(err)
	}
	// A slow upload-like request: the body arrives after Stop has begun.
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		res, err := http.Post("http://"+api.Addr()+"/v1/openapi.json", "application/json", pr)
		if err != nil {
			done <- -1
			return
		}
		res.Body.Close()
		done <- res.StatusCode
	}()
	time.Sleep(100 * time.Millisecond)
	stopped := make(chan error, 1)
	go func() { stopped <- app.Stop(ctx) }()
	time.Sleep(100 * time.Millisecond)
	_, _ = pw.Write([]byte("{}"))
	pw.Close()
	if code := <-done; code != http.StatusMethodNotAllowed {
		t.Fatalf("in-flight request got %d, want its real answer 405", code)
	}
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
}

func TestSettingsAreDocumented(t *testing.T) {
	t.Parallel()
	readme, err := readFileUp("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range Settings {
		if !strings.Contains(readme, "`"+s.Name+"`") {
			t.Errorf("README.md does not document %s", s.Name)
		}
	}
}
