package importsession

import (
	"slices"
	"time"
)

// Facts are what a session's funnel reads of it: its times, and what its
// jobs say of the end user's steps (a job made: a file uploaded; a job's
// review confirmed: its columns matched; a rerun: fixes applied).
type Facts struct {
	CreatedAt   time.Time
	OpenedAt    *time.Time
	SubmittedAt *time.Time
	RevokedAt   *time.Time
	ExpiresAt   time.Time
	Jobs        int
	Confirmed   bool
	Fixed       bool
}

// Steps counts the sessions that reached each step of the funnel, in the
// order an end user takes them. ExpiredUnused are the sessions that
// expired with no file uploaded.
type Steps struct {
	Created, Opened, Uploaded, Confirmed, Fixed, Submitted, ExpiredUnused int
	// MedianToSubmit is the median time from a session's creation to its
	// submit, of those submitted; 0 when none was.
	MedianToSubmit time.Duration
}

// Day is the funnel of the sessions created on one day (UTC).
type Day struct {
	Day string // YYYY-MM-DD
	Steps
}

// StepNames are the steps' names, as metrics and the API label them.
var StepNames = []string{"created", "opened", "uploaded", "columns_confirmed", "fixes_applied", "submitted", "expired_unused"}

// Counts lists s's counts in StepNames' order.
func (s Steps) Counts() []int {
	return []int{s.Created, s.Opened, s.Uploaded, s.Confirmed, s.Fixed, s.Submitted, s.ExpiredUnused}
}

// Open records the first time the importer read its session: the end
// user opened it. Later reads keep the first time.
func (s *Session) Open(now time.Time) {
	if s.OpenedAt == nil {
		t := now.UTC()
		s.OpenedAt = &t
	}
}

// Tally counts facts into the steps at now.
func Tally(facts []Facts, now time.Time) Steps {
	var st Steps
	var toSubmit []time.Duration
	for _, f := range facts {
		st.Created++
		if f.OpenedAt != nil {
			st.Opened++
		}
		if f.Jobs > 0 {
			st.Uploaded++
		}
		if f.Confirmed {
			st.Confirmed++
		}
		if f.Fixed {
			st.Fixed++
		}
		if f.SubmittedAt != nil {
			st.Submitted++
			toSubmit = append(toSubmit, f.SubmittedAt.Sub(f.CreatedAt))
		} else if f.RevokedAt == nil && f.Jobs == 0 && !now.Before(f.ExpiresAt) {
			st.ExpiredUnused++
		}
	}
	if n := len(toSubmit); n > 0 {
		slices.Sort(toSubmit)
		st.MedianToSubmit = toSubmit[n/2]
		if n%2 == 0 {
			st.MedianToSubmit = (toSubmit[n/2-1] + toSubmit[n/2]) / 2
		}
	}
	return st
}

// Funnel is the funnel of each of the days from since to now (UTC), oldest
// first, a day with no session included, of the sessions created then.
func Funnel(facts []Facts, since, now time.Time) []Day {
	byDay := map[string][]Facts{}
	for _, f := range facts {
		d := f.CreatedAt.UTC().Format(time.DateOnly)
		byDay[d] = append(byDay[d], f)
	}
	var out []Day
	for d := since.UTC().Truncate(24 * time.Hour); !d.After(now); d = d.Add(24 * time.Hour) {
		key := d.Format(time.DateOnly)
		out = append(out, Day{Day: key, Steps: Tally(byDay[key], now)})
	}
	return out
}
