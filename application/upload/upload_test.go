package upload

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestNew_cutsLongNamesOnACharacterBoundary(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in string
		want     int // bytes kept
	}{
		{"short name kept", "people.csv", 10},
		{"ascii cut at 255", strings.Repeat("a", 300), 255},
		{"two-byte letters", strings.Repeat("é", 200), 254},
		{"three-byte letters", strings.Repeat("€", 100), 255},
		{"four-byte letters", strings.Repeat("😀", 100), 252},
		{"letter straddling 255", strings.Repeat("a", 254) + "é", 254},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := New("k", tc.in).Filename
			if len(got) != tc.want || !utf8.ValidString(got) || !strings.HasPrefix(tc.in, got) {
				t.Fatalf("cut to %d bytes (valid UTF-8: %v), want %d bytes of the name's start", len(got), utf8.ValidString(got), tc.want)
			}
		})
	}
}
