package export

import (
	"testing"
	"time"
)

// The fast readers give exactly what time.Parse gives, or defer to it.
func TestTimeText_asTimeParse(t *testing.T) {
	dates := []string{"1970-01-01", "2024-02-29", "2023-02-29", "2000-02-29", "1900-02-29", "0001-01-01",
		"9999-12-31", "0000-03-01", "1969-12-31", "2024-13-01", "2024-00-10", "2024-04-31", "2024-4-01",
		"2024-04-01x", "", "abcd-ef-gh", "1582-10-10", "2024-06-30"}
	for _, s := range dates {
		want, werr := time.Parse(time.DateOnly, s)
		got, err := parseDateText(s)
		if (err != nil) != (werr != nil) || err == nil && got != want.Unix()/86400 {
			t.Errorf("parseDateText(%q) = %d, %v; time.Parse: %d, %v", s, got, err, want.Unix()/86400, werr)
		}
	}
	stamps := []string{"2024-03-05T14:30:00Z", "2024-03-05T14:30:00.5Z", "2024-03-05T14:30:00.123456Z",
		"2024-03-05T14:30:00.1234567Z", "2024-03-05T14:30:00.123456789Z", "2024-03-05T14:30:00.1234567891Z",
		"2024-03-05T14:30:00+02:00", "2024-03-05T14:30:00.25-05:30", "1969-12-31T23:59:59.999999Z",
		"0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999+23:59", "2024-03-05T24:00:00Z",
		"2024-03-05T14:60:00Z", "2024-03-05T14:30:60Z", "2024-03-05T14:30:00", "2024-03-05 14:30:00Z",
		"2024-03-05T14:30:00.Z", "2024-03-05T14:30:00+0200", "2024-03-05T14:30:00z", "2024-02-30T00:00:00Z",
		"2024-03-05T14:30:00+24:00", "2024-03-05T14:30:00-00:00", "2024-03-05T14:30:00.000Z"}
	for _, s := range stamps {
		want, werr := time.Parse(time.RFC3339Nano, s)
		got, exact, err := parseTimestampText(s)
		if (err != nil) != (werr != nil) {
			t.Errorf("parseTimestampText(%q) error %v; time.Parse: %v", s, err, werr)
			continue
		}
		if err == nil && (got != want.UnixMicro() || exact != (want.Nanosecond()%1000 == 0)) {
			t.Errorf("parseTimestampText(%q) = %d, %v; time.Parse: %d, %v", s, got, exact, want.UnixMicro(), want.Nanosecond()%1000 == 0)
		}
	}
}

func FuzzTimeText(f *testing.F) {
	f.Add("2024-03-05T14:30:00.123456+02:00")
	f.Add("2024-02-29")
	f.Fuzz(func(t *testing.T, s string) {
		want, werr := time.Parse(time.DateOnly, s)
		if got, err := parseDateText(s); (err != nil) != (werr != nil) || err == nil && got != want.Unix()/86400 {
			t.Fatalf("parseDateText(%q) = %d, %v; time.Parse: %v, %v", s, got, err, want, werr)
		}
		wt, werr := time.Parse(time.RFC3339Nano, s)
		got, exact, err := parseTimestampText(s)
		if (err != nil) != (werr != nil) || err == nil && (got != wt.UnixMicro() || exact != (wt.Nanosecond()%1000 == 0)) {
			t.Fatalf("parseTimestampText(%q) = %d, %v, %v; time.Parse: %v, %v", s, got, exact, err, wt, werr)
		}
	})
}
