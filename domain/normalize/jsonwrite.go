package normalize

import (
	"unicode/utf8"
)

func appendOptString(b []byte, s string) []byte {
	if s == "" {
		return append(b, "null"...)
	}
	return appendJSONString(b, s)
}

// trimSpace trims ASCII and Unicode spaces (including no-break spaces)
// without allocating.
func trimSpace(s string) string {
	if len(s) == 0 || !mayBeSpace[s[0]] && !mayBeSpace[s[len(s)-1]] {
		return s // the usual cell: nothing to trim
	}
	for len(s) > 0 {
		c := s[0]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' {
			s = s[1:]
			continue
		}
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s)
			if r == 0xA0 || r == 0x2007 || r == 0x202F || r == 0x3000 || r == 0xFEFF {
				s = s[n:]
				continue
			}
		}
		break
	}
	for len(s) > 0 {
		c := s[len(s)-1]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' {
			s = s[:len(s)-1]
			continue
		}
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeLastRuneInString(s)
			if r == 0xA0 || r == 0x2007 || r == 0x202F || r == 0x3000 || r == 0xFEFF {
				s = s[:len(s)-n]
				continue
			}
		}
		break
	}
	return s
}

// mayBeSpace marks the bytes that can start or end a space trimSpace
// trims: ASCII white space, and the first and last bytes of the UTF-8 of
// U+00A0, U+2007, U+202F, U+3000 and U+FEFF.
var mayBeSpace = func() (t [256]bool) {
	for _, c := range " \t\n\r\v\f" {
		t[c] = true
	}
	for _, r := range "\u00a0\u2007\u202f\u3000\ufeff" {
		b := []byte(string(r))
		t[b[0]], t[b[len(b)-1]] = true, true
	}
	return t
}()

// jsonPlain marks the bytes a JSON string holds as they are: printable
// ASCII but the quote and the backslash.
var jsonPlain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string; invalid UTF-8 becomes U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if jsonPlain[s[i]] {
			i++
			continue
		}
		c := s[i]
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
