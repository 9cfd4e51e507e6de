package httpapi

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestNumbersAsText(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{`{"id":9007199254740993,"n":-1.5e3,"s":"12","b":true,"z":null}` + "\n", `{"id":"9007199254740993","n":"-1.5e3","s":"12","b":true,"z":null}` + "\n"},
		{`{"s":"a \"1\" \\","x":0}` + "\n" + `{"x":[1,2]}` + "\n", `{"s":"a \"1\" \\","x":"0"}` + "\n" + `{"x":["1","2"]}` + "\n"},
		{`{"_extra":{"Note":"-3"},"v":7}`, `{"_extra":{"Note":"-3"},"v":"7"}`},
		{"", ""},
	}
	for _, c := range cases {
		// One byte at a time too: a number split across reads stays one string.
		for _, r := range []io.Reader{strings.NewReader(c.in), iotest.OneByteReader(strings.NewReader(c.in))} {
			got, err := io.ReadAll(newNumbersAsText(r))
			if err != nil || string(got) != c.want {
				t.Errorf("%s:\n got %s (%v)\nwant %s", c.in, got, err, c.want)
			}
		}
	}
}
