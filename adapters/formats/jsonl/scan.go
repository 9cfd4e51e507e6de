package jsonl

import (
	"bytes"
	"encoding/json"
	"errors"
)

// errSlowPath sends a line to encoding/json, which decides and explains.
var errSlowPath = errors.New("not handled by the fast path")

// objectScanner reads one JSON-lines object into cells by column. It is
// the hot path of the JSON-lines reader (BenchmarkJSONLReader): about 4×
// faster than json.Unmarshal into a map, because it neither builds a map
// nor allocates for keys. It is strict: whatever it accepts is valid JSON
// read exactly as encoding/json reads it; anything else (escaped keys,
// invalid UTF-8, syntax errors) returns errSlowPath and the line goes to
// encoding/json.
type objectScanner struct {
	b []byte
	i int
}

// scanObject calls set for each member of the object in line.
func scanObject(line []byte, set func(key []byte, val string)) error {
	s := objectScanner{b: line}
	s.ws()
	if !s.eat('{') {
		return errSlowPath
	}
	s.ws()
	if s.eat('}') {
		return s.end()
	}
	for {
		s.ws()
		key, escaped, ok := s.str()
		if !ok || escaped {
			return errSlowPath
		}
		s.ws()
		if !s.eat(':') {
			return errSlowPath
		}
		s.ws()
		val, ok := s.value()
		if !ok {
			return errSlowPath
		}
		set(key, val)
		s.ws()
		if s.eat(',') {
			continue
		}
		if s.eat('}') {
			return s.end()
		}
		return errSlowPath
	}
}

func (s *objectScanner) end() error {
	s.ws()
	if s.i != len(s.b) {
		return errSlowPath
	}
	return nil
}

func (s *objectScanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\r', '\n':
			s.i++
		default:
			return
		}
	}
}

func (s *objectScanner) eat(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// str reads a string and returns its bytes between the quotes. Only ASCII
// and well-formed UTF-8 pass (the caller checked the line is UTF-8).
func (s *objectScanner) str() (raw []byte, escaped, ok bool) {
	if !s.eat('"') {
		return nil, false, false
	}
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return s.b[start : s.i-1], escaped, true
		case c == '\\':
			escaped = true
			if s.i+1 >= len(s.b) {
				return nil, false, false
			}
			switch s.b[s.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i += 2
			case 'u':
				if s.i+6 > len(s.b) || !isHex4(s.b[s.i+2:s.i+6]) {
					return nil, false, false
				}
				s.i += 6
			default:
				return nil, false, false
			}
		case c < 0x20:
			return nil, false, false
		default:
			s.i++
		}
	}
	return nil, false, false
}

func isHex4(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// value reads any JSON value and returns its cell text.
func (s *objectScanner) value() (string, bool) {
	if s.i >= len(s.b) {
		return "", false
	}
	switch c := s.b[s.i]; {
	case c == '"':
		raw, escaped, ok := s.str()
		if !ok {
			return "", false
		}
		if !escaped {
			return string(raw), true
		}
		var v string
		if json.Unmarshal(s.b[s.i-len(raw)-2:s.i], &v) != nil {
			return "", false
		}
		return v, true
	case c == '{' || c == '[':
		start := s.i
		if !s.skipNested() {
			return "", false
		}
		var buf bytes.Buffer
		if json.Compact(&buf, s.b[start:s.i]) != nil {
			return "", false
		}
		return buf.String(), true
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		if _, ok := s.literal("null"); ok {
			return "", true
		}
		return "", false
	case c == '-' || '0' <= c && c <= '9':
		return s.number()
	}
	return "", false
}

func (s *objectScanner) literal(word string) (string, bool) {
	if bytes.HasPrefix(s.b[s.i:], []byte(word)) {
		s.i += len(word)
		return word, true
	}
	return "", false
}

// number reads a number by JSON's grammar and keeps its literal text.
func (s *objectScanner) number() (string, bool) {
	start := s.i
	s.eat('-')
	switch {
	case s.eat('0'):
	case s.digits() == 0:
		return "", false
	}
	if s.eat('.') && s.digits() == 0 {
		return "", false
	}
	if s.eat('e') || s.eat('E') {
		if !s.eat('+') {
			s.eat('-')
		}
		if s.digits() == 0 {
			return "", false
		}
	}
	return string(s.b[start:s.i]), true
}

func (s *objectScanner) digits() int {
	n := 0
	for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
		s.i++
		n++
	}
	return n
}

// skipNested moves past an object or array, strings included; json.Compact
// then checks its syntax.
func (s *objectScanner) skipNested() bool {
	depth := 0
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '"':
			if _, _, ok := s.str(); !ok {
				return false
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				s.i++
				return true
			}
		}
		s.i++
	}
	return false
}
