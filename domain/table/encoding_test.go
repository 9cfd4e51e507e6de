package table

import (
	"testing"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/ianaindex"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
)

func TestLookupEncoding(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{"utf-8", "UTF-8"}, {"UTF8", "UTF-8"}, {"utf-16", "UTF-16LE"}, {"utf-16be", "UTF-16BE"},
		{"latin-1", "ISO-8859-1"}, {"iso-8859-1", "ISO-8859-1"}, {"cp1252", "windows-1252"}, {"windows-1252", "windows-1252"},
		{"iso-8859-5", "ISO-8859-5"}, {"ISO-8859-7", "ISO-8859-7"}, {"iso-8859-16", "ISO-8859-16"},
		{"windows-1250", "windows-1250"}, {"windows-1251", "windows-1251"}, {"windows-1253", "windows-1253"}, {"windows-1258", "windows-1258"},
		{"koi8-r", "KOI8-R"}, {"KOI8-U", "KOI8-U"}, {"shift_jis", "Shift_JIS"}, {"sjis", "Shift_JIS"}, {"euc-jp", "EUC-JP"},
		{"euc-kr", "EUC-KR"}, {"gb18030", "GB18030"}, {"gbk", "GBK"}, {"big5", "Big5"}, {"macintosh", "macintosh"}, {"ibm866", "IBM866"},
	}
	for _, c := range cases {
		enc, got, ok := LookupEncoding(c.in)
		if !ok || got != c.want || enc == nil {
			t.Errorf("LookupEncoding(%q) = %q, %v; want %q", c.in, got, ok, c.want)
			continue
		}
		// The canonical name resolves to itself: a Detection passed back reads the same.
		if _, again, ok := LookupEncoding(got); !ok || again != got {
			t.Errorf("LookupEncoding(%q) = %q, %v; want itself", got, again, ok)
		}
	}
	for _, bad := range []string{"", "auto", "klingon", "utf-7"} {
		if _, _, ok := LookupEncoding(bad); ok {
			t.Errorf("LookupEncoding(%q) accepted", bad)
		}
	}
}

// TestEveryCharmapByName: every encoding of golang.org/x/text that has an
// IANA name is selectable by it.
func TestEveryCharmapByName(t *testing.T) {
	t.Parallel()
	var all []encoding.Encoding
	for _, set := range [][]encoding.Encoding{charmap.All, japanese.All, korean.All, simplifiedchinese.All, traditionalchinese.All} {
		all = append(all, set...)
	}
	n := 0
	for _, e := range all {
		name, err := ianaindex.IANA.Name(e)
		if err != nil || name == "" {
			continue // no IANA name (e.g. x-user-defined)
		}
		n++
		got, canon, ok := LookupEncoding(name)
		if !ok || got != e {
			t.Errorf("%s: not selectable (%q, %v)", name, canon, ok)
		}
	}
	if n < 40 {
		t.Fatalf("only %d encodings checked", n)
	}
}
