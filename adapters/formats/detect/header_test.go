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
		// A first record with the shape of its columns' values is data.
		{"a date among dates: no header", rows("08-03-2020|Visits suspended", "09-03-2020|Schools closed", "10-03-2020|Shops closed"), 0, false},
		{"a URL among URLs: no header", rows("Ann|https://a.example/ann", "Bob|https://a.example/bob", "Cid|www.example.org/cid"), 0, false},
		{"an address among addresses: no header", rows("ann@a.example|Ann", "bob@b.example|Bob", "cid@c.example|Cid"), 0, false},
		{"a number among numbers: no header", rows("1|Alice|3.5", "2|Bob|4.25", "3|Carla|5"), 0, false},
		{"a time among times: no header", rows("12:30|lunch", "08:15|train", "17:00|home"), 0, false},
		{"names over dates and URLs", rows("date|link", "2020-03-08|https://a.example/1", "2020-03-09|https://a.example/2"), 0, true},
		{"seasons over numbers", rows("Team|2019-20|2020-21", "Ajax|10|12", "PSV|9|11"), 0, true},
		{"dates over numbers", rows("Region|2024-01-01|2024-01-02", "North|1|2", "South|3|4"), 0, true},
		{"a name over an empty column", rows("1|Alice|note", "2|Bob|", "3|Carla|"), 0, true},
		{"years over numbers", rows("Region|2022|2023", "North|100|120", "South|90|95"), 0, true},
		{"a year over numbers", rows("Region|2022", "North|100", "South|90"), 0, true},
		{"years among years: no header", rows("1999|Alice", "2003|Bob", "2010|Carla"), 0, false},
		// Names with blanks among them are narrower than the data, and still its header.
		{"blank and repeated names over numbers", rows("|var2||var2", "1|2|3|4", "5|6|7|8"), 0, true},
		{"blank names over a lone record", rows("|b||d", "1|2|3|4"), 0, true},
		{"blank names under a title", rows("Export 2024|||", "|b||d", "1|2|3|4", "5|6|7|8"), 1, true},
		{"a title then no header", rows("Export 2024|||", "1|2|3|4", "5|6|7|8"), 1, false},
		{"a title and a subtitle then no header", rows("Export|EMEA||", "1|2|3|4", "5|6|7|8"), 1, false},
		{"a note over a sparse column, then no header", rows("|||checked 2024", "1|2|3|4", "5|6|7|8"), 1, false},
	}
	for _, c := range cases {
		at, header := Header(c.sample)
		if at != c.at || header != c.header {
			t.Errorf("%s: %d %v, want %d %v", c.name, at, header, c.at, c.header)
		}
	}
}
