package webhook

import (
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/tabnorm/tabnorm/domain/identity"
)

var t0 = time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)

func TestDelivery_Record_followsTheSchedule(t *testing.T) {
	t.Parallel()
	d := NewDelivery("dlv_1", Endpoint{ID: "whk_1"}, JobSucceeded, []byte("{}"), t0)
	at := t0
	want := []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 14 * time.Hour, 20 * time.Hour, 24 * time.Hour}
	for i, delay := range want {
		if !d.Due(at) {
			t.Fatalf("attempt %d: not due at %s", i+1, at)
		}
		next, retry := d.Record(Attempt{At: at, StatusCode: 500})
		if !retry || !next.Equal(at.Add(delay)) {
			t.Fatalf("after attempt %d: next %s retry %v, want %s", i+1, next, retry, at.Add(delay))
		}
		if d.Due(next.Add(-time.Millisecond)) {
			t.Fatalf("attempt %d due before its time", i+2)
		}
		at = next
	}
	if _, retry := d.Record(Attempt{At: at, Error: "connection refused"}); retry || d.Status != Failed || d.Attempts != 10 {
		t.Fatalf("after the tenth attempt: retry %v status %s attempts %d", retry, d.Status, d.Attempts)
	}
	if err := d.Retry(at); err != nil || !d.Due(at) {
		t.Fatalf("manual retry: %v, due %v", err, d.Due(at))
	}
	if _, retry := d.Record(Attempt{At: at, StatusCode: 204}); retry || d.Status != Delivered {
		t.Fatalf("a 2xx: retry %v status %s", retry, d.Status)
	}
}

func TestDelivery_Retry_pendingIsConflict(t *testing.T) {
	t.Parallel()
	d := NewDelivery("dlv_1", Endpoint{}, JobFailed, nil, t0)
	if err := d.Retry(t0); err == nil || !strings.Contains(err.Error(), "delivery_pending") {
		t.Fatalf("got %v", err)
	}
}

func TestEndpoint_Failed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		failing time.Duration // how long it has failed before this attempt (-1: not failing)
		status  int
		off     bool
		reason  string
	}{
		{"first failure keeps it", -1, 500, false, ""},
		{"410 disables at once", -1, 410, true, "410 Gone"},
		{"four days of failures keep it", 4 * 24 * time.Hour, 0, false, ""},
		{"five days of failures disable it", FailingLimit, 503, true, "5 days"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := Endpoint{Enabled: true}
			if tt.failing >= 0 {
				since := t0.Add(-tt.failing)
				e.FailingSince = &since
			}
			got := e.Failed(tt.status, t0)
			if got != tt.off || e.Enabled == tt.off || !strings.Contains(e.DisabledReason, tt.reason) {
				t.Fatalf("disabled %v enabled %v reason %q", got, e.Enabled, e.DisabledReason)
			}
		})
	}
	e := Endpoint{Enabled: true}
	e.Failed(500, t0)
	e.Succeeded(t0.Add(time.Hour))
	if e.FailingSince != nil {
		t.Fatal("a success must forget the failures")
	}
	e.Failed(500, t0.Add(FailingLimit))
	if !e.Enabled {
		t.Fatal("failing since the success only: must stay enabled")
	}
}

