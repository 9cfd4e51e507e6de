package calendar

import (
	"testing"
	"time"
)

// Every day from year 1 to 9999 and a few before: DaysIn and DaysFromCivil
// agree with the time package.
func TestCalendar_isTimes(t *testing.T) {
	t.Parallel()
	for day := time.Date(-5, 1, 1, 0, 0, 0, 0, time.UTC); day.Year() < 10000; day = day.AddDate(0, 0, 1) {
		y, m, d := day.Year(), int(day.Month()), day.Day()
		if got, want := DaysFromCivil(y, m, d), day.Unix()/86400; got != want {
			t.Fatalf("%s: day %d, time says %d", day.Format(time.DateOnly), got, want)
		}
		if d == 1 {
			if got, want := DaysIn(y, m), day.AddDate(0, 1, -1).Day(); got != want {
				t.Fatalf("%d-%02d: %d days, time says %d", y, m, got, want)
			}
		}
	}
}
