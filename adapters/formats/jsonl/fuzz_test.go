package jsonl

import "testing"

// FuzzObjectScanner wants the fast object scanner to accept only what
// encoding/json accepts, and to read it the same (checkObjectScanner).
func FuzzObjectScanner(f *testing.F) {
	for _, s := range []string{`{"a":1}` + "\n" + `{"b":[1,{"c":null}]}`, `{"a":"\u00e9\ud83d"}`, "{\n", `{"a":1}` + "\nnot json\n", `{"":""}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkObjectScanner(t, data) })
}