func TestEndpoint_RotateSignsWithBothForADay(t *testing.T) {
	t.Parallel()
	old, cur := NewSecret(), NewSecret()
	e := Endpoint{Secret: old}
	e.Rotate(cur, t0)
	body := []byte(`{"type":"job.succeeded"}`)
	for _, tt := range []struct {
		at      time.Time
		secrets int
	}{{t0, 2}, {t0.Add(RotationOverlap - time.Second), 2}, {t0.Add(RotationOverlap), 1}} {
		secrets := e.Secrets(tt.at)
		if len(secrets) != tt.secrets || secrets[0] != cur {
			t.Fatalf("at %s: %d secrets, want %d with the new first", tt.at, len(secrets), tt.secrets)
		}
		sig, err := Sign(secrets, "dlv_1", tt.at, body)
		if err != nil {
			t.Fatal(err)
		}
		h := http.Header{"Webhook-Id": {"dlv_1"}, "Webhook-Timestamp": {itoa(tt.at)}, "Webhook-Signature": {sig}}
		for _, s := range secrets { // every active secret verifies with the official library
			wh, err := standardwebhooks.NewWebhook(s)
			if err != nil {
				t.Fatal(err)
			}
			if err := wh.VerifyIgnoringTimestamp(body, h); err != nil {
				t.Fatalf("at %s: %v", tt.at, err)
			}
		}
		if tt.secrets == 1 {
			wh, _ := standardwebhooks.NewWebhook(old)
			if wh.VerifyIgnoringTimestamp(body, h) == nil {
				t.Fatal("the old secret still verifies after the overlap")
			}
		}
	}
}

func itoa(t time.Time) string { return strconv.FormatInt(t.Unix(), 10) }

func TestParseURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		url          string
		allowPrivate bool
		ok           bool
	}{
		{"https://hooks.example.com/tabnorm", false, true},
		{"http://hooks.example.com/tabnorm", false, false},
		{"http://127.0.0.1:8080/hook", true, true},
		{"https://127.0.0.1/hook", false, false},
		{"https://[::1]/hook", false, false},
		{"https://169.254.169.254/latest/meta-data", false, false},
		{"https://10.1.2.3/", false, false},
		{"https://localhost/", false, false},
		{"https://user:pw@hooks.example.com/", false, false},
		{"ftp://hooks.example.com/", true, false},
		{"/relative", true, false},
		{"", true, false},
		// IPv6 literals that carry an internal IPv4 address.
		{"https://[::127.0.0.1]/hook", false, false},
		{"https://[::7f00:1]/hook", false, false},
		{"https://[::10.0.0.1]/hook", false, false},
		{"https://[::ffff:127.0.0.1]/hook", false, false},
		{"https://[64:ff9b::127.0.0.1]/hook", false, false},
		{"https://[64:ff9b::169.254.169.254]/hook", false, false},
		{"https://[64:ff9b::8.8.8.8]/hook", false, false}, // NAT64 is refused whole
		{"https://[2001:4860:4860::8888]/hook", false, true},
		// Ports outside 1 to 65535, or none after the colon.
		{"https://hooks.example.com:0/hook", false, false},
		{"https://hooks.example.com:65536/hook", false, false},
		{"https://hooks.example.com:99999999999999999999/hook", false, false},
		{"https://hooks.example.com:/hook", false, false},
		{"http://127.0.0.1:0/hook", true, false},
		{"https://hooks.example.com:65535/hook", false, true},
		{"https://hooks.example.com:8443/hook", false, true},
	}
	for _, tt := range tests {
		_, err := ParseURL(tt.url, tt.allowPrivate)
		if (err == nil) != tt.ok {
			t.Errorf("ParseURL(%q, %v): %v, want ok %v", tt.url, tt.allowPrivate, err, tt.ok)
		}
	}
}

func TestRefused(t *testing.T) {
	t.Parallel()
	for addr, refused := range map[string]bool{
		"127.0.0.1": true, "127.9.9.9": true, "::1": true, "10.0.0.1": true, "172.16.0.1": true, "192.168.1.1": true,
		"169.254.169.254": true, "fe80::1": true, "fd00::1": true, "224.0.0.1": true, "ff02::1": true, "0.0.0.0": true, "::": true,
		"100.64.0.1": true, "::ffff:127.0.0.1": true, "::ffff:10.0.0.1": true, "255.255.255.255": true,
		"93.184.216.34": false, "2606:2800:220:1:248:1893:25c8:1946": false, "8.8.8.8": false,
	} {
		if got := Refused(netip.MustParseAddr(addr)); got != refused {
			t.Errorf("Refused(%s) = %v", addr, got)
		}
	}
	if !RefusedHostPort("localhost:80") || RefusedHostPort("8.8.8.8:443") {
		t.Error("RefusedHostPort must refuse names and pass public addresses")
	}
}

