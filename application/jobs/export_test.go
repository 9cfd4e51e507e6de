package jobs

import "time"

// SetBeatEvery makes the service renew running jobs' leases every d, so
// that tests see a cancellation without waiting a second.
func SetBeatEvery(s *Service, d time.Duration) { s.beatEvery = d }

// SetEvery makes the reaper run every d.
func (r *Reaper) SetEvery(d time.Duration) { r.every = d }
