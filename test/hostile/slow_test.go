package hostile

import (
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// TestSlowClients: connections that stop sending — in the headers or in a
// body — are closed after short deadlines, 200 of them at once; a JSON
// body trickled a byte at a time is cut at the body timeout.
func TestSlowClients(t *testing.T) {
	t.Parallel()
	app := apptest.Start(t, sqltest.SQLite(t), func(c *bootstrap.Config) {
		c.HTTP.HeaderTimeout, c.HTTP.BodyIdleTimeout, c.HTTP.BodyTimeout = time.Second, time.Second, 3*time.Second
	})
	key := app.Key(app.Org("Acme", identity.Normalize))
	addr := strings.TrimPrefix(app.URL, "http://")
	dial := func() net.Conn {
		t.Helper()
		conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		return conn
	}
	// closedWithin reads until the server ends the connection (after an
	// answer or without one) and fails when that takes longer than limit.
	closedWithin := func(conn net.Conn, limit time.Duration) string {
		t.Helper()
		_ = conn.SetReadDeadline(time.Now().Add(limit))
		got, err := io.ReadAll(conn)
		if err != nil {
			t.Errorf("connection still open after %s: %v", limit, err)
		}
		return string(got)
	}

	// 200 connections: half stop in their headers, half after the
	// headers of a body they never send.
	conns := make([]net.Conn, 200)
	for i := range conns {
		conns[i] = dial()
		req := "POST /auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
		if i%2 == 0 {
			req = "GET /healthz HTTP/1.1\r\nHost: x\r\n"
		}
		if _, err := io.WriteString(conns[i], req); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	var wg sync.WaitGroup
	for _, conn := range conns {
		wg.Go(func() { closedWithin(conn, 10*time.Second) })
	}
	wg.Wait()
	t.Logf("200 stalled connections closed within %s", time.Since(start).Round(time.Millisecond))

	// A JSON body trickled a byte every 300 ms is cut at the 3 s body timeout.
	conn := dial()
	body := `{"name":"slow","schema":` + apptest.PeopleSchema + `}`
	fmt.Fprintf(conn, "POST /v1/schemas HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", key, len(body))
	start = time.Now()
	go func() {
		for i := range len(body) {
			if _, err := conn.Write([]byte{body[i]}); err != nil {
				return
			}
			time.Sleep(300 * time.Millisecond)
		}
	}()
	trickled := closedWithin(conn, 10*time.Second)
	if took := time.Since(start); took > 6*time.Second || !strings.Contains(trickled, " 400 ") {
		t.Errorf("trickled JSON body: answered after %s with %q", took, firstLine(trickled))
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\r\n")
	return line
}
