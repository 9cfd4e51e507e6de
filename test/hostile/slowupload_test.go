package hostile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// pacedBody hands out a body in pieces with a pause before each but the
// first, as a slow but steady client sends it.
type pacedBody struct {
	pieces [][]byte
	pause  time.Duration
	sent   int
}

func (b *pacedBody) Read(p []byte) (int, error) {
	if len(b.pieces) == 0 {
		return 0, io.EOF
	}
	if b.sent > 0 {
		time.Sleep(b.pause)
	}
	n := copy(p, b.pieces[0])
	if n == len(b.pieces[0]) {
		b.pieces = b.pieces[1:]
		b.sent++
	} else {
		b.pieces[0] = b.pieces[0][n:]
	}
	return n, nil
}

// split cuts body into n pieces of about the same size.
func split(body []byte, n int) [][]byte {
	var out [][]byte
	size := (len(body) + n - 1) / n
	for len(body) > 0 {
		k := min(size, len(body))
		out = append(out, body[:k])
		body = body[k:]
	}
	return out
}

// TestSlowSteadyUpload: an upload whose bytes keep coming, 16 pieces
// 300 ms apart, takes longer than the idle and the body timeouts and
// still succeeds, with and without a Content-Length, to either upload
// route; an upload that stops for longer than the idle timeout is cut; a
// request that declares no body length is told so.
func TestSlowSteadyUpload(t *testing.T) {
	t.Parallel()
	app := apptest.Start(t, sqltest.SQLite(t), func(c *bootstrap.Config) {
		c.HTTP.HeaderTimeout, c.HTTP.BodyIdleTimeout, c.HTTP.BodyTimeout = time.Second, time.Second, 2*time.Second
	})
	u := &slowUploads{app: app, key: app.Key(app.Org("Acme", identity.Normalize, identity.Connect))}
	var rows strings.Builder
	rows.WriteString("ID,E-mail,Joined\n")
	for i := range 2000 {
		fmt.Fprintf(&rows, "%d,person%d@example.test,31/01/2024\n", i+1, i)
	}
	u.rows = rows.String()

	for _, c := range []struct {
		name, path string
		schema     bool
		want       int
		chunked    bool
	}{
		{"job", "/v1/jobs", true, 202, false},
		{"job chunked", "/v1/jobs", true, 202, true},
		{"connect file", "/v1/connect/files", false, 201, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			u.steady(t, c.path, c.schema, c.chunked, c.want)
		})
	}
	// Over a raw connection, as the pieces leave the client.
	for _, c := range []struct {
		name string
		run  func(*testing.T, *slowUploads)
	}{
		{"raw", rawSteady},
		{"stalled", rawStalled},
		{"no length", rawNoLength},
		{"short length", rawShortLength},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.run(t, u)
		})
	}
}

// slowUploads sends uploads slowly to an app with short body timeouts.
type slowUploads struct {
	app  *apptest.App
	key  string
	rows string // the CSV uploaded
}

// form is the multipart upload of the rows, with the schema for a job.
func (u *slowUploads) form(withSchema bool) (string, []byte) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	if withSchema {
		_ = mw.WriteField("schema", apptest.PeopleSchema)
	}
	fw, _ := mw.CreateFormFile("file", "people.csv")
	_, _ = fw.Write([]byte(u.rows))
	_ = mw.Close()
	return mw.FormDataContentType(), body.Bytes()
}

