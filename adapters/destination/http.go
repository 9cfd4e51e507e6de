package destination

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/tabnorm/tabnorm/adapters/export"
	"github.com/tabnorm/tabnorm/domain/destination"
	"github.com/tabnorm/tabnorm/domain/webhook"
	"github.com/tabnorm/tabnorm/ports"
)

// The messages an http destination receives, signed as webhooks are
// (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature).
const (
	TypeBatch    = "rows.batch"
	TypeComplete = "rows.complete"
	TypeCheck    = "destination.test"
)

// complete is the last message of a job's delivery: the receiver has
// every batch once the count and checksum match what it kept.
type complete struct {
	Type     string          `json:"type"`
	JobID    string          `json:"job_id"`
	Batches  int             `json:"batches"`
	Rows     int64           `json:"rows"`
	SHA256   string          `json:"sha256"` // of every row's JSON and a newline, in order
	Replaces []string        `json:"replaces"`
	Job      json.RawMessage `json:"job"`
}

// deliverHTTP posts the rows in numbered batches, then the complete
// call. Each message's webhook-id (and Idempotency-Key) is the job's id
// and the batch's number, the same on every attempt: a receiver keeps
// one of each, so a batch sent again is not counted twice.
func (w *Writer) deliverHTTP(ctx context.Context, t destination.Target, s ports.Shipment, cols []export.Column) (ports.Shipped, error) {
	_ = cols // the stored lines are sent as they are: keys in schema order
	r, err := s.Rows(ctx)
	if err != nil {
		return ports.Shipped{}, fmt.Errorf("could not read the job's rows: %w", err)
	}
	defer func() { _ = r.Close() }()
	lines := export.NewLines(r)
	sum := sha256.New()
	var rows, sent int64
	batch := 0
	body := &bytes.Buffer{}
	flush := func(n int) error {
		if n == 0 {
			return nil
		}
		body.WriteString("]}")
		batch++
		if err := w.post(ctx, t, s.JobID+":batch:"+strconv.Itoa(batch), body.Bytes(), "batch "+strconv.Itoa(batch)); err != nil {
			return err
		}
		sent += int64(body.Len())
		return nil
	}
	start := func() {
		body.Reset()
		fmt.Fprintf(body, `{"type":%q,"job_id":%q,"batch":%d,"rows":[`, TypeBatch, s.JobID, batch+1)
	}
	start()
	n := 0
	for {
		line, err := lines.Next()
		if line == nil {
			if err != nil && !errors.Is(err, io.EOF) {
				return ports.Shipped{}, fmt.Errorf("could not read the job's rows: %w", err)
			}
			break
		}
		line = bytes.TrimRight(line, "\r\n")
		if n > 0 {
			body.WriteByte(',')
		}
		body.Write(line)
		sum.Write(line)
		sum.Write([]byte{'\n'})
		n++
		rows++
		if n == w.cfg.BatchRows {
			if err := flush(n); err != nil {
				return ports.Shipped{}, err
			}
			n = 0
			start()
		}
	}
	if err := flush(n); err != nil {
		return ports.Shipped{}, err
	}
	c := complete{Type: TypeComplete, JobID: s.JobID, Batches: batch, Rows: rows, SHA256: hex.EncodeToString(sum.Sum(nil)), Replaces: s.Replaces, Job: s.Job}
	if c.Replaces == nil {
		c.Replaces = []string{}
	}
	last, err := json.Marshal(c)
	if err != nil {
		return ports.Shipped{}, err
	}
	if err := w.post(ctx, t, s.JobID+":complete", last, "the complete call"); err != nil {
		return ports.Shipped{}, err
	}
	return ports.Shipped{Rows: rows, Bytes: sent + int64(len(last)), Checksum: c.SHA256}, nil
}

// post sends one signed message; anything but a 2xx is an error naming
// what was sent.
func (w *Writer) post(ctx context.Context, t destination.Target, msgID string, body []byte, what string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("stopped before %s: %w", what, err)
	}
	now := time.Now()
	sig, err := webhook.Sign([]string{t.Secrets["signing_secret"]}, msgID, now, body)
	if err != nil {
		return errors.New("the destination's signing secret is unreadable; set it again")
	}
	ctx, cancel := context.WithTimeout(ctx, w.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.Config["url"], bytes.NewReader(body))
	if err != nil {
		return errors.New("the endpoint's URL is not valid")
	}
	if req.URL.Scheme != "https" && !w.cfg.AllowPrivate {
		return errors.New("the endpoint's URL must use https")
	}
	for k, v := range map[string]string{"Content-Type": "application/json", "User-Agent": "tabnorm-destinations", "webhook-id": msgID,
		"webhook-timestamp": strconv.FormatInt(now.Unix(), 10), "webhook-signature": sig, "Idempotency-Key": msgID} {
		req.Header.Set(k, v)
	}
	resp, err := w.client.Do(req)
	if err != nil {
		return fmt.Errorf("%s got no answer: %s", what, netReason(err))
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("the endpoint answered %d to %s", resp.StatusCode, what)
	}
	return nil
}

// netReason is a transport error as a sentence, without the URL.
func netReason(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, errRefused):
		return errRefused.Error()
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		return "timed out"
	case errors.Is(err, context.Canceled):
		return "canceled"
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return "the name did not resolve: " + dnsErr.Err
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) {
		return opErr.Op + ": " + opErr.Err.Error()
	}
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 {
		msg = msg[i+2:]
	}
	return msg
}

// checkHTTP sends a signed destination.test message.
func (w *Writer) checkHTTP(ctx context.Context, t destination.Target) error {
	body, _ := json.Marshal(map[string]string{"type": TypeCheck, "destination_id": t.ID})
	return w.post(ctx, t, "test:"+strconv.FormatInt(time.Now().UnixNano(), 36), body, "the test message")
}
