package export

import (
	"time"

	"github.com/tabnorm/tabnorm/domain/calendar"
)

// The engine writes a date as 2006-01-02 and a datetime as RFC 3339 with
// up to nine fraction digits. parseDateText and parseTimestampText read
// those forms straight into the integers a Parquet column holds, without
// time.Parse's general layout machinery; anything else (or anything they
// are unsure of) is left to time.Parse, so the result is always the one
// time.Parse gives.

// digits2 and digits4 read fixed-width decimal fields; ok is false on a
// byte that is no digit.
func digits2(s string) (int, bool) {
	a, b := s[0]-'0', s[1]-'0'
	return int(a)*10 + int(b), a <= 9 && b <= 9
}

func digits4(s string) (int, bool) {
	hi, ok1 := digits2(s[:2])
	lo, ok2 := digits2(s[2:4])
	return hi*100 + lo, ok1 && ok2
}

// civilDate reads YYYY-MM-DD at the start of s.
func civilDate(s string) (y, m, d int, ok bool) {
	if len(s) < 10 || s[4] != '-' || s[7] != '-' {
		return 0, 0, 0, false
	}
	y, ok1 := digits4(s[:4])
	m, ok2 := digits2(s[5:7])
	d, ok3 := digits2(s[8:10])
	if !ok1 || !ok2 || !ok3 || m < 1 || m > 12 || d < 1 || d > calendar.DaysIn(y, m) {
		return 0, 0, 0, false
	}
	return y, m, d, true
}

// parseDateText is a date's day number from 1970-01-01.
func parseDateText(s string) (int64, error) {
	if y, m, d, ok := civilDate(s); ok && len(s) == 10 {
		return calendar.DaysFromCivil(y, m, d), nil
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return 0, err
	}
	return t.Unix() / 86400, nil
}

// parseTimestampText is a datetime's microseconds since the epoch, and
// whether it had no digit finer than a microsecond.
func parseTimestampText(s string) (micros int64, exact bool, err error) {
	if micros, exact, ok := fastTimestamp(s); ok {
		return micros, exact, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0, false, err
	}
	return t.UnixMicro(), t.Nanosecond()%1000 == 0, nil
}

// fastTimestamp reads YYYY-MM-DDTHH:MM:SS[.f{1,9}](Z|±HH:MM).
func fastTimestamp(s string) (micros int64, exact, ok bool) {
	y, mo, d, ok := civilDate(s)
	if !ok || len(s) < 20 || s[10] != 'T' || s[13] != ':' || s[16] != ':' {
		return 0, false, false
	}
	h, ok1 := digits2(s[11:13])
	mi, ok2 := digits2(s[14:16])
	sec, ok3 := digits2(s[17:19])
	if !ok1 || !ok2 || !ok3 || h > 23 || mi > 59 || sec > 59 {
		return 0, false, false
	}
	rest := s[19:]
	nanos, scale := 0, 100_000_000
	if rest[0] == '.' {
		n := 1
		for ; n < len(rest) && rest[n] >= '0' && rest[n] <= '9'; n++ {
			if n > 9 {
				return 0, false, false
			}
			nanos += int(rest[n]-'0') * scale
			scale /= 10
		}
		if n == 1 {
			return 0, false, false
		}
		rest = rest[n:]
	}
	offset := 0
	switch {
	case rest == "Z":
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':':
		oh, ok1 := digits2(rest[1:3])
		om, ok2 := digits2(rest[4:6])
		if !ok1 || !ok2 || oh > 23 || om > 59 {
			return 0, false, false
		}
		offset = oh*3600 + om*60
		if rest[0] == '-' {
			offset = -offset
		}
	default:
		return 0, false, false
	}
	secs := calendar.DaysFromCivil(y, mo, d)*86400 + int64(h*3600+mi*60+sec) - int64(offset)
	return secs*1_000_000 + int64(nanos/1000), nanos%1000 == 0, true
}
