package importsession

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/domain"
)

func TestSecret_shapeAndHash(t *testing.T) {
	t.Parallel()
	a, b := GenerateSecret(), GenerateSecret()
	if a == b || !ValidSecret(a) || !IsSecret(a) || HashOf(a) == HashOf(b) {
		t.Fatalf("secrets %q %q", a, b)
	}
	for _, bad := range []string{"", SecretPrefix, a[:len(a)-1], a + "x", "svc_live_" + a[len(SecretPrefix):], a[:len(a)-1] + "!"} {
		if ValidSecret(bad) {
			t.Errorf("%q passed", bad)
		}
	}
}

func TestSession_statusAndUsable(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	s := Session{ExpiresAt: now.Add(time.Hour)}
	if s.Status(now) != Open || s.Usable(now) != nil {
		t.Fatal("a fresh session is not open")
	}
	var coded *domain.Error
	if s.Status(now.Add(time.Hour)) != Expired || !errors.As(s.Usable(now.Add(time.Hour)), &coded) || coded.Code != domain.CodeImportSessionExpired {
		t.Fatal("a session at its expiry is usable")
	}
	if err := s.Submit(now); err != nil || s.Status(now) != Submitted || s.Submit(now) == nil {
		t.Fatalf("submit: %v", err)
	}
	s.Revoke(now)
	first := *s.RevokedAt
	s.Revoke(now.Add(time.Minute))
	if s.Status(now) != Revoked || !s.RevokedAt.Equal(first) || !errors.Is(s.Usable(now), domain.ErrUnauthenticated) {
		t.Fatal("revocation")
	}
}

func TestParseOrigins(t *testing.T) {
	t.Parallel()
	got, err := ParseOrigins([]string{"HTTPS://App.Example.com:443", "https://app.example.com", "http://localhost:3000", "http://[::1]:8080"})
	if err != nil || len(got) != 3 || got[0] != "https://app.example.com" || got[1] != "http://localhost:3000" || got[2] != "http://[::1]:8080" {
		t.Fatalf("%v %v", got, err)
	}
	for _, bad := range []string{"http://app.example.com", "https://*.example.com", "https://a.example.com/path", "https://u:p@a.example.com",
		"javascript:alert(1)", "null", "https://a.example.com?x=1"} {
		if _, err := ParseOrigins([]string{bad}); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestParseOrigins_hostileHosts: an origin reaches the importer page's
// Content-Security-Policy and CORS answers, so only scheme://host[:port]
// with a valid host is taken: a host with ;, ", <, a blank or another
// character no DNS name or IP literal has could add a directive.
func TestParseOrigins_hostileHosts(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{
		"https://a.example;sandbox", "https://a.example;script-src *", `https://a.example"`, "https://a.example<script>",
		"https://a.example,b.example", "https://a.example%20b", "https://a.example\\b", "https://a_b.example", "https://-a.example",
		"https://a-.example", "https://a..example", "https://" + strings.Repeat("a", 64) + ".example", "https://a.example:0",
		"https://a.example:65536", "https://a.example:", "https://[::1%25eth0]", "https://[::127.0.0.1]x", "ftp://a.example",
		"https://1.2.3.4.5", "https://a.example'", "https://a.example\t",
	} {
		if got, err := ParseOrigins([]string{bad}); err == nil {
			t.Errorf("%q accepted as %q", bad, got)
		}
	}
	got, err := ParseOrigins([]string{"https://xn--bcher-kva.example", "https://a-b.c9.example:8443", "https://192.0.2.1", "https://[2001:db8::1]:4443", "http://127.0.0.1:3000"})
	if err != nil || strings.Join(got, " ") != "https://xn--bcher-kva.example https://a-b.c9.example:8443 https://192.0.2.1 https://[2001:db8::1]:4443 http://127.0.0.1:3000" {
		t.Fatalf("valid origins: %v %v", got, err)
	}
}

func TestCheckTheme_patterns(t *testing.T) {
	t.Parallel()
	if err := CheckTheme(Theme{Palette: Palette{Primary: "#0b5cff"}, Radius: "6px", Font: "Inter, \"Segoe UI\", sans-serif"}, nil); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []Theme{{Palette: Palette{Primary: "red"}}, {Palette: Palette{Primary: "#0b5cff;x:y"}}, {Radius: "6px;}"}, {Radius: "calc(1px)"},
		{Font: "a}b"}, {Font: "a;b"}, {Font: "url(x)"}} {
		if CheckTheme(bad, nil) == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

func TestSession_takesJob(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	s := Session{MaxJobs: 3, ExpiresAt: now.Add(time.Hour)}
	if err := s.TakesJob(now, 2); err != nil {
		t.Fatalf("room for a third job: %v", err)
	}
	if code := domain.CodeOf(s.TakesJob(now, 3)); code != domain.CodeQuotaExceeded {
		t.Fatalf("at max_jobs: %s", code)
	}
	if code := domain.CodeOf(s.TakesJob(now.Add(time.Hour), 0)); code != domain.CodeImportSessionExpired {
		t.Fatalf("expired: %s", code)
	}
	if err := s.Submit(now); err != nil {
		t.Fatal(err)
	}
	if code := domain.CodeOf(s.TakesJob(now, 0)); code != domain.CodeConflict {
		t.Fatalf("submitted: %s", code)
	}
}
