package queue

import (
	"testing"
	"time"
)

// TestBackoff: an entry that waits for its organization's share waits a
// second, then twice as long each time, up to the most, with at most a
// quarter more of jitter.
func TestBackoff(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		metadata string
		want     time.Duration
	}{
		{`{}`, time.Second},
		{``, time.Second},
		{`{"snoozes":1}`, 2 * time.Second},
		{`{"snoozes":3}`, 8 * time.Second},
		{`{"snoozes":9}`, 16 * time.Second},
		{`{"snoozes":1000}`, 16 * time.Second},
	} {
		got := backoff([]byte(c.metadata), 16*time.Second)
		if got < c.want || got > c.want+c.want/4 {
			t.Errorf("backoff(%s) = %s, want %s to %s", c.metadata, got, c.want, c.want+c.want/4)
		}
	}
}
