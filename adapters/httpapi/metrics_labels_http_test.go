package httpapi_test

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// TestMetrics_labelsAreBounded: requests with random methods and paths,
// unauthenticated, add no series beyond a fixed set: an unknown method is
// OTHER and an unknown route is "unmatched".
func TestMetrics_labelsAreBounded(t *testing.T) {
	t.Parallel()
	target := sqltest.Targets(t)[0] // no database work: one is enough
	app := apptest.Start(t, target, func(c *bootstrap.Config) { c.MetricsAddr = "127.0.0.1:0" })
	letters := "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	word := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteByte(letters[rand.IntN(len(letters))])
		}
		return b.String()
	}
	for i := range 400 {
		method := word(3 + rand.IntN(8))
		if i%4 == 0 {
			method = http.MethodGet
		}
		req, err := http.NewRequest(method, app.URL+"/"+word(5)+"/"+fmt.Sprint(i), nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := app.Client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = res.Body.Close()
	}
	text := scrape(t, app)
	series := 0
	for line := range strings.Lines(text) {
		if strings.HasPrefix(line, "tabnorm_http_request_duration_seconds_count{") {
			series++
			if !strings.Contains(line, `route="unmatched"`) && !strings.Contains(line, `route="/`) {
				t.Errorf("a route label outside the routes: %s", line)
			}
		}
	}
	if series == 0 || series > 10 {
		t.Fatalf("%d request series after 400 random requests, want a handful:\n%s", series, text)
	}
	if sample(text, "tabnorm_http_request_duration_seconds_count", `method="OTHER"`, `route="unmatched"`) < 1 {
		t.Fatalf("no OTHER method series:\n%s", text)
	}
}
