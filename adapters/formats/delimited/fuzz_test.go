package delimited

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"github.com/tabnorm/tabnorm/domain/table"
)

// FuzzScannerFastPath reads the same text with and without the scanner's
// fast path, through buffers of several sizes (so records are cut at every
// place), and wants the same records, warnings, line numbers and errors.
func FuzzScannerFastPath(f *testing.F) {
	for _, s := range []string{"a,b\n1,2\n", "a,\"b\"\"c\",d\r\n\"x\ny\",2\r\r\n3\r4\n", "\"unterminated\n1,2", "12\" pipe,\"say \"\"hi\"\"\"\n",
		"\"x\"y\"\",z\n\"p\" \n,,\n", "a;b\n\"\"\"\";\"\"\n", "caf\xe9,\"\xe4\",\xb8\n"} {
		f.Add([]byte(s), byte(','), uint8(0))
	}
	f.Add([]byte("a, 'b, c',d\n1,  'x''y'  ,2\n"), byte(','), uint8(6))
	f.Add([]byte("a, \"b, c\",d\n1, \"x\" ,2\n"), byte(','), uint8(4))
	f.Fuzz(func(t *testing.T, data []byte, delim byte, size uint8) {
		if delim >= 0x80 {
			delim = ','
		}
		limits := table.Limits{MaxColumns: 8, MaxCellBytes: 40}
		read := func(fast bool) string {
			s := newScanner(bytes.NewReader(data), delim, limits)
			s.r = bufio.NewReaderSize(bytes.NewReader(data), 16+int(size))
			s.fixUTF8 = size%2 == 0
			if size&2 != 0 { // the other bits of size pick the quote and blanks before it
				s.setQuoting('\'', 0)
			}
			s.blankQuote = size&4 != 0
			s.fastOK = s.fastOK && fast
			var out strings.Builder
			for range 10_000 {
				rec, err := s.next()
				fmt.Fprintf(&out, "%q %v %d %d %d %v\n", rec, s.issues, s.line, s.lines, s.quotedCells, err)
				if err != nil {
					break
				}
				from := uintptr(unsafe.Pointer(unsafe.StringData(s.text)))
				for _, c := range rec {
					if at := uintptr(unsafe.Pointer(unsafe.StringData(c))); len(c) > 0 && (at < from || at+uintptr(len(c)) > from+uintptr(len(s.text))) {
						t.Fatalf("cell %q is not in the record's text %q", c, s.text)
					}
				}
			}
			return out.String()
		}
		if slow, fast := read(false), read(true); slow != fast {
			t.Fatalf("general path:\n%s\nfast path:\n%s", slow, fast)
		}
	})
}
