package hostile

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/httpapi"
	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// login posts credentials with extra headers and returns the status and
// Retry-After.
func login(client *http.Client, url, email, password string, header ...string) (int, string, error) {
	req, err := http.NewRequest("POST", url+"/auth/login", strings.NewReader(fmt.Sprintf(`{"email":%q,"password":%q}`, email, password)))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	res.Body.Close()
	return res.StatusCode, res.Header.Get("Retry-After"), nil
}

// TestLoginFlood: 100 concurrent anonymous sign-ins, each from its own
// address (a botnet, believed through a trusted proxy so the per-address
// limit does not stop them first), must not take the server's memory past
// 600 MB: each password check needs 64 MiB, and only a few run at once;
// the rest are told to retry. The server keeps answering meanwhile.
func TestLoginFlood(t *testing.T) {
	t.Parallel()
	s := serve(t, "TABNORM_TRUSTED_PROXIES=127.0.0.1/32")
	client := &http.Client{Timeout: 2 * time.Minute}
	var wg sync.WaitGroup
	var mu sync.Mutex
	statuses := map[int]int{}
	start := make(chan struct{})
	for i := range 100 {
		wg.Go(func() {
			<-start
			email := fmt.Sprintf("nobody%d@example.test", i)
			if i%10 == 0 {
				email = "admin@localhost"
			}
			status, retry, err := login(client, s.url, email, "wrong password", "X-Forwarded-For", fmt.Sprintf("203.0.113.%d", i))
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				t.Errorf("login %d: %v", i, err)
				return
			}
			if status == 429 && retry == "" {
				t.Errorf("429 without Retry-After")
			}
			statuses[status]++
		})
	}
	close(start)
	// The service answers while the flood runs.
	time.Sleep(200 * time.Millisecond)
	hc := &http.Client{Timeout: 10 * time.Second}
	res, err := hc.Get(s.url + "/healthz")
	if err != nil || res.StatusCode != 200 {
		t.Errorf("healthz during the flood: %v %v", res, err)
	} else {
		res.Body.Close()
	}
	wg.Wait()
	peak := s.peakRSS(t)
	t.Logf("answers %v; server peak RSS %d MiB", statuses, peak>>20)
	if peak > 600<<20 {
		t.Errorf("server peak RSS %d MiB, want under 600 MiB", peak>>20)
	}
	for status := range statuses {
		if status != 401 && status != 429 {
			t.Errorf("%d answers with status %d", statuses[status], status)
		}
	}
	if statuses[401] == 0 {
		t.Error("no sign-in was checked at all")
	}
	// And a real sign-in still works afterwards.
	if status, _, err := login(client, s.url, "admin@localhost", s.password, "X-Forwarded-For", "198.51.100.1"); err != nil || status != 200 {
		t.Fatalf("admin sign-in after the flood: %d %v", status, err)
	}
}

// TestLoginPerAddressLimit: one address is refused before any password is
// checked once it exceeds its sign-ins a minute.
func TestLoginPerAddressLimit(t *testing.T) {
	t.Parallel()
	app := apptest.Start(t, sqltest.SQLite(t), func(c *bootstrap.Config) { c.HTTP.LoginPerMinute = 3 })
	for i := range 4 {
		res := app.Do("POST", "/auth/login", apptest.Caller{}, map[string]string{"email": fmt.Sprintf("u%d@x.test", i), "password": "guess"})
		want, code := 401, "invalid_credentials"
		if i == 3 {
			want, code = 429, "rate_limited"
		}
		wantStatus(t, res, want, code)
		if i == 3 && res.Header.Get("Retry-After") == "" {
			t.Fatal("no Retry-After")
		}
	}
}

// TestLoginThrottleRace: 20 concurrent wrong passwords for one email are
// not all checked; the limit of 5 holds.
func TestLoginThrottleRace(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			app := apptest.Start(t, target)
			user := app.User(app.Org("Acme"), identity.Admin, false)
			var wg sync.WaitGroup
			var mu sync.Mutex
			statuses := map[int]int{}
			start := make(chan struct{})
			for range 20 {
				wg.Go(func() {
					<-start
					status, _, err := login(app.Client, app.URL, user.Email, "wrong password")
					mu.Lock()
					defer mu.Unlock()
					if err != nil {
						t.Error(err)
					}
					statuses[status]++
				})
			}
			close(start)
			wg.Wait()
			// 401s are the checked passwords; a few 429s may also come from
			// the cap on concurrent checks on a busy machine.
			if statuses[401] < 1 || statuses[401] > 5 || statuses[401]+statuses[429] != 20 {
				t.Fatalf("answers %v, want at most 5 × 401 and the rest 429", statuses)
			}
		})
	}
}

// TestLoginBehindProxy: behind a trusted proxy, one client's failures
// neither lock other clients out of the same account nor are audited
// under the proxy's address; the forwarding headers of a client that is
// not a trusted proxy are ignored.
func TestLoginBehindProxy(t *testing.T) {
	t.Parallel()
	proxies, err := httpapi.ParseProxies("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	app := apptest.Start(t, sqltest.SQLite(t), func(c *bootstrap.Config) { c.HTTP.TrustedProxies = proxies })
	org := app.Org("Acme")
	user := app.User(org, identity.Admin, false)
	for range 5 {
		if status, _, _ := login(app.Client, app.URL, user.Email, "guess", "X-Forwarded-For", "203.0.113.66"); status != 401 {
			t.Fatalf("wrong password: %d", status)
		}
	}
	if status, _, _ := login(app.Client, app.URL, user.Email, apptest.Password, "X-Forwarded-For", "203.0.113.66"); status != 429 {
		t.Fatalf("the attacker's sixth attempt: %d, want 429", status)
	}
	if status, _, _ := login(app.Client, app.URL, user.Email, apptest.Password, "Forwarded", "for=198.51.100.7"); status != 200 {
		t.Fatalf("the owner from another address: %d, want 200", status)
	}
	var ips []string
	if err := app.DB.Bun.NewSelect().Table("audit_log").Column("ip").Where("org_id = ?", org.ID).Where("action = ?", "login").
		Scan(context.Background(), &ips); err != nil {
		t.Fatal(err)
	}
	if len(ips) != 1 || ips[0] != "198.51.100.7" {
		t.Fatalf("login audited from %v, want the client's 198.51.100.7", ips)
	}

	// Without trusted proxies, the same headers are the client's own claims.
	plain := apptest.Start(t, sqltest.SQLite(t))
	puser := plain.User(plain.Org("Beta"), identity.Admin, false)
	for i := range 6 {
		status, _, _ := login(plain.Client, plain.URL, puser.Email, "guess", "X-Forwarded-For", fmt.Sprintf("203.0.113.%d", i))
		if want := map[bool]int{true: 429, false: 401}[i == 5]; status != want {
			t.Fatalf("attempt %d with a made-up address: %d, want %d", i+1, status, want)
		}
	}
}
