package jsonl

import (
	"encoding/json"
	"maps"
	"testing"
	"unicode/utf8"
)

// slowObject reads a line the way the reader's slow path does.
func slowObject(line []byte) (map[string]string, bool) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(line, &obj); err != nil || obj == nil {
		return nil, false
	}
	out := map[string]string{}
	for k, v := range obj {
		out[k] = jsonText(v)
	}
	return out, true
}

// checkObjectScanner fails when the fast path accepts a line encoding/json
// rejects, or reads it differently.
func checkObjectScanner(t *testing.T, line []byte) {
	fast := map[string]string{}
	err := scanObject(line, func(k []byte, v string) { fast[string(k)] = v })
	if err != nil || !utf8.Valid(line) {
		return // the slow path decides
	}
	slow, ok := slowObject(line)
	if !ok {
		t.Fatalf("fast path accepted %q, encoding/json rejects it", line)
	}
	if !maps.Equal(fast, slow) {
		t.Fatalf("%q: fast %q, encoding/json %q", line, fast, slow)
	}
}

func TestObjectScanner(t *testing.T) {
	t.Parallel()
	for _, line := range []string{
		`{}`, ` { "a" : 1 } `, `{"a":-0.5e+10,"b":"x\"y","c":[1, {"d" : null}],"e":true,"f":false,"g":null}`,
		`{"a":01}`, `{"a":1.}`, `{"a":-}`, `{"a":"\u00e9\ud83d\ude00"}`, `{"a":"tab	in"}`, `{"a":[}`, `{"a":1}x`,
		`{"a":1,}`, `{"a" 1}`, `{"a":tru}`, `{"\u0061":1}`, `{"a":1,"a":2}`, `{"a":"\x"}`, `{"a":{"b":"}"}}`, `[1]`, `null`,
	} {
		checkObjectScanner(t, []byte(line))
	}
}
