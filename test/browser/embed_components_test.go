package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// components is examples/components: the React and Vue components and
// their host apps, built with npm and esbuild.
var components = filepath.Join("..", "..", "examples", "components")

var (
	buildOnce sync.Once
	buildErr  error
)

// buildComponents installs the components' packages (npm ci, from the
// lock file) when they are missing, bundles the host apps into dist/ and
// type-checks src/types-check.ts against importer.d.ts (its
// @ts-expect-error lines fail the check when the declarations accept a
// mistake), once. Without npm the tests skip loudly, and fail under CI=true.
func buildComponents(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("npm"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no npm, but CI=true: the component tests are mandatory in CI (%v)", err)
		}
		t.Skipf("*** SKIPPING the React and Vue component tests: install Node.js and npm *** (%v)", err)
	}
	buildOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		run := func(args ...string) error {
			cmd := exec.CommandContext(ctx, "npm", args...)
			cmd.Dir = components
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("npm %s: %w\n%s", strings.Join(args, " "), err, out)
			}
			return nil
		}
		_, esbuild := os.Stat(filepath.Join(components, "node_modules", ".bin", "esbuild"))
		_, tsc := os.Stat(filepath.Join(components, "node_modules", ".bin", "tsc"))
		if esbuild != nil || tsc != nil {
			if buildErr = run("ci", "--no-audit", "--no-fund"); buildErr != nil {
				return
			}
		}
		if buildErr = run("run", "build"); buildErr != nil {
			return
		}
		buildErr = run("run", "check-types")
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
}

// serveComponentHost serves a host app's page and its bundle on a
// loopback origin of its own, with the session the page's backend
// minted in window.tabnormSession.
func serveComponentHost(t *testing.T, app *apptest.App, bundle string, ses *hostSession, mode string) *httptest.Server {
	t.Helper()
	dist := http.FileServer(http.Dir(filepath.Join(components, "dist")))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/dist/") {
			http.StripPrefix("/dist", dist).ServeHTTP(w, r)
			return
		}
		if r.URL.Path != "/" {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		cfg, _ := json.Marshal(map[string]string{"url": app.URL + "/embed/" + ses.ID, "clientSecret": ses.ClientSecret, "mode": mode})
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Acme</title>
<script src="%s/embed/v1/importer.js"></script><script>window.tabnormSession = %s;</script></head>
<body><div id="root"></div><script type="module" src="/dist/%s"></script></body></html>`, app.URL, cfg, bundle)
	}))
	t.Cleanup(srv.Close)
	srv.URL = strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	return srv
}

// TestEmbed_reactAndVueComponents: the React component opens the
// importer as a modal and the Vue one inline, each in a host app built
// from examples/components, on another origin; the end user imports a
// file to the end by keyboard, and the host app hears tabnorm:complete.
func TestEmbed_reactAndVueComponents(t *testing.T) {
	browserTest(t)
	buildComponents(t)
	app := apptest.Start(t, sqltest.SQLite(t))
	key := app.Key(app.Org("Acme", identity.Normalize))
	for _, c := range []struct{ name, bundle, mode string }{{"react", "react-host.js", "modal"}, {"vue", "vue-host.js", "inline"}} {
		t.Run(c.name, func(t *testing.T) {
			var ses hostSession
			host := serveComponentHost(t, app, c.bundle, &ses, c.mode)
			ses = mintWith(t, app, key, map[string]any{"allowed_origins": []string{host.URL}, "locale": "en"})
			p := open(t, app)
			p.do(chromedp.Navigate(host.URL))
			p.until("the host app", `document.getElementById('open') !== null`)
			p.press("#open")
			if c.mode == "modal" {
				p.until("the modal", `document.querySelector('dialog[open] iframe') !== null`)
			}
			f := p.frame()
			importIn(t, app, key, p, f, "component-"+c.name, width, []string{"Choose a file", "Confirm columns", "Submit",
				"Comment lines (starting with #) were left out."})
			p.until("the host app's own words", `document.getElementById('done')?.textContent === 'Imported 3 rows.'`)
			if got := eval[string](p, `window.events.join(' ')`); !strings.Contains(got, "tabnorm:ready") || !strings.Contains(got, "tabnorm:complete") {
				t.Errorf("the component passed on %q", got)
			}
		})
	}
}
