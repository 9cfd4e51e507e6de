package httpapi

import (
	"bufio"
	"io"
)

// numbersAsText rewrites a result's JSON lines with every number as a
// JSON string of the same digits ({"id":9007199254740993} becomes
// {"id":"9007199254740993"}), for ?numbers=string. The lines are the
// engine's own compact JSON, so outside strings a digit or a minus sign
// can only start a number: one pass over the bytes, no decoding.
type numbersAsText struct {
	r        *bufio.Reader
	out      []byte
	inString bool
	escaped  bool
	inNumber bool
	in       []byte
	buf      []byte // out's backing array, reused once out is drained
}

func newNumbersAsText(r io.Reader) *numbersAsText {
	return &numbersAsText{r: bufio.NewReaderSize(r, 64<<10), in: make([]byte, 16<<10), buf: make([]byte, 0, 32<<10)}
}

func (n *numbersAsText) Read(p []byte) (int, error) {
	for len(n.out) == 0 {
		chunk := n.buf[:0]
		m, err := n.r.Read(n.in)
		for _, b := range n.in[:m] {
			chunk = n.rewrite(chunk, b)
		}
		if err != nil && n.inNumber { // a last line without its newline
			n.inNumber = false
			chunk = append(chunk, '"')
		}
		n.out = chunk
		if err != nil {
			if len(n.out) > 0 {
				break
			}
			return 0, err
		}
	}
	k := copy(p, n.out)
	n.out = n.out[k:]
	return k, nil
}

// rewrite appends b, and the quotes that open or close a number, to dst.
func (n *numbersAsText) rewrite(dst []byte, b byte) []byte {
	switch {
	case n.inString:
		switch {
		case n.escaped:
			n.escaped = false
		case b == '\\':
			n.escaped = true
		case b == '"':
			n.inString = false
		}
	case n.inNumber:
		if !isNumberByte(b) {
			n.inNumber = false
			dst = append(dst, '"')
		}
	case b == '"':
		n.inString = true
	case b == '-' || (b >= '0' && b <= '9'):
		n.inNumber = true
		dst = append(dst, '"')
	}
	return append(dst, b)
}

func isNumberByte(b byte) bool {
	return b >= '0' && b <= '9' || b == '-' || b == '+' || b == '.' || b == 'e' || b == 'E'
}
