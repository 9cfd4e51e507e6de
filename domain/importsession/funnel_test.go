package importsession

import (
	"slices"
	"testing"
	"time"
)

func TestFunnel(t *testing.T) {
	t.Parallel()
	day := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	now := day.Add(30 * time.Hour)
	at := func(d time.Duration) *time.Time { x := day.Add(d); return &x }
	facts := []Facts{
		{CreatedAt: day, OpenedAt: at(time.Minute), Jobs: 2, Confirmed: true, Fixed: true, SubmittedAt: at(10 * time.Minute), ExpiresAt: day.Add(time.Hour)},
		{CreatedAt: day, OpenedAt: at(time.Minute), Jobs: 1, Confirmed: true, SubmittedAt: at(4 * time.Minute), ExpiresAt: day.Add(time.Hour)},
		{CreatedAt: day, OpenedAt: at(time.Minute), Jobs: 1, ExpiresAt: day.Add(time.Hour)}, // gave up after uploading
		{CreatedAt: day, ExpiresAt: day.Add(time.Hour)},                                                        // never used, expired
		{CreatedAt: day, RevokedAt: at(time.Minute), ExpiresAt: day.Add(time.Hour)},                            // revoked: not "expired unused"
		{CreatedAt: day.Add(25 * time.Hour), OpenedAt: at(26 * time.Hour), ExpiresAt: day.Add(48 * time.Hour)}, // the next day, still open
	}
	got := Funnel(facts, day.Add(-24*time.Hour), now)
	if len(got) != 3 || got[0].Day != "2026-11-25" || got[1].Day != "2026-11-26" || got[2].Day != "2026-11-27" {
		t.Fatalf("days %+v", got)
	}
	if c := got[0].Counts(); !slices.Equal(c, []int{0, 0, 0, 0, 0, 0, 0}) || got[0].MedianToSubmit != 0 {
		t.Fatalf("an empty day %+v", got[0])
	}
	if c := got[1].Counts(); !slices.Equal(c, []int{5, 3, 3, 2, 1, 2, 1}) || got[1].MedianToSubmit != 7*time.Minute {
		t.Fatalf("the 26th: %v, median %v", c, got[1].MedianToSubmit)
	}
	if c := got[2].Counts(); !slices.Equal(c, []int{1, 1, 0, 0, 0, 0, 0}) {
		t.Fatalf("the 27th: %v", c)
	}
	if Tally(facts[1:2], now).MedianToSubmit != 4*time.Minute {
		t.Fatal("the median of one")
	}
	s := Session{}
	s.Open(day)
	s.Open(day.Add(time.Hour))
	if !s.OpenedAt.Equal(day) {
		t.Fatalf("opened at %v", s.OpenedAt)
	}
}
