package jobs

import "time"

// SetBeatEvery makes the runner renew running jobs' leases every d, so
// that tests see a cancellation without waiting a second.
func SetBeatEvery(r *Runner, d time.Duration) { r.beatEvery = d }

// SetEvery makes the reaper run every d, and look for dead runs' working
// folders in dir.
func (r *Reaper) SetEvery(d time.Duration, dir string) { r.every, r.workdirs = d, dir }

// CheckGate is the gate a Sources' row checks take their slots from.
func (s *Sources) CheckGate() *Gate { return s.checks }
