package main

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Text from a server (names, statuses, messages, a problem's detail) is
// printed on a person's terminal, where a control character or an escape
// sequence would be obeyed: it could retitle the window, rewrite what was
// printed before, or hide a line. So every printed record passes through
// safeText (its JSON through safeJSON) and shows such characters as
// escapes instead. Downloads (rows, errors) stay byte for byte.

// unsafeRune reports whether r may act on a terminal: C0 controls but tab
// and newline, DEL, C1 controls (U+0080–U+009F, 8-bit CSI among them),
// and the bidirectional overrides and isolates, which reorder a line.
func unsafeRune(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// safeText shows the unsafe characters of s as escapes (\x1b, \u202e)
// and invalid UTF-8 as U+FFFD.
func safeText(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return unsafeRune(r) || r == utf8.RuneError }) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r < 0x100 && unsafeRune(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r) // an invalid byte comes as utf8.RuneError
		}
	}
	return b.String()
}

// safeJSON writes the unsafe characters of a JSON text as \u escapes,
// which leaves its meaning as it was: valid JSON has them only in strings.
func safeJSON(raw []byte) []byte {
	if !bytes.ContainsFunc(raw, func(r rune) bool { return r != '\n' && r != '\t' && unsafeRune(r) || r == utf8.RuneError }) {
		return raw
	}
	var b bytes.Buffer
	for _, r := range string(raw) {
		if r != '\n' && r != '\t' && unsafeRune(r) {
			fmt.Fprintf(&b, `\u%04x`, r)
			continue
		}
		b.WriteRune(r)
	}
	return b.Bytes()
}
