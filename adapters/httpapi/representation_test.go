package httpapi

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/gin-gonic/gin"

	"github.com/tabnorm/tabnorm/domain"
)

func TestNegotiateEncoding(t *testing.T) {
	t.Parallel()
	for accept, want := range map[string]string{
		"":                         "",
		"identity":                 "",
		"gzip":                     "gzip",
		"GZIP":                     "gzip",
		"x-gzip":                   "gzip",
		"zstd":                     "zstd",
		"gzip, deflate, br, zstd":  "zstd", // a tie goes to zstd
		"gzip;q=1.0, zstd;q=0.9":   "gzip",
		"zstd;q=0, gzip;q=0.1":     "gzip",
		"gzip;q=0":                 "",
		"gzip;q=nonsense":          "",
		"br, deflate":              "",
		"*":                        "gzip",
		"*;q=0.5, zstd;q=0.4":      "gzip",
		" zstd ; q=0.8 , gzip;q=1": "gzip",
	} {
		if got := negotiateEncoding(accept); got != want {
			t.Errorf("negotiateEncoding(%q) = %q, want %q", accept, got, want)
		}
	}
}

func TestETagMatches(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		inm, etag string
		want      bool
	}{
		{`"a"`, `"a"`, true},
		{`W/"a"`, `"a"`, true},
		{`"a"`, `W/"a"`, true},
		{`"b", W/"a"`, `"a"`, true},
		{`*`, `"a"`, true},
		{`"b"`, `"a"`, false},
		{``, `"a"`, false},
		{`"a"`, ``, false},
	} {
		if got := etagMatches(c.inm, c.etag); got != c.want {
			t.Errorf("etagMatches(%q, %q) = %v", c.inm, c.etag, got)
		}
	}
	if jsonETag([]byte(`{"a":1}`)) == jsonETag([]byte(`{"a":2}`)) {
		t.Error("two documents share a tag")
	}
}

func TestCompressibleType(t *testing.T) {
	t.Parallel()
	for ct, want := range map[string]bool{
		"application/json; charset=utf-8": true,
		"application/problem+json":        true,
		"application/x-ndjson":            true,
		"text/csv; charset=utf-8":         true,
		"text/html; charset=utf-8":        true,
		"text/event-stream":               false,
		xlsxContentType:                   false,
		parquetContentType:                false,
		"":                                false,
	} {
		if got := compressibleType(ct); got != want {
			t.Errorf("compressibleType(%q) = %v", ct, got)
		}
	}
}

func TestRateLimit_policyField(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		cfg  RateLimit
		want string
	}{
		{RateLimit{PerSecond: 20, Burst: 100}, "100;w=5"},
		{RateLimit{PerSecond: 1000000, Burst: 1000000}, "1000000;w=1"},
		{RateLimit{PerSecond: 50, Burst: 10}, "10;w=1"},
		{RateLimit{PerSecond: 0.5, Burst: 30}, "30;w=60"},
	} {
		if got := newLimiters(c.cfg).policy; got != c.want {
			t.Errorf("%+v: %q, want %q", c.cfg, got, c.want)
		}
	}
}

func TestBearerChallenge(t *testing.T) {
	t.Parallel()
	for code, status := range statusOf {
		if status != http.StatusUnauthorized {
			continue
		}
		got := bearerChallenge(code)
		refused := code == domain.CodeInvalidAPIKey || code == domain.CodeImportSessionExpired
		if code == domain.CodeAPIKeyExpired {
			if want := `Bearer realm="tabnorm", error="invalid_token", error_description="The API key expired"`; got != want {
				t.Errorf("%s: %q, want %q", code, got, want)
			}
			continue
		}
		if want := `Bearer realm="tabnorm"`; refused {
			if want += `, error="invalid_token"`; got != want {
				t.Errorf("%s: %q, want %q", code, got, want)
			}
		} else if got != want {
			t.Errorf("%s: %q, want %q", code, got, want)
		}
	}
}

// TestProblems_everyCodeHasItsSection: a problem's type is its code's
// section of docs/problems.md, so every code of domain/codes.go has one
// (a heading that is the code), and every such heading is a code.
func TestProblems_everyCodeHasItsSection(t *testing.T) {
	t.Parallel()
	problems, failures := declaredCodes(t)
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "problems.md"))
	if err != nil {
		t.Fatal(err)
	}
	var headed []domain.Code
	for _, m := range regexp.MustCompile(`(?m)^### (\S+)$`).FindAllStringSubmatch(string(raw), -1) {
		headed = append(headed, domain.Code(m[1]))
	}
	all := slices.Concat(problems, failures)
	sameCodes(t, "docs/problems.md's headings", slices.Compact(slices.Sorted(slices.Values(all))), headed)
	for _, c := range problems {
		if got, want := problemType(c), "https://github.com/tabnorm/tabnorm/blob/main/docs/problems.md#"+string(c); got != want {
			t.Errorf("type of %s = %q, want %q", c, got, want)
		}
	}
}

// TestRouter_headOnEveryGet: gin routes HEAD only where told; every GET
// route is told.
func TestRouter_headOnEveryGet(t *testing.T) {
	t.Parallel()
	routes := newTestAPI(t, nil).engine.Routes()
	heads := map[string]bool{}
	for _, r := range routes {
		if r.Method == http.MethodHead {
			heads[r.Path] = true
		}
	}
	gets := 0
	for _, r := range routes {
		if r.Method == http.MethodGet {
			gets++
			if !heads[r.Path] {
				t.Errorf("GET %s has no HEAD", r.Path)
			}
		}
	}
	if gets < 30 {
		t.Fatalf("only %d GET routes", gets)
	}
}

// BenchmarkRepresentation measures what the representation middleware
// adds to a JSON read: the same handler and body with and without it.
func BenchmarkRepresentation(b *testing.B) {
	small := []byte(`{"status":"ok"}`)
	job := bytes.Repeat([]byte(`{"id":"job_01m88zw13qe00ve5ek6jzya1jf","status":"succeeded"},`), 80) // ~5 KiB
	for _, c := range []struct {
		name string
		body []byte
		with bool
	}{{"small/without", small, false}, {"small/with", small, true}, {"5KiB/without", job, false}, {"5KiB/with", job, true}} {
		b.Run(c.name, func(b *testing.B) {
			r := gin.New()
			if c.with {
				r.Use(representation)
			}
			r.GET("/x", func(ctx *gin.Context) { ctx.Data(http.StatusOK, "application/json; charset=utf-8", c.body) })
			req := httptest.NewRequest(http.MethodGet, "/x", nil)
			b.ReportAllocs()
			for b.Loop() {
				rec := httptest.NewRecorder()
				r.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatal(rec.Code)
				}
			}
		})
	}
}
