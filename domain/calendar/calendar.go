// Package calendar holds the facts of the proleptic Gregorian calendar the
// readers of dates need without time.Date's normalisation: how long a month
// is, and which day number a date is.
package calendar

// DaysIn is the number of days of month m (1–12) of year y.
func DaysIn(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// DaysFromCivil is the number of days from 1970-01-01 to y-m-d
// (H. Hinnant's days_from_civil); m is 1–12.
func DaysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 {
		era = (y - 399) / 400
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}
