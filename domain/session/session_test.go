package session

import (
	"testing"
	"time"
)

func TestSession_lifetimes(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	s, token := New("usr_1", "org_1", start)
	if !ValidToken(token) || s.Hash != HashOf(token) {
		t.Fatal("token and hash do not match")
	}
	cases := []struct {
		name     string
		lastSeen time.Time
		now      time.Time
		expired  bool
	}{
		{"fresh", start, start.Add(time.Minute), false},
		{"idle just under 12 h", start, start.Add(IdleTimeout - time.Second), false},
		{"idle 12 h", start, start.Add(IdleTimeout), true},
		{"active but 7 days old", start.Add(7*24*time.Hour - time.Hour), start.Add(7 * 24 * time.Hour), true},
		{"active 6 days", start.Add(6 * 24 * time.Hour), start.Add(6*24*time.Hour + time.Hour), false},
	}
	for _, c := range cases {
		s.LastSeenAt = c.lastSeen
		if got := s.Expired(c.now); got != c.expired {
			t.Errorf("%s: Expired = %v", c.name, got)
		}
	}
}

func TestCSRF(t *testing.T) {
	t.Parallel()
	_, a := New("u", "o", time.Now())
	_, b := New("u", "o", time.Now())
	if !CheckCSRF(a, CSRFToken(a)) {
		t.Fatal("own token refused")
	}
	if CheckCSRF(a, CSRFToken(b)) || CheckCSRF(a, "") || CheckCSRF(a, a) {
		t.Fatal("foreign, empty or raw session token accepted as CSRF token")
	}
}

func TestValidToken(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"", "x", "svc_live_abc", "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!"} {
		if ValidToken(bad) {
			t.Errorf("%q accepted", bad)
		}
	}
}
