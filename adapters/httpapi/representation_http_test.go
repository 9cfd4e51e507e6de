package httpapi_test

import (
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
	"github.com/tabnorm/tabnorm/test/testtime"
)

// manyPeople is a file whose results are well over the size worth
// compressing.
func manyPeople(n int) string {
	var b strings.Builder
	b.WriteString("ID,E-mail,Joined\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%d,person%d@example.com,2024-01-%02d\n", i, i, i%28+1)
	}
	return b.String()
}

func decoded(t *testing.T, res apptest.Response) string {
	t.Helper()
	var r io.Reader
	switch enc := res.Header.Get("Content-Encoding"); enc {
	case "gzip":
		zr, err := gzip.NewReader(strings.NewReader(res.Body))
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	case "zstd":
		zr, err := zstd.NewReader(strings.NewReader(res.Body))
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		r = zr
	default:
		t.Fatalf("Content-Encoding %q", enc)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func varies(res apptest.Response) bool {
	for _, v := range res.Header.Values("Vary") {
		if strings.Contains(v, "Accept-Encoding") {
			return true
		}
	}
	return false
}

// TestRepresentation_conditionalReads: the JSON reads of jobs, schemas and
// reference lists, one and many, carry a weak ETag of their document; the
// same tag in If-None-Match answers 304 without a body; HEAD answers the
// GET's status and headers without a body; the tag changes with the
// document.
func TestRepresentation_conditionalReads(t *testing.T) {
	t.Parallel()
	app := apptest.Start(t, sqltest.SQLite(t))
	key := apptest.Caller{Key: app.Key(app.Org("Acme", identity.Normalize, identity.Connect))}
	res := app.Request(upload(t, app, "people.csv", peopleCSV, map[string]string{"schema": peopleSchema}), key)
	expect(t, res, 202, "")
	var j jobView
	res.JSON(t, &j)
	waitJob(t, app, key, j.ID)
	res = app.Request(uploadTo(t, app, "/v1/connect/files", "people.csv", peopleCSV, nil), key)
	expect(t, res, 201, "")
	var f struct{ ID string }
	res.JSON(t, &f)
	res = app.Do("POST", "/v1/connect/jobs", key, map[string]any{"file_ids": []string{f.ID}, "schema": jsonRaw(peopleSchema)})
	expect(t, res, 202, "")
	var cj struct{ ID string }
	res.JSON(t, &cj)
	// Both jobs end before the reads: a list that changes between two
	// requests rightly changes its tag.
	deadline := testtime.Deadline(30 * time.Second)
	for !strings.Contains(app.Do("GET", "/v1/connect/jobs/"+cj.ID, key, nil).Body, `"status":"succeeded"`) {
		if time.Now().After(deadline) {
			t.Fatalf("connect job %s did not succeed", cj.ID)
		}
		time.Sleep(50 * time.Millisecond)
	}
	res = app.Do("POST", "/v1/schemas", key, map[string]any{"name": "people", "schema": jsonRaw(peopleSchema)})
	expect(t, res, 201, "")
	var s struct{ ID string }
	res.JSON(t, &s)
	res = app.Do("POST", "/v1/lists", key, map[string]any{"name": "skus", "values": []string{"A-1", "B-2"}})
	expect(t, res, 201, "")
	var l struct{ ID string }
	res.JSON(t, &l)

	for _, path := range []string{"/v1/jobs/" + j.ID, "/v1/jobs", "/v1/connect/jobs/" + cj.ID, "/v1/connect/jobs", "/v1/schemas/" + s.ID, "/v1/schemas", "/v1/lists/" + l.ID, "/v1/lists"} {
		t.Run(path, func(t *testing.T) {
			full := app.Do("GET", path, key, nil, "Accept-Encoding", "identity")
			expect(t, full, 200, "")
			etag := full.Header.Get("ETag")
			if !strings.HasPrefix(etag, `W/"`) || !strings.HasSuffix(etag, `"`) || len(etag) < 10 || !varies(full) {
				t.Fatalf("ETag %q, Vary %q", etag, full.Header.Values("Vary"))
			}
			again := app.Do("GET", path, key, nil, "Accept-Encoding", "identity")
			if again.Header.Get("ETag") != etag || again.Body != full.Body {
				t.Fatalf("the same document has another tag: %q, then %q", etag, again.Header.Get("ETag"))
			}
			for _, held := range []string{etag, strings.TrimPrefix(etag, "W/"), `"other", ` + etag, "*"} {
				nm := app.Do("GET", path, key, nil, "If-None-Match", held)
				expect(t, nm, 304, "")
				if nm.Body != "" || nm.Header.Get("ETag") != etag || !varies(nm) {
					t.Fatalf("304 to %q: ETag %q, body %q", held, nm.Header.Get("ETag"), nm.Body)
				}
				if nm.Header.Get("RateLimit-Policy") == "" {
					t.Fatal("a 304 lost the rate limit's fields")
				}
			}
			expect(t, app.Do("GET", path, key, nil, "If-None-Match", `W/"stale"`, "Accept-Encoding", "identity"), 200, "")
			head := app.Do("HEAD", path, key, nil, "Accept-Encoding", "identity")
			expect(t, head, 200, "")
			if head.Body != "" || head.Header.Get("ETag") != etag || head.Header.Get("Content-Length") != strconv.Itoa(len(full.Body)) ||
				head.Header.Get("Content-Type") != full.Header.Get("Content-Type") {
				t.Fatalf("HEAD: ETag %q, Content-Length %q, Content-Type %q, body %q; GET: %d bytes", head.Header.Get("ETag"),
					head.Header.Get("Content-Length"), head.Header.Get("Content-Type"), head.Body, len(full.Body))
			}
		})
	}

	// Any change of the document changes its tag: a list gains an item.
	before := app.Do("GET", "/v1/schemas", key, nil).Header.Get("ETag")
	expect(t, app.Do("POST", "/v1/schemas", key, map[string]any{"name": "people 2", "schema": jsonRaw(peopleSchema)}), 201, "")
	after := app.Do("GET", "/v1/schemas", key, nil, "If-None-Match", before)
	expect(t, after, 200, "")
	if tag := after.Header.Get("ETag"); tag == before || tag == "" {
		t.Fatalf("the list of schemas changed and kept its tag %q", tag)
	}
	// Another organization's resource is 404 whatever tag is sent.
	other := apptest.Caller{Key: app.Key(app.Org("Other", identity.Normalize))}
	expect(t, app.Do("GET", "/v1/jobs/"+j.ID, other, nil, "If-None-Match", "*"), 404, "not_found")
}

// TestRepresentation_compression: a client that asks gets JSON and text
// downloads compressed (zstd or gzip, by its q-values), their bytes the
// same once decoded; tiny bodies, workbooks, Parquet files and ranges are
// sent as they are; a compressed download's tag is the weak form of its
// identity's, which If-None-Match matches and If-Range does not.
func TestRepresentation_compression(t *testing.T) {
	t.Parallel()
	app := apptest.Start(t, sqltest.SQLite(t))
	key := apptest.Caller{Key: app.Key(app.Org("Acme", identity.Normalize))}
	res := app.Request(upload(t, app, "people.csv", manyPeople(300), map[string]string{"schema": peopleSchema}), key)
	expect(t, res, 202, "")
	var j jobView
	res.JSON(t, &j)
	if done := waitJob(t, app, key, j.ID); done.Status != "succeeded" {
		t.Fatalf("job %s", done.Status)
	}
	base := "/v1/jobs/" + j.ID

	for _, c := range []struct{ path, accept, want string }{
		{"/rows.jsonl", "gzip", "gzip"},
		{"/rows.jsonl", "zstd", "zstd"},
		{"/rows.jsonl", "gzip, zstd", "zstd"},
		{"/rows.jsonl", "gzip;q=1, zstd;q=0.5", "gzip"},
		{"/rows.jsonl", "br, x-gzip", "gzip"},
		{"/rows.csv", "gzip", "gzip"},
		{"/rows.csv", "zstd", "zstd"},
		{"/rows?limit=200", "gzip", "gzip"},
		{"/rows?limit=200", "zstd", "zstd"},
		{"/errors.jsonl", "gzip", ""}, // four issues: under the size worth it
		{"/rows.jsonl", "gzip;q=0, zstd;q=0", ""},
		{"/rows.jsonl", "br", ""},
		{"/rows.xlsx", "gzip, zstd", ""},
		{"/rows.parquet", "gzip, zstd", ""},
	} {
		t.Run(c.path+" "+c.accept, func(t *testing.T) { codedAnswer(t, app, key, base+c.path, c.accept, c.want) })
	}

	// A range is of the identity bytes: never compressed, and only the
	// strong (identity) tag resumes it.
	plain := app.Do("GET", base+"/rows.jsonl", key, nil, "Accept-Encoding", "identity")
	zipped := app.Do("GET", base+"/rows.jsonl", key, nil, "Accept-Encoding", "gzip")
	part := app.Do("GET", base+"/rows.jsonl", key, nil, "Accept-Encoding", "gzip", "Range", "bytes=10-99", "If-Range", plain.Header.Get("ETag"))
	expect(t, part, 206, "")
	if part.Header.Get("Content-Encoding") != "" || part.Body != plain.Body[10:100] {
		t.Fatalf("a range came %q-encoded: %q", part.Header.Get("Content-Encoding"), part.Body)
	}
	whole := app.Do("GET", base+"/rows.jsonl", key, nil, "Accept-Encoding", "identity", "Range", "bytes=10-99", "If-Range", zipped.Header.Get("ETag"))
	expect(t, whole, 200, "")
	if whole.Body != plain.Body {
		t.Fatal("If-Range with the compressed answer's weak tag resumed from identity bytes")
	}

	// A small JSON answer is not worth compressing; it still varies.
	small := app.Do("GET", "/healthz", apptest.Caller{}, nil, "Accept-Encoding", "gzip")
	expect(t, small, 200, "")
	if small.Header.Get("Content-Encoding") != "" || !varies(small) {
		t.Fatalf("healthz: Content-Encoding %q, Vary %q", small.Header.Get("Content-Encoding"), small.Header.Values("Vary"))
	}
	// A problem is JSON too: this one is under 1 KiB, sent as it is.
	nope := app.Do("GET", base+"/nope", key, nil, "Accept-Encoding", "gzip")
	expect(t, nope, 404, "not_found")
	if nope.Header.Get("Content-Encoding") != "" || !varies(nope) || nope.Header.Get("Content-Length") != strconv.Itoa(len(nope.Body)) {
		t.Fatalf("a small problem: Content-Encoding %q, Vary %q, Content-Length %q", nope.Header.Get("Content-Encoding"), nope.Header.Values("Vary"), nope.Header.Get("Content-Length"))
	}
}

// TestRepresentation_headOnEveryGet: every GET operation of the document
// answers HEAD with the GET's status and headers and no body: here an
// unknown id's 404, or the route's 401 without credentials.
func TestRepresentation_headOnEveryGet(t *testing.T) {
	t.Parallel()
	// One key calls every GET route twice, more than a burst of its rate
	// limit: the limit is not what this test checks.
	app := apptest.Start(t, sqltest.SQLite(t), func(c *bootstrap.Config) { c.HTTP.RateLimit.Burst = 1000 })
	key := apptest.Caller{Key: app.Key(app.Org("Acme", identity.Normalize, identity.Connect))}
	for _, op := range operations(t) {
		if op.method != http.MethodGet {
			continue
		}
		path := concrete(op.path)
		get := app.Do("GET", path, key, nil, "Accept-Encoding", "identity")
		head := app.Do("HEAD", path, key, nil, "Accept-Encoding", "identity")
		if head.StatusCode != get.StatusCode || head.Body != "" ||
			head.Header.Get("Content-Type") != get.Header.Get("Content-Type") {
			t.Errorf("HEAD %s: %d %q %q; GET: %d %q", path, head.StatusCode, head.Header.Get("Content-Type"), head.Body,
				get.StatusCode, get.Header.Get("Content-Type"))
		}
		if n := head.Header.Get("Content-Length"); n != "" && get.Header.Get("Content-Length") != "" && n != strconv.Itoa(len(get.Body)) {
			t.Errorf("HEAD %s: Content-Length %s, GET's body %d bytes", path, n, len(get.Body))
		}
	}
}

// TestRepresentation_challengesAndPolicy: every 401 challenges with the
// Bearer scheme and the realm, a refused token with error="invalid_token";
// a limited answer states its quota policy beside RateLimit-Limit.
func TestRepresentation_challengesAndPolicy(t *testing.T) {
	t.Parallel()
	app := apptest.Start(t, sqltest.SQLite(t))
	key := apptest.Caller{Key: app.Key(app.Org("Acme", identity.Normalize))}
	for _, c := range []struct {
		who       apptest.Caller
		code, www string
	}{
		{apptest.Caller{}, "unauthenticated", `Bearer realm="tabnorm"`},
		{apptest.Caller{Key: "svc_live_notakey"}, "invalid_api_key", `Bearer realm="tabnorm", error="invalid_token"`},
	} {
		res := app.Do("GET", "/v1/jobs", c.who, nil)
		expect(t, res, 401, c.code)
		if got := res.Header.Get("WWW-Authenticate"); got != c.www {
			t.Errorf("%s: WWW-Authenticate %q, want %q", c.code, got, c.www)
		}
	}
	res := app.Do("POST", "/auth/login", apptest.Caller{}, map[string]string{"email": "nobody@example.com", "password": "wrong password"})
	expect(t, res, 401, "invalid_credentials")

	res = app.Do("GET", "/v1/jobs", key, nil)
	expect(t, res, 200, "")
	// The default bucket: bursts of 100, 20 a second, so 100 in 5 s.
	if got := res.Header.Get("RateLimit-Policy"); got != "100;w=5" || res.Header.Get("RateLimit-Limit") != "100" {
		t.Errorf("RateLimit-Policy %q with RateLimit-Limit %q", got, res.Header.Get("RateLimit-Limit"))
	}
}

// codedAnswer checks one download or page asked for with Accept-Encoding
// accept: coded as want ("" for identity), the same bytes once decoded,
// and a compressed answer's tag the weak form of identity's.
func codedAnswer(t *testing.T, app *apptest.App, key apptest.Caller, path, accept, want string) {
	plain := app.Do("GET", path, key, nil, "Accept-Encoding", "identity")
	expect(t, plain, 200, "")
	if plain.Header.Get("Content-Encoding") != "" {
		t.Fatalf("identity asked, %q sent", plain.Header.Get("Content-Encoding"))
	}
	got := app.Do("GET", path, key, nil, "Accept-Encoding", accept)
	expect(t, got, 200, "")
	if enc := got.Header.Get("Content-Encoding"); enc != want {
		t.Fatalf("Content-Encoding %q, want %q (%d bytes)", enc, want, len(plain.Body))
	}
	if want == "" {
		if got.Body != plain.Body {
			t.Fatal("an uncompressed answer differs from identity's")
		}
		return
	}
	if body := decoded(t, got); body != plain.Body {
		t.Fatalf("decoded %d bytes differ from identity's %d", len(body), len(plain.Body))
	}
	if len(got.Body) >= len(plain.Body) || got.Header.Get("Content-Length") == strconv.Itoa(len(plain.Body)) || !varies(got) {
		t.Fatalf("compressed %d of %d bytes, Content-Length %q, Vary %q", len(got.Body), len(plain.Body), got.Header.Get("Content-Length"), got.Header.Values("Vary"))
	}
	etag, plainTag := got.Header.Get("ETag"), plain.Header.Get("ETag")
	if !strings.HasPrefix(etag, "W/") {
		t.Fatalf("compressed answer with the strong tag %q", etag)
	}
	if plainTag != "" && !strings.HasPrefix(plainTag, "W/") && etag != "W/"+plainTag {
		t.Fatalf("compressed tag %q is not the weak form of %q", etag, plainTag)
	}
	nm := app.Do("GET", path, key, nil, "Accept-Encoding", accept, "If-None-Match", etag)
	if plainTag == "" { // streamed CSV has no validator
		expect(t, nm, 200, "")
		return
	}
	expect(t, nm, 304, "")
	if nm.Header.Get("ETag") != etag || nm.Body != "" {
		t.Fatalf("304 names %q, want the held %q", nm.Header.Get("ETag"), etag)
	}
	head := app.Do("HEAD", path, key, nil, "Accept-Encoding", accept)
	expect(t, head, 200, "")
	if head.Header.Get("Content-Encoding") != want || head.Header.Get("ETag") != etag || head.Body != "" {
		t.Fatalf("HEAD: Content-Encoding %q, ETag %q", head.Header.Get("Content-Encoding"), head.Header.Get("ETag"))
	}
}
