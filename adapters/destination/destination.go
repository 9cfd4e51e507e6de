// Package destination writes succeeded jobs' rows where their
// organizations keep data: a PostgreSQL table (postgres.go), an S3
// bucket (s3.go) or an HTTP endpoint (http.go). It reaches addresses its
// customers choose, so every connection goes through one dialer that
// refuses loopback, private and link-local addresses at the moment of
// connecting (after name resolution, so DNS cannot slip past a check made
// earlier) unless the operator allows them.
//
// Every writer makes an attempt all or nothing and keyed by the job's
// id, so that an attempt made again replaces an earlier one: a table's
// rows go in one transaction that first deletes the job's (and its rerun
// chain's) rows; an object is written whole under the job's id, with a
// manifest written last; an endpoint gets numbered batches with an
// idempotency key and a final complete call. Errors are sentences safe to
// show the organization: they never carry a credential.
package destination

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"net"
	"net/http"
	"syscall"
	"time"

	"github.com/tabnorm/tabnorm/adapters/export"
	"github.com/tabnorm/tabnorm/domain/destination"
	"github.com/tabnorm/tabnorm/domain/schema"
	"github.com/tabnorm/tabnorm/domain/webhook"
	"github.com/tabnorm/tabnorm/ports"
)

// Config holds the writers' settings.
type Config struct {
	// AllowPrivate lets writers reach loopback and private addresses
	// (tests, closed networks). Off by default.
	AllowPrivate bool
	// Timeout bounds connecting and each request (0: 30 s).
	Timeout time.Duration
	// BatchRows is how many rows an HTTP batch carries (0: 1000).
	BatchRows int
	// TempDir holds the files an S3 upload is made from ("": the system's).
	TempDir string
}

// Writer implements ports.DestinationWriter for every type.
type Writer struct {
	cfg    Config
	dialer *net.Dialer
	client *http.Client // an http destination's
}

var _ ports.DestinationWriter = (*Writer)(nil)

// New returns the writer.
func New(cfg Config) *Writer {
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	if cfg.BatchRows <= 0 {
		cfg.BatchRows = 1000
	}
	d := &net.Dialer{Timeout: cfg.Timeout, KeepAlive: 30 * time.Second}
	if !cfg.AllowPrivate {
		d.Control = func(_, address string, _ syscall.RawConn) error {
			if webhook.RefusedHostPort(address) {
				return fmt.Errorf("%s: %w", address, errRefused)
			}
			return nil
		}
	}
	client := &http.Client{
		Transport: &http.Transport{Proxy: nil, DialContext: d.DialContext, TLSHandshakeTimeout: cfg.Timeout, ResponseHeaderTimeout: cfg.Timeout,
			MaxIdleConnsPerHost: 2, IdleConnTimeout: 90 * time.Second, ForceAttemptHTTP2: true},
		// A redirect could lead anywhere, internal addresses included.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return &Writer{cfg: cfg, dialer: d, client: client}
}

// errRefused is the dialer's answer to an address it won't reach.
var errRefused = errors.New("refused: the address is private, loopback or link-local (TABNORM_DESTINATION_ALLOW_PRIVATE is off)")

// Deliver implements ports.DestinationWriter.
func (w *Writer) Deliver(ctx context.Context, t destination.Target, s ports.Shipment) (ports.Shipped, error) {
	cols, err := columns(s)
	if err != nil {
		return ports.Shipped{}, err
	}
	switch t.Type {
	case destination.Postgres:
		return w.deliverPostgres(ctx, t, s, cols)
	case destination.S3:
		return w.deliverS3(ctx, t, s, cols)
	case destination.HTTP:
		return w.deliverHTTP(ctx, t, s, cols)
	}
	return ports.Shipped{}, fmt.Errorf("unknown destination type %q", t.Type)
}

// Check implements ports.DestinationWriter.
func (w *Writer) Check(ctx context.Context, t destination.Target) error {
	switch t.Type {
	case destination.Postgres:
		return w.checkPostgres(ctx, t)
	case destination.S3:
		return w.checkS3(ctx, t)
	case destination.HTTP:
		return w.checkHTTP(ctx, t)
	}
	return fmt.Errorf("unknown destination type %q", t.Type)
}

// columns are the job's output columns, from its schema.
func columns(s ports.Shipment) ([]export.Column, error) {
	if s.Schema == nil {
		return nil, errors.New("the job has no target schema: only jobs with one are delivered")
	}
	sch, err := schema.Parse(s.Schema)
	if err != nil {
		return nil, fmt.Errorf("the job's schema: %w", err)
	}
	return export.Columns(sch), nil
}

// rowReader reads a job's stored rows a line at a time into texts by
// column; null reports a null (or missing) value.
type rowReader struct {
	lines *export.Lines
	line  *export.Line
	names []string
	texts []string
	nulls []bool
	vals  []any
}

func newRowReader(r io.Reader, cols []export.Column) *rowReader {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	return &rowReader{lines: export.NewLines(r), line: export.NewLine(names), names: names, texts: make([]string, len(cols)),
		nulls: make([]bool, len(cols)), vals: make([]any, len(cols))}
}

// next reads the next row; false at the end.
func (rr *rowReader) next() (bool, error) {
	b, err := rr.lines.Next()
	switch {
	case err != nil && !errors.Is(err, io.EOF):
		return false, err
	case b == nil:
		return false, nil
	}
	if rr.line.Read(b) {
		for i := range rr.texts {
			rr.texts[i], rr.nulls[i] = rr.line.Text(i), rr.line.Kind(i) == export.Null
		}
		return true, nil
	}
	if err := export.DecodeLine(b, rr.names, rr.vals); err != nil {
		return false, fmt.Errorf("a stored row is unreadable: %w", err)
	}
	for i, v := range rr.vals {
		rr.nulls[i] = v == nil
		switch v := v.(type) {
		case nil:
			rr.texts[i] = ""
		case string:
			rr.texts[i] = v
		case json.Number:
			rr.texts[i] = v.String()
		case bool:
			rr.texts[i] = fmt.Sprint(v)
		default:
			out, _ := json.Marshal(v)
			rr.texts[i] = string(out)
		}
	}
	return true, nil
}

// counter counts and hashes what passes through it.
type counter struct {
	w io.Writer
	n int64
	h hash.Hash
}

func newCounter(w io.Writer) *counter { return &counter{w: w, h: sha256.New()} }

func (c *counter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	c.h.Write(p[:n])
	return n, err
}

func (c *counter) sum() string { return hex.EncodeToString(c.h.Sum(nil)) }