// steady sends the upload in 16 pieces 300 ms apart: it takes longer than
// the timeouts and still succeeds.
func (u *slowUploads) steady(t *testing.T, path string, schema, chunked bool, want int) {
	t.Helper()
	ct, body := u.form(schema)
	length := int64(len(body))
	if chunked {
		length = -1
	}
	req, err := http.NewRequest("POST", u.app.URL+path, &pacedBody{pieces: split(body, 16), pause: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = length
	req.Header.Set("Content-Type", ct)
	req.Header.Set("Authorization", "Bearer "+u.key)
	start := time.Now()
	res, err := u.app.Client.Do(req)
	took := time.Since(start)
	if err != nil {
		t.Fatalf("slow but steady upload after %s: %v", took.Round(time.Millisecond), err)
	}
	defer res.Body.Close()
	got, _ := io.ReadAll(res.Body)
	if res.StatusCode != want {
		t.Fatalf("slow but steady upload after %s: %d %s", took.Round(time.Millisecond), res.StatusCode, got)
	}
	if took < 4*time.Second {
		t.Fatalf("the upload took %s, not longer than the timeouts", took)
	}
}

// header is the head of a raw POST /v1/jobs; length < 0 declares none.
func (u *slowUploads) header(ct string, length int) string {
	h := fmt.Sprintf("POST /v1/jobs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: %s\r\n", u.key, ct)
	if length >= 0 {
		h += fmt.Sprintf("Content-Length: %d\r\nConnection: close\r\n", length)
	}
	return h + "\r\n"
}

// raw writes head and then the pieces, pause apart, on a connection of
// its own, and returns what the server answered and when.
func (u *slowUploads) raw(t *testing.T, head string, pieces [][]byte, pause time.Duration) (string, time.Duration) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", strings.TrimPrefix(u.app.URL, "http://"), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	go func() {
		if _, err := io.WriteString(conn, head); err != nil {
			return
		}
		for i, p := range pieces {
			if i > 0 {
				time.Sleep(pause)
			}
			if _, err := conn.Write(p); err != nil {
				return
			}
		}
	}()
	_ = conn.SetReadDeadline(time.Now().Add(15 * time.Second))
	got, err := io.ReadAll(conn) // the server closes the connection after its answer, or keeps it open
	if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Logf("read the answer: %v", err) // a reset; what was read is checked
	}
	return string(got), time.Since(start)
}

func rawSteady(t *testing.T, u *slowUploads) {
	ct, body := u.form(true)
	got, took := u.raw(t, u.header(ct, len(body)), split(body, 16), 300*time.Millisecond)
	if !strings.HasPrefix(got, "HTTP/1.1 202 ") || took < 4*time.Second {
		t.Fatalf("slow but steady upload answered after %s: %q", took.Round(time.Millisecond), firstLine(got))
	}
}

func rawStalled(t *testing.T, u *slowUploads) {
	ct, body := u.form(true)
	pieces := split(body, 4)
	got, took := u.raw(t, u.header(ct, len(body)), pieces[:2], 300*time.Millisecond) // then silence
	if !strings.HasPrefix(got, "HTTP/1.1 400 ") || !strings.Contains(got, "stopped arriving in time") || took > 3*time.Second {
		t.Fatalf("a stalled upload answered after %s: %q", took.Round(time.Millisecond), got)
	}
}

// rawNoLength: without Content-Length or Transfer-Encoding a request has
// no body (RFC 9112 §6.3): the bytes after the headers are not an upload.
// The answer says so, and the connection ends there, so those bytes are
// not read as a next request either.
func rawNoLength(t *testing.T, u *slowUploads) {
	ct, body := u.form(true)
	// The body follows the headers after a pause, so the answer comes
	// before it (the server reads no body bytes: it resets a connection it
	// closes with bytes unread, which can lose its answer).
	got, _ := u.raw(t, u.header(ct, -1), append([][]byte{nil}, split(body, 16)...), 300*time.Millisecond)
	if !strings.HasPrefix(got, "HTTP/1.1 400 ") || !strings.Contains(got, "Content-Length") || strings.Count(got, "HTTP/1.1 ") != 1 {
		t.Fatalf("an upload without a length: %q", got)
	}
}

// rawShortLength: a Content-Length that ends the body mid-part.
func rawShortLength(t *testing.T, u *slowUploads) {
	ct, body := u.form(true)
	half := body[:len(body)/2]
	got, _ := u.raw(t, u.header(ct, len(half)), split(half, 4), 300*time.Millisecond)
	if !strings.HasPrefix(got, "HTTP/1.1 400 ") || !strings.Contains(got, "closing boundary") {
		t.Fatalf("an upload cut by its Content-Length: %q", got)
	}
}
