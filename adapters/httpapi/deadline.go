package httpapi

import (
	"errors"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/tabnorm/tabnorm/domain"
)

// Default read bounds of a request body (Config.BodyIdleTimeout and
// Config.BodyTimeout).
const (
	defaultBodyIdle = 15 * time.Second
	defaultBody     = 30 * time.Second
)

// bodyDeadlines bounds how slowly a client may send a body. Every body
// must keep arriving: a pause longer than the idle timeout cuts it, and
// each read that brings bytes pushes the deadline on, so a 1 GiB upload
// takes as long as it takes while bytes flow. Bodies other than uploads
// (JSON, at most 1 MiB) must also be complete within the body timeout, so
// a client trickling a byte at a time cannot hold a connection for long.
// Requests without a body get no read deadline: an event stream or a
// download lasts as long as it needs (their write deadlines are their
// handlers' business).
func (a *API) bodyDeadlines(c *gin.Context) {
	r := c.Request
	if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
		c.Next()
		return
	}
	idle, total := a.cfg.BodyIdleTimeout, a.cfg.BodyTimeout
	if idle <= 0 {
		idle = defaultBodyIdle
	}
	if total <= 0 {
		total = defaultBody
	}
	var end time.Time
	if !(r.Method == http.MethodPost && (c.FullPath() == "/v1/jobs" || c.FullPath() == "/v1/connect/files")) {
		end = time.Now().Add(total)
	}
	b := &deadlineBody{body: r.Body, rc: http.NewResponseController(c.Writer), idle: idle, end: end}
	b.extend()
	r.Body = b
	c.Next()
}

type deadlineBody struct {
	body io.ReadCloser
	rc   *http.ResponseController
	idle time.Duration
	end  time.Time // zero: no overall bound
	done bool
}

func (b *deadlineBody) extend() {
	d := time.Now().Add(b.idle)
	if !b.end.IsZero() && b.end.Before(d) {
		d = b.end
	}
	_ = b.rc.SetReadDeadline(d)
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	if b.done {
		return b.body.Read(p)
	}
	n, err := b.body.Read(p)
	switch {
	case err == io.EOF:
		// The body is complete: clear the deadline, so the server's own
		// wait for the connection's next request or end is not cut short.
		b.done = true
		_ = b.rc.SetReadDeadline(time.Time{})
	case errors.Is(err, os.ErrDeadlineExceeded):
		// Left expired: the server's attempt to read the rest fails too,
		// and it closes the connection.
		b.done = true
		err = errBodyTooSlow
	case err != nil:
		b.done = true
	case n > 0:
		b.extend()
	}
	return n, err
}

func (b *deadlineBody) Close() error { return b.body.Close() }

// errBodyTooSlow is what a body read returns once the client stopped
// sending in time.
var errBodyTooSlow = domain.Invalid("The request body stopped arriving in time.")
