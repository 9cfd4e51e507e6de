package detect

import (
	"strings"
	"testing"
)

// TestHeader covers the samples the XLSX reader passes too (its
// rows as cells): the header's index and whether there is one.
func TestHeader(t *testing.T) {
	t.Parallel()
	rows := func(lines ...string) [][]string {
		out := make([][]string, len(lines))
		for i, l := range lines {
			out[i] = strings.Split(l, "|")
		}
		return out
	}
	cases := []struct {
		name   string
		sample [][]string
		at     int
		header bool
	}{
		{"plain", rows("id|name|amount", "1|a|2.5", "2|b|3"), 0, true},
		{"group header over the real one", rows("|2023||2024|", "region|sales|costs|sales|costs", "North|10|7|12|8", "South|11|6|13|9"), 1, true},
		{"wide group header over the real one", rows("Region|Sales 2023|Sales 2023|Sales 2024|Sales 2024", "region|q1|q2|q1|q2", "North|10|7|12|8", "South|11|6|13|9"), 1, true},
		{"merged title then blank", rows("Annual report|||", "|||", "id|date|name|amount", "1|2024-01-02|a|5", "2|2024-01-03|b|6"), 2, true},
		{"banner as wide as the table", rows("Sales report|generated 2024-02-01|by|finance", "id|date|region|amount", "1|2024-01-02|North|120.50", "2|2024-01-03|South|89.00"), 1, true},
		{"units row under the header", rows("id|amount", "|EUR", "1|2", "2|3"), 0, true},
		{"an odd record under the header", rows("a|b", "1|oops", "2|3", "4|5"), 0, true},
		{"numbers only: no header", rows("1|2|3", "4|5|6"), 0, false},
		{"years are a header", rows("|2019|2020", "Paris|1|2", "Rome|3|4"), 0, true},
		{"values recur: no header", rows("Alice|Paris", "Bob|Paris", "Carla|Rome"), 0, false},
		{"text only", rows("name|city", "Alice|Paris", "Bob|Rome"), 0, true},
	}
	for _, c := range cases {
		at, header := Header(c.sample)
		if at != c.at || header != c.header {
			t.Errorf("%s: %d %v, want %d %v", c.name, at, header, c.at, c.header)
		}
	}
}
