package client

import (
	"net/http"
	"testing"
	"time"
)

// TestRetryAfter_capped: a server's Retry-After is obeyed up to
// MaxRetryAfter, so a hostile or broken server cannot park a command for a
// day (or, overflowing, not at all).
func TestRetryAfter_capped(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		header string
		want   time.Duration
	}{
		{"", 0},
		{"2", 2 * time.Second},
		{"60", time.Minute},
		{"86400", MaxRetryAfter},
		{"9223372036854775807", MaxRetryAfter},
		{time.Now().Add(48 * time.Hour).UTC().Format(http.TimeFormat), MaxRetryAfter},
		{"-5", 0},
		{"soon", 0},
	} {
		res := &http.Response{Header: http.Header{"Retry-After": {c.header}}}
		if got := retryAfter(res); got != c.want {
			t.Errorf("Retry-After %q: wait %s, want %s", c.header, got, c.want)
		}
	}
}
