package delimited

import "testing"

func TestDialectSniffing(t *testing.T) {
	t.Parallel()
	cases := []struct {
		text                 string
		delim, quote, escape byte
	}{
		{"a,b,c\n1,2,3\n4,5,6\n", ',', '"', 0},
		{"a;b;c\n1;2,5;3\n4;5;6\n", ';', '"', 0},
		{"a|b|c\n1|2|3\n", '|', '"', 0},
		{"a\tb\n1\t2\n", '\t', '"', 0},
		{"sep=;\na;b\n1;2\n", ';', '"', 0},
		{"\"x,y\";b;c\n\"1,2\";2;3\n\"3,4\";5;6\n", ';', '"', 0},
		// Colon and space, when every record agrees and nothing else splits.
		{"name:uid:shell\nroot:0:/bin/sh\nbin:1:/bin/false\n", ':', '"', 0},
		{"x y z\n1 2 3\n4 5 6\n7 8 9\n", ' ', '"', 0},
		{"name,note\nann,a b c\nbob,d e\n", ',', '"', 0},                           // spaces inside cells do not make space the delimiter
		{"time\n12:30\n13:45\n", ',', '"', 0},                                      // a header of one cell: colon does not split every record
		{"12:30\n08:15\n17:00\n", ',', '"', 0},                                     // clock times' colons are no evidence
		{"https://a.example/x\nhttp://b.example/y\n", ',', '"', 0},                 // nor are URLs'
		{"id:at:note\n1:12:30:x\n2:08:15:y\n", ',', '"', 0},                        // times split unevenly
		{"key:value\nurl:\"https://a.example\"\nhost:b.example\n", ':', '"', 0},    // a colon beside the shapes is evidence
		{"id,name\n1,'Smith, J'\n2,'Doe, A'\n3,'Roe, B'\n", ',', '\'', 0},          // single-quote quoting
		{"id,name\n1,O'Brien\n2,D'Arcy\n", ',', '"', 0},                            // apostrophes are not quotes
		{"id,quote\n1,\"say \\\"hi\\\", then go\"\n2,\"plain\"\n", ',', '"', '\\'}, // backslash-escaped quotes
	}
	for _, c := range cases {
		got := sniffDialect(c.text, "f.csv", givenDialect{})
		if got.delim != c.delim || got.quote != c.quote || got.escape != c.escape {
			t.Errorf("%q: delim %q quote %q escape %q, want %q %q %q", c.text, got.delim, got.quote, got.escape, c.delim, c.quote, c.escape)
		}
	}
	if got := sniffDialect("one column\nx\n", "f.tsv", givenDialect{}); got.delim != '\t' {
		t.Errorf("a .tsv name should break a tie toward tab, got %q", got.delim)
	}
}
