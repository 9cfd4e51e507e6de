package httpapi

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"github.com/tabnorm/tabnorm/domain"
)

// errBadText is the answer to a NUL byte or invalid UTF-8 in any text a
// client sends: neither database stores them (PostgreSQL refuses both in
// text columns), JSON cannot carry invalid UTF-8 back, and a value is
// never quietly changed, so they are refused up front.
var errBadText = domain.Invalid("Text must be valid UTF-8 without NUL bytes.")

// cleanText reports whether s is valid UTF-8 without NUL.
func cleanText(s string) bool {
	return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0
}

// refuseBadText checks the parts of a request every route reads as text:
// the path (ids), the query, and the headers that are stored.
func refuseBadText(c *gin.Context) {
	ok := cleanText(c.Request.URL.Path) && cleanText(c.GetHeader("Idempotency-Key")) && cleanText(c.Request.UserAgent())
	if ok && c.Request.URL.RawQuery != "" {
		q, err := url.ParseQuery(c.Request.URL.RawQuery)
		ok = err == nil
		for k, vs := range q {
			ok = ok && cleanText(k)
			for _, v := range vs {
				ok = ok && cleanText(v)
			}
		}
	}
	if !ok {
		fail(c, errBadText)
		c.Abort()
		return
	}
	c.Next()
}

// cleanJSON reports whether a JSON body is valid UTF-8 and none of its
// strings or keys holds a NUL (written \u0000, which decodes silently).
func cleanJSON(body []byte) bool {
	if !utf8.Valid(body) {
		return false
	}
	if !bytes.Contains(body, []byte(`\u0000`)) {
		return true
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return true // not JSON: the decoder says so with its own message
	}
	return cleanValue(v)
}

func cleanValue(v any) bool {
	switch v := v.(type) {
	case string:
		return cleanText(v)
	case []any:
		for _, x := range v {
			if !cleanValue(x) {
				return false
			}
		}
	case map[string]any:
		for k, x := range v {
			if !cleanText(k) || !cleanValue(x) {
				return false
			}
		}
	}
	return true
}