func TestParseEvents(t *testing.T) {
	t.Parallel()
	got, err := ParseEvents([]string{JobSucceeded, JobFailed, JobSucceeded})
	if err != nil || len(got) != 2 {
		t.Fatalf("%v %v", got, err)
	}
	for _, bad := range [][]string{nil, {"job.progress"}, {Test}} {
		if _, err := ParseEvents(bad); err == nil {
			t.Errorf("ParseEvents(%v) accepted", bad)
		}
	}
}

func TestCanManage(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		p  identity.Principal
		ok bool
	}{
		{identity.Principal{Method: identity.BySession, Role: identity.Admin}, true},
		{identity.Principal{Method: identity.ByAPIKey}, true},
		{identity.Principal{Method: identity.BySession, Role: identity.Member}, false},
	} {
		if err := CanManage(tt.p); (err == nil) != tt.ok {
			t.Errorf("%+v: %v", tt.p, err)
		}
	}
}

func TestEndpoint_breakerAndPause(t *testing.T) {
	t.Parallel()
	e := Endpoint{ID: "whk_1", Enabled: true}
	if e.State() != StateActive {
		t.Fatalf("a new endpoint is %s", e.State())
	}
	at := t0
	for i := 1; i < BreakerAfter; i++ {
		e.Failed(503, at)
		if _, held := e.Held(at); held || e.State() != StateFailing {
			t.Fatalf("after %d failures: held %v, state %s", i, held, e.State())
		}
	}
	// The breaker opens at BreakerAfter, and its wait doubles up to BreakerMost.
	want := BreakerBase
	for range 10 {
		e.Failed(503, at)
		until, held := e.Held(at)
		if !held || !until.Equal(at.Add(want)) {
			t.Fatalf("after %d failures: held %v until %s, want %s", e.Failures, held, until, at.Add(want))
		}
		if _, held := e.Held(until); held {
			t.Fatalf("still held at its retry time")
		}
		want = min(2*want, BreakerMost)
	}
	// The probe holds the others while it is in flight.
	e.Probe(at.Add(2*time.Hour), ClaimFor)
	if _, held := e.Held(at.Add(2*time.Hour + time.Second)); !held {
		t.Fatal("a probe in flight does not hold the others")
	}
	// Failing for PauseAfter pauses it; it stays enabled.
	e.Failed(503, t0.Add(PauseAfter))
	if !e.Paused || e.State() != StatePaused || !e.Enabled || !strings.Contains(e.PausedReason, "6 hours") {
		t.Fatalf("after %s of failures: %+v", PauseAfter, e)
	}
	if until, held := e.Held(t0.Add(PauseAfter)); !held || !until.Equal(t0.Add(PauseAfter+PausedRecheck)) {
		t.Fatalf("a paused endpoint holds until %s (%v)", until, held)
	}
	if e.Lapse(t0.Add(FailingLimit - time.Second)) {
		t.Fatal("lapsed before FailingLimit")
	}
	resumed := e
	resumed.Resume(t0.Add(PauseAfter))
	if resumed.State() != StateActive || resumed.Failures != 0 || resumed.RetryAt != nil || resumed.FailingSince != nil {
		t.Fatalf("resumed: %+v", resumed)
	}
	if !e.Lapse(t0.Add(FailingLimit)) || e.Enabled || e.State() != StateDisabled || !strings.Contains(e.DisabledReason, "5 days") {
		t.Fatalf("still paused at FailingLimit: %+v", e)
	}
	e.SetEnabled(true, t0.Add(FailingLimit))
	if e.State() != StateActive || e.Paused {
		t.Fatalf("enabled again: %+v", e)
	}
}
